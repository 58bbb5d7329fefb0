// The default policy's knowledge (== agents/plans.py); see plans.hpp. Each function keeps the Python one's
// order of floating-point operations, and its order of candidates where the first of equals wins.
#include "plans.hpp"

#include <algorithm>

#include "py_sum.hpp"
#include "scoring.hpp"

namespace ft {
namespace plans {

namespace {

constexpr double pot_of(int top) {
  return top == 0 ? 0.0 : top == 8 ? 15.0 : top == NONE ? 15.0 : static_cast<double>(top - 1 + (top < 9 ? 1 : 0));
}

bool placeable(int top, int v) { return top == NONE || can_place(top, v); }

// values without the one at index i (each_distinct's "others")
void without(const Vals& values, int i, Vals& out) {
  out.n = 0;
  for (int k = 0; k < values.n; ++k)
    if (k != i) out.push(values.v[k]);
}

bool memo_order(int anchor, const Vals& values, bool under, Vals& out);

// _best_order for chain (under = false: onto a top) and chain_under (under = true: under a bottom)
bool best_order(int anchor, const Vals& values, bool under, Vals& out) {
  out.n = 0;
  if (values.n == 0) return true;
  const double* pot = under ? kBpot : kPot;
  bool found = false;
  double best_pot = -1.0;
  Vals others, rest;
  int prev = -1;
  for (int i = 0; i < values.n; ++i) {
    const int v = values.v[i];
    if (v == prev) continue;  // each_distinct: equal values branch once
    prev = v;
    const bool fits = under ? (v != 0 && placeable(v, anchor)) : placeable(anchor, v);
    if (!fits) continue;
    without(values, i, others);
    if (!memo_order(v, others, under, rest)) continue;
    const int final_v = rest.n ? rest.back() : v;
    if (pot[final_v] > best_pot) {
      best_pot = pot[final_v];
      found = true;
      out.n = 0;
      out.push(v);
      for (int k = 0; k < rest.n; ++k) out.push(rest.v[k]);
    }
  }
  return found;
}

// a memo of chain and chain_under (plans.py memoises them too): a function of (anchor, direction, values),
// direct-mapped, whole keys compared, so a hit returns exactly what the computation would
struct OrderMemo {
  static constexpr int kSlots = 1 << 13;
  struct Slot {
    uint64_t key = ~0ULL;
    bool ok = false;
    Vals order;
  };
  Slot slots[kSlots];
};

// the memo key: up to 11 values of 4 bits, their count, the anchor (0..16) and the direction; 0 if too many
uint64_t order_key(int anchor, const Vals& values, bool under) {
  if (values.n > 11) return ~0ULL;
  uint64_t key = (static_cast<uint64_t>(anchor) << 1) | (under ? 1u : 0u);
  key |= static_cast<uint64_t>(values.n) << 6;
  for (int i = 0; i < values.n; ++i) key |= static_cast<uint64_t>(values.v[i]) << (10 + 4 * i);
  return key;
}

bool memo_order(int anchor, const Vals& values, bool under, Vals& out) {
  thread_local OrderMemo memo;
  const uint64_t key = order_key(anchor, values, under);
  if (key == ~0ULL) return best_order(anchor, values, under, out);
  OrderMemo::Slot& slot = memo.slots[(key * 0x9E3779B97F4A7C15ULL) >> (64 - 13)];
  if (slot.key == key) {
    out = slot.order;
    return slot.ok;
  }
  const bool ok = best_order(anchor, values, under, out);  // (its recursion may take this slot meanwhile)
  slot.key = key;
  slot.ok = ok;
  slot.order = out;
  return ok;
}

bool chain_under(int bottom, const Vals& values, Vals& out) { return memo_order(bottom, values, true, out); }

// sand_build(tower, values): the best Great Powers sand tower after adding `values`, all at one end
bool sand_build(const uint8_t* tw, int n, const Vals& values, Vals& out) {
  Vals options[kMaxTower];
  int nopt = 0;
  Vals order;
  if (chain(n ? tw[n - 1] : NONE, values, order)) {
    Vals& o = options[nopt++];
    o.n = 0;
    for (int i = 0; i < n; ++i) o.push(tw[i]);
    for (int i = 0; i < order.n; ++i) o.push(order.v[i]);
  }
  if (n && tw[n - 1] != 0) {
    Vals under;
    if (chain_under(tw[0], values, under)) {
      Vals& o = options[nopt++];
      o.n = 0;
      for (int i = under.n; i-- > 0;) o.push(under.v[i]);
      for (int i = 0; i < n; ++i) o.push(tw[i]);
    }
  } else if (!n && values.n > 1) {
    int prev = -1;
    Vals others, under;
    for (int i = 0; i < values.n; ++i) {
      const int v = values.v[i];
      if (v == prev) continue;
      prev = v;
      without(values, i, others);
      if (chain_under(v, others, under)) {
        Vals& o = options[nopt++];
        o.n = 0;
        for (int k = under.n; k-- > 0;) o.push(under.v[k]);
        o.push(v);
      }
    }
  }
  if (!nopt) return false;
  int best = 0;
  double best_room = tower_room(options[0].v, options[0].n, true);
  for (int i = 1; i < nopt; ++i) {  // max(): the first of equals
    const double room = tower_room(options[i].v, options[i].n, true);
    if (room > best_room) best = i, best_room = room;
  }
  out = options[best];
  return true;
}

// _type_gain: score change plus beta x potential change of building the sorted `values` on one tower
bool type_gain(const Tower& tower, const Vals& values, double beta, bool sand_gp, double& gain) {
  if (sand_gp) {
    Vals nw;
    if (!sand_build(tower.v, tower.n, values, nw)) return false;
    const int n_old = tower.n, n_new = nw.n;
    const int points = (nw.back() == 0 ? 2 * n_new : n_new) - n_old;
    gain = points + beta * (tower_room(nw.v, nw.n, true) - tower_room(tower, true));
    return true;
  }
  Vals order;
  if (!chain(tower.n ? tower.top() : NONE, values, order)) return false;
  const int k = order.n, last = order.back();
  const int points = last == 0 ? tower.n + 2 * k : k;
  gain = points + beta * (kPot[last] - (tower.n ? kPot[tower.top()] : kPot[NONE]));
  return true;
}

int count_of(const uint8_t* v, int n, int x) {
  int c = 0;
  for (int i = 0; i < n; ++i) c += v[i] == x;
  return c;
}

// the engine's pair bonus of a candy and a scary tower holding these values
int pairs(const Vals& candy, const Vals& scary) {
  if (!scary.n || !candy.n) return 0;
  int cs[kNumValues] = {0}, cc[kNumValues] = {0};
  for (int i = 0; i < scary.n; ++i) ++cs[scary.v[i]];
  for (int i = 0; i < candy.n; ++i) ++cc[candy.v[i]];
  int p = 0;
  for (int v = 0; v < kNumValues; ++v) p += std::min(cs[v], cc[v]);
  return PAIR_VP * p;
}

int pair_gain(const Vals& same, const Vals& other, int value) {
  return count_of(other.v, other.n, value) > count_of(same.v, same.n, value) ? PAIR_VP : 0;
}

void sorted_with(const Vals& sel, int v, Vals& out) {
  out = sel;
  out.push(v);
  std::sort(out.v, out.v + out.n);
}

}  // namespace

const double kPot[NONE + 1] = {pot_of(0),  pot_of(1),  pot_of(2),  pot_of(3),  pot_of(4),  pot_of(5),
                               pot_of(6),  pot_of(7),  pot_of(8),  pot_of(9),  pot_of(10), pot_of(11),
                               pot_of(12), pot_of(13), pot_of(14), pot_of(15), pot_of(NONE)};

namespace {
constexpr double bpot_of(int b) {
  int c = 0;
  for (int v = 1; v < kNumValues; ++v) c += (v == 8 || b == 9 || b < v) ? 1 : 0;  // placeable(v, b): b onto v
  return static_cast<double>(c);
}
}  // namespace

const double kBpot[kNumValues] = {bpot_of(0),  bpot_of(1),  bpot_of(2),  bpot_of(3), bpot_of(4),  bpot_of(5),
                                  bpot_of(6),  bpot_of(7),  bpot_of(8),  bpot_of(9), bpot_of(10), bpot_of(11),
                                  bpot_of(12), bpot_of(13), bpot_of(14), bpot_of(15)};

double game_left(int deck, bool ran_out, int num_players) {
  const int total = num_players <= 3 ? 80 : 110;
  const double extra = 0.5 * total;
  const double left = deck + (ran_out ? 0.0 : extra);
  return std::min(1.0, left / (total - 5 + extra));
}

bool chain(int top, const Vals& values, Vals& out) { return memo_order(top, values, false, out); }

double tower_room(const uint8_t* tw, int n, bool sand_gp) {
  if (!n) return kPot[NONE];
  const int top = tw[n - 1];
  if (sand_gp && top) return kPot[top] + kBpot[tw[0]];
  return kPot[top];
}

bool build_tower(const Tower& tower, const Vals& values, bool sand_gp, Vals& out) {
  if (sand_gp) return sand_build(tower.v, tower.n, values, out);
  Vals order;
  if (!chain(tower.n ? tower.top() : NONE, values, order)) return false;
  out.n = 0;
  for (int i = 0; i < tower.n; ++i) out.push(tower.v[i]);
  for (int i = 0; i < order.n; ++i) out.push(order.v[i]);
  return true;
}

void make_plan(const Towers& towers, const uint8_t* cards, int ncards, double beta, bool gp, const uint8_t* chosen,
               int nchosen, Vals& plan, double* cum, int& ncum) {
  Vals sel[kNumTypes];  // the chosen values per type, in the order chosen
  int lengths[kNumTypes];
  for (int t = 0; t < kNumTypes; ++t) lengths[t] = towers[t].n;
  const int base_main = *std::max_element(lengths, lengths + kNumTypes);
  double gains[kNumTypes] = {0.0, 0.0, 0.0, 0.0, 0.0};
  Vals work;
  if (nchosen) {
    for (int i = 0; i < nchosen; ++i) sel[type_of(chosen[i])].push(value_of(chosen[i]));
    for (int t = 0; t < kNumTypes; ++t) {
      if (!sel[t].n) continue;
      lengths[t] += sel[t].n;
      work = sel[t];
      std::sort(work.v, work.v + work.n);
      double g;
      gains[t] = type_gain(towers[t], work, beta, gp && t == SAND, g) ? g : 0.0;
    }
  }
  int pair_now = 0;
  Vals candy, scary;
  if (gp) {
    for (int i = 0; i < towers[CANDY].n; ++i) candy.push(towers[CANDY].v[i]);
    for (int i = 0; i < sel[CANDY].n; ++i) candy.push(sel[CANDY].v[i]);
    for (int i = 0; i < towers[SCARY].n; ++i) scary.push(towers[SCARY].v[i]);
    for (int i = 0; i < sel[SCARY].n; ++i) scary.push(sel[SCARY].v[i]);
    pair_now = pairs(candy, scary);
  }
  int main_now = *std::max_element(lengths, lengths + kNumTypes);
  double value = ftcore::py_sum(gains, kNumTypes) + main_now - base_main + pair_now;
  uint8_t remaining[kMaxCards];
  int nrem = ncards;
  for (int i = 0; i < ncards; ++i) remaining[i] = cards[i];
  plan.n = 0;
  ncum = 0;
  cum[ncum++] = value;
  // a card's gain depends only on its own type's selection: kept per card until its type changes
  bool known[kNumCardIds] = {false};
  bool buildable[kNumCardIds];
  double gain_of[kNumCardIds];
  while (nrem) {
    int best_i = -1;
    double best_v = -1e18, best_g = 0.0;
    int prev = -1;
    for (int i = 0; i < nrem; ++i) {
      const int c = remaining[i];
      if (c == prev) continue;
      prev = c;
      const int t = type_of(c), v = value_of(c);
      if (!known[c]) {
        if (sel[t].n) sorted_with(sel[t], v, work);
        else work.n = 0, work.push(v);
        buildable[c] = type_gain(towers[t], work, beta, gp && t == SAND, gain_of[c]);
        known[c] = true;
      }
      if (!buildable[c]) continue;
      const double g = gain_of[c];
      int main = lengths[t] + 1;
      if (main < main_now) main = main_now;
      double total = value - gains[t] + g + (main - main_now);
      if (gp && (t == CANDY || t == SCARY)) total += t == CANDY ? pair_gain(candy, scary, v) : pair_gain(scary, candy, v);
      if (total > best_v) best_i = i, best_v = total, best_g = g;
    }
    if (best_i < 0) break;
    const int c = remaining[best_i];
    for (int k = best_i; k + 1 < nrem; ++k) remaining[k] = remaining[k + 1];
    --nrem;
    const int t = type_of(c), v = value_of(c);
    sel[t].push(v);
    for (int x = 0; x < kNumValues; ++x) known[card_id(t, x)] = false;
    gains[t] = best_g;
    lengths[t] += 1;
    if (lengths[t] > main_now) main_now = lengths[t];
    if (gp && t == CANDY) candy.push(v);
    else if (gp && t == SCARY) scary.push(v);
    value = best_v;
    plan.push(c);
    cum[ncum++] = value;
  }
  const double base = cum[0];
  for (int i = 0; i < ncum; ++i) cum[i] = cum[i] - base;
}

int choose_bid(const double* cum, int ncum, int low, bool first, uint64_t allowed, bool use_allowed) {
  int best_k = -1;
  double best_v = -1e18;
  for (int k = low; k < ncum; ++k) {
    if (use_allowed && !((allowed >> k) & 1)) continue;
    if (cum[k] > best_v && cum[k] > NEG_INF) best_k = k, best_v = cum[k];
  }
  if (best_k < 0) return -1;
  if (!first && best_v <= 0.0) return -1;
  return best_k;
}

double pay_value(const Towers& towers, int m, double beta) {
  const Tower& tree = towers[TREE];
  const int kept = tree.n - m;
  int main_before = 0, main_after = kept;
  for (int t = 0; t < kNumTypes; ++t) {
    main_before = std::max(main_before, static_cast<int>(towers[t].n));
    if (t != TREE) main_after = std::max(main_after, static_cast<int>(towers[t].n));
  }
  return -m + main_after - main_before + beta * (tower_room(tree.v, kept, false) - tower_room(tree, false));
}

void bid_options(const Towers& towers, const Display& display, double beta, bool gp, BidOptions& out) {
  double cum[kMaxBidOptions];
  int ncum;
  make_plan(towers, display.v, display.n, beta, gp, nullptr, 0, out.cards[0], cum, ncum);
  out.n = ncum;
  for (int k = 0; k < ncum; ++k) {
    out.values[k] = cum[k];
    out.how_plan[k] = 0;
    out.how_j[k] = static_cast<uint8_t>(k);
    out.how_m[k] = 0;
  }
  const Tower& tree = towers[TREE];
  if (!(gp && tree.n && !tree.has_zero())) return;
  uint8_t nt[8];
  int nnt = 0;
  for (int i = 0; i < display.n; ++i)
    if (type_of(display.v[i]) != TREE) nt[nnt++] = display.v[i];
  double cum2[kMaxBidOptions];
  int ncum2;
  int plan2 = 0;
  if (nnt == display.n) {
    for (int k = 0; k < ncum; ++k) cum2[k] = cum[k];
    ncum2 = ncum;
  } else {
    make_plan(towers, nt, nnt, beta, gp, nullptr, 0, out.cards[1], cum2, ncum2);
    plan2 = 1;
  }
  for (int m = 1; m <= tree.n; ++m) {
    const double pay = pay_value(towers, m, beta);
    for (int j = 0; j < ncum2; ++j) {
      const int k = j + m;
      while (out.n <= k) {
        out.values[out.n] = NEG_INF;
        out.how_plan[out.n] = -1;
        out.how_j[out.n] = 0;
        out.how_m[out.n] = 0;
        ++out.n;
      }
      if (cum2[j] + pay > out.values[k]) {
        out.values[k] = cum2[j] + pay;
        out.how_plan[k] = static_cast<int8_t>(plan2);
        out.how_j[k] = static_cast<uint8_t>(j);
        out.how_m[k] = static_cast<uint8_t>(m);
      }
    }
  }
}

}  // namespace plans
}  // namespace ft

// heuristic.py's _Context (Evaluator) and builder.py's transitions as the agents walk them, ported line for
// line: every value is computed with the same double operations in the same order as the Python code it names
// (Python's float is an IEEE double; -std=c++17 is an ISO mode, in which GCC fuses no multiply-add), so the
// values are bit for bit the Python ones. Where Python takes a max over a set or a dict, the order of the
// candidates cannot change the result (a max of exactly computed doubles, and rounding is monotone), so the
// loops here need not follow Python's set or dict order; where the first of equal values wins (the agents'
// choices), they do follow it.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "heuristic.hpp"

namespace ft {
namespace agents {

namespace {

constexpr double kNeg = -std::numeric_limits<double>::infinity();
constexpr int kKeys = kBidCap * 2 * kHeightCap;  // bid_values' (count, torn, height)
// plan_value's memo starts again past this many rounds (values never change; a thread keeps its evaluator, so
// this bounds what it holds: a Great Powers round's search meets about 3,000)
constexpr size_t kMemoCap = 1 << 16;

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;

// a hash of the list's length and its first n items (the rest of its array is stale), eight bytes at a time
template <class L>
uint64_t mix(uint64_t seed, const L& l) {
  uint64_t h = (seed * 0x100 + l.n + 1) * kMul;
  const uint8_t* p = l.v;
  int n = l.n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  if (n) {  // the tail in a register (a short memcpy through memory stalls the load after it)
    uint64_t w = 0;
    for (int i = 0; i < n; ++i) w |= static_cast<uint64_t>(p[i]) << (8 * i);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  return h;
}

}  // namespace

uint64_t RoundMemo::hash(const Round& r) {
  // one lane per list, independent of each other (the processor overlaps them), summed with odd weights
  uint64_t h = (static_cast<uint64_t>(r.phase * 64 + r.need * 4 + r.sand_end) + 1) * kMul;
  if (r.phase == ROUND_TAKE) h += mix(r.took_tree + 1, r.display) * 0xD6E8FEB86659FD93ULL;
  h += mix(2, r.hand) * 0xFF51AFD7ED558CCDULL + mix(3, r.pile) * 0xC4CEB9FE1A85EC53ULL;
  for (int t = 0; t < kNumTypes; ++t) h += mix(4 + t, r.towers[t]) * (0x94D049BB133111EBULL + 2 * t);
  h ^= h >> 32;
  h *= kMul;
  return h ^ (h >> 29);
}

void round_step(Round& r, int action, bool gp) {
  if (r.phase == ROUND_TAKE) {
    if (action == STOP) {  // pay the cards still needed from the tree tower's top
      for (int k = 0; k < r.need; ++k) r.towers[TREE].pop();
      r.need = 0;
      r.phase = ROUND_TEARDOWN;
      return;
    }
    const int c = action - TAKE;
    r.need -= 1;
    r.hand.insert_sorted(c);
    r.display.remove_one(c);
    r.took_tree = r.took_tree || type_of(c) == TREE;
    if (r.need == 0) r.phase = ROUND_TEARDOWN;
    return;
  }
  if (r.phase == ROUND_TEARDOWN) {
    if (action != NO_TEARDOWN) {
      const int t = action - TEARDOWN;
      r.pile.insert_sorted(t * kNumValues + r.towers[t].top());
      r.towers[t].pop();
    }
    r.phase = r.hand.empty() ? ROUND_DONE : ROUND_BUILD;
    return;
  }
  if (r.phase == ROUND_RECOVER && action == NO_RECOVER) {
    r.phase = r.hand.empty() ? ROUND_DONE : ROUND_BUILD;
    return;
  }
  bool bottom;
  int c;
  if (r.phase == ROUND_BUILD) {
    bottom = action >= BUILD_BOTTOM;
    c = bottom ? action - BUILD_BOTTOM + SAND * kNumValues : action - BUILD;
    r.hand.remove_one(c);
  } else {
    bottom = action >= RECOVER_BOTTOM;
    c = bottom ? action - RECOVER_BOTTOM + SAND * kNumValues : action - RECOVER;
    r.pile.remove_one(c);
  }
  const int t = type_of(c);
  if (gp && t == SAND) {  // the sand power: the end the action names
    Placement pl[2];
    const int k = placements(r.towers, c, r.sand_end, true, pl);
    for (int j = 0; j < k; ++j)
      if (pl[j].bottom == bottom) {
        r.towers[t] = pl[j].tower;
        r.sand_end = pl[j].end;
        break;
      }
  } else {
    r.towers[t].push(value_of(c));
  }
  r.phase = phase_after_build(c, r.pile, r.hand, gp);
}

void Evaluator::reset(const int* unseen, bool gp, const HeuristicParams& p) {
  ready_ = true;
  gp_ = gp;
  p_ = p;
  memo_.clear();
  if (dirty_) {
    std::fill(states_.begin(), states_.end(), kNeg);
    std::fill(best_.begin(), best_.end(), kNeg);
    std::fill(next_.begin(), next_.end(), kNeg);
    dirty_ = false;
  }
  std::copy(unseen, unseen + kNumCardIds, unseen_);
  for (int t = 0; t < kNumTypes; ++t) {
    zero_[t] = unseen[t * kNumValues] > 0;
    bool s[kNumValues] = {false};  // _present: the unseen non-zero values
    int total = 0;
    for (int v = 1; v < kNumValues; ++v) total += s[v] = unseen[t * kNumValues + v] > 0;
    for (int top = 0; top <= kEmpty; ++top) {  // _chain_table
      int& out = chain_[t][top];
      if (top == 0) {
        out = 0;
        continue;
      }
      if (top == 8 || top == kEmpty) {
        out = total;
        continue;
      }
      int reach = top, extra = 0;
      if (top < 9 && s[9]) reach = 9, extra = 1;
      if (s[8] && 8 < reach) {
        out = total;
        continue;
      }
      out = extra;
      for (int v = 1; v < reach; ++v) out += s[v];
    }
    for (int b = 0; b < kNumValues; ++b) {  // _under_table
      if (b == 9 || s[8]) {
        under_[t][b] = total;
        continue;
      }
      int count = 0;
      for (int v = b + 1; v < kNumValues; ++v) count += s[v];
      under_[t][b] = count;
    }
  }
}

bool Evaluator::serves(const int* unseen, bool gp, const HeuristicParams& p) const {
  return ready_ && gp == gp_ && std::equal(unseen, unseen + kNumCardIds, unseen_) &&
         std::memcmp(&p, &p_, sizeof p) == 0;
}

double Evaluator::tower_value(int t, const Tower& tw) const {
  const int n = tw.n;
  if (n && tw.v[n - 1] == 0) return 2.0 * n;
  const int top = n ? tw.v[n - 1] : kEmpty;
  int chain = chain_[t][top];
  if (gp_ && t == SAND && n) chain = std::min(chain + under_[t][tw.v[0]], chain_[t][kEmpty]);
  double v = n + p_.chain_weight * chain;
  if (zero_[t]) v += p_.zero_weight * (n + 1);
  return v;
}

double Evaluator::pair_value(const uint8_t* candy, int nc, const uint8_t* scary, int ns) const {
  if (!nc && !ns) return 0.0;
  int cc[kNumValues] = {0}, cs[kNumValues] = {0};
  for (int i = 0; i < nc; ++i) ++cc[candy[i]];
  for (int i = 0; i < ns; ++i) ++cs[scary[i]];
  const bool candy_topped = nc && candy[nc - 1] == 0, scary_topped = ns && scary[ns - 1] == 0;
  int pairs = 0, open_pairs = 0;
  for (int v = 0; v < kNumValues; ++v) {
    const int c = cc[v], s = cs[v];
    pairs += std::min(c, s);
    if (c > s && unseen_[SCARY * kNumValues + v] && !scary_topped) ++open_pairs;
    else if (s > c && unseen_[CANDY * kNumValues + v] && !candy_topped) ++open_pairs;
  }
  return 3.0 * pairs + p_.pair_weight * open_pairs;
}

double Evaluator::pile_cost(const Towers& towers, int m) const {
  double cost = static_cast<double>(m * (m + 1) / 2);
  if (gp_ && m) {
    const Tower& scrap = towers[SCRAP];
    if (!(scrap.n && scrap.top() == 0) && chain_[SCRAP][scrap.n ? scrap.top() : kEmpty])
      cost *= 1.0 - p_.recover_relief;
  }
  return cost;
}

double Evaluator::evaluate(const Towers& towers, int pile_size) const {
  double v = 0.0;
  int main = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    v += tower_value(t, towers[t]);
    if (towers[t].n > main) main = towers[t].n;
  }
  v += main - pile_cost(towers, pile_size);
  if (gp_) v += pair_value(towers[CANDY].v, towers[CANDY].n, towers[SCARY].v, towers[SCARY].n);
  return v;
}

double Evaluator::plan_value(const Round& r) {
  const uint64_t h = RoundMemo::hash(r);
  double v;
  if (memo_.find(r, h, v)) return v;
  if (r.phase == ROUND_DONE) {
    v = evaluate(r.towers, r.pile.n);
  } else {
    v = kNeg;
    for_each_move(r, gp_, [&](int, const Round& child) {
      const double cv = plan_value(child);
      if (cv > v) v = cv;
    });
  }
  if (memo_.size() >= kMemoCap) memo_.clear();
  memo_.put(r, h, v);
  return v;
}

// tower_finals: the best tower_value over every tower reached by building all the values in `counts` onto
// work[t] in some order (the engine's placements, one sand end per round); false where there is none
bool Evaluator::best_final(int t, const int* counts, int left, int end, Towers& work, double& best) const {
  if (!left) {
    const double v = tower_value(t, work[t]);
    if (v > best) best = v;
    return true;
  }
  bool found = false;
  int rest[kNumValues];
  std::copy(counts, counts + kNumValues, rest);
  for (int v = 0; v < kNumValues; ++v) {
    if (!rest[v]) continue;
    Placement pl[2];
    const int k = placements(work, card_id(t, v), end, gp_, pl);
    --rest[v];
    for (int j = 0; j < k; ++j) {
      const Tower keep = work[t];
      work[t] = pl[j].tower;
      found = best_final(t, rest, left - 1, pl[j].end, work, best) || found;
      work[t] = keep;
    }
    ++rest[v];
  }
  return found;
}

// _type_options: (cards taken, torn, value, height) for every distinct sub-multiset of the type's display
// `values` built on tw, with and without its top torn down first; `cards` (when given) gets each option's
// base + sub, the values pair_value reads
void Evaluator::type_options(int t, const Tower& tw, const uint8_t* values, int nv, Option* out, int& n,
                             Tower* cards) const {
  int distinct[8], most[8], cur[8], m = 0;
  for (int i = 0; i < nv; ++i) {
    if (m && distinct[m - 1] == values[i]) {
      ++most[m - 1];
      continue;
    }
    distinct[m] = values[i];
    most[m] = 1;
    cur[m++] = 0;
  }
  n = 0;
  while (true) {
    int counts[kNumValues] = {0}, size = 0;
    for (int i = 0; i < m; ++i) counts[distinct[i]] = cur[i], size += cur[i];
    for (int torn = 0; torn < (tw.tearable() ? 2 : 1); ++torn) {
      Tower base = tw;
      if (torn) base.pop();
      Towers work{};
      work[t] = base;
      double best = kNeg;
      if (!best_final(t, counts, size, END_NONE, work, best)) continue;
      out[n] = Option{size, torn, best, base.n + size};
      if (cards) {  // base + sub: the sub in ascending order, as combinations of the sorted display give it
        Tower& c = cards[n];
        c = base;
        for (int i = 0; i < m; ++i)
          for (int k = 0; k < cur[i]; ++k) c.push(distinct[i]);
      }
      ++n;
    }
    int i = 0;
    while (i < m && cur[i] == most[i]) cur[i++] = 0;
    if (i == m) return;
    ++cur[i];
  }
}

void Evaluator::bid_values(const Towers& towers, const Pile& pile, const Display& display, double* out) {
  uint8_t vals[kNumTypes][8];
  int nv[kNumTypes] = {0};
  for (int i = 0; i < display.n; ++i) vals[type_of(display.v[i])][nv[type_of(display.v[i])]++] = value_of(display.v[i]);
  // the groups of options, one per type (Great Powers: candy and scary together, for their pairs)
  std::vector<std::vector<Option>> groups;
  Option opts[64];
  int n = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (gp_ && (t == CANDY || t == SCARY)) continue;
    type_options(t, towers[t], vals[t], nv[t], opts, n, nullptr);
    std::vector<Option> g(opts, opts + n);
    if (gp_ && t == TREE) {  // paying the top p tree cards instead of taking cards
      const Tower& tw = towers[t];
      for (int p = 1; p <= payable(towers, true); ++p) {
        Tower base = tw;
        base.n = static_cast<uint8_t>(tw.n - p);
        g.push_back(Option{p, 0, tower_value(t, base), base.n});
        if (base.tearable()) {
          Tower torn = base;
          torn.pop();
          g.push_back(Option{p, 1, tower_value(t, torn), base.n - 1});
        }
      }
    }
    groups.push_back(std::move(g));
  }
  if (gp_) {
    Option co[64], so[64];
    Tower cc[64], sc[64];
    int nc = 0, ns = 0;
    type_options(CANDY, towers[CANDY], vals[CANDY], nv[CANDY], co, nc, cc);
    type_options(SCARY, towers[SCARY], vals[SCARY], nv[SCARY], so, ns, sc);
    std::vector<Option> joint;
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < ns; ++j) {
        if (co[i].torn + so[j].torn > 1) continue;
        joint.push_back(Option{co[i].k + so[j].k, co[i].torn + so[j].torn,
                               co[i].v + so[j].v + pair_value(cc[i].v, cc[i].n, sc[j].v, sc[j].n),
                               std::max(co[i].h, so[j].h)});
      }
    groups.push_back(std::move(joint));
  }
  // the programme over (count, torn, height): the best value per key, group by group (the tables hold -inf
  // but where a key is live, and are left so)
  auto index = [](int k, int torn, int h) {
    if (k >= kBidCap || h >= kHeightCap) throw std::out_of_range("bid_values: a count or a height out of range");
    return (k * 2 + torn) * kHeightCap + h;
  };
  if (states_.empty()) {  // the first bid values of this evaluator (a round's builder never needs them)
    states_.assign(kKeys, kNeg);
    best_.assign(kKeys, kNeg);
    next_.assign(kKeys, kNeg);
  }
  dirty_ = true;
  std::vector<double>& states = states_;
  std::vector<double>& best = best_;
  std::vector<double>& next = next_;
  std::vector<int> live{index(0, 0, 0)}, best_keys, next_keys;
  states[live[0]] = 0.0;
  for (const std::vector<Option>& g : groups) {
    best_keys.clear();
    for (const Option& o : g) {  // keep only the best option per (count, torn, height)
      const int i = index(o.k, o.torn, o.h);
      if (best[i] == kNeg) best_keys.push_back(i);
      if (o.v > best[i]) best[i] = o.v;
    }
    next_keys.clear();
    for (int s : live) {
      const int k0 = s / (2 * kHeightCap), t0 = (s / kHeightCap) % 2, h0 = s % kHeightCap;
      for (int b : best_keys) {
        const int k = b / (2 * kHeightCap), torn = (b / kHeightCap) % 2, h = b % kHeightCap;
        if (t0 + torn > 1) continue;
        const int i = index(k0 + k, t0 + torn, std::max(h0, h));
        const double nv2 = states[s] + best[b];
        if (next[i] == kNeg) next_keys.push_back(i);
        if (nv2 > next[i]) next[i] = nv2;
      }
    }
    for (int s : live) states[s] = kNeg;
    for (int b : best_keys) best[b] = kNeg;
    live.swap(next_keys);
    for (int s : live) {
      states[s] = next[s];
      next[s] = kNeg;
    }
  }
  std::fill(out, out + kBidCap, kNeg);
  const int m = pile.n;
  for (int s : live) {
    const int k = s / (2 * kHeightCap), torn = (s / kHeightCap) % 2, h = s % kHeightCap;
    const double total = states[s] + h - pile_cost(towers, m + torn);
    if (total > out[k]) out[k] = total;
    states[s] = kNeg;
  }
  dirty_ = false;
}

}  // namespace agents
}  // namespace ft

// The default policy, the round-level rollout and the static evaluation (== agents/rollout.py); rollout.hpp.
#include "rollout.hpp"

#include <algorithm>
#include <cmath>

#include "plans.hpp"
#include "scoring.hpp"

namespace ft {
namespace rollout {

namespace {

using plans::NONE;
using plans::Vals;

// _EVAL[gp]: expected further score per unit of game left (see rollout.py)
struct EvalWeights {
  double room, decline, empty, open, main, pile;
};
constexpr EvalWeights kEval[2] = {{0.65, 0.18, 7.2, 7.9, -0.5, -0.6}, {0.73, 0.41, 11.0, 10.9, 0.0, 2.0}};

bool contains(const std::vector<int>& legal, int a) { return std::find(legal.begin(), legal.end(), a) != legal.end(); }

// _next_build: the first build action of the default policy's plan for one type (-1: none)
int next_build(const Tower& tower, int t, const Vals& values, bool sand_gp) {
  Vals nw;
  if (!plans::build_tower(tower, values, sand_gp, nw)) return -1;
  const int k = tower.n;
  if (!k) {
    Vals order;
    const bool same = plans::chain(NONE, values, order) && order.n == nw.n &&
                      std::equal(order.v, order.v + order.n, nw.v);
    const int card = same ? nw.v[0] : nw.back();
    return BUILD + t * kNumValues + card;
  }
  if (std::equal(tower.v, tower.v + k, nw.v)) return BUILD + t * kNumValues + nw.v[k];
  return BUILD_BOTTOM + nw.v[nw.n - k - 1];
}

// _build_actions: the builds that turn `tower` into the default policy's build_tower of `values`
void build_actions(const Tower& tower, int t, const Vals& values, bool sand_gp, int* out, int& n) {
  Vals nw;
  plans::build_tower(tower, values, sand_gp, nw);  // the plan's cards: buildable by construction
  const int k = tower.n;
  const int top = BUILD + t * kNumValues;
  if (!k) {
    Vals order;
    const bool same = plans::chain(NONE, values, order) && order.n == nw.n &&
                      std::equal(order.v, order.v + order.n, nw.v);
    if (!same) {  // a new sand tower: one card, the rest beneath it
      out[n++] = top + nw.back();
      for (int i = nw.n - 1; i-- > 0;) out[n++] = BUILD_BOTTOM + nw.v[i];
      return;
    }
  }
  if (std::equal(tower.v, tower.v + k, nw.v)) {
    for (int i = k; i < nw.n; ++i) out[n++] = top + nw.v[i];
    return;
  }
  for (int i = nw.n - k; i-- > 0;) out[n++] = BUILD_BOTTOM + nw.v[i];
}

// _carry_out: the builder's round by the plan (display cards to take, tree cards to pay), as one move sequence
void carry_out(State& s, const uint8_t* take, int ntake, int pay) {
  const int b = s.builder;
  const bool gp = s.gp;
  const bool recover = gp && s.piles[b].n > 0;  // a scrap build onto an earlier teardown pile offers a recover
  const Towers towers = s.towers[b];
  int moves[64];
  int n = 0;
  for (int i = 0; i < ntake; ++i) moves[n++] = TAKE + take[i];
  if (pay) moves[n++] = STOP;
  moves[n++] = NO_TEARDOWN;
  Vals groups[kNumTypes];
  for (int i = 0; i < ntake; ++i) groups[type_of(take[i])].push(value_of(take[i]));
  for (int t = 0; t < kNumTypes; ++t) {
    if (!groups[t].n) continue;
    std::sort(groups[t].v, groups[t].v + groups[t].n);
    int builds[kMaxTower + 8];
    int nb = 0;
    build_actions(towers[t], t, groups[t], gp && t == SAND, builds, nb);
    for (int i = 0; i < nb; ++i) {
      moves[n++] = builds[i];
      if (recover && t == SCRAP) moves[n++] = NO_RECOVER;
    }
  }
  // apply_unchecked of the sequence: the builder's moves until they run out or the round ends
  for (int i = 0; i < n; ++i) {
    if (s.phase() == PHASE_BID || s.is_terminal()) break;
    s.apply_unchecked(moves[i]);
  }
}

}  // namespace

double game_left(const State& s) { return plans::game_left(s.deck.n, s.deck_ran_out, s.num_players_); }

void evaluate_towers(const State& s, double left, double weight, double* out) {
  const int n = s.num_players_;
  const EvalWeights& w = kEval[s.gp ? 1 : 0];
  const double scale = weight * left * std::pow(2.0 / n, 0.6);  // with more players each seat gets fewer cards
  const double w_pot = w.room - w.decline * left;
  for (int p = 0; p < n; ++p) {
    double pot = 0.0;
    int empty = 0, opened = 0, main = 0;
    for (int t = 0; t < kNumTypes; ++t) {
      const Tower& tw = s.towers[p][t];
      if (!tw.n) {
        ++empty;
        pot += plans::kPot[NONE];
        continue;
      }
      if (tw.top()) {
        ++opened;
        pot += plans::tower_room(tw, s.gp && t == SAND);
      }
      if (tw.n > main) main = tw.n;
    }
    const double future = w_pot * pot + w.empty * empty + w.open * opened + w.main * main + w.pile * s.piles[p].n;
    out[p] = score_player(s.towers[p], s.piles[p], s.gp) + scale * future;
  }
}

int rollout_action(State& s, double beta) {
  const std::vector<int> legal = s.legal_actions();
  if (legal.size() == 1) return legal[0];
  const int phase = s.phase();
  if (phase == PHASE_BID) {
    const int p = s.current_player();
    const double b = beta * game_left(s);
    plans::BidOptions opt;
    plans::bid_options(s.towers[p], s.display, b, s.gp, opt);
    const bool first = s.bid_turn == 0;
    const int low = first ? 0 : s.high_bid + 1;
    uint64_t allowed = 0;
    for (int a : legal)
      if (a != PASS) allowed |= 1ULL << (a - BID);
    const int k = plans::choose_bid(opt.values, opt.n, low, first, allowed, true);
    if (k < 0) return contains(legal, PASS) ? PASS : legal[0];
    return BID + k;
  }
  if (phase == PHASE_TAKE) {
    const Towers& towers = s.towers[s.builder];
    const double b = beta * game_left(s);
    uint8_t takes[8];
    int ntakes = 0;
    for (int a : legal)
      if (a != STOP) takes[ntakes++] = static_cast<uint8_t>(a - TAKE);
    if (!ntakes) return legal[0];
    Vals plan;
    double cum[plans::kMaxBidOptions];
    int ncum;
    plans::make_plan(towers, takes, ntakes, b, s.gp, s.hand.v, s.hand.n, plan, cum, ncum);
    if (contains(legal, STOP)) {  // Great Powers: paying tree cards instead of taking more may be better
      const int need = s.target - s.taken;
      const double full = need < ncum ? cum[need] : plans::NEG_INF;
      uint8_t nt[8];
      int nnt = 0;
      for (int i = 0; i < ntakes; ++i)
        if (type_of(takes[i]) != TREE) nt[nnt++] = takes[i];
      Vals plan2;
      double cum2[plans::kMaxBidOptions];
      int ncum2;
      plans::make_plan(towers, nt, nnt, b, s.gp, s.hand.v, s.hand.n, plan2, cum2, ncum2);
      int best_j = -1;
      double best_v = full;
      for (int j = 0; j < std::min(need, ncum2); ++j) {
        const double v = cum2[j] + plans::pay_value(towers, need - j, b);
        if (v > best_v) best_j = j, best_v = v;
      }
      if (best_j == 0) return STOP;
      if (best_j > 0) return TAKE + plan2.v[0];
    }
    if (plan.n) return TAKE + plan.v[0];
    return TAKE + takes[ntakes - 1];
  }
  if (phase == PHASE_TEARDOWN) return contains(legal, NO_TEARDOWN) ? NO_TEARDOWN : legal[0];
  if (phase == PHASE_BUILD) {
    const Towers& towers = s.towers[s.builder];
    Vals groups[kNumTypes];
    for (int i = 0; i < s.hand.n; ++i) groups[type_of(s.hand.v[i])].push(value_of(s.hand.v[i]));
    for (int t = 0; t < kNumTypes; ++t) {
      if (!groups[t].n) continue;
      const int a = next_build(towers[t], t, groups[t], s.gp && t == SAND);
      if (contains(legal, a)) return a;
    }
    // fall back: bottom sand builds keep the top, else the highest card first
    int best = legal[0], best_v = -1;
    for (int a : legal) {
      const int v = a >= BUILD_BOTTOM ? 100 : (a - BUILD) % kNumValues;
      if (v > best_v) best = a, best_v = v;
    }
    return best;
  }
  for (int a : legal)  // recover: taking a card back off the teardown pile is always worth it
    if (a != NO_RECOVER) return a;
  return legal[0];
}

bool play_rounds(State& s, double beta, int rounds, double* left) {
  const bool gp = s.gp;
  int played = 0;
  plans::BidOptions opt, chosen;
  while (!s.is_terminal()) {
    if (rounds >= 0 && played >= rounds) {
      *left = game_left(s);
      return false;
    }
    const double b = beta * game_left(s);
    const Display display = s.display;
    int bid_k = -1;
    const int this_round = s.rounds_played;
    // the engine ends the bidding once nobody left could raise (and the round, if all passed on 0)
    while (s.phase() == PHASE_BID && s.rounds_played == this_round) {
      const int p = s.current_player();
      plans::bid_options(s.towers[p], display, b, gp, opt);
      const bool first = s.bid_turn == 0;
      const int k = plans::choose_bid(opt.values, opt.n, first ? 0 : s.high_bid + 1, first, 0, false);
      if (k < 0) {
        s.apply_unchecked(PASS);
      } else {
        s.apply_unchecked(BID + k);
        chosen = opt;
        bid_k = k;
      }
    }
    if (s.phase() == PHASE_TAKE) {  // a round start: the take follows a bid made above
      const int which = chosen.how_plan[bid_k];
      const plans::Vals& cards = chosen.cards[which < 0 ? 0 : which];
      const int j = which < 0 ? 0 : chosen.how_j[bid_k];
      carry_out(s, cards.v, j, chosen.how_m[bid_k]);
    }
    ++played;
  }
  *left = 0.0;
  return true;
}

}  // namespace rollout
}  // namespace ft

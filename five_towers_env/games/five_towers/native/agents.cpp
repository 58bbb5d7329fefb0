// 5 Towers' greedy and heuristic agents (agents/greedy.py, agents/heuristic.py): the decisions, in the Python
// code's order wherever the first of equal candidates wins. The evaluation and the searches are heuristic.cpp.
#include "agents.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "heuristic.hpp"
#include "scoring.hpp"

namespace ft {

using agents::Evaluator;
using agents::Round;

namespace {

constexpr double kNeg = -std::numeric_limits<double>::infinity();

// greedy._tops_key: the sum of the top values of the non-empty towers
int tops_key(const Towers& towers) {
  int sum = 0;
  for (const Tower& tw : towers)
    if (tw.n) sum += tw.v[tw.n - 1];
  return sum;
}

// heuristic.unseen_counts: the cards that may still be revealed, by card id, as far as the public view tells
// (the deck's order is hidden, its cards are not)
void unseen_counts(const State& s, int* counts) {
  std::fill(counts, counts + kNumCardIds, 0);
  for (int c : s.deck) ++counts[c];
  if (!s.deck_ran_out) {
    for (int c : s.discard) ++counts[c];
    for (int c : s.display) ++counts[c];
    for (int c : s.hand) ++counts[c];
  }
}

// HeuristicAgent._root: the seat's round as the heuristic searches it
Round heuristic_root(const State& s, int seat) {
  const int ph = s.phase_;
  const bool take = ph == PHASE_TAKE;
  Round r{ph, s.towers[seat], s.piles[seat], s.hand, Display(), take ? s.target - s.taken : 0, take && s.took_tree,
          (ph == PHASE_BUILD || ph == PHASE_RECOVER) ? s.sand_end : END_NONE};
  if (take) r.display = s.display;
  return r;
}

using Scored = std::vector<std::pair<int, double>>;  // (action, value) in the order the agent weighs them

// HeuristicAgent._plan_move: each legal first move of the builder's search with its best plan
void plan_values(const State& s, int seat, const int* legal, int count, Evaluator& ev, Scored& out) {
  bool offered[NUM_ACTIONS] = {false};
  for (int i = 0; i < count; ++i) offered[legal[i]] = true;
  agents::for_each_move(heuristic_root(s, seat), s.gp, [&](int a, const Round& child) {
    if (offered[a]) out.emplace_back(a, ev.plan_value(child));
  });
}

// HeuristicAgent._bid: each legal bid (pass first) with its utility after the players still to bid
// answer it as a backward induction says
class Bidding {
 public:
  Bidding(const State& s, Evaluator& ev) : s_(s), ev_(ev), n_(s.num_players_) {
    for (int i = s.bid_turn + 1; i < n_; ++i) order_[len_++] = (s.start_player + i) % n_;
  }

  void values(int seat, const int* legal, int count, Scored& out) {
    std::vector<int> options(legal, legal + count);  // pass first, then the bids from the lowest
    std::stable_sort(options.begin(), options.end(),
                     [](int a, int b) { return (a == PASS ? -1 : a) < (b == PASS ? -1 : b); });
    for (int a : options) {
      const Outcome o = a == PASS ? solve(0, s_.high_bid, s_.builder) : solve(0, a - BID, seat);
      out.emplace_back(a, utility(seat, o));
    }
  }

 private:
  struct Outcome {  // (builder, their bid); builder -1: nobody
    int x, b;
  };

  const State& s_;
  Evaluator& ev_;
  const int n_;
  int order_[kMaxPlayers] = {0}, len_ = 0;
  bool gained_[kMaxPlayers] = {false};
  double gains_[kMaxPlayers][agents::kBidCap];
  int masks_[kMaxPlayers] = {-1, -1, -1, -1, -1};
  bool solved_[kMaxPlayers + 1][agents::kBidCap + 1][kMaxPlayers + 1] = {};
  Outcome memo_[kMaxPlayers + 1][agents::kBidCap + 1][kMaxPlayers + 1];

  double gain(int q, int b) {
    if (!gained_[q]) {
      ev_.bid_values(s_.towers[q], s_.piles[q], s_.display, gains_[q]);
      const double now = ev_.evaluate(s_.towers[q], s_.piles[q].n);
      for (double& g : gains_[q])
        if (g != kNeg) g = g - now;
      gained_[q] = true;
    }
    if (b < agents::kBidCap && gains_[q][b] != kNeg) return gains_[q][b];
    return -10.0 - b;  // a bid only recoveries make possible
  }

  int mask(int q) {  // view.bid_mask(q): the state's cached mask where it holds one
    if (masks_[q] < 0)
      masks_[q] = s_.bid_masks_[q] >= 0 ? s_.bid_masks_[q]
                                        : achievable_bids(s_.towers[q], s_.piles[q], s_.display, s_.gp);
    return masks_[q];
  }

  double utility(int q, Outcome o) {
    if (o.x < 0 || o.b <= 0) return 0.0;
    if (o.x == q) return gain(q, o.b);
    return -ev_.opponent_weight() * gain(o.x, o.b) / (n_ - 1);
  }

  Outcome solve(int i, int high, int builder) {
    if (i == len_) return Outcome{builder, high};
    bool& done = solved_[i][high + 1][builder + 1];
    Outcome& memo = memo_[i][high + 1][builder + 1];
    if (done) return memo;
    const int q = order_[i];
    Outcome best = solve(i + 1, high, builder);
    double bu = utility(q, best);
    const int m = mask(q);
    for (int b = high + 1; b < agents::kBidCap; ++b) {  // bids_of(q) above the high bid, from the lowest
      if (!((m >> b) & 1)) continue;
      const Outcome o = solve(i + 1, b, q);
      const double u = utility(q, o);
      if (u > bu + 1e-9) best = o, bu = u;
    }
    done = true;
    memo = best;
    return best;
  }
};

void scored_actions(const State& s, int seat, const int* legal, int count, const HeuristicParams& p, Scored& out) {
  int unseen[kNumCardIds];
  unseen_counts(s, unseen);
  // HeuristicAgent._context: the evaluation (and its memo) is kept while the unseen cards, the variant and
  // the weights stay, one per thread (a batch's games are decided one after another on one thread)
  thread_local Evaluator kept;
  if (!kept.serves(unseen, s.gp, p)) kept.reset(unseen, s.gp, p);
  try {
    if (s.phase_ == PHASE_BID) Bidding(s, kept).values(seat, legal, count, out);
    else plan_values(s, seat, legal, count, kept, out);
  } catch (...) {
    kept.forget();
    throw;
  }
}

}  // namespace

int greedy_action(const State& s, int seat, const int* legal, int count, ftcore::Pcg64& rng) {
  if (count == 1) return legal[0];
  if (s.phase_ == PHASE_BID) {  // the highest bid it may make
    int best = -1;
    for (int i = 0; i < count; ++i)
      if (legal[i] >= BID && legal[i] <= BID + MAX_BID && legal[i] > best) best = legal[i];
    return best >= 0 ? best : legal[0];
  }
  // best_after: (seat's score, its tops) after each id; only the builder's towers and pile change
  const Round now = agents::engine_round(s);
  std::vector<int> best;
  int best_score = 0, best_tops = 0;
  for (int i = 0; i < count; ++i) {
    const int a = legal[i];
    Round after = now;
    agents::round_step(after, a, s.gp);
    const bool mine = seat == s.builder;
    const Towers& towers = mine ? after.towers : s.towers[seat];
    const int score = score_player(towers, mine ? after.pile : s.piles[seat], s.gp), tops = tops_key(towers);
    if (best.empty() || score > best_score || (score == best_score && tops > best_tops)) {
      best.assign(1, a);
      best_score = score;
      best_tops = tops;
    } else if (score == best_score && tops == best_tops) {
      best.push_back(a);
    }
  }
  return best.size() > 1 ? best[ftcore::integers_below(rng, static_cast<uint32_t>(best.size()))] : best[0];
}

void heuristic_values(const State& s, int seat, const int* legal, int count, const HeuristicParams& p, double* out) {
  Scored scored;
  scored_actions(s, seat, legal, count, p, scored);
  for (int i = 0; i < count; ++i) {
    out[i] = kNeg;
    for (const auto& [a, v] : scored)
      if (a == legal[i]) {
        out[i] = v;
        break;
      }
  }
}

int heuristic_action(const State& s, int seat, const int* legal, int count, const HeuristicParams& p) {
  if (count == 1) return legal[0];
  Scored scored;
  scored_actions(s, seat, legal, count, p, scored);
  int best_a = legal[0];
  double best_v = kNeg;
  bool any = false;
  for (const auto& [a, v] : scored)  // the first value beating every earlier one by more than 1e-9
    if (!any || v > best_v + 1e-9) {
      best_a = a;
      best_v = v;
      any = true;
    }
  return best_a;
}

}  // namespace ft

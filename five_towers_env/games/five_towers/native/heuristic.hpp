// heuristic.py's _Context (Evaluator here): the evaluation, the builder's search and the bid values, in the
// Python code's floating-point order (heuristic.cpp). Not the bindings' API (agents.hpp is).
#pragma once

#include <vector>

#include "agent_round.hpp"
#include "agents.hpp"
#include "cards.hpp"

namespace ft {
namespace agents {

constexpr int kEmpty = 16;      // heuristic.EMPTY: the pseudo top of a tower that does not exist yet
constexpr int kBidCap = 32;     // bid counts: at most 5 display cards or 22 tree cards paid, and 5 more
constexpr int kHeightCap = 32;  // a tower's height in the bid values: at most 22 cards of its type

// heuristic._Context: the evaluation for one set of unseen cards (the counts by card id), one variant and one
// set of weights, with the builder's search memoised. Every value is a function of those and of its
// arguments only, so one Evaluator serves every decision while they stay (as the Python agent keeps its
// context while the unseen cards stay), and is then reset for the next ones (its storage kept).
class Evaluator {
 public:
  // set up for these unseen cards, variant and weights (the memo emptied)
  void reset(const int* unseen, bool gp, const HeuristicParams& p);
  // set up for these already (weights compared bit for bit)
  bool serves(const int* unseen, bool gp, const HeuristicParams& p) const;
  // an evaluation was cut short (an exception): the next decision needs a reset
  void forget() { ready_ = false; }

  double tower_value(int t, const Tower& tw) const;
  // pair_value of a candy and a scary tower holding these values (in their order: the last one is read)
  double pair_value(const uint8_t* candy, int nc, const uint8_t* scary, int ns) const;
  double pile_cost(const Towers& towers, int m) const;
  double evaluate(const Towers& towers, int pile_size) const;
  // the best evaluation over every complete way to finish the round from r (-inf: none)
  double plan_value(const Round& r);
  // bid_values: into out[k] (k < kBidCap) the best evaluation reachable with a bid of k, -inf where none is
  void bid_values(const Towers& towers, const Pile& pile, const Display& display, double* out);

  double opponent_weight() const { return p_.opponent_weight; }

 private:
  struct Option {  // one way to use a type's display cards: (cards taken, torn, value, height)
    int k, torn;
    double v;
    int h;
  };
  void type_options(int t, const Tower& tw, const uint8_t* values, int nv, Option* out, int& n, Tower* cards) const;
  bool best_final(int t, const int* counts, int left, int end, Towers& work, double& best) const;

  bool ready_ = false, gp_ = false;
  HeuristicParams p_;
  int unseen_[kNumCardIds];
  bool zero_[kNumTypes];
  int chain_[kNumTypes][kEmpty + 1];
  int under_[kNumTypes][kNumValues];
  RoundMemo memo_;  // plan_value's
  // bid_values' programme over (count, torn, height): scratch tables, -inf between calls (dirty_: a call
  // was cut short)
  std::vector<double> states_, best_, next_;
  bool dirty_ = false;
};

}  // namespace agents
}  // namespace ft

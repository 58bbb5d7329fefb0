// Campanile's rule-based agents on the native state: agents/greedy.py and agents/heuristic.py ported move for
// move (the same evaluation in the same floating-point order, the same tie-breaks, the same random draws), so
// that a seed and a position give the same action on both sides (tests/games/campanile/test_native_agents.py).
// Plain functions of a State: no Python object inside, safe to call with the GIL released.
#pragma once

#include "rng.hpp"
#include "state.hpp"

namespace cp {

using ftcore::integers_below;  // what best_after draws to break a tie (rng.hpp)

// greedy.py, GreedyAgent.act: the legal action after which (own score - best other score, own score) is
// largest, ties drawn with `rng` (the agent's generator, advanced as numpy's would be). `legal`: the ids
// to choose from (info["legal_actions"]), each legal in `s`, count >= 1.
int greedy_action(const State& s, int seat, const int* legal, int count, ftcore::Pcg64& rng);

// HeuristicAgent's weights (heuristic.py, HeuristicAgent.__init__)
struct HeuristicParams {
  double spread = 1.0, contest = 0.6, chip_cost = 0.35, card_weight = 0.3, end_weight = 20.0;
  bool danger = true;
};

// heuristic.py, scored_actions: the value of each id in `legal` (same order) for `seat`, into out
void heuristic_values(const State& s, int seat, const int* legal, int count, const HeuristicParams& p, double* out);

// heuristic.py, HeuristicAgent.act: the best value, the first id in `legal` on ties (within 1e-9)
int heuristic_action(const State& s, int seat, const int* legal, int count, const HeuristicParams& p);

// heuristic.py, scored_turns: (value, play, bet) of every whole turn of a play-phase state for `seat`, in its
// order (each legal play by id, then its bets as _bet_options lists them, no bet first), into out; returns the
// count. What the search (mcts.cpp) ranks its candidate turns by.
struct ScoredTurn {
  double value;
  int play, bet;
};
constexpr int kMaxTurns = 9 * 16;  // 9 plays (3 styles x 3 storeys) x (no bet + 5 towers x 3 chips)
int scored_turns(const State& s, int seat, const HeuristicParams& p, ScoredTurn* out);

// The parts of heuristic.py's Evaluator the search scores a rollout with (search_hooks.cpp, evaluate)
double turns_left(const int* sizes);                      // turns_left of the three pile sizes
double final_reward(const int* scores, int n, int seat);  // final_reward
// Evaluator(seat, ...).margin(Evaluator.soft_points(s.heights, s.bets, left_turns, left_share))
double soft_margin(const State& s, int seat, const HeuristicParams& p, double left_turns, double left_share);

}  // namespace cp

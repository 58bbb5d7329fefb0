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

}  // namespace cp

// 5 Towers' rule-based agents on the native state: agents/greedy.py and agents/heuristic.py ported move for
// move (the same evaluation in the same floating-point order, the same tie-breaks, the same random draws), so
// that a seed and a position give the same action on both sides
// (tests/games/five_towers/test_five_towers_native_agents.py).
// Functions of a const State and the ids to choose from: they read the state's cached bid masks but write
// nothing, so a batch may run with the GIL released.
#pragma once

#include "rng.hpp"
#include "state.hpp"

namespace ft {

// greedy.py, GreedyAgent.act: the highest legal bid in the bid phase; otherwise the id after which (seat's
// score, the sum of its tower tops) is largest, ties drawn with `rng` (the agent's generator, advanced as
// numpy's would be). `legal`: the ids to choose from (info["legal_actions"]), each legal in `s`, count >= 1.
int greedy_action(const State& s, int seat, const int* legal, int count, ftcore::Pcg64& rng);

// HeuristicAgent's weights (heuristic.DEFAULT_PARAMS)
struct HeuristicParams {
  double chain_weight = 0.8, zero_weight = 0.3, pair_weight = 0.8, recover_relief = 0.3, opponent_weight = 1.0;
};

// heuristic.py, HeuristicAgent.scored_actions: the value the agent compares for each id in `legal` (same
// order) into out: the best plan after it (take / teardown / build / recover), or the bid's utility; -inf
// for an id the builder's search does not reach (the agent never prefers it)
void heuristic_values(const State& s, int seat, const int* legal, int count, const HeuristicParams& p, double* out);

// heuristic.py, HeuristicAgent.act: the first id, in the agent's order, whose value beats every earlier one
// by more than 1e-9 (legal[0] where the search reaches none)
int heuristic_action(const State& s, int seat, const int* legal, int count, const HeuristicParams& p);

}  // namespace ft

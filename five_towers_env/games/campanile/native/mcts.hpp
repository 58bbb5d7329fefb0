// Campanile's Monte Carlo search agent's decision (== MCTSAgent.act and MCTSAgent.search in agents/mcts.py,
// after the planned bet): the heuristic ranks the candidate turns (or bets), the best `candidates` race by
// successive halving over determinisations of the public view (search_hooks.hpp on
// core/native/flat_search.hpp), the best score wins. The same candidates, draws and rewards as the Python
// code, in its floating-point order, so that for the same generator both backends choose the same move,
// report the same values and leave the generator alike.
#pragma once

#include <optional>
#include <vector>

#include "agents.hpp"
#include "deadline.hpp"
#include "rng.hpp"
#include "search_hooks.hpp"
#include "state.hpp"

namespace cp {
namespace mcts {

// MCTSAgent's settings
struct Settings {
  int simulations = 400;
  int candidates = 3;           // 0 (or less): all
  double prior = 0.0;
  int search_from = 5;
  HeuristicParams heuristic;    // the ranking heuristic's weights (MCTSAgent.heuristic)
  search::HookSettings hooks;   // the rollouts' and the evaluation's
  ftcore::Deadline deadline;    // the decision's hard stop: the best candidate so far once it has passed
};

struct Decision {
  search::Move best;
  bool searched = false;             // more than one candidate (else last_values stays empty)
  std::vector<search::Move> moves;   // the candidates, in the heuristic's order ...
  std::vector<std::optional<double>> means;  // ... and each one's mean reward when searched (None: never sampled)
};

// the decision of `seat` (the player on move) in `view` among the ids `legal` (info["legal_actions"]),
// `rng` the agent's generator (advanced as the Python agent advances its own)
Decision decide(const State& view, int seat, const int* legal, int count, ftcore::Pcg64& rng, const Settings& st);

}  // namespace mcts
}  // namespace cp

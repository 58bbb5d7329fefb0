// 5 Towers' Monte Carlo search over determinisations of the deck order (== agents/search_hooks.py and
// MCTSAgent.search in agents/mcts.py) on the game-neutral flat search (core/native/flat_search.hpp).
// The same candidates, determinisations, rollouts and rewards as the Python code, in its floating-point
// order, so that for the same generator both backends choose the same move and leave the generator alike.
#pragma once

#include <cstdint>
#include <vector>

#include "flat_search.hpp"
#include "rng.hpp"
#include "state.hpp"

namespace ft {
namespace search {

// Scoring: per-player rewards in [0, 1] (win probability mixed with a score-margin term)
struct Scoring {
  double eval_weight = 1.0, temperature = 3.0, margin_weight = 0.2;
  // every seat's reward of a finished game (over) or of a position evaluated with `left` of the game to come
  void rewards(const State& s, bool over, double left, double* out) const;
};

// MCTSAgent's settings
struct Settings {
  ftcore::Budget budget;  // (with the decision's deadline, if any)
  ftcore::Schedule schedule;
  int rollout_rounds = 5;  // -1: to the end of the game
  double beta = 0.45;
  Scoring scoring;
};

// a policy's say (ActionPrior): probs[a] of every action id, the top_k likeliest candidates and the weight of
// their log-probability priors
struct PolicyPrior {
  std::vector<double> probs;
  int top_k = 4;
  double weight = 0.02;
};

struct Decision {
  int action = -1;
  int simulations = 0;
  std::vector<int> actions;     // every action searched (the candidates' members) ...
  std::vector<double> values;   // ... and its candidate's mean reward (0 where never sampled)
};

// MCTSAgent.search(view, probs): search from a public view (its deck order is never used) with the agent's
// generator `rng` (advanced as the Python agent advances its own); `prior` null: every candidate
Decision decide(const State& view, ftcore::Pcg64& rng, const Settings& settings, const PolicyPrior* prior);

}  // namespace search
}  // namespace ft

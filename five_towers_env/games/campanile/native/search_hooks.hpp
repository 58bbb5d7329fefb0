// Campanile's hooks for the game-neutral flat search (== agents/search_hooks.py on core/native/flat_search.hpp):
// the default policy, the determinisations (the hidden cards dealt again and the uniform numbers that drive
// their rollouts, both drawn from the agent's generator as numpy draws them), the rollouts and the reward,
// in the Python code's floating-point order, so that both backends score every candidate alike.
// Plain functions of a State: no Python object inside, safe to call with the GIL released.
#pragma once

#include <vector>

#include "agents.hpp"
#include "rng.hpp"
#include "state.hpp"

namespace cp {
namespace search {

constexpr int kNoise = 128;  // _NOISE: uniform numbers drawn per determinisation and shared by its rollouts

// rollout_action(state, u, bet_rate, lead_rate): the default policy's action in s (not over) for a uniform u
int rollout_action(const State& s, double u, double bet_rate, double lead_rate);

// a candidate: its action ids (a play and its bet, or a bet)
struct Move {
  int n = 0;
  int a[2] = {-1, -1};
};

// CampanileSearch's settings (MCTSAgent's, as it hands them on)
struct HookSettings {
  bool cut = false;       // rollout_turns is not None ...
  int rollout_turns = 0;  // ... and then the turns a rollout plays
  double bet_rate = 0.5, lead_rate = 0.0, temperature = 4.0, margin_weight = 0.1;
  HeuristicParams eval;   // the Evaluator's weights (spread, contest, chip_cost; its end_weight is 0)
};

// one determinisation: the view with the hidden cards dealt again, and its rollouts' uniform numbers
struct Det {
  State state;
  double noise[kNoise];
};

// CampanileSearch for one decision of `seat` from `view`: sample(i) and value(j, det) for flat_search
class Hooks {
 public:
  Hooks(const State& view, int seat, ftcore::Pcg64& rng, const HookSettings& settings, const std::vector<Move>& moves)
      : view_(view), seat_(seat), rng_(rng), st_(settings), moves_(moves) {}

  // sample: view.determinize(seat, rng), then rng.random(_NOISE) (i is implied: they are drawn in order)
  Det sample(int i);
  // evaluate(rollout(play(moves[j], det), det))
  double value(int j, Det& det) const;
  // evaluate: the searcher's reward of a rollout's end, exact at the end of the game, else a logistic of the
  // evaluation's soft margin
  double evaluate(const State& s) const;

 private:
  const State& view_;
  const int seat_;
  ftcore::Pcg64& rng_;
  const HookSettings& st_;
  const std::vector<Move>& moves_;
};

}  // namespace search
}  // namespace cp

// The 5 Towers default (rollout) policy on the engine, the round-level rollout and the static evaluation
// (== agents/rollout.py), in the Python code's order of floating-point operations and of choices.
#pragma once

#include "state.hpp"

namespace ft {
namespace rollout {

// game_left(state): the fraction of the game's reveals still to come
double game_left(const State& s);

// evaluate_towers(towers, piles, gp, left, weight): each seat's score now plus weight x its expected further
// score, into out[0..n)
void evaluate_towers(const State& s, double left, double weight, double* out);

// rollout_action(state, beta): the default policy's move (deterministic)
int rollout_action(State& s, double beta);

// play_rounds(s, beta, rounds): up to `rounds` whole rounds (-1: to the end) of the round start s by the default
// policy; returns whether the game is over, and the fraction of the game left in *left
bool play_rounds(State& s, double beta, int rounds, double* left);

}  // namespace rollout
}  // namespace ft

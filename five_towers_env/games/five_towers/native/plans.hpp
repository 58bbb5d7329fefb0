// The default policy's knowledge (== agents/plans.py): tower potential, building plans and bid values, in the
// Python code's floating-point order, so that the native rollouts make the same choices bit for bit.
// Pure functions of towers and cards (and game_left of a state); the memos in plans.cpp change no result.
#pragma once

#include <cstdint>

#include "cards.hpp"

namespace ft {
namespace plans {

constexpr int NONE = 16;  // plans.NONE: "no tower yet" as a top value (an index into kPot)
constexpr double NEG_INF = -__builtin_huge_val();

// POT[top]: how many different non-zero values could still go onto a tower with this top (NONE: none yet)
extern const double kPot[NONE + 1];
// BPOT[bottom]: Great Powers sand, how many different non-zero values could still go under this bottom
extern const double kBpot[kNumValues];

// A short list of values (a tuple of card values or of card ids in plans.py): order matters where it says so.
struct Vals {
  uint8_t n = 0;
  uint8_t v[kMaxTower + 8];
  void push(int x) { v[n++] = static_cast<uint8_t>(x); }
  int back() const { return v[n - 1]; }
};

// the fraction of the game's reveals still to come (_game_left)
double game_left(int deck, bool ran_out, int num_players);

// chain(top, values): the best order of the sorted `values` onto a tower with top `top` (NONE: no tower);
// false where impossible
bool chain(int top, const Vals& values, Vals& out);
// tower_room(tower, sand_gp)
double tower_room(const uint8_t* tw, int n, bool sand_gp);
inline double tower_room(const Tower& tw, bool sand_gp) { return tower_room(tw.v, tw.n, sand_gp); }
// build_tower(tower, values, sand_gp): the tower after building the sorted `values`; false where impossible
bool build_tower(const Tower& tower, const Vals& values, bool sand_gp, Vals& out);

// make_plan(towers, cards, beta, gp, chosen): the greedy building plan of the sorted card ids `cards` (plan:
// the cards in the order chosen) and the cumulative values (cum, one more than the plan)
void make_plan(const Towers& towers, const uint8_t* cards, int ncards, double beta, bool gp, const uint8_t* chosen,
               int nchosen, Vals& plan, double* cum, int& ncum);

// choose_bid(cum, low, first, allowed): the bid count (-1: pass); allowed: a bit mask, or all when use_allowed false
int choose_bid(const double* cum, int ncum, int low, bool first, uint64_t allowed, bool use_allowed);

// pay_value(towers, m, beta)
double pay_value(const Towers& towers, int m, double beta);

constexpr int kMaxBidOptions = kMaxTower + 8;  // bid counts: at most 5 display cards and the 22 tree cards paid

// bid_options(towers, display, beta, gp): values[k] of each bid count k (NEG_INF: not possible) and how it is
// carried out (the plan's cards, how many of them to take, tree cards to pay)
struct BidOptions {
  int n = 0;
  double values[kMaxBidOptions];
  Vals cards[2];           // the plan on the display and the plan without its tree cards
  int8_t how_plan[kMaxBidOptions];  // which plan (-1: the placeholder ((), 0, 0))
  uint8_t how_j[kMaxBidOptions], how_m[kMaxBidOptions];
};
void bid_options(const Towers& towers, const Display& display, double beta, bool gp, BidOptions& out);

}  // namespace plans
}  // namespace ft

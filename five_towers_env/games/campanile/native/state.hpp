// The Campanile game state and its rules (SPEC C2-C4), mirroring state.py bit for bit: the same legal
// action lists, transitions, random draws (new_game / determinize / public_view) and scores.
// A plain copyable value: fixed arrays only (no heap) apart from the cached legal-action list.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "rng.hpp"
#include "rules.hpp"

namespace cp {

constexpr int kHandCap = 4;     // a hand holds 3 cards (2 in the bet phase)
constexpr int kPileCap = 70;    // every card of the game (a dealt pile holds at most 18)
constexpr int kLeftoverCap = 8; // 0..2 after a deal
constexpr int kBetCap = 48;     // the chips of five seats (45) under one tower
constexpr int kHiddenCap = kNumPiles * kPileCap + kLeftoverCap + kMaxPlayers * kHandCap;

enum Phase : int { kPhasePlay = 0, kPhaseBet = 1 };
extern const char* const kPhaseNames[3];  // play, bet, game_over

struct Bet {
  int8_t seat, value;
};

// the list the legal actions are cached in: a copy of a state starts with an empty, stale cache
// (so copying a state never allocates), an assignment keeps the target's capacity
struct LegalCache {
  std::vector<int> list;
  uint32_t mask = 0;  // the same ids as bits
  bool valid = false;
  LegalCache() = default;
  LegalCache(const LegalCache&) {}
  LegalCache& operator=(const LegalCache&) {
    valid = false;
    return *this;
  }
};

class State {
 public:
  struct Options {
    int num_players = 2;
    int variant = kPile;     // Variant
    int bet_chip = kAtLeast; // BetChip
  };
  static constexpr int kNumActions = cp::kNumActions;
  static constexpr int kObsSize = 278;

  // -- the state (the Python attributes) ------------------------------------------------------------
  Options opt;
  int8_t hands[kMaxPlayers][kHandCap];     // sorted
  uint8_t hand_size[kMaxPlayers];
  int8_t revealed[kMaxPlayers][kHandCap];  // sorted sub-multiset of the hand
  uint8_t revealed_size[kMaxPlayers];
  int8_t piles[kNumPiles][kPileCap];       // bottom to top: the last card is face up
  uint8_t pile_len[kNumPiles];
  int8_t leftover[kLeftoverCap];
  uint8_t leftover_size;
  int heights[kNumTowers];
  int cards_played[kNumTowers];
  Bet bets[kNumTowers][kBetCap];           // per tower, the chips in the order placed
  uint8_t num_bets[kNumTowers];
  int chips[kMaxPlayers][3];
  int current;
  int phase_;
  int played_tower, played_storeys;
  bool done;
  int turns;
  ftcore::Pcg64 gen;
  // derived from bets: per tower and seat, the stake and the place of its first chip (-1: none)
  int stake[kNumTowers][kMaxPlayers];
  int first[kNumTowers][kMaxPlayers];
  int num_backers[kNumTowers];

  // -- construction ---------------------------------------------------------------------------------
  State() = default;
  static State new_game(const Options& o, ftcore::Pcg64 rng);
  // SPEC C2.2-C2.3: the game dealt from `cards` (deal_layout's order); count must be the deal's size
  static State deal(const Options& o, const int* cards, int count, ftcore::Pcg64 rng);
  static int deal_size(int n) { return kHandSize * n + kNumPiles * pile_size(n) + leftover_count(n); }
  // recompute stake/first/num_backers from bets (after filling the fields by hand)
  void rebuild_derived();

  // -- the contract ---------------------------------------------------------------------------------
  const Options& options() const { return opt; }
  int num_players() const { return opt.num_players; }
  int current_player() const { return current; }
  bool is_terminal() const { return done; }
  int phase() const { return phase_; }
  const char* phase_name() const { return kPhaseNames[done ? 2 : phase_]; }
  const std::vector<int>& legal_actions();
  bool apply_action(int a);
  void scores(int* out) const;
  void observe(int seat, float* out) const;
  State public_view(int seat) const;
  State determinize(int observer, ftcore::Pcg64 rng) const;
  ftcore::Pcg64& rng() { return gen; }

  // -- queries --------------------------------------------------------------------------------------
  // bit a set for each legal id a
  uint32_t legal_mask() const;
  // the legal ids into out (at most 16), sorted; returns the count
  int compute_legal(int* out) const;
  bool is_legal(int a) const;
  void flag_order(int* order) const { cp::flag_order(heights, order); }
  Top2 top2(int tower) const { return rank_top2(stake[tower], first[tower], opt.num_players); }
  // the tower's best two backers with one more chip (seat, value) placed last
  Top2 top2_with(int tower, int seat, int value) const;
  void unseen_counts(int observer, int* out) const;
  int face_up(int pile) const { return pile_len[pile] ? piles[pile][pile_len[pile] - 1] : -1; }

 private:
  void play(int a);
  void bet_and_draw(int a);
  LegalCache legal_;
};

}  // namespace cp

// The flat observation vector (== observation.py `encode`), bit for bit: see observation.hpp.
//
// observation.py builds the vector through a memo (SeatCache) that patches the pieces whose inputs
// changed; every piece it writes equals the plain formula of its inputs, which is what is computed
// here, from scratch, for each call. Each fraction is the Python float64 quotient (exact IEEE
// division, like Python's int / int and int / float) rounded once to float32, as storing a Python
// float into a float32 array does.
#include "observation.hpp"

#include "lookahead.hpp"
#include "scoring.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ft {

namespace {

using namespace obs;

constexpr int kMaxBid = 25;          // actions.MAX_BID
constexpr double kScoreScale = 100.0;  // SCORE_SCALE

// x / d as Python computes it (float64), stored as float32
inline float frac(int x, double d) { return static_cast<float>(static_cast<double>(x) / d); }

// A state built by hand (from_fields) is never trusted to hold only valid ids: every indexed write
// below goes through these, which skip an index outside its piece (a valid state never has one).
inline void set_at(float* piece, int size, int i) {
  if (i >= 0 && i < size) piece[i] = 1.0f;
}
template <class L>
inline void count_cards(float* piece, const L& cards) {
  for (int c : cards)
    if (c < kNumCardIds) piece[c] += 1.0f;
}

// observation.tower_block
void write_tower(float* b, const Tower& tw) {
  if (tw.empty()) {
    b[T_TOP] = 1.0f;
    b[T_BOTTOM] = 1.0f;
    return;
  }
  const int n = tw.size();
  set_at(b + T_TOP, kNoneOneHot, 1 + tw[n - 1]);
  set_at(b + T_BOTTOM, kNoneOneHot, 1 + tw[0]);
  for (int i = 0; i < n; ++i)
    if (tw[i] < kNumValues) b[T_CARDS + tw[i]] += 1.0f;
  b[T_HEIGHT] = frac(n, 16.0);
  b[T_TOPPED] = tw[n - 1] == 0 ? 1.0f : 0.0f;
}

// one seat's block (observation._seat_block plus the bid and ceiling pieces)
void write_seat(float* b, const State& s, int p, bool live) {
  const Towers& tw = s.towers[p];
  const Pile& pile = s.piles[p];
  const bool gp = s.gp;
  b[S_PRESENT] = 1.0f;
  const int bid = s.bids[p];
  if (bid == BID_NONE) {
    b[S_BID] = 1.0f;
  } else if (bid == PASSED) {
    b[S_BID + 1] = 1.0f;
  } else {
    b[S_BID + 2] = 1.0f;
    b[S_BID + 3] = frac(bid, kMaxBid);
  }
  if (live) b[S_CEILING] = frac(s.ceiling(p), kMaxBid);
  b[S_PAYABLE] = frac(payable(tw, gp), kMaxBid);
  const double score = static_cast<double>(score_player(tw, pile, gp)) / kScoreScale;
  b[S_SCORE] = static_cast<float>(std::min(1.0, std::max(-1.0, score)));
  if (gp) b[S_PAIR] = frac(pair_bonus(tw), 30.0);
  count_cards(b + S_PILE, pile);
  b[S_PILE_SIZE] = frac(pile.size(), 16.0);
  for (int t = 0; t < kNumTypes; ++t) write_tower(b + kSeatStatic + t * kTowerSize, tw[t]);
}

// (a - b) mod n, as Python's % (non-negative)
inline int rel(int a, int b, int n) { return ((a - b) % n + n) % n; }

}  // namespace

void encode(const State& s, int seat, float* out) {
  const int n = s.num_players_;
  if (seat < 0 || seat >= n || n < kMinPlayers || n > kMaxSeats)
    throw std::out_of_range("seat " + std::to_string(seat) + " is not a seat 0.." + std::to_string(n - 1));
  std::memset(out, 0, sizeof(float) * kObsSize);
  // -- global pieces
  const int phase = s.phase_;
  set_at(out + G_PHASE, 6, phase);
  out[G_RECOVER] = phase == PHASE_RECOVER ? 1.0f : 0.0f;
  out[G_VARIANT + (s.gp ? 1 : 0)] = 1.0f;
  out[G_NUM_PLAYERS + n - 2] = 1.0f;
  if (s.current_player_ >= 0) out[G_TO_ACT + rel(s.current_player_, seat, n)] = 1.0f;
  out[G_START + rel(s.start_player, seat, n)] = 1.0f;
  if (s.builder >= 0) out[G_BUILDER + rel(s.builder, seat, n)] = 1.0f;
  count_cards(out + G_DISPLAY, s.display);
  count_cards(out + G_HAND, s.hand);
  count_cards(out + G_DISCARD, s.discard);
  count_cards(out + G_UNSEEN, s.deck);
  out[G_DECK] = frac(s.deck.size(), 110.0);
  out[G_DECK + 1] = s.deck_ran_out ? 1.0f : 0.0f;
  if (s.high_bid >= 0) {
    out[G_ROUND] = 1.0f;
    out[G_ROUND + 1] = frac(s.high_bid, kMaxBid);
  }
  out[G_ROUND + 2] = frac(s.target, kMaxBid);
  out[G_ROUND + 3] = frac(s.taken, kMaxBid);
  out[G_ROUND + 4] = frac(s.paid, kMaxBid);
  out[G_ROUND + 5] = s.took_tree ? 1.0f : 0.0f;
  set_at(out + G_TORN, 7, s.torn == TORN_NONE ? 0 : s.torn + 2);
  set_at(out + G_SAND, 3, s.sand_end);
  // -- seat blocks, from the observer on (the padding seats stay zero)
  const bool live = phase != PHASE_GAME_OVER;
  for (int k = 0; k < n; ++k) write_seat(out + kGlobalSize + k * kSeatSize, s, (seat + k) % n, live);
}

}  // namespace ft

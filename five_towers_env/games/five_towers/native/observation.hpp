// The flat observation vector (== observation.py `encode(state, seat)`, SPEC §6), bit for bit.
//
// Seats are relative to the observer and padded to five seats; card-count pieces hold 80 counts
// indexed by card id. Every value is computed as the Python computes it (a float64 quotient
// rounded once to float32), so the vectors compare equal with np.array_equal.
#pragma once

#include "state.hpp"

namespace ft {

constexpr int kObsSize = 2116;  // OBS_SIZE
static_assert(kObsSize == State::kObsSize, "observation size");

// observation layout (observation.py GLOBAL_PIECES / SEAT_PIECES / TOWER_PIECES)
namespace obs {
constexpr int kMaxSeats = 5;
constexpr int kNoneOneHot = 17;  // "no card" slot + values 0..15
// global pieces
constexpr int G_PHASE = 0, G_VARIANT = 6, G_NUM_PLAYERS = 8, G_TO_ACT = 12, G_START = 17, G_BUILDER = 22;
constexpr int G_DISPLAY = 27, G_HAND = 107, G_DISCARD = 187, G_UNSEEN = 267, G_DECK = 347, G_ROUND = 349;
constexpr int G_TORN = 355, G_SAND = 362, G_RECOVER = 365;
constexpr int kGlobalSize = 366;
// seat pieces (offsets inside a seat block)
constexpr int S_PRESENT = 0, S_BID = 1, S_CEILING = 5, S_PAYABLE = 6, S_SCORE = 7, S_PAIR = 8, S_PILE = 9, S_PILE_SIZE = 89;
constexpr int kSeatStatic = 90;
// tower pieces (offsets inside a tower block)
constexpr int T_TOP = 0, T_BOTTOM = kNoneOneHot, T_CARDS = 2 * kNoneOneHot, T_HEIGHT = T_CARDS + kNumValues,
              T_TOPPED = T_HEIGHT + 1;
constexpr int kTowerSize = T_TOPPED + 1;  // 52
constexpr int kSeatSize = kSeatStatic + kNumTypes * kTowerSize;  // 350
static_assert(kGlobalSize + kMaxSeats * kSeatSize == kObsSize, "observation layout");
}  // namespace obs

// Write `seat`'s observation of `s` into out[0..kObsSize). Throws std::out_of_range for a seat
// that is not 0..num_players-1.
void encode(const State& s, int seat, float* out);

}  // namespace ft

// The flat Campanile observation vector (SPEC C5), mirroring observation.py float for float.
#pragma once

#include "state.hpp"

namespace cp {
namespace obs {

constexpr int kMaxSeats = kMaxPlayers;
constexpr int kMaxStake = 1 * 5 + 2 * 3 + 3 * 1;  // 14
constexpr int kMaxScore = 8 + 6 + 4 + 2;          // 20
constexpr int kMaxPile = 18;                      // pile_size(5)
constexpr int kNumPlays = kNoBet;                 // 15

// offsets of the pieces (observation.OFFSETS)
constexpr int kPhase = 0, kVariant = 3, kBetChipExact = 5, kNPlayers = 6, kToAct = 10, kPlayedT = 15, kPlayedK = 20,
              kHeights = 23, kRank = 28, kFace = 53, kPSize = 68, kHand = 71, kUnseen = 76, kCPlayed = 81,
              kEnds = 86, kEndShare = 117, kGivesEnd = 148, kRivalEnd = 163, kSeat0 = 178;
constexpr int kSChips = 1, kSRevealed = 4, kSStake = 9, kSPrec = 14, kSScore = 19, kSeatSize = 20;
constexpr int kObsSize = kSeat0 + kMaxSeats * kSeatSize;  // 278
static_assert(kObsSize == State::kObsSize, "observation size");

// observation.encode(state, observer): observer must be a seat 0..n-1
void encode(const State& state, int observer, float* out);

}  // namespace obs
}  // namespace cp

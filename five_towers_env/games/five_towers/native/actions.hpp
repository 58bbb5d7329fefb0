// The flat action space (== actions.py, SPEC §7).
#pragma once

#include "cards.hpp"

namespace ft {

constexpr int MAX_BID = 25;
constexpr int BID = 0;                                  // bid N: BID + N
constexpr int PASS = BID + MAX_BID + 1;                 // 26
constexpr int TAKE = PASS + 1;                          // 27: TAKE + card id
constexpr int STOP = TAKE + kNumCardIds;                // 107
constexpr int TEARDOWN = STOP + 1;                      // 108: TEARDOWN + type
constexpr int NO_TEARDOWN = TEARDOWN + kNumTypes;       // 113
constexpr int BUILD = NO_TEARDOWN + 1;                  // 114: BUILD + card id
constexpr int BUILD_BOTTOM = BUILD + kNumCardIds;       // 194: BUILD_BOTTOM + sand value
constexpr int RECOVER = BUILD_BOTTOM + kNumValues;      // 210: RECOVER + card id
constexpr int RECOVER_BOTTOM = RECOVER + kNumCardIds;   // 290: RECOVER_BOTTOM + sand value
constexpr int NO_RECOVER = RECOVER_BOTTOM + kNumValues; // 306
constexpr int NUM_ACTIONS = NO_RECOVER + 1;             // 307

inline constexpr int build_action(int card, bool bottom) {
  return bottom ? BUILD_BOTTOM + card - card_id(SAND, 0) : BUILD + card;
}
inline constexpr int recover_action(int card, bool bottom) {
  return bottom ? RECOVER_BOTTOM + card - card_id(SAND, 0) : RECOVER + card;
}

}  // namespace ft

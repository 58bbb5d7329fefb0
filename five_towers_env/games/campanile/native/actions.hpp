// Campanile's one flat action space, Discrete(31) (SPEC C6), mirroring actions.py.
#pragma once

#include "rules.hpp"

namespace cp {

constexpr int kPlay = 0;                         // play T K: kPlay + 3 * tower + (K - 1)
constexpr int kNoBet = kPlay + 3 * kNumTowers;   // 15
constexpr int kBet = kNoBet + 1;                 // bet V on T: kBet + 3 * tower + (V - 1)
constexpr int kNumActions = kBet + 3 * kNumTowers;  // 31

constexpr int play_action(int tower, int storeys) { return kPlay + 3 * tower + storeys - 1; }
constexpr int bet_action(int value, int tower) { return kBet + 3 * tower + value - 1; }

}  // namespace cp

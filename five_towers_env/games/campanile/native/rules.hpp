// Campanile's fixed numbers and its scoring (docs/campanile.md, "SPEC Cn"), mirroring rules.py.
// Towers and cards are small ints: tower t in 0..4 is "ABCDE"[t]; a card is the tower it can be played on.
#pragma once

#include <cstdint>

namespace cp {

constexpr int kNumTowers = 5;
constexpr int kCardsPerStyle = 14;  // SPEC C1: 70 cards, 14 per style
constexpr int kNumPiles = 3;
constexpr int kHandSize = 3;  // SPEC C2.2
constexpr int kMinPlayers = 2, kMaxPlayers = 5;
constexpr int kChips[3] = {5, 3, 1};  // five 1-chips, three 2-chips, one 3-chip
constexpr int kFlags[4][2] = {{8, 4}, {6, 3}, {4, 2}, {2, 1}};  // SPEC C4, tallest first
constexpr int kMaxHeight = kCardsPerStyle * 3;                  // 42

enum Variant : int { kPile = 0, kPlayed = 1 };
enum BetChip : int { kAtLeast = 0, kExact = 1 };

// SPEC C2.1: cards removed from each style, by player count
constexpr int removed_per_style(int n) { return n == 2 ? 5 : n == 3 ? 3 : n == 4 ? 1 : 0; }
constexpr int cards_per_style(int n) { return kCardsPerStyle - removed_per_style(n); }
constexpr int pile_size(int n) { return (kNumTowers * cards_per_style(n) - kHandSize * n) / kNumPiles; }
constexpr int leftover_count(int n) { return (kNumTowers * cards_per_style(n) - kHandSize * n) % kNumPiles; }

// SPEC C4: the towers tallest first; between equal heights the one further left (a stable reversed sort)
inline void flag_order(const int* heights, int* order) {
  for (int t = 0; t < kNumTowers; ++t) {
    int i = t;
    while (i > 0 && heights[order[i - 1]] < heights[t]) {
      order[i] = order[i - 1];
      --i;
    }
    order[i] = t;
  }
}

// The two best backers of one tower (rules.ranked_backers, first two entries): seats, -1 for none.
struct Top2 {
  int8_t first = -1, second = -1;
};

// Top2 from each seat's stake and first-chip rank under a tower (rank -1: no chip): a larger stake first,
// between equal stakes the earlier first chip.
inline Top2 rank_top2(const int* stake, const int* first, int n) {
  Top2 r;
  int best = -1, second = -1;
  auto better = [&](int a, int b) {  // seat a ranks above seat b
    return stake[a] > stake[b] || (stake[a] == stake[b] && first[a] < first[b]);
  };
  for (int s = 0; s < n; ++s) {
    if (first[s] < 0) continue;
    if (best < 0 || better(s, best)) {
      second = best;
      best = s;
    } else if (second < 0 || better(s, second)) {
      second = s;
    }
  }
  r.first = static_cast<int8_t>(best);
  r.second = static_cast<int8_t>(second);
  return r;
}

// SPEC C4 (rules.score_backed): each seat's score given the flag order and each tower's two best backers
inline void score_backed(const int* order, const Top2* backed, int n, int* scores) {
  for (int p = 0; p < n; ++p) scores[p] = 0;
  for (int i = 0; i < 4; ++i) {  // the fifth tower scores nothing
    const Top2& r = backed[order[i]];
    if (r.first >= 0) scores[r.first] += kFlags[i][0];
    if (r.second >= 0) scores[r.second] += kFlags[i][1];
  }
}

}  // namespace cp

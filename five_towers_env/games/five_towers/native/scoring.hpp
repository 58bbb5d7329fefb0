// Scoring at game end (== scoring.py, SPEC §4, Great Powers pairs §5).
#pragma once

#include "cards.hpp"

namespace ft {

constexpr int PAIR_VP = 3;

// Great Powers: 3 VP per scary/candy pair of equal value, each card in at most one pair
inline int pair_bonus(const Towers& towers) {
  const Tower& scary = towers[SCARY];
  const Tower& candy = towers[CANDY];
  if (scary.empty() || candy.empty()) return 0;
  int cs[kNumValues] = {0}, cc[kNumValues] = {0};
  for (int i = 0; i < scary.n; ++i) ++cs[scary.v[i]];
  for (int i = 0; i < candy.n; ++i) ++cc[candy.v[i]];
  int pairs = 0;
  for (int v = 0; v < kNumValues; ++v) pairs += cs[v] < cc[v] ? cs[v] : cc[v];
  return PAIR_VP * pairs;
}

inline int teardown_penalty(int pile_size) { return pile_size * (pile_size + 1) / 2; }

// one player's score: tower cards (x2 with a tower top), main tower bonus, teardown penalty, pairs
inline int score_player(const Towers& towers, const Pile& pile, bool gp) {
  int total = 0, main = 0;
  for (const Tower& tw : towers) {
    const int n = tw.n;
    total += (n && tw.v[n - 1] == 0) ? 2 * n : n;
    if (n > main) main = n;
  }
  total += main - teardown_penalty(pile.n);
  if (gp) total += pair_bonus(towers);
  return total;
}

}  // namespace ft

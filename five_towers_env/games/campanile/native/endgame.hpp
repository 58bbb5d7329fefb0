// The end of a Campanile game seen one turn ahead, from one seat's public view (endgame.py).
#pragma once

#include "rules.hpp"
#include "state.hpp"

namespace cp {

// endgame.next_player_endings: calls visit(scores) (n ints) for every way the next player could end the
// game on their turn, in the Python order (piles, then styles, then no bet and each bet, tower by tower and
// value by value); stops early when visit returns true. heights: the towers after seat's play; the bets are
// state's; sizes: the pile sizes after seat's draw from pile drawn_pile (1-3); backed: each tower's two
// best backers now; unseen: state.unseen_counts(seat).
template <class Visit>
void next_player_endings(const State& state, int seat, const int* heights, const int* sizes, int drawn_pile,
                         const Top2* backed, const int* unseen, Visit&& visit) {
  const int n = state.opt.num_players;
  const int rival = (seat + 1) % n;
  int styles[kNumTowers], ns = 0;
  for (int t = 0; t < kNumTowers; ++t) {
    bool in_revealed = false;
    for (int i = 0; i < state.revealed_size[rival]; ++i)
      if (state.revealed[rival][i] == t) in_revealed = true;
    if (in_revealed || unseen[t] > 0) styles[ns++] = t;
  }
  const int* held = state.chips[rival];
  bool shown[kNumTowers] = {false, false, false, false, false};
  for (int i = 0; i < kNumPiles; ++i)
    if (state.pile_len[i] && i != drawn_pile - 1) shown[state.piles[i][state.pile_len[i] - 1]] = true;
  int face[kNumTowers], nf = 0;
  for (int t = 0; t < kNumTowers; ++t)
    if (shown[t]) face[nf++] = t;
  int scores[kMaxPlayers];
  for (int e = 0; e < kNumPiles; ++e) {
    if (sizes[e] != 1) continue;
    const int k = e + 1;
    int values[3], nv = 0;
    if (state.opt.bet_chip == kExact) {
      if (held[k - 1]) values[nv++] = k;
    } else {
      for (int v = k; v < 4; ++v)
        if (held[v - 1]) values[nv++] = v;
    }
    for (int iu = 0; iu < ns; ++iu) {
      const int u = styles[iu];
      int h2[kNumTowers];
      for (int t = 0; t < kNumTowers; ++t) h2[t] = heights[t];
      h2[u] += k;
      int order[kNumTowers];
      flag_order(h2, order);
      score_backed(order, backed, n, scores);  // no bet
      if (visit(static_cast<const int*>(scores))) return;
      const int* towers = state.opt.variant == kPlayed ? &u : face;
      const int nt = state.opt.variant == kPlayed ? 1 : nf;
      for (int it = 0; it < nt; ++it) {
        const int t = towers[it];
        for (int iv = 0; iv < nv; ++iv) {  // one chip more under tower t: only its backers change
          Top2 chip[kNumTowers];
          for (int x = 0; x < kNumTowers; ++x) chip[x] = backed[x];
          chip[t] = state.top2_with(t, rival, values[iv]);
          score_backed(order, chip, n, scores);
          if (visit(static_cast<const int*>(scores))) return;
        }
      }
    }
  }
}

}  // namespace cp

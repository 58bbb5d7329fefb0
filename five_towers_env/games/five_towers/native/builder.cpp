// builder.moves + builder.round_ok, as the engine asks them (state._legal_moves). See builder.hpp.
#include "builder.hpp"

#include <algorithm>

namespace ft {

int legal_moves(int phase, const Towers& towers, const Pile& pile, const Hand& hand, int sand_end, bool gp, int* out) {
  int n = 0;
  if (phase == ROUND_TEARDOWN) {
    // after a teardown: BUILD (round_ok: build_ok, no recover pending) or DONE (always ok)
    if (hand.empty() || build_ok(towers, hand, pile, sand_end, false, gp)) out[n++] = NO_TEARDOWN;
    for (int t = 0; t < kNumTypes; ++t) {
      const Tower& tw = towers[t];
      if (!tw.tearable()) continue;
      bool ok = true;
      if (!hand.empty()) {
        Towers nt = towers;
        nt[t].pop();
        Pile np = pile;
        np.insert_sorted(t * kNumValues + tw.top());
        ok = build_ok(nt, hand, np, sand_end, false, gp);
      }
      if (ok) out[n++] = TEARDOWN + t;
    }
  } else if (phase == ROUND_BUILD) {
    for (int i = 0; i < hand.n; ++i) {
      const int c = hand.v[i];
      if (i > 0 && hand.v[i - 1] == c) continue;
      Hand rest = hand;
      rest.erase_at(i);
      Placement pl[2];
      const int k = placements(towers, c, sand_end, gp, pl);
      const int after = phase_after_build(c, pile, rest, gp);
      for (int j = 0; j < k; ++j) {
        bool ok = true;
        if (after != ROUND_DONE) {
          Towers nt = towers;
          nt[type_of(c)] = pl[j].tower;
          ok = build_ok(nt, rest, pile, pl[j].end, after == ROUND_RECOVER, gp);
        }
        if (ok) out[n++] = build_action(c, pl[j].bottom);
      }
    }
  } else if (phase == ROUND_RECOVER) {
    if (hand.empty() || build_ok(towers, hand, pile, sand_end, false, gp)) out[n++] = NO_RECOVER;
    for (int i = 0; i < pile.n; ++i) {
      const int c = pile.v[i];
      if (i > 0 && pile.v[i - 1] == c) continue;
      Pile rest = pile;
      rest.erase_at(i);
      Placement pl[2];
      const int k = placements(towers, c, sand_end, true, pl);
      const int after = phase_after_build(c, rest, hand, gp);
      for (int j = 0; j < k; ++j) {
        bool ok = true;
        if (after != ROUND_DONE) {
          Towers nt = towers;
          nt[type_of(c)] = pl[j].tower;
          ok = build_ok(nt, hand, rest, pl[j].end, after == ROUND_RECOVER, gp);
        }
        if (ok) out[n++] = recover_action(c, pl[j].bottom);
      }
    }
  }
  std::sort(out, out + n);
  return n;
}

}  // namespace ft

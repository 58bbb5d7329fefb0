// Look-ahead, the engine's questions (== lookahead.py): the plain teardown/build shortcuts, and the
// questions of both variants, answered by lookahead_base.cpp or lookahead_gp.cpp. See lookahead.hpp.
#include "lookahead.hpp"

#include "actions.hpp"
#include "lookahead_internal.hpp"

namespace ft {

using namespace lookahead_detail;

// ---- the engine's plain questions ----------------------------------------------------------------

namespace {
inline bool fits_on(int t, int top, int skey, VSet values, int sand_end, bool gp) {
  if (gp && t == SAND) return sand_ok(skey, values, sand_end);
  return fits(top, values);
}
}  // namespace

int plain_teardowns(const Towers& towers, const Hand& hand, int sand_end, bool gp, int out[6]) {
  VSet groups[kNumTypes];
  split_by_type(hand, groups);
  if (gp && groups[SCRAP]) return -1;
  int bad = -1;
  for (int t = 0; t < kNumTypes; ++t) {
    if (groups[t] && !fits_on(t, towers[t].top(), sand_key(towers[t]), groups[t], sand_end, gp)) {
      if (bad >= 0) return 0;
      bad = t;
    }
  }
  int n = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    const Tower& tw = towers[t];
    if (!tw.tearable() || (bad >= 0 && t != bad)) continue;
    if (!groups[t] || fits_on(t, top_after_teardown(tw), sand_key_after_teardown(tw), groups[t], sand_end, gp)) out[n++] = t;
  }
  if (bad < 0) out[n++] = -1;
  return n;
}

int plain_builds(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool gp, int* out) {
  VSet groups[kNumTypes];
  split_by_type(hand, groups);
  if (gp && groups[SCRAP] && !pile.empty()) return -1;
  int on_top[16], under[16];
  int nt = 0, nu = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    const VSet values = groups[t];
    if (!values) continue;
    const Tower& tw = towers[t];
    if (!(gp && t == SAND)) {
      const int top = tw.top();
      int found = 0;
      for (int v = 0; v < kNumValues; ++v) {
        if (!vs_count(values, v)) continue;
        if ((top == kNoTower || can_place(top, v)) && fits(v, values - vs_one(v))) {
          on_top[nt++] = t * kNumValues + v;
          ++found;
        }
      }
      if (!found) return 0;
      continue;
    }
    if (!sand_ok(sand_key(tw), values, sand_end)) return 0;
    for (int v = 0; v < kNumValues; ++v) {
      if (!vs_count(values, v)) continue;
      const VSet rest = values - vs_one(v);
      Placement pl[2];
      const int k = placements(towers, t * kNumValues + v, sand_end, true, pl);
      for (int j = 0; j < k; ++j) {
        if (!sand_ok(sand_key(pl[j].tower), rest, pl[j].end)) continue;
        if (pl[j].bottom) under[nu++] = v;
        else on_top[nt++] = t * kNumValues + v;
      }
    }
  }
  int n = 0;
  for (int i = 0; i < nt; ++i) out[n++] = BUILD + on_top[i];
  for (int i = 0; i < nu; ++i) out[n++] = BUILD_BOTTOM + under[i];
  return n;
}

bool build_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool pending, bool gp) {
  if (!gp) return base_hand_ok(towers, hand);
  return gp_build_ok(towers, hand, pile, sand_end, pending);
}

bool teardown_ok(const Towers& towers, const Hand& hand, const Pile& pile, bool gp) {
  return gp ? gp_teardown_ok(towers, hand, pile) : base_teardown_ok(towers, hand);
}

int achievable_bids(const Towers& towers, const Pile& pile, const Display& display, bool gp) {
  return gp ? gp_bids(towers, pile, display) : base_bids(towers, display);
}

}  // namespace ft

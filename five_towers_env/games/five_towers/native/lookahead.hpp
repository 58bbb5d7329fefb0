// Look-ahead (== lookahead.py, lookahead_base.py, lookahead_gp.py): can the builder still build every
// card they must. The same questions and the same mathematics as the Python modules, on small
// fixed-size values: a multiset of values of one type is a VSet (2 bits of count per value).
// Memos are thread_local, direct-mapped and bounded (a slot is overwritten on collision).
#pragma once

#include <cstdint>

#include "cards.hpp"

namespace ft {

constexpr int INF = 1 << 20;
// sand_end: the end of the sand tower this round's sand additions use (== lookahead END_*)
constexpr int8_t END_NONE = 0, END_TOP = 1, END_BOTTOM = 2;

// ---- value multisets of one type ----------------------------------------------------------------
using VSet = uint32_t;  // count of value v in bits 2v..2v+1
inline VSet vs_one(int v) { return VSet(1) << (2 * v); }
inline int vs_count(VSet s, int v) { return (s >> (2 * v)) & 3; }
inline int vs_size(VSet s) {  // the sum of the 16 counts (no popcount instruction needed)
  uint32_t x = (s & 0x33333333u) + ((s >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
}

// split_by_type: the values of sorted card ids, grouped per type
template <class L>
inline void split_by_type(const L& cards, VSet out[kNumTypes]) {
  for (int t = 0; t < kNumTypes; ++t) out[t] = 0;
  for (int i = 0; i < cards.n; ++i) out[type_of(cards.v[i])] += vs_one(value_of(cards.v[i]));
}

// ---- snapshot helpers -----------------------------------------------------------------------------
// How many tree cards the player could pay (0 if the tree tower is topped or missing, or base game)
inline int payable(const Towers& towers, bool gp) {
  const Tower& tree = towers[TREE];
  if (!gp || tree.empty() || tree.has_zero()) return 0;
  return tree.n;
}

// tower_key of a sand tower: -1 for none, else bottom * 16 + top
inline int sand_key(const Tower& tw) { return tw.empty() ? -1 : tw.v[0] * 16 + tw.v[tw.n - 1]; }

// One way to build a card (placements): the tower after it, the new sand end, placed at the bottom
struct Placement {
  Tower tower;  // the card's own tower after the build (the other towers are unchanged)
  int8_t end;
  bool bottom;
};
// Writes up to 2 placements; returns how many
int placements(const Towers& towers, int card, int sand_end, bool gp, Placement out[2]);

// ---- the primitive questions -------------------------------------------------------------------
bool fits(int top, VSet values);                     // can all values be built onto top (NO_TOWER: none)
bool sand_ok(int key, VSet values, int sand_end);    // Great Powers sand tower with ends `key` (sand_key)
int most_fitting(int top, VSet values);              // the longest chain of values onto top

// ---- what the engine asks ------------------------------------------------------------------------
// plain_teardowns: writes the types (then -1 for no teardown) into out, returns their count, or
// -1 for Python's None (Great Powers with a scrap card in hand: the general search decides)
int plain_teardowns(const Towers& towers, const Hand& hand, int sand_end, bool gp, int out[6]);
// plain_builds: writes the legal build action ids (ascending), returns their count, or -1 for None
int plain_builds(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool gp, int* out);
// build_ok: can every card in hand still be built (pending: a recover decision comes first)
bool build_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool pending, bool gp);
bool gp_build_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool pending);
bool teardown_ok(const Towers& towers, const Hand& hand, const Pile& pile, bool gp);
// achievable_bids: bitmask of every bid this player could carry out on this display
int achievable_bids(const Towers& towers, const Pile& pile, const Display& display, bool gp);

// Take rests: every multiset of display cards whose taking completes a buildable hand
struct Rests {
  struct Rest {
    uint8_t n;
    uint8_t c[5];
  };
  Rest r[32];
  int n = 0;
};
void base_take_rests(const Towers& towers, const Hand& hand, const Display& display, int need, Rests& out);
void gp_take_rests(const Towers& towers, const Pile& pile, const Hand& hand, const Display& display, int need,
                   bool can_pay, Rests& out);

}  // namespace ft

// Look-ahead, base game (== lookahead_base.py): the per-type chain maths, the snapshot helpers every
// part shares, and the memo machinery. See lookahead.hpp.
#include "lookahead_internal.hpp"

#include <algorithm>
#include <memory>

namespace ft {

namespace lookahead_detail {

Memo& memo(MemoId id) {
  static thread_local std::unique_ptr<Memo> memos[M_COUNT];
  std::unique_ptr<Memo>& m = memos[id];
  if (!m) m.reset(new Memo(14));
  return *m;
}

Memo1& memo1(Memo1Id id) {
  static thread_local std::unique_ptr<Memo1> memos[M1_COUNT];
  std::unique_ptr<Memo1>& m = memos[id];
  if (!m) m.reset(new Memo1(id == M_FITS ? 17 : 15));
  return *m;
}

}  // namespace lookahead_detail

using namespace lookahead_detail;

// ---- primitives -------------------------------------------------------------------------------------

bool fits(int top, VSet values) {
  if (!values) return true;
  if (top == 0) return false;
  const int zeros = vs_count(values, 0);
  if (zeros) {  // a 0 can only come last, onto any card but a 0
    if (zeros > 1) return false;
    values -= vs_one(0);
    if (!values) return true;
  }
  if ((values & (values - 1)) == 0 && (__builtin_ctz(values) & 1) == 0) {  // one card
    const int v = __builtin_ctz(values) >> 1;
    return top == kNoTower || can_place(top, v);
  }
  Memo1& m = memo1(M_FITS);
  const uint64_t key = uint64_t(top + 1) | (uint64_t(values) << 5);
  int r;
  if (m.get(key, r)) return r != 0;
  bool ok = false;
  for (int v = 0; v < kNumValues && !ok; ++v) {
    if (!vs_count(values, v)) continue;
    if ((top == kNoTower || can_place(top, v)) && fits(v, values - vs_one(v))) ok = true;
  }
  m.put(key, ok);
  return ok;
}

int most_fitting(int top, VSet values) {
  if (!values) return 0;
  Memo1& m = memo1(M_MOST);
  const uint64_t key = uint64_t(top + 1) | (uint64_t(values) << 5);
  int r;
  if (m.get(key, r)) return r;
  const int len = vs_size(values);
  int best = 0;
  for (int v = 0; v < kNumValues; ++v) {
    if (!vs_count(values, v)) continue;
    if (top == kNoTower || can_place(top, v)) {
      best = std::max(best, 1 + most_fitting(v, values - vs_one(v)));
      if (best == len) break;
    }
  }
  m.put(key, best);
  return best;
}

int placements(const Towers& towers, int card, int sand_end, bool gp, Placement out[2]) {
  const int t = type_of(card), v = value_of(card);
  const Tower& tw = towers[t];
  if (tw.empty()) {
    out[0].tower = tw;
    out[0].tower.push(v);
    out[0].end = static_cast<int8_t>(sand_end);
    out[0].bottom = false;
    return 1;
  }
  const bool sand_power = gp && t == SAND;
  int k = 0;
  if (can_place(tw.top(), v) && !(sand_power && sand_end == END_BOTTOM)) {
    out[k].tower = tw;
    out[k].tower.push(v);
    out[k].end = static_cast<int8_t>(sand_power ? END_TOP : sand_end);
    out[k].bottom = false;
    ++k;
  }
  if (sand_power && sand_end != END_TOP && tw.top() != 0 && can_place(v, tw.v[0])) {
    out[k].tower = tw;
    out[k].tower.push_bottom(v);
    out[k].end = END_BOTTOM;
    out[k].bottom = true;
    ++k;
  }
  return k;
}

// ---- base-game questions ----------------------------------------------------------------------------

namespace {

// base game: some teardown choice lets the per-type groups be built
bool base_ok(const Towers& towers, const VSet groups[kNumTypes]) {
  int bad = -1, nbad = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (groups[t] && !fits(towers[t].top(), groups[t])) {
      bad = t;
      ++nbad;
    }
  }
  if (!nbad) return true;
  return nbad == 1 && towers[bad].tearable() && fits(top_after_teardown(towers[bad]), groups[bad]);
}

}  // namespace

namespace lookahead_detail {

bool base_hand_ok(const Towers& towers, const Hand& hand) {
  VSet h[kNumTypes];
  split_by_type(hand, h);
  for (int t = 0; t < kNumTypes; ++t)
    if (h[t] && !fits(towers[t].top(), h[t])) return false;
  return true;
}

bool base_teardown_ok(const Towers& towers, const Hand& hand) {
  VSet groups[kNumTypes];
  split_by_type(hand, groups);
  return base_ok(towers, groups);
}

int base_bids(const Towers& towers, const Display& display) {
  VSet groups[kNumTypes];
  split_by_type(display, groups);
  int total = 0, gain = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (!groups[t]) continue;
    const Tower& tw = towers[t];
    const int a = most_fitting(tw.top(), groups[t]);
    total += a;
    if (tw.tearable()) {
      const int b = most_fitting(top_after_teardown(tw), groups[t]) - a;
      if (b > gain) gain = b;
    }
  }
  return (1 << (total + gain + 1)) - 1;
}

}  // namespace lookahead_detail

// ---- take rests --------------------------------------------------------------------------------

namespace {

// every distinct sub-multiset of a sorted card list, as (sorted cards, count); f returns true to stop
template <class L, class F>
void for_each_card_sub(const L& cards, F&& f) {
  int ids[8], cnts[8], cur[8];
  int m = 0;
  for (int i = 0; i < cards.n; ++i) {
    if (m && ids[m - 1] == cards.v[i]) {
      ++cnts[m - 1];
    } else {
      ids[m] = cards.v[i];
      cnts[m] = 1;
      cur[m] = 0;
      ++m;
    }
  }
  while (true) {
    Rests::Rest r;
    r.n = 0;
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < cur[i]; ++k) r.c[r.n++] = static_cast<uint8_t>(ids[i]);
    if (f(r)) return;
    int i = 0;
    while (i < m && cur[i] == cnts[i]) cur[i++] = 0;
    if (i == m) return;
    ++cur[i];
  }
}

}  // namespace

void base_take_rests(const Towers& towers, const Hand& hand, const Display& display, int need, Rests& out) {
  out.n = 0;
  VSet h[kNumTypes];
  split_by_type(hand, h);
  for_each_card_sub(display, [&](const Rests::Rest& r) {
    if (r.n != need) return false;
    VSet g[kNumTypes];
    for (int t = 0; t < kNumTypes; ++t) g[t] = h[t];
    for (int i = 0; i < r.n; ++i) g[type_of(r.c[i])] += vs_one(value_of(r.c[i]));
    if (base_ok(towers, g)) out.r[out.n++] = r;
    return false;
  });
}

}  // namespace ft

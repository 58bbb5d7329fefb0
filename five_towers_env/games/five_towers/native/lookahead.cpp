// Look-ahead (== lookahead.py / lookahead_base.py / lookahead_gp.py). See lookahead.hpp.
#include "lookahead.hpp"

#include "actions.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace ft {

namespace {

// ---- a bounded, direct-mapped, thread_local memo --------------------------------------------------
class Memo {
 public:
  explicit Memo(int bits) : e_(size_t(1) << bits), mask_((uint64_t(1) << bits) - 1) {
    for (auto& x : e_) x.a = ~uint64_t(0);
  }
  bool get(uint64_t a, uint64_t b, int& v) const {
    const E& x = e_[slot(a, b)];
    if (x.a == a && x.b == b) {
      v = x.v;
      return true;
    }
    return false;
  }
  void put(uint64_t a, uint64_t b, int v) {
    E& x = e_[slot(a, b)];
    x.a = a;
    x.b = b;
    x.v = v;
  }

 private:
  struct E {
    uint64_t a, b;
    int32_t v;
  };
  size_t slot(uint64_t a, uint64_t b) const {
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return static_cast<size_t>(h & mask_);
  }
  std::vector<E> e_;
  uint64_t mask_;
};

// the same for a key of at most 48 bits and a small result: one word per slot
class Memo1 {
 public:
  explicit Memo1(int bits) : e_(size_t(1) << bits, 0), shift_(64 - bits) {}
  bool get(uint64_t key, int& v) const {
    const uint64_t x = e_[slot(key)];
    if ((x >> 8) == key + 1) {
      v = static_cast<int>(x & 0xFF);
      return true;
    }
    return false;
  }
  void put(uint64_t key, int v) { e_[slot(key)] = ((key + 1) << 8) | static_cast<uint64_t>(v & 0xFF); }

 private:
  size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_); }
  std::vector<uint64_t> e_;
  int shift_;
};

enum MemoId { M_RECOVER, M_SCRAP, M_COUNT };
enum Memo1Id { M_FITS, M_SAND, M_MOST, M1_COUNT };

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

// every distinct sub-multiset of s (the empty one and s included); f(sub) returns true to stop
template <class F>
bool for_each_sub(VSet s, F&& f) {
  int vals[kNumValues], cnts[kNumValues], cur[kNumValues];
  int m = 0;
  for (int v = 0; v < kNumValues; ++v) {
    const int c = vs_count(s, v);
    if (c) {
      vals[m] = v;
      cnts[m] = c;
      cur[m] = 0;
      ++m;
    }
  }
  VSet sub = 0;
  while (true) {
    if (f(sub)) return true;
    int i = 0;
    while (i < m && cur[i] == cnts[i]) {
      sub -= VSet(cur[i]) * vs_one(vals[i]);
      cur[i] = 0;
      ++i;
    }
    if (i == m) return false;
    ++cur[i];
    sub += vs_one(vals[i]);
  }
}

inline int top_after_teardown(const Tower& tw) { return tw.n >= 2 ? tw.v[tw.n - 2] : kNoTower; }
inline int sand_key_after_teardown(const Tower& tw) { return tw.n >= 2 ? tw.v[0] * 16 + tw.v[tw.n - 2] : -1; }

// tower_key as one int: non-sand: the top (NO_TOWER); sand: sand_key
inline int tower_key(const Towers& towers, int t) { return t == SAND ? sand_key(towers[t]) : towers[t].top(); }

// ok(key, values) for a sand or other tower
inline bool key_ok(int key, bool sand, int sand_end, VSet values) {
  return sand ? sand_ok(key, values, sand_end) : fits(key, values);
}

}  // namespace

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

bool sand_ok(int key, VSet values, int sand_end) {
  if (!values) return true;
  Memo1& m = memo1(M_SAND);
  const uint64_t mkey = uint64_t(key + 1) | (uint64_t(sand_end) << 9) | (uint64_t(values) << 11);
  int r;
  if (m.get(mkey, r)) return r != 0;
  bool ok = false;
  for (int v = 0; v < kNumValues && !ok; ++v) {
    if (!vs_count(values, v)) continue;
    const VSet rest = values - vs_one(v);
    if (key < 0) {
      if (sand_ok(v * 16 + v, rest, sand_end)) ok = true;
      continue;
    }
    const int bottom = key >> 4, top = key & 15;
    if (can_place(top, v) && sand_end != END_BOTTOM && sand_ok(bottom * 16 + v, rest, END_TOP)) ok = true;
    else if (sand_end != END_TOP && top != 0 && can_place(v, bottom) && sand_ok(v * 16 + top, rest, END_BOTTOM))
      ok = true;
  }
  m.put(mkey, ok);
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

// ---- Great Powers ---------------------------------------------------------------------------------

namespace {

// _recovers_needed: the fewest pile values (at most cap, else INF) that, added to values, let them
// all be built onto a tower with ends key
int recovers_needed(int key, bool sand, int sand_end, VSet values, VSet pile, int cap) {
  if (key_ok(key, sand, sand_end, values)) return 0;
  if (!pile || !cap) return INF;
  Memo& m = memo(M_RECOVER);
  const uint64_t a = uint64_t(key + 1) | (uint64_t(sand) << 9) | (uint64_t(sand_end) << 10) | (uint64_t(cap) << 12) |
                     (uint64_t(values) << 20);
  int r;
  if (m.get(a, pile, r)) return r;
  int best = INF;
  for_each_sub(pile, [&](VSet rec) {
    const int n = vs_size(rec);
    if (n == 0 || n > cap || n >= best) return false;
    if (key_ok(key, sand, sand_end, values + rec)) {
      best = n;
      if (n == 1) return true;
    }
    return false;
  });
  m.put(a, pile, best);
  return best;
}

// _fewest_recovers: out[k] for k = 0..|optional|
int fewest_recovers(int key, bool sand, int sand_end, VSet forced, VSet optional, VSet pile, int cap, int out[6]) {
  const int len = vs_size(optional);
  for (int k = 0; k <= len; ++k) out[k] = INF;
  for_each_sub(optional, [&](VSet sub) {
    const int k = vs_size(sub);
    if (out[k]) {
      const int n = recovers_needed(key, sand, sand_end, forced + sub, pile, cap);
      if (n < out[k]) out[k] = n;
    }
    return false;
  });
  return len + 1;
}

// _scrap_ok: bit k set iff the forced scrap values and some k of the optional ones can be built onto
// the scrap tower, possibly with pile scrap cards recovered in between (never first)
int scrap_ok(int top, VSet forced, VSet optional, VSet pile) {
  Memo& m = memo(M_SCRAP);
  const uint64_t a = uint64_t(top + 1) | (uint64_t(forced) << 8);
  const uint64_t b = uint64_t(optional) | (uint64_t(pile) << 32);
  int r;
  if (m.get(a, b, r)) return r;
  int mask = 0;
  for_each_sub(optional, [&](VSet sub) {
    const int k = vs_size(sub);
    if ((mask >> k) & 1) return false;
    const VSet lead = forced + sub;
    if (!lead) {
      mask |= 1;
      return false;
    }
    for_each_sub(pile, [&](VSet rec) {
      const VSet values = lead + rec;
      for (int v = 0; v < kNumValues; ++v) {
        if (!vs_count(lead, v)) continue;
        if ((top == kNoTower || can_place(top, v)) && fits(v, values - vs_one(v))) {
          mask |= 1 << k;
          return true;
        }
      }
      return false;
    });
    return false;
  });
  m.put(a, b, mask);
  return mask;
}

inline void budget(VSet pile, int tokens, VSet& p, int& cap) {
  if (!pile || !tokens) {
    p = 0;
    cap = 0;
  } else {
    p = pile;
    cap = std::min(tokens, vs_size(pile));
  }
}

bool gp_plain_ok(const Towers& towers, const VSet groups[kNumTypes], int sand_end) {
  for (int t = 0; t < kNumTypes; ++t) {
    if (!groups[t]) continue;
    if (t == SAND) {
      if (!sand_ok(sand_key(towers[SAND]), groups[t], sand_end)) return false;
    } else if (!fits(towers[t].top(), groups[t])) {
      return false;
    }
  }
  return true;
}

bool gp_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end) {
  VSet h[kNumTypes];
  split_by_type(hand, h);
  const int tokens = vs_size(h[SCRAP]);
  if (pile.empty() || !tokens) return gp_plain_ok(towers, h, sand_end);
  VSet p[kNumTypes];
  split_by_type(pile, p);
  int spent = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (t == SCRAP) {
      if (!scrap_ok(towers[SCRAP].top(), h[SCRAP], 0, p[SCRAP])) return false;
      continue;
    }
    if (!h[t]) continue;
    const bool sand = t == SAND;
    VSet bp;
    int cap;
    budget(p[t], tokens, bp, cap);
    spent += recovers_needed(tower_key(towers, t), sand, sand ? sand_end : END_NONE, h[t], bp, cap);
    if (spent > tokens) return false;
  }
  return true;
}

// _gp_counts entries
struct Entry {
  int t;
  bool has_torn;
  int scrap, scrap_torn;       // scrap type: the masks
  int need[6], need_torn[6];   // other types: fewest recovers per count
  int len;                     // entries in need / need_torn
};

int combine(const int* const* needs, const int* lens, int count, int scrap, int scrap_hand) {
  int spent[32];
  int n = 1;
  spent[0] = 0;
  for (int i = 0; i < count; ++i) {
    const int* need = needs[i];
    const int ln = lens[i];
    int merged[32];
    const int m = n + ln - 1;
    for (int k = 0; k < m; ++k) merged[k] = INF;
    for (int a = 0; a < n; ++a) {
      if (spent[a] >= INF) continue;
      for (int j = 0; j < ln; ++j)
        if (spent[a] + need[j] < merged[a + j]) merged[a + j] = spent[a] + need[j];
    }
    for (int k = 0; k < m; ++k) spent[k] = merged[k];
    n = m;
  }
  int mask = 0, k_scrap = 0;
  while (scrap) {
    if (scrap & 1) {
      const int bud = scrap_hand + k_scrap;
      for (int k = 0; k < n; ++k)
        if (spent[k] <= bud) mask |= 1 << (k + k_scrap);
    }
    scrap >>= 1;
    ++k_scrap;
  }
  return mask;
}

int combine_entries(const Entry* entries, int count, int skip, int scrap_hand, int torn_type) {
  const int* needs[kNumTypes];
  int lens[kNumTypes];
  int c = 0, scrap = 1;
  for (int i = 0; i < count; ++i) {
    const Entry& e = entries[i];
    if (e.t == skip) continue;
    const bool torn = e.t == torn_type;
    if (e.t == SCRAP) {
      scrap = torn ? e.scrap_torn : e.scrap;
    } else {
      needs[c] = torn ? e.need_torn : e.need;
      lens[c] = e.len;
      ++c;
    }
  }
  return combine(needs, lens, c, scrap, scrap_hand);
}

int gp_choices(const Entry* entries, int count, int scrap_hand, int skip) {
  int mask = combine_entries(entries, count, skip, scrap_hand, -1);
  for (int i = 0; i < count; ++i)
    if (entries[i].t != skip && entries[i].has_torn) mask |= combine_entries(entries, count, skip, scrap_hand, entries[i].t);
  return mask;
}

int gp_counts(const Towers& towers, const Pile& pile, const Hand& hand, const Display& display, bool can_pay) {
  VSet h[kNumTypes], d[kNumTypes], p[kNumTypes];
  split_by_type(hand, h);
  split_by_type(display, d);
  split_by_type(pile, p);
  const int scrap_hand = vs_size(h[SCRAP]);
  const int tokens = scrap_hand + vs_size(d[SCRAP]);
  Entry entries[kNumTypes];
  int count = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (!(h[t] || d[t])) continue;
    const Tower& tw = towers[t];
    Entry& e = entries[count++];
    e.t = t;
    e.has_torn = tw.tearable();
    VSet torn_pile = 0;
    if (e.has_torn) torn_pile = (t == SCRAP || tokens) ? p[t] + vs_one(tw.top()) : 0;
    if (t == SCRAP) {
      e.scrap = scrap_ok(tw.top(), h[t], d[t], p[t]);
      e.scrap_torn = e.has_torn ? scrap_ok(top_after_teardown(tw), h[t], d[t], torn_pile) : 0;
      e.len = 0;
    } else {
      const bool sand = t == SAND;
      VSet bp;
      int cap;
      budget(p[t], tokens, bp, cap);
      e.len = fewest_recovers(tower_key(towers, t), sand, END_NONE, h[t], d[t], bp, cap, e.need);
      if (e.has_torn) {
        const int key = sand ? sand_key_after_teardown(tw) : top_after_teardown(tw);
        budget(torn_pile, tokens, bp, cap);
        fewest_recovers(key, sand, END_NONE, h[t], d[t], bp, cap, e.need_torn);
      }
    }
  }
  int mask = gp_choices(entries, count, scrap_hand, -1);
  if (can_pay && !h[TREE]) {
    const int h_tree = payable(towers, true);
    if (h_tree) {
      const int paid = gp_choices(entries, count, scrap_hand, TREE);
      for (int n = 1; n <= h_tree; ++n) mask |= paid << n;
    }
  }
  return mask;
}

}  // namespace

bool gp_build_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool pending) {
  if (!pending) return gp_ok(towers, hand, pile, sand_end);
  if (gp_ok(towers, hand, pile, sand_end)) return true;
  for (int i = 0; i < pile.n; ++i) {
    const int c = pile.v[i];
    if (i > 0 && pile.v[i - 1] == c) continue;
    Pile rest = pile;
    rest.erase_at(i);
    const bool again = type_of(c) == SCRAP && !rest.empty();
    Placement pl[2];
    const int k = placements(towers, c, sand_end, true, pl);
    for (int j = 0; j < k; ++j) {
      Towers nt = towers;
      nt[type_of(c)] = pl[j].tower;
      if (gp_build_ok(nt, hand, rest, pl[j].end, again)) return true;
    }
  }
  return false;
}

bool build_ok(const Towers& towers, const Hand& hand, const Pile& pile, int sand_end, bool pending, bool gp) {
  if (!gp) {
    VSet h[kNumTypes];
    split_by_type(hand, h);
    for (int t = 0; t < kNumTypes; ++t)
      if (h[t] && !fits(towers[t].top(), h[t])) return false;
    return true;
  }
  return gp_build_ok(towers, hand, pile, sand_end, pending);
}

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

bool teardown_ok(const Towers& towers, const Hand& hand, const Pile& pile, bool gp) {
  VSet groups[kNumTypes];
  split_by_type(hand, groups);
  if (!gp) return base_ok(towers, groups);
  if (gp_ok(towers, hand, pile, END_NONE)) return true;
  for (int t = 0; t < kNumTypes; ++t) {
    const Tower& tw = towers[t];
    if (!tw.tearable() || !groups[t]) continue;
    Towers nt = towers;
    nt[t].pop();
    Pile np = pile;
    np.insert_sorted(t * kNumValues + tw.top());
    if (gp_ok(nt, hand, np, END_NONE)) return true;
  }
  return false;
}

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

int achievable_bids(const Towers& towers, const Pile& pile, const Display& display, bool gp) {
  if (gp) {
    Hand empty;
    return gp_counts(towers, pile, empty, display, true);
  }
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

namespace {

struct Share {
  uint8_t ids[5];
  int n;         // how many cards
  int ok;        // judged standing (scrap: 0/1; other types: recovers needed)
  bool has_torn;
  int ok_torn;   // judged with the top torn down
  bool tree;     // holds a tree card
};

bool shares_ok(const int* types, const Share* const* combo, int count, int scrap_hand) {
  int bud = scrap_hand, spent = 0;
  bool scrap_fits = true;
  for (int i = 0; i < count; ++i) {
    if (types[i] == SCRAP) {
      bud += combo[i]->n;
      scrap_fits = combo[i]->ok != 0;
    } else {
      spent += combo[i]->ok;
    }
  }
  if (scrap_fits && spent <= bud) return true;
  for (int i = 0; i < count; ++i) {
    const Share& e = *combo[i];
    if (!e.has_torn) continue;
    if (types[i] == SCRAP) {
      if (e.ok_torn && spent <= bud) return true;
    } else if (scrap_fits && spent - e.ok + e.ok_torn <= bud) {
      return true;
    }
  }
  return false;
}

}  // namespace

void gp_take_rests(const Towers& towers, const Pile& pile, const Hand& hand, const Display& display, int need,
                   bool can_pay, Rests& out) {
  out.n = 0;
  VSet h[kNumTypes], d[kNumTypes], p[kNumTypes];
  split_by_type(hand, h);
  split_by_type(display, d);
  split_by_type(pile, p);
  const int scrap_hand = vs_size(h[SCRAP]);
  const int tokens = scrap_hand + vs_size(d[SCRAP]);
  const int can_tree_pay = (can_pay && !h[TREE]) ? payable(towers, true) : 0;
  int types[kNumTypes];
  Share shares[kNumTypes][32];
  int nshares[kNumTypes];
  int count = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (!(h[t] || d[t])) continue;
    const Tower& tw = towers[t];
    const bool has_torn = tw.tearable();
    VSet torn_pile = 0;
    if (has_torn) torn_pile = (t == SCRAP || tokens) ? p[t] + vs_one(tw.top()) : 0;
    const bool sand = t == SAND;
    const int key = sand ? sand_key(tw) : tw.top();
    const int torn_key = sand ? sand_key_after_teardown(tw) : top_after_teardown(tw);
    int ns = 0;
    Share* per = shares[count];
    for_each_sub(d[t], [&](VSet sub) {
      const VSet forced = h[t] + sub;
      Share s;
      s.n = 0;
      for (int v = 0; v < kNumValues; ++v)
        for (int k = 0; k < vs_count(sub, v); ++k) s.ids[s.n++] = static_cast<uint8_t>(t * kNumValues + v);
      s.has_torn = has_torn;
      s.ok_torn = 0;
      bool keep;
      if (t == SCRAP) {
        s.ok = scrap_ok(tw.top(), forced, 0, p[t]) & 1;
        if (has_torn) s.ok_torn = scrap_ok(top_after_teardown(tw), forced, 0, torn_pile) & 1;
        keep = s.ok || (has_torn && s.ok_torn);
      } else {
        VSet bp;
        int cap;
        budget(p[t], tokens, bp, cap);
        s.ok = recovers_needed(key, sand, END_NONE, forced, bp, cap);
        if (has_torn) {
          budget(torn_pile, tokens, bp, cap);
          s.ok_torn = recovers_needed(torn_key, sand, END_NONE, forced, bp, cap);
        }
        keep = s.ok < INF || (has_torn && s.ok_torn < INF);
      }
      s.tree = t == TREE && s.n > 0;
      if (keep) per[ns++] = s;
      return false;
    });
    types[count] = t;
    nshares[count] = ns;
    ++count;
  }
  // every combination of one share per type, at most need cards
  const Share* combo[kNumTypes];
  int idx[kNumTypes];
  for (int i = 0; i < count; ++i)
    if (nshares[i] == 0) return;
  for (int i = 0; i < count; ++i) idx[i] = 0;
  while (true) {
    int k = 0;
    bool tree = false;
    for (int i = 0; i < count; ++i) {
      combo[i] = &shares[i][idx[i]];
      k += combo[i]->n;
      tree = tree || combo[i]->tree;
    }
    if (k <= need && !(k < need && (need - k > can_tree_pay || tree)) && shares_ok(types, combo, count, scrap_hand)) {
      Rests::Rest& r = out.r[out.n++];
      r.n = 0;
      for (int i = 0; i < count; ++i)
        for (int j = 0; j < combo[i]->n; ++j) r.c[r.n++] = combo[i]->ids[j];
      std::sort(r.c, r.c + r.n);
    }
    int i = count - 1;
    while (i >= 0 && idx[i] == nshares[i] - 1) idx[i--] = 0;
    if (i < 0) break;
    ++idx[i];
  }
}

}  // namespace ft

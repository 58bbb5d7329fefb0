// Look-ahead, Great Powers (== lookahead_gp.py): the scrap power's recovers and the sand power's
// two-ended tower, searched with the memos of lookahead_base.cpp. See lookahead.hpp.
#include "lookahead_internal.hpp"

#include <algorithm>

namespace ft {

using namespace lookahead_detail;

namespace {

// tower_key as one int: non-sand: the top (NO_TOWER); sand: sand_key
inline int tower_key(const Towers& towers, int t) { return t == SAND ? sand_key(towers[t]) : towers[t].top(); }

// ok(key, values) for a sand or other tower
inline bool key_ok(int key, bool sand, int sand_end, VSet values) {
  return sand ? sand_ok(key, values, sand_end) : fits(key, values);
}

}  // namespace

// ---- primitives -------------------------------------------------------------------------------------

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

namespace lookahead_detail {

bool gp_teardown_ok(const Towers& towers, const Hand& hand, const Pile& pile) {
  VSet groups[kNumTypes];
  split_by_type(hand, groups);
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

int gp_bids(const Towers& towers, const Pile& pile, const Display& display) {
  Hand empty;
  return gp_counts(towers, pile, empty, display, true);
}

}  // namespace lookahead_detail

// ---- take rests --------------------------------------------------------------------------------

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

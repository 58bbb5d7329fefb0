// Look-ahead internals shared by lookahead.cpp, lookahead_base.cpp and lookahead_gp.cpp (not part of
// the public API in lookahead.hpp): the memo machinery, the sub-multiset walk, the teardown helpers,
// and the per-variant questions the public entry points dispatch to.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lookahead.hpp"

namespace ft {
namespace lookahead_detail {

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

// the thread_local memos (defined in lookahead_base.cpp)
Memo& memo(MemoId id);
Memo1& memo1(Memo1Id id);

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

// ---- base game (lookahead_base.cpp) ----------------------------------------------------------------
bool base_hand_ok(const Towers& towers, const Hand& hand);
bool base_teardown_ok(const Towers& towers, const Hand& hand);
int base_bids(const Towers& towers, const Display& display);

// ---- Great Powers (lookahead_gp.cpp) ----------------------------------------------------------------
bool gp_teardown_ok(const Towers& towers, const Hand& hand, const Pile& pile);
int gp_bids(const Towers& towers, const Pile& pile, const Display& display);

}  // namespace lookahead_detail
}  // namespace ft

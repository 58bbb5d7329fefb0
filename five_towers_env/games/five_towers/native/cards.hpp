// Cards, card sets and the placement rule (== cards.py, SPEC §1-§2), plus the small fixed-size
// containers every part of the native engine uses (no heap allocation in the hot path).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace ft {

constexpr int kNumTypes = 5;
constexpr int CANDY = 0, SCARY = 1, TREE = 2, SCRAP = 3, SAND = 4;
constexpr int kNumValues = 16;
constexpr int kNumCardIds = kNumTypes * kNumValues;  // 80
constexpr int kMaxPlayers = 5;
constexpr int kMinPlayers = 2;
constexpr int kMaxCards = 110;  // cards in a 4-5 player game
constexpr int kMaxTower = 24;   // a tower holds at most the 22 cards of its type
constexpr int kNoTower = -1;    // NO_TOWER: the "top" of a missing tower

inline constexpr int card_id(int type_index, int value) { return type_index * kNumValues + value; }
inline constexpr int type_of(int card) { return card / kNumValues; }
inline constexpr int value_of(int card) { return card % kNumValues; }

inline constexpr bool is_doubled_value(int v) { return v == 0 || v == 2 || v == 5 || v == 7 || v == 10 || v == 12; }

// copies of card id c in the card set for num_players (card_set_counts)
inline constexpr int card_count(int num_players, int c) { return (num_players >= 4 && is_doubled_value(c % kNumValues)) ? 2 : 1; }

// SPEC §2: may a card of value `card` lie directly on a card of value `below`
inline constexpr bool can_place(int below, int card) {
  if (below == 0) return false;
  return below == 8 || card == 9 || card < below;
}

// An ordered list of small ints (card ids or values) with a fixed capacity. Used for the deck
// (order matters, top = last), the discard pile (order matters), and sorted multisets (display,
// hand, teardown piles). Out-of-capacity pushes are the caller's bug; the engine never does them.
template <int Cap>
struct SmallList {
  uint8_t n = 0;
  uint8_t v[Cap];

  int size() const { return n; }
  bool empty() const { return n == 0; }
  uint8_t operator[](int i) const { return v[i]; }
  uint8_t& operator[](int i) { return v[i]; }
  uint8_t back() const { return v[n - 1]; }
  const uint8_t* begin() const { return v; }
  const uint8_t* end() const { return v + n; }
  void clear() { n = 0; }
  void push_back(int x) { v[n++] = static_cast<uint8_t>(x); }
  void pop_back() { --n; }
  // sorted-multiset helpers
  void insert_sorted(int x) {
    int i = n;
    while (i > 0 && v[i - 1] > x) { v[i] = v[i - 1]; --i; }
    v[i] = static_cast<uint8_t>(x);
    ++n;
  }
  int index_of(int x) const {
    for (int i = 0; i < n; ++i) if (v[i] == x) return i;
    return -1;
  }
  bool contains(int x) const { return index_of(x) >= 0; }
  void erase_at(int i) {
    for (int j = i; j + 1 < n; ++j) v[j] = v[j + 1];
    --n;
  }
  bool remove_one(int x) {  // removes one copy; false if absent
    int i = index_of(x);
    if (i < 0) return false;
    erase_at(i);
    return true;
  }
  bool operator==(const SmallList& o) const { return n == o.n && std::memcmp(v, o.v, n) == 0; }
  bool operator!=(const SmallList& o) const { return !(*this == o); }
};

// One tower: values bottom (v[0]) to top (v[n-1]).
struct Tower {
  uint8_t n = 0;
  uint8_t v[kMaxTower];

  int size() const { return n; }
  bool empty() const { return n == 0; }
  uint8_t operator[](int i) const { return v[i]; }
  int top() const { return n ? v[n - 1] : kNoTower; }       // top_of
  int bottom() const { return n ? v[0] : kNoTower; }
  bool tearable() const { return n > 0 && v[n - 1] != 0; }  // tearable
  bool has_zero() const { for (int i = 0; i < n; ++i) if (v[i] == 0) return true; return false; }
  void push(int x) { v[n++] = static_cast<uint8_t>(x); }
  void pop() { --n; }
  void push_bottom(int x) {
    for (int i = n; i > 0; --i) v[i] = v[i - 1];
    v[0] = static_cast<uint8_t>(x);
    ++n;
  }
  bool operator==(const Tower& o) const { return n == o.n && std::memcmp(v, o.v, n) == 0; }
  bool operator!=(const Tower& o) const { return !(*this == o); }
};

using Towers = std::array<Tower, kNumTypes>;  // one player's 5 towers, indexed by type
using Pile = SmallList<kMaxCards>;             // a teardown pile: sorted card ids
using Hand = SmallList<8>;                     // taken cards not yet built: sorted card ids (at most 5)
using Display = SmallList<8>;                  // the display: sorted card ids (at most 5)
using CardList = SmallList<kMaxCards>;         // the deck (top = last) or the discard pile (in order)

}  // namespace ft

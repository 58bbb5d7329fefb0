// builder.py's Round and its transitions as the agents walk them (agents.cpp's greedy, heuristic.cpp's search),
// and the search's memo of rounds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "builder.hpp"
#include "cards.hpp"
#include "lookahead.hpp"
#include "state.hpp"

namespace ft {
namespace agents {

// builder.Round: the builder's side of a round
struct Round {
  int phase;        // ROUND_TAKE .. ROUND_RECOVER, or ROUND_DONE
  Towers towers;    // the builder's towers
  Pile pile;        // their teardown pile (sorted card ids)
  Hand hand;        // taken, not yet built (sorted)
  Display display;  // still on the display (sorted)
  int need;         // cards still to take or pay for (take phase)
  bool took_tree;   // a tree card was taken this round
  int sand_end;     // END_NONE / END_TOP / END_BOTTOM
};

// the state's round as the engine applies builder moves to it (state._round_fields)
inline Round engine_round(const State& s) {
  const int b = s.builder;
  return Round{s.phase_, s.towers[b], s.piles[b], s.hand, s.display, s.target - s.taken, s.took_tree, s.sand_end};
}

// builder.run_fields for one action, legal where it comes (as the engine applies it; heuristic.cpp)
void round_step(Round& r, int action, bool gp);

// builder.moves: f(action, the round after it) for every move the rules allow, dead ends included, in the
// Python order (the heuristic keeps the first of equal plans)
template <class F>
void for_each_move(const Round& r, bool gp, F&& f) {
  if (r.phase == ROUND_TAKE) {
    for (int i = 0; i < r.display.n; ++i) {
      if (i > 0 && r.display.v[i] == r.display.v[i - 1]) continue;
      Round c = r;
      round_step(c, TAKE + r.display.v[i], gp);
      f(TAKE + r.display.v[i], c);
    }
    if (gp && !r.took_tree && r.need > 0 && r.need <= payable(r.towers, true)) {
      Round c = r;
      round_step(c, STOP, gp);
      f(STOP, c);
    }
  } else if (r.phase == ROUND_TEARDOWN) {  // teardown_options: none first, then type by type
    const int after = r.hand.empty() ? ROUND_DONE : ROUND_BUILD;
    Round c = r;
    c.phase = after;
    f(NO_TEARDOWN, c);
    for (int t = 0; t < kNumTypes; ++t) {
      if (!r.towers[t].tearable()) continue;
      c = r;
      c.phase = after;
      c.pile.insert_sorted(t * kNumValues + c.towers[t].top());
      c.towers[t].pop();
      f(TEARDOWN + t, c);
    }
  } else if (r.phase == ROUND_BUILD || r.phase == ROUND_RECOVER) {
    const bool recover = r.phase == ROUND_RECOVER;
    if (recover) {
      Round c = r;
      c.phase = r.hand.empty() ? ROUND_DONE : ROUND_BUILD;
      f(NO_RECOVER, c);
    }
    const uint8_t* from = recover ? r.pile.v : r.hand.v;
    const int n = recover ? r.pile.n : r.hand.n;
    for (int i = 0; i < n; ++i) {
      const int card = from[i];
      if (i > 0 && from[i - 1] == card) continue;
      Placement pl[2];
      const int k = placements(r.towers, card, r.sand_end, recover || gp, pl);
      for (int j = 0; j < k; ++j) {
        Round c = r;
        if (recover) c.pile.erase_at(i);
        else c.hand.erase_at(i);
        c.towers[type_of(card)] = pl[j].tower;
        c.sand_end = pl[j].end;
        c.phase = phase_after_build(card, c.pile, c.hand, gp);
        f(recover ? recover_action(card, pl[j].bottom) : build_action(card, pl[j].bottom), c);
      }
    }
  }
}

// plan_value's memo (the Python context's search_memo): rounds equal as that memo's keys are (the display
// and the tree flag matter only while taking, and the Python search forgets them after). Open addressing over
// the rounds' hashes, each hashed once per lookup, the rounds kept in one vector (no allocation per entry).
class RoundMemo {
 public:
  static uint64_t hash(const Round& r);
  static bool same(const Round& a, const Round& b) {
    if (a.phase != b.phase || a.need != b.need || a.sand_end != b.sand_end) return false;
    if (a.phase == ROUND_TAKE && (a.took_tree != b.took_tree || a.display != b.display)) return false;
    return a.hand == b.hand && a.pile == b.pile && a.towers == b.towers;
  }
  // the value kept for r (h = hash(r)) into v; false if none is
  bool find(const Round& r, uint64_t h, double& v) const {
    if (slots_.empty()) return false;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint32_t e = slots_[i];
      if (!e) return false;
      const Entry& x = entries_[e - 1];
      if (x.hash == h && same(x.round, r)) {
        v = x.value;
        return true;
      }
    }
  }
  void put(const Round& r, uint64_t h, double v) {
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    entries_.push_back(Entry{h, v, r});
    place(h, static_cast<uint32_t>(entries_.size()));
  }
  size_t size() const { return entries_.size(); }
  void clear() {
    entries_.clear();
    if (slots_.size() > (size_t(1) << 14)) {  // after a rare large search: give its memory back
      slots_ = std::vector<uint32_t>();
      entries_.shrink_to_fit();
      mask_ = 0;
    } else {
      std::fill(slots_.begin(), slots_.end(), 0u);
    }
  }

 private:
  struct Entry {
    uint64_t hash;
    double value;
    Round round;
  };
  void place(uint64_t h, uint32_t index) {  // index: the entry's position + 1 (0: an empty slot)
    size_t i = h & mask_;
    while (slots_[i]) i = (i + 1) & mask_;
    slots_[i] = index;
  }
  void grow() {
    const size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(n, 0u);
    mask_ = n - 1;
    for (size_t k = 0; k < entries_.size(); ++k) place(entries_[k].hash, static_cast<uint32_t>(k + 1));
  }
  std::vector<uint32_t> slots_;
  std::vector<Entry> entries_;
  size_t mask_ = 0;
};

}  // namespace agents
}  // namespace ft

// The game state and the rules of a round (== state.py). See state.hpp.
#include "state.hpp"

#include <algorithm>
#include <stdexcept>

#include "builder.hpp"
#include "observation.hpp"
#include "scoring.hpp"

namespace ft {

const char* const kPhaseNames[6] = {"bid", "take", "teardown", "build", "recover", "game_over"};

State::State() {
  bids.fill(BID_NONE);
  bid_masks_.fill(-1);
  legal_.reserve(32);
}

void State::init(int num_players, bool gp_, const ftcore::Pcg64& rng, const CardList& deck_, const CardList& discard_,
                 const Display& display_, const std::array<Towers, kMaxPlayers>& towers_,
                 const std::array<Pile, kMaxPlayers>& piles_, int start_player_, bool deck_ran_out_) {
  num_players_ = num_players;
  gp = gp_;
  opts.num_players = num_players;
  opts.gp = gp_;
  rng_ = rng;
  deck = deck_;
  discard = discard_;
  towers = towers_;
  piles = piles_;
  start_player = start_player_;
  deck_ran_out = deck_ran_out_;
  rounds_played = 0;
  display = display_;
  std::sort(display.v, display.v + display.n);
  begin_bidding();
}

State State::new_game(const Options& o, ftcore::Pcg64 rng) {
  // deck = rng.permutation(card_set(n)); display = 5 cards popped off its end
  CardList deck;
  for (int c = 0; c < kNumCardIds; ++c)
    for (int k = card_count(o.num_players, c); k > 0; --k) deck.push_back(c);
  rng.shuffle(deck.v, deck.n);
  Display display;
  for (int i = 0; i < 5; ++i) {
    display.push_back(deck.back());
    deck.pop_back();
  }
  std::array<Towers, kMaxPlayers> towers{};
  std::array<Pile, kMaxPlayers> piles{};
  State s;
  s.init(o.num_players, o.gp, rng, deck, CardList(), display, towers, piles, o.start_player, false);
  s.opts = o;
  return s;
}

void State::reset_caches() {
  bid_masks_.fill(-1);
  rests_valid_ = false;
  legal_valid_ = false;
}

// ---- queries -------------------------------------------------------------------------------------

int State::ceiling(int player) const {
  const int d = display.n;
  if (!gp) return d;
  int non_tree = 0;
  for (int i = 0; i < display.n; ++i) non_tree += type_of(display.v[i]) != TREE;
  return std::max(d, non_tree + payable(towers[player], true));
}

int State::bid_mask(int player) {
  int32_t& m = bid_masks_[player];
  if (m < 0) m = achievable_bids(towers[player], piles[player], display, gp);
  return m;
}

const std::vector<int>& State::legal_actions() {
  if (!legal_valid_) compute_legal();
  return legal_;
}

bool State::is_legal(int a) {
  if (a < 0 || a >= NUM_ACTIONS || phase_ == PHASE_GAME_OVER) return false;
  const auto& legal = legal_actions();
  return std::binary_search(legal.begin(), legal.end(), a);
}

void State::scores(int* out) const {
  for (int p = 0; p < num_players_; ++p) out[p] = score_player(towers[p], piles[p], gp);
}

void State::observe(int seat, float* out) const {
  if (seat < 0 || seat >= num_players_) throw std::out_of_range("seat out of range");
  encode(*this, seat, out);
}

State State::public_view(int seat) const {
  (void)seat;
  State v(*this);
  v.rng_ = ftcore::Pcg64::from_seed(0);
  std::sort(v.deck.v, v.deck.v + v.deck.n);
  return v;
}

State State::determinize(int observer, ftcore::Pcg64 rng) const {
  (void)observer;
  State v(*this);
  std::sort(v.deck.v, v.deck.v + v.deck.n);
  rng.shuffle(v.deck.v, v.deck.n);
  v.rng_ = rng;
  return v;
}

// ---- legal actions -------------------------------------------------------------------------------

void State::compute_legal() {
  legal_.clear();
  switch (phase_) {
    case PHASE_BID: legal_bid(); break;
    case PHASE_TAKE: legal_take(); break;
    case PHASE_TEARDOWN: legal_teardown(); break;
    case PHASE_BUILD: legal_build(); break;
    case PHASE_RECOVER: legal_moves(); break;
    default: break;
  }
  legal_valid_ = true;
}

void State::legal_bid() {
  const bool first = bid_turn == 0;
  const int low = first ? 0 : high_bid + 1;
  const uint32_t mask = static_cast<uint32_t>(bid_mask(current_player_)) & ((1u << (MAX_BID + 1)) - 1);
  const int bits = mask ? 32 - __builtin_clz(mask) : 0;
  for (int n = low; n < bits; ++n)
    if ((mask >> n) & 1) legal_.push_back(BID + n);
  if (!first) legal_.push_back(PASS);
}

void State::legal_take() {
  const int p = builder;
  const int need = target - taken;
  if (!rests_valid_) {
    if (gp) gp_take_rests(towers[p], piles[p], hand, display, need, !took_tree, rests_);
    else base_take_rests(towers[p], hand, display, need, rests_);
    rests_valid_ = true;
  }
  bool cards[kNumCardIds] = {false};
  bool stop = false;
  for (int i = 0; i < rests_.n; ++i) {
    const Rests::Rest& r = rests_.r[i];
    if (r.n == 0) stop = true;
    for (int j = 0; j < r.n; ++j) cards[r.c[j]] = true;
  }
  for (int c = 0; c < kNumCardIds; ++c)
    if (cards[c]) legal_.push_back(TAKE + c);
  if (stop) legal_.push_back(STOP);
}

void State::legal_teardown() {
  int ts[6];
  const int n = plain_teardowns(towers[builder], hand, sand_end, gp, ts);
  if (n < 0) {
    legal_moves();
    return;
  }
  for (int i = 0; i < n; ++i) legal_.push_back(ts[i] < 0 ? NO_TEARDOWN : TEARDOWN + ts[i]);
}

void State::legal_build() {
  int out[32];
  const int n = plain_builds(towers[builder], hand, piles[builder], sand_end, gp, out);
  if (n < 0) {
    legal_moves();
    return;
  }
  legal_.assign(out, out + n);
}

void State::legal_moves() {
  int out[NUM_ACTIONS];
  const int n = ft::legal_moves(phase_, towers[builder], piles[builder], hand, sand_end, gp, out);
  legal_.assign(out, out + n);
}

// ---- transitions ---------------------------------------------------------------------------------

bool State::apply_action(int a) {
  if (!is_legal(a)) return false;
  if (phase_ == PHASE_BID) apply_bid(a);
  else apply_builder_move(a);
  legal_valid_ = false;
  return true;
}

bool State::redeal(const uint8_t* unseen, int n, const ftcore::Pcg64& rng) {
  if (phase_ != PHASE_BID || bid_turn != 0 || n != deck.n + display.n) return false;
  const int cut = n - display.n;
  deck.clear();
  for (int i = 0; i < cut; ++i) deck.push_back(unseen[i]);
  display.clear();
  for (int i = cut; i < n; ++i) display.insert_sorted(unseen[i]);
  rng_ = rng;
  begin_bidding();
  return true;
}

void State::begin_bidding() {
  phase_ = PHASE_BID;
  bids.fill(BID_NONE);
  bid_turn = 0;
  high_bid = -1;
  builder = -1;
  target = 0;
  hand.clear();
  taken = 0;
  took_tree = false;
  paid = 0;
  torn = TORN_NONE;
  sand_end = END_NONE;
  current_player_ = start_player;
  bid_masks_.fill(-1);
  rests_valid_ = false;
  legal_valid_ = false;
}

void State::apply_bid(int a) {
  const int p = current_player_;
  if (a == PASS) {
    bids[p] = PASSED;
  } else {
    high_bid = a - BID;
    bids[p] = static_cast<int8_t>(high_bid);
    builder = p;
  }
  ++bid_turn;
  const int n = num_players_;
  if (bid_turn < n) {
    bool more = high_bid < display.n;
    for (int i = bid_turn; i < n && !more; ++i)
      if (high_bid < ceiling((start_player + i) % n)) more = true;
    if (more) {
      current_player_ = (start_player + bid_turn) % n;
      return;
    }
  }
  if (high_bid == 0) {
    end_round(start_player);
    return;
  }
  target = high_bid;
  phase_ = PHASE_TAKE;
  current_player_ = builder;
}

void State::apply_builder_move(int a) {
  const int p = builder;
  Towers& tws = towers[p];
  Pile& pile = piles[p];
  int round_phase = phase_;
  if (phase_ == PHASE_TAKE) {
    const int need = target - taken;
    if (a == STOP) {  // pay the cards still needed from the tree tower's top; they go to the discard, top first
      Tower& tree = tws[TREE];
      for (int k = 0; k < need; ++k) {
        discard.push_back(TREE * kNumValues + tree.top());
        tree.pop();
      }
      paid = need;
      round_phase = ROUND_TEARDOWN;
    } else {
      const int c = a - TAKE;
      ++taken;
      hand.insert_sorted(c);
      display.remove_one(c);
      took_tree = took_tree || type_of(c) == TREE;
      if (need - 1 == 0) round_phase = ROUND_TEARDOWN;
      if (rests_valid_) {  // the ways to finish the take that use c
        int m = 0;
        for (int i = 0; i < rests_.n; ++i) {
          Rests::Rest r = rests_.r[i];
          int j = 0;
          while (j < r.n && r.c[j] != c) ++j;
          if (j == r.n) continue;
          for (int k = j; k + 1 < r.n; ++k) r.c[k] = r.c[k + 1];
          --r.n;
          rests_.r[m++] = r;
        }
        rests_.n = m;
      }
    }
  } else if (phase_ == PHASE_TEARDOWN) {
    if (a == NO_TEARDOWN) {
      torn = TORN_NOTHING;
    } else {
      const int t = a - TEARDOWN;
      torn = static_cast<int8_t>(t);
      pile.insert_sorted(t * kNumValues + tws[t].top());
      tws[t].pop();
    }
    round_phase = hand.empty() ? ROUND_DONE : ROUND_BUILD;
  } else {  // BUILD or RECOVER
    if (phase_ == PHASE_RECOVER && a == NO_RECOVER) {
      round_phase = hand.empty() ? ROUND_DONE : ROUND_BUILD;
    } else {
      bool bottom;
      int c;
      if (phase_ == PHASE_BUILD) {
        bottom = a >= BUILD_BOTTOM;
        c = bottom ? a - BUILD_BOTTOM + SAND * kNumValues : a - BUILD;
        hand.remove_one(c);
      } else {
        bottom = a >= RECOVER_BOTTOM;
        c = bottom ? a - RECOVER_BOTTOM + SAND * kNumValues : a - RECOVER;
        pile.remove_one(c);
      }
      const int t = type_of(c), v = value_of(c);
      if (gp && t == SAND) {  // the sand power: the end the action names
        Placement pl[2];
        const int k = placements(tws, c, sand_end, true, pl);
        for (int j = 0; j < k; ++j) {
          if (pl[j].bottom == bottom) {
            tws[t] = pl[j].tower;
            sand_end = pl[j].end;
            break;
          }
        }
      } else {
        tws[t].push(v);
      }
      round_phase = phase_after_build(c, pile, hand, gp);
    }
  }
  if (round_phase != PHASE_TAKE) rests_valid_ = false;
  if (round_phase == ROUND_DONE) end_round((p + 1) % num_players_);
  else phase_ = round_phase;
}

void State::end_round(int next_start) {
  for (int i = 0; i < display.n; ++i) discard.push_back(display.v[i]);
  display.clear();
  start_player = next_start;
  ++rounds_played;
  if (deck.empty()) {
    if (deck_ran_out) {
      game_over();
      return;
    }
    deck_ran_out = true;
    deck = discard;
    rng_.shuffle(deck.v, deck.n);
    discard.clear();
    if (deck.empty()) {
      game_over();
      return;
    }
  }
  const int k = std::min(5, deck.size());
  for (int i = deck.n - k; i < deck.n; ++i) display.push_back(deck.v[i]);
  std::sort(display.v, display.v + display.n);
  deck.n = static_cast<uint8_t>(deck.n - k);
  begin_bidding();
}

void State::game_over() {
  begin_bidding();
  phase_ = PHASE_GAME_OVER;
  current_player_ = -1;
  legal_.clear();
  legal_valid_ = true;
}

}  // namespace ft

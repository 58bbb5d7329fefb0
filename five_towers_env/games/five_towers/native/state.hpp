// The 5 Towers game state and the rules of a round (== state.py): legal_actions / apply_action.
//
// A plain copyable value (no heap except the cached legal-action vector). Public data members
// mirror the Python GameState attributes one to one (the observation encoder reads them):
// the four whose plain name is taken by a contract method carry a trailing underscore
// (num_players_, phase_, current_player_, rng_).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "cards.hpp"
#include "lookahead.hpp"
#include "rng.hpp"

namespace ft {

// Phase (== state.Phase)
constexpr int PHASE_BID = 0, PHASE_TAKE = 1, PHASE_TEARDOWN = 2, PHASE_BUILD = 3, PHASE_RECOVER = 4,
              PHASE_GAME_OVER = 5;
extern const char* const kPhaseNames[6];  // "bid", "take", "teardown", "build", "recover", "game_over"

// bids[p]
constexpr int8_t BID_NONE = -2;  // Python None: not yet had a chance to bid this round
constexpr int8_t PASSED = -1;    // Python PASSED: passed (else the bid, 0..MAX_BID)
// torn
constexpr int8_t TORN_NONE = -2;     // Python None: no teardown decision yet this round
constexpr int8_t TORN_NOTHING = -1;  // Python -1: decided not to tear down (else the torn type 0..4)

class State {
 public:
  struct Options {
    int num_players = 2;
    bool gp = false;       // variant == "great_powers"
    int start_player = 0;  // the first start player (new_game's start_player)
  };
  static constexpr int kNumActions = NUM_ACTIONS;  // 307
  static constexpr int kObsSize = 2116;

  // ---- data: the Python GameState attributes --------------------------------------------------
  Options opts;                       // what new_game was called with (options())
  int num_players_ = 2;               // num_players
  bool gp = false;                    // gp (variant == "great_powers")
  CardList deck;                      // deck: card ids, the top card LAST (hidden information)
  CardList discard;                   // discard: card ids in the order they were discarded
  Display display;                    // display: sorted card ids (at most 5)
  std::array<Towers, kMaxPlayers> towers;  // towers[p][t]: values bottom to top (seats >= num_players unused)
  std::array<Pile, kMaxPlayers> piles;     // piles[p]: sorted torn-down card ids
  int start_player = 0;               // start_player
  bool deck_ran_out = false;          // deck_ran_out
  int rounds_played = 0;              // rounds_played
  int phase_ = PHASE_BID;             // phase (PHASE_*)
  int current_player_ = 0;            // current_player (-1 once the game is over)
  std::array<int8_t, kMaxPlayers> bids;  // bids[p]: BID_NONE, PASSED or the bid
  int bid_turn = 0;                   // bid_turn: how many players have spoken this round
  int high_bid = -1;                  // high_bid (-1: no bid yet)
  int builder = -1;                   // builder: the highest bidder (-1: none yet)
  int target = 0;                     // target: the builder's bid
  Hand hand;                          // hand: taken cards not yet built (sorted)
  int taken = 0;                      // taken: cards taken this round
  bool took_tree = false;             // took_tree: a tree card was taken this round
  int paid = 0;                       // paid: tree cards paid this round
  int8_t torn = TORN_NONE;            // torn: TORN_NONE, TORN_NOTHING or the torn type
  int8_t sand_end = END_NONE;         // sand_end: END_NONE / END_TOP / END_BOTTOM
  ftcore::Pcg64 rng_;                 // rng: the game's generator (the reshuffle)

  // ---- caches (not part of the Python fields; rebuilt on demand) ------------------------------
  std::array<int32_t, kMaxPlayers> bid_masks_;  // _bid_masks[p] (-1: not computed)
  Rests rests_;                                 // _take_rests (valid when rests_valid_)
  bool rests_valid_ = false;
  bool legal_valid_ = false;
  std::vector<int> legal_;

  // ---- construction ---------------------------------------------------------------------------
  State();
  // GameState.new_game(num_players, variant, rng, start_player): the same draws
  static State new_game(const Options& o, ftcore::Pcg64 rng);
  // GameState(...) constructor: begins bidding on the given display
  void init(int num_players, bool gp, const ftcore::Pcg64& rng, const CardList& deck, const CardList& discard,
            const Display& display, const std::array<Towers, kMaxPlayers>& towers,
            const std::array<Pile, kMaxPlayers>& piles, int start_player, bool deck_ran_out);

  // ---- the game contract ----------------------------------------------------------------------
  const Options& options() const { return opts; }
  int num_players() const { return num_players_; }
  int current_player() const { return current_player_; }
  bool is_terminal() const { return phase_ == PHASE_GAME_OVER; }
  int phase() const { return phase_; }
  const char* phase_name() const { return kPhaseNames[phase_]; }
  const std::vector<int>& legal_actions();
  bool apply_action(int a);
  // apply_unchecked: a move the caller knows is legal (search rollouts), applied without listing the legal ones
  void apply_unchecked(int a) {
    if (phase_ == PHASE_BID) apply_bid(a);
    else apply_builder_move(a);
    legal_valid_ = false;
  }
  // redeal(unseen, rng): this round start (bidding not begun) dealt again from the n cards `unseen` (the last
  // ones the display, the rest the deck, top last), rng for the reshuffle; false unless a round start with
  // exactly the deck's and display's number of cards
  bool redeal(const uint8_t* unseen, int n, const ftcore::Pcg64& rng);
  void scores(int* out) const;
  void observe(int seat, float* out) const;  // == observation.encode (ft::encode, observation.hpp)
  State public_view(int seat) const;
  State determinize(int observer, ftcore::Pcg64 rng) const;
  ftcore::Pcg64& rng() { return rng_; }
  const ftcore::Pcg64& rng() const { return rng_; }

  // ---- queries (Python names) -----------------------------------------------------------------
  int ceiling(int player) const;   // SPEC §3 bid ceiling
  int bid_mask(int player);        // bitmask of achievable bids (cached per round)
  bool is_legal(int a);            // a in legal_actions()

  void invalidate() { legal_valid_ = false; }  // after editing fields by hand
  void reset_caches();                          // after editing fields by hand (also bid masks, rests)

 private:
  void begin_bidding();
  void compute_legal();
  void legal_bid();
  void legal_take();
  void legal_teardown();
  void legal_build();
  void legal_moves();
  void apply_bid(int a);
  void apply_builder_move(int a);
  void end_round(int next_start);
  void game_over();
};

}  // namespace ft

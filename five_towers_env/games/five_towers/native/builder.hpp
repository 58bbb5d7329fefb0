// The builder's part of a round (== builder.py): the moves the rules allow and which of them keep
// the round finishable (the general search of Great Powers teardown / build / recover decisions).
#pragma once

#include "actions.hpp"
#include "cards.hpp"
#include "lookahead.hpp"

namespace ft {

// builder round phases (TAKE..RECOVER are the engine's phase numbers)
constexpr int ROUND_TAKE = 1, ROUND_TEARDOWN = 2, ROUND_BUILD = 3, ROUND_RECOVER = 4, ROUND_DONE = 6;

// SPEC §5 scrap power: adding a scrap card with cards on the teardown pile offers a recover
inline int phase_after_build(int card, const Pile& pile, const Hand& hand, bool gp) {
  if (gp && type_of(card) == SCRAP && !pile.empty()) return ROUND_RECOVER;
  return hand.empty() ? ROUND_DONE : ROUND_BUILD;
}

// state._legal_moves: every move of builder.moves in phase TEARDOWN, BUILD or RECOVER that passes
// builder.round_ok, sorted ascending; writes them to out (room for NUM_ACTIONS), returns the count
int legal_moves(int phase, const Towers& towers, const Pile& pile, const Hand& hand, int sand_end, bool gp, int* out);

}  // namespace ft

// observation.encode, float for float: every value is computed in double as Python does and rounded to
// float32 once when stored (a "+=" reads the float32 back as a double first, as the memoryview does).
#include "observation.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "endgame.hpp"

namespace cp {
namespace obs {

namespace {

constexpr double kThird = 1.0 / kHandSize;
constexpr double kPerStyle = 1.0 / kCardsPerStyle;
constexpr double kChipScale[3] = {1.0 / 5, 1.0 / 3, 1.0 / 1};

inline void set(float* v, int i, double x) { v[i] = static_cast<float>(x); }
inline void add(float* v, int i, double x) { v[i] = static_cast<float>(static_cast<double>(v[i]) + x); }

// _share: seat's win share with these final scores
inline double share(const int* scores, int n, int seat) {
  int top = scores[0];
  for (int p = 1; p < n; ++p) top = std::max(top, scores[p]);
  if (scores[seat] != top) return 0.0;
  int count = 0;
  for (int p = 0; p < n; ++p) count += scores[p] == top;
  return 1.0 / count;
}

// _bet_share: seat's win share if the game ended after `bet` in the bet phase (heights give `order`;
// backed: the towers' backers before the bet; bets/stakes read from `state`, before the bet)
inline double bet_share(const State& state, int seat, int bet, const int* order, const Top2* backed) {
  const int n = state.opt.num_players;
  int scores[kMaxPlayers];
  if (bet != kNoBet) {
    const int t = (bet - kBet) / 3, v = (bet - kBet) % 3;
    Top2 b[kNumTowers];
    for (int x = 0; x < kNumTowers; ++x) b[x] = backed[x];
    b[t] = state.top2_with(t, seat, v + 1);
    score_backed(order, b, n, scores);
  } else {
    score_backed(order, backed, n, scores);
  }
  return share(scores, n, seat);
}

void end_pieces(const State& state, int seat, float* v, const int* unseen) {
  int sizes[kNumPiles];
  for (int i = 0; i < kNumPiles; ++i) sizes[i] = state.pile_len[i];
  if (std::min({sizes[0], sizes[1], sizes[2]}) > 2) return;
  Top2 backed[kNumTowers];
  for (int t = 0; t < kNumTowers; ++t) backed[t] = state.top2(t);
  int legal[32];
  const int nl = state.compute_legal(legal);
  if (state.played_storeys) {  // bet phase: the draw that follows comes from pile played_storeys
    if (sizes[state.played_storeys - 1] == 1) {
      int order[kNumTowers];
      state.flag_order(order);
      for (int i = 0; i < nl; ++i) {
        const int a = legal[i];
        set(v, kEnds + a, 1.0);
        set(v, kEndShare + a, bet_share(state, seat, a, order, backed));
      }
    }
    return;
  }
  const int n = state.opt.num_players;
  for (int i = 0; i < nl; ++i) {
    const int a = legal[i];
    const int k = a % 3 + 1;
    const int left = sizes[k - 1] - 1;
    if (left == 0) {
      State played = state;  // the engine's bet phase after this play
      played.apply_action(a);
      int order[kNumTowers];
      played.flag_order(order);
      int bets[32];
      const int nb = played.compute_legal(bets);
      double best = 0.0;
      for (int j = 0; j < nb; ++j) {
        const double s = bet_share(played, seat, bets[j], order, backed);
        if (j == 0 || s > best) best = s;  // Python's max() over the bets
      }
      set(v, kEnds + a, 1.0);
      set(v, kEndShare + a, best);
    } else {
      bool other_single = false;
      for (int e = 0; e < kNumPiles; ++e)
        if (e != k - 1 && sizes[e] == 1) other_single = true;
      if (left == 1 || other_single) {
        set(v, kGivesEnd + a, 1.0);
        int after[kNumPiles] = {sizes[0], sizes[1], sizes[2]};
        after[k - 1] = left;
        // _rival_end_share
        const int tower = a / 3;
        int heights[kNumTowers];
        for (int t = 0; t < kNumTowers; ++t) heights[t] = state.heights[t];
        heights[tower] += k;
        const int rival = (seat + 1) % n;
        double best = 0.0;
        next_player_endings(state, seat, heights, after, k, backed, unseen, [&](const int* scores) {
          best = std::max(best, share(scores, n, rival));
          return best == 1.0;
        });
        set(v, kRivalEnd + a, best);
      }
    }
  }
}

}  // namespace

void encode(const State& state, int observer, float* out) {
  const int n = state.opt.num_players;
  if (observer < 0 || observer >= n) throw std::out_of_range("observer is not a seat of the game");
  float* v = out;
  std::memset(v, 0, sizeof(float) * kObsSize);
  set(v, kPhase + (state.done ? 2 : state.phase_), 1.0);
  set(v, kVariant + (state.opt.variant == kPlayed ? 1 : 0), 1.0);
  if (state.opt.bet_chip == cp::kExact) set(v, kBetChipExact, 1.0);
  set(v, kNPlayers + n - 2, 1.0);
  set(v, kToAct + ((state.current - observer) % n + n) % n, 1.0);
  if (state.played_storeys) {
    set(v, kPlayedT + state.played_tower, 1.0);
    set(v, kPlayedK + state.played_storeys - 1, 1.0);
  }
  for (int t = 0; t < kNumTowers; ++t) {
    const int h = state.heights[t];
    if (h) set(v, kHeights + t, h < kMaxHeight ? static_cast<double>(h) / kMaxHeight : 1.0);
  }
  int order[kNumTowers];
  state.flag_order(order);
  for (int rank = 0; rank < kNumTowers; ++rank) set(v, kRank + kNumTowers * order[rank] + rank, 1.0);
  for (int i = 0; i < kNumPiles; ++i) {
    const int size = state.pile_len[i];
    if (size) {
      set(v, kFace + kNumTowers * i + state.piles[i][size - 1], 1.0);
      set(v, kPSize + i, size < kMaxPile ? static_cast<double>(size) / kMaxPile : 1.0);
    }
  }
  for (int i = 0; i < state.hand_size[observer]; ++i) add(v, kHand + state.hands[observer][i], kThird);
  int unseen[kNumTowers];
  state.unseen_counts(observer, unseen);
  for (int t = 0; t < kNumTowers; ++t) {
    set(v, kUnseen + t, unseen[t] * kPerStyle);
    set(v, kCPlayed + t, state.cards_played[t] * kPerStyle);
  }
  int scores[kMaxPlayers];
  state.scores(scores);
  for (int p = 0; p < n; ++p) {
    const int o = kSeat0 + (((p - observer) % n + n) % n) * kSeatSize;
    set(v, o, 1.0);
    for (int c = 0; c < 3; ++c) set(v, o + kSChips + c, state.chips[p][c] * kChipScale[c]);
    for (int i = 0; i < state.revealed_size[p]; ++i) add(v, o + kSRevealed + state.revealed[p][i], kThird);
    for (int t = 0; t < kNumTowers; ++t) {
      const int s = state.stake[t][p];
      if (s) {
        set(v, o + kSStake + t, static_cast<double>(s) / kMaxStake);
        set(v, o + kSPrec + t, static_cast<double>(kMaxSeats - state.first[t][p]) / kMaxSeats);
      }
    }
    set(v, o + kSScore, static_cast<double>(scores[p]) / kMaxScore);
  }
  if (!state.done && state.current == observer) end_pieces(state, observer, v, unseen);
}

}  // namespace obs

void State::observe(int seat, float* out) const { obs::encode(*this, seat, out); }

}  // namespace cp

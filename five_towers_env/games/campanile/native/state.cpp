// The Campanile rules (SPEC C2-C4), mirroring state.py.
#include "state.hpp"

#include <algorithm>
#include <stdexcept>

namespace cp {

const char* const kPhaseNames[3] = {"play", "bet", "game_over"};

namespace {

// insert `card` into the sorted array (size n -> n + 1), after any equal cards (state._with)
inline void insert_sorted(int8_t* cards, uint8_t& n, int card) {
  int i = n;
  while (i > 0 && cards[i - 1] > card) {
    cards[i] = cards[i - 1];
    --i;
  }
  cards[i] = static_cast<int8_t>(card);
  ++n;
}

// remove one copy of `card` if there (state._without); whether it was
inline bool remove_one(int8_t* cards, uint8_t& n, int card) {
  for (int i = 0; i < n; ++i)
    if (cards[i] == card) {
      for (int j = i + 1; j < n; ++j) cards[j - 1] = cards[j];
      --n;
      return true;
    }
  return false;
}

}  // namespace

State State::new_game(const Options& o, ftcore::Pcg64 rng) {
  if (o.num_players < kMinPlayers || o.num_players > kMaxPlayers)
    throw std::invalid_argument("num_players must be an integer from 2 to 5");
  if ((o.variant != kPile && o.variant != kPlayed) || (o.bet_chip != kAtLeast && o.bet_chip != kExact))
    throw std::invalid_argument("unknown variant or bet_chip");
  const int per = cards_per_style(o.num_players);
  int64_t deck[kNumTowers * kCardsPerStyle];
  int count = 0;
  for (int t = 0; t < kNumTowers; ++t)
    for (int i = 0; i < per; ++i) deck[count++] = t;
  rng.shuffle(deck, static_cast<size_t>(count));  // rng.permutation(deck)
  int cards[kNumTowers * kCardsPerStyle];
  for (int i = 0; i < count; ++i) cards[i] = static_cast<int>(deck[i]);
  return deal(o, cards, count, rng);
}

State State::deal(const Options& o, const int* cards, int count, ftcore::Pcg64 rng) {
  const int n = o.num_players;
  if (n < kMinPlayers || n > kMaxPlayers) throw std::invalid_argument("num_players must be an integer from 2 to 5");
  if (count != deal_size(n)) throw std::invalid_argument("wrong number of cards for the deal");
  State s{};
  s.opt = o;
  s.gen = rng;
  int at = 0;
  for (int p = 0; p < n; ++p) {
    s.hand_size[p] = 0;
    for (int i = 0; i < kHandSize; ++i) insert_sorted(s.hands[p], s.hand_size[p], cards[at++]);
  }
  const int size = pile_size(n);
  for (int i = 0; i < kNumPiles; ++i) {
    for (int j = 0; j < size; ++j) s.piles[i][j] = static_cast<int8_t>(cards[at++]);
    s.pile_len[i] = static_cast<uint8_t>(size);
  }
  s.leftover_size = 0;
  while (at < count) s.leftover[s.leftover_size++] = static_cast<int8_t>(cards[at++]);
  for (int p = 0; p < n; ++p)
    for (int v = 0; v < 3; ++v) s.chips[p][v] = kChips[v];
  s.current = 0;
  s.phase_ = kPhasePlay;
  s.played_tower = -1;
  s.played_storeys = 0;
  s.done = false;
  s.turns = 0;
  s.rebuild_derived();
  return s;
}

void State::rebuild_derived() {
  for (int t = 0; t < kNumTowers; ++t) {
    num_backers[t] = 0;
    for (int p = 0; p < kMaxPlayers; ++p) {
      stake[t][p] = 0;
      first[t][p] = -1;
    }
    for (int i = 0; i < num_bets[t]; ++i) {
      const Bet& b = bets[t][i];
      if (first[t][b.seat] < 0) first[t][b.seat] = num_backers[t]++;
      stake[t][b.seat] += b.value;
    }
  }
  legal_.valid = false;
}

// -- queries ------------------------------------------------------------------------------------------

uint32_t State::legal_mask() const {
  if (done) return 0;
  uint32_t m = 0;
  if (phase_ == kPhasePlay) {  // C3.1: any card in hand, raised 1, 2 or 3 storeys
    const int8_t* hand = hands[current];
    for (int i = 0; i < hand_size[current]; ++i) m |= 7u << (3 * hand[i]);
    return m;
  }
  // C3.2: `no bet` always; one held chip, large enough, on an allowed tower
  uint32_t towers = 0;
  if (opt.variant == kPlayed) {
    towers = 1u << played_tower;
  } else {
    for (int i = 0; i < kNumPiles; ++i)
      if (pile_len[i]) towers |= 1u << piles[i][pile_len[i] - 1];
  }
  const int* held = chips[current];
  const uint32_t have = (held[0] != 0 ? 1u : 0u) | (held[1] != 0 ? 2u : 0u) | (held[2] != 0 ? 4u : 0u);
  const int k = played_storeys;
  const uint32_t values = have & (opt.bet_chip == kExact ? 1u << (k - 1) : (7u << (k - 1)) & 7u);
  m = 1u << kNoBet;
  for (int t = 0; t < kNumTowers; ++t)
    if (towers >> t & 1u) m |= values << (kBet + 3 * t);
  return m;
}

int State::compute_legal(int* out) const {
  uint32_t m = legal_mask();
  int c = 0;
  while (m) {
    out[c++] = __builtin_ctz(m);
    m &= m - 1;
  }
  return c;
}

const std::vector<int>& State::legal_actions() {
  if (!legal_.valid) {
    uint32_t m = legal_.mask = legal_mask();
    int buf[32], c = 0;
    while (m) {
      buf[c++] = __builtin_ctz(m);
      m &= m - 1;
    }
    legal_.list.assign(buf, buf + c);
    legal_.valid = true;
  }
  return legal_.list;
}

bool State::is_legal(int a) const {
  if (a < 0 || a >= kNumActions) return false;
  return (legal_mask() >> a) & 1u;
}

Top2 State::top2_with(int tower, int seat, int value) const {
  int st[kMaxPlayers], fi[kMaxPlayers];
  for (int p = 0; p < kMaxPlayers; ++p) {
    st[p] = stake[tower][p];
    fi[p] = first[tower][p];
  }
  if (fi[seat] < 0) fi[seat] = num_backers[tower];
  st[seat] += value;
  return rank_top2(st, fi, opt.num_players);
}

void State::scores(int* out) const {
  int order[kNumTowers];
  flag_order(order);
  Top2 backed[kNumTowers];
  for (int t = 0; t < kNumTowers; ++t) backed[t] = top2(t);
  score_backed(order, backed, opt.num_players, out);
}

void State::unseen_counts(int observer, int* out) const {
  for (int t = 0; t < kNumTowers; ++t) out[t] = 0;
  for (int i = 0; i < leftover_size; ++i) ++out[leftover[i]];
  for (int i = 0; i < kNumPiles; ++i)
    for (int j = 0; j + 1 < pile_len[i]; ++j) ++out[piles[i][j]];
  for (int p = 0; p < opt.num_players; ++p) {
    if (p == observer) continue;
    for (int i = 0; i < hand_size[p]; ++i) ++out[hands[p][i]];
    for (int i = 0; i < revealed_size[p]; ++i) --out[revealed[p][i]];
  }
}

// -- transitions --------------------------------------------------------------------------------------

bool State::apply_action(int a) {
  if (a < 0 || a >= kNumActions || !(((legal_.valid ? legal_.mask : legal_mask()) >> a) & 1u)) return false;
  if (phase_ == kPhasePlay)
    play(a);
  else
    bet_and_draw(a);
  legal_.valid = false;
  return true;
}

void State::play(int a) {  // SPEC C3.1
  const int p = current;
  const int t = (a - kPlay) / 3, k = (a - kPlay) % 3 + 1;
  remove_one(hands[p], hand_size[p], t);
  remove_one(revealed[p], revealed_size[p], t);  // the public knows the hand holds one fewer drawn t
  heights[t] += k;
  cards_played[t] += 1;
  phase_ = kPhaseBet;
  played_tower = t;
  played_storeys = k;
}

void State::bet_and_draw(int a) {  // SPEC C3.2-3
  const int p = current;
  if (a != kNoBet) {
    const int t = (a - kBet) / 3, v = (a - kBet) % 3;
    bets[t][num_bets[t]++] = Bet{static_cast<int8_t>(p), static_cast<int8_t>(v + 1)};
    chips[p][v] -= 1;
    if (first[t][p] < 0) first[t][p] = num_backers[t]++;
    stake[t][p] += v + 1;
  }
  const int e = played_storeys - 1;
  const int card = piles[e][--pile_len[e]];  // C3.3: the face-up card
  insert_sorted(hands[p], hand_size[p], card);
  insert_sorted(revealed[p], revealed_size[p], card);  // it was face up: everybody saw it taken
  turns += 1;
  phase_ = kPhasePlay;
  played_tower = -1;
  played_storeys = 0;
  if (pile_len[e])
    current = (p + 1) % opt.num_players;
  else
    done = true;  // C3.3: an emptied pile ends the game at once; to_act stays the mover
}

// -- hidden information -------------------------------------------------------------------------------

State State::public_view(int seat) const { return determinize(seat, ftcore::Pcg64::from_seed(0)); }

State State::determinize(int observer, ftcore::Pcg64 rng) const {
  State s = *this;
  s.gen = rng;
  const int n = opt.num_players;
  int64_t hidden[kHiddenCap];
  int count = 0;
  for (int i = 0; i < kNumPiles; ++i)
    for (int j = 0; j + 1 < pile_len[i]; ++j) hidden[count++] = piles[i][j];
  for (int i = 0; i < leftover_size; ++i) hidden[count++] = leftover[i];
  for (int p = 0; p < n; ++p) {
    if (p == observer) continue;
    int8_t rest[kHandCap];
    uint8_t m = std::min<uint8_t>(hand_size[p], kHandCap);  // always hand_size (from_fields checks it): a bound the compiler sees
    for (int i = 0; i < m; ++i) rest[i] = hands[p][i];
    for (int i = 0; i < revealed_size[p]; ++i) remove_one(rest, m, revealed[p][i]);
    for (int i = 0; i < m; ++i) hidden[count++] = rest[i];
  }
  // sorted first: the hidden cards' current order must not show through the shuffle
  std::sort(hidden, hidden + count);
  if (count) s.gen.shuffle(hidden, static_cast<size_t>(count));
  int at = 0;
  for (int i = 0; i < kNumPiles; ++i) {
    const int below = pile_len[i] > 0 ? pile_len[i] - 1 : 0;
    for (int j = 0; j < below; ++j) s.piles[i][j] = static_cast<int8_t>(hidden[at++]);
  }
  for (int i = 0; i < leftover_size; ++i) s.leftover[i] = static_cast<int8_t>(hidden[at++]);
  for (int p = 0; p < n; ++p) {
    if (p == observer) continue;
    const int size = hand_size[p] - revealed_size[p];
    uint8_t m = 0;
    for (int i = 0; i < revealed_size[p]; ++i) s.hands[p][m++] = revealed[p][i];  // sorted already
    for (int i = 0; i < size; ++i) insert_sorted(s.hands[p], m, static_cast<int>(hidden[at++]));
  }
  return s;
}

}  // namespace cp

// Campanile's search hooks (== agents/search_hooks.py); see search_hooks.hpp. Every choice below reads the
// uniform number as the Python code does (int(u * len) truncates, as static_cast<int> does for u >= 0) and
// every value is computed with the same double operations in the same order.
#include "search_hooks.hpp"

#include <cmath>

namespace cp {
namespace search {

namespace {

// _leads(table, me, t): whether `me` has the largest stake under tower t (ties not counted)
bool leads(const State& s, int me, int t) {
  const int mine = s.stake[t][me];
  if (mine <= 0) return false;
  for (int p = 0; p < s.opt.num_players; ++p)
    if (p != me && !(s.stake[t][p] < mine)) return false;
  return true;
}

// the play of `legal` that ends the game and wins (or ties) at once, else -1: for each pile holding one card
// (k = 1..3), every play of k storeys, scored (score_towers) with its tower raised
int winning_ending(const State& s, const int* legal, int m, const bool* ending) {
  const int me = s.current, n = s.opt.num_players;
  Top2 backed[kNumTowers];
  for (int t = 0; t < kNumTowers; ++t) backed[t] = s.top2(t);
  for (int k = 1; k <= kNumPiles; ++k) {
    if (!ending[k - 1]) continue;
    for (int i = 0; i < m; ++i) {
      const int a = legal[i];
      if ((a - kPlay) % 3 != k - 1) continue;
      int h2[kNumTowers], order[kNumTowers], sc[kMaxPlayers];
      for (int t = 0; t < kNumTowers; ++t) h2[t] = s.heights[t];
      h2[(a - kPlay) / 3] += k;
      flag_order(h2, order);
      score_backed(order, backed, n, sc);
      int best = sc[0];
      for (int p = 1; p < n; ++p)
        if (sc[p] > best) best = sc[p];
      if (sc[me] == best) return a;
    }
  }
  return -1;
}

// the bet phase, once u < bet_rate: the smallest chip that puts the mover first (else second) under a tower
// that would take a flag now, preferring the higher flag; else no bet
int bet_choice(const State& s, const int* legal, int m) {
  int order[kNumTowers];
  s.flag_order(order);
  const int me = s.current, n = s.opt.num_players;
  int best = kNoBet;
  bool have_key = false;
  int key[3] = {0, 0, 0};  // (gain, -rank, -v), compared as Python compares tuples
  for (int i = 1; i < m; ++i) {  // legal[1:]: every bet (no bet is the lowest id)
    const int a = legal[i];
    const int t = (a - kBet) / 3, v = (a - kBet) % 3;  // v: the chip's index (its value - 1), as in the Python code
    int rank = 0;
    while (order[rank] != t) ++rank;
    if (rank >= 4) continue;
    const int mine = s.stake[t][me];
    int top = 0, second = 0, others = 0;  // the two largest stakes of the other seats (0 where none)
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      const int x = s.stake[t][p];
      if (others == 0 || x > top) {
        second = others == 0 ? 0 : top;
        top = x;
      } else if (others == 1 || x > second) {
        second = x;
      }
      ++others;
    }
    if (mine > top) continue;  // already first
    int gain;
    if (mine + v > top) {
      gain = 2;  // takes the lead
    } else if (mine + v > second && second >= mine) {
      gain = 1;  // takes second place
    } else {
      continue;
    }
    const int k[3] = {gain, -rank, -v};
    const bool better = !have_key || k[0] > key[0] || (k[0] == key[0] && (k[1] > key[1] || (k[1] == key[1] && k[2] > key[2])));
    if (better) {
      best = a;
      have_key = true;
      key[0] = k[0], key[1] = k[1], key[2] = k[2];
    }
  }
  return best;
}

}  // namespace

int rollout_action(const State& s, double u, double bet_rate, double lead_rate) {
  int legal[32];
  const int m = s.compute_legal(legal);
  if (m == 1) return legal[0];
  if (s.phase_ == kPhasePlay) {
    bool ending[kNumPiles];
    bool any = false;
    for (int e = 0; e < kNumPiles; ++e) any |= ending[e] = s.pile_len[e] == 1;
    if (any) {  // the mover may end the game (C3.3): do it if that wins, else keep it going
      const int win = winning_ending(s, legal, m, ending);
      if (win >= 0) return win;
      int going[32], ng = 0;
      for (int i = 0; i < m; ++i)
        if (!ending[(legal[i] - kPlay) % 3]) going[ng++] = legal[i];
      if (ng) return going[static_cast<int>(u * ng)];
    }
    if (u < lead_rate) {  // raise a tower the mover leads, if it holds one
      int leading[32], nl = 0;
      for (int i = 0; i < m; ++i)
        if (leads(s, s.current, (legal[i] - kPlay) / 3)) leading[nl++] = legal[i];
      if (nl) return leading[static_cast<int>(u / lead_rate * nl)];
    }
    return legal[static_cast<int>(u * m)];
  }
  if (u >= bet_rate) return kNoBet;
  return bet_choice(s, legal, m);
}

Det Hooks::sample(int) {
  Det d;
  d.state = view_.determinize(seat_, rng_);  // the copy draws from (a copy of) the agent's generator ...
  rng_ = d.state.gen;                        // ... which moves on as it does in Python
  for (double& u : d.noise) u = ftcore::random_double(rng_);
  return d;
}

double Hooks::value(int j, Det& det) const {
  State s = det.state;  // play: a copy of the determinisation with the candidate's moves
  const Move& mv = moves_[j];
  for (int k = 0; k < mv.n; ++k) s.apply_action(mv.a[k]);
  // rollout: on by the default policy, to the end or rollout_turns turns
  const long long stop = st_.cut ? static_cast<long long>(s.turns) + st_.rollout_turns : (1LL << 30);
  int i = 0;
  while (!s.done && s.turns < stop) {
    s.apply_action(rollout_action(s, det.noise[i % kNoise], st_.bet_rate, st_.lead_rate));
    ++i;
  }
  return evaluate(s);
}

double Hooks::evaluate(const State& s) const {
  const int n = s.opt.num_players;
  if (s.done) {
    int scores[kMaxPlayers];
    s.scores(scores);
    int other = 0;  // ev.margin(scores): own score less the best rival's (ints)
    bool any = false;
    for (int p = 0; p < n; ++p)
      if (p != seat_ && (!any || scores[p] > other)) other = scores[p], any = true;
    const int margin = scores[seat_] - other;
    return final_reward(scores, n, seat_) + st_.margin_weight * margin / 20.0;
  }
  int sizes[kNumPiles];
  for (int e = 0; e < kNumPiles; ++e) sizes[e] = s.pile_len[e];
  const double left = turns_left(sizes);
  const double share = left / 25.0 < 1.0 ? left / 25.0 : 1.0;  // min(1.0, left / 25.0)
  const double x = soft_margin(s, seat_, st_.eval, left, share) / st_.temperature;
  const double clipped_high = x < 30.0 ? x : 30.0;                         // min(30.0, x)
  const double clipped = clipped_high > -30.0 ? clipped_high : -30.0;      // max(-30.0, ...)
  return 1.0 / (1.0 + std::exp(-clipped));
}

}  // namespace search
}  // namespace cp

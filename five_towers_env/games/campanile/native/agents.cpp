// Campanile's greedy and heuristic agents (agents/greedy.py, agents/heuristic.py), ported line for line: every
// value below is computed with the same double operations in the same order as the Python code it names, so
// the values are bit for bit the Python ones (Python's float is an IEEE double and math.exp is the C
// library's exp; -std=c++17 is an ISO mode, in which GCC fuses no multiply-add into an fma). Python's max and
// min keep the first of equal values; the helpers below do the same.
#include "agents.hpp"

#include <cmath>
#include <limits>

#include "endgame.hpp"

namespace cp {

// heuristic.turns_left
double turns_left(const int* sizes) {
  int smallest = sizes[0];
  for (int i = 1; i < kNumPiles; ++i)
    if (sizes[i] < smallest) smallest = sizes[i];
  return smallest == 0 ? 0.0 : 2.0 * smallest - 1.0;
}

// heuristic.final_reward
double final_reward(const int* scores, int n, int seat) {
  int best = scores[0];
  for (int p = 1; p < n; ++p)
    if (scores[p] > best) best = scores[p];
  if (scores[seat] != best) return 0.0;
  int ways = 0;
  for (int p = 0; p < n; ++p) ways += scores[p] == best;
  return 1.0 / ways;
}

namespace {

constexpr double kFlagHigh[5] = {8.0, 6.0, 4.0, 2.0, 0.0};  // FLAG_HIGH: SPEC C4 by rank
constexpr double kFlagLow[5] = {4.0, 3.0, 2.0, 1.0, 0.0};   // FLAG_LOW
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxChoices = 64;  // the most ids a caller may offer (the bindings check it)

// max(v[p] for p != seat), the first of equal values as Python's max
template <class T>
T max_other(const T* v, int n, int seat) {
  const int p0 = seat == 0 ? 1 : 0;
  T best = v[p0];
  for (int p = p0 + 1; p < n; ++p)
    if (p != seat && v[p] > best) best = v[p];
  return best;
}

// min(1.0, left / 25.0): the share of a game still to play
double share_of(double left) {
  const double x = left / 25.0;
  return x < 1.0 ? x : 1.0;
}

// heuristic.soft_flags
void soft_flags(const int* heights, double sigma, double* high, double* low) {
  for (int t = 0; t < kNumTowers; ++t) high[t] = low[t] = 0.0;
  if (sigma <= 1e-6) {
    int order[kNumTowers];
    flag_order(heights, order);
    for (int r = 0; r < 4; ++r) {
      high[order[r]] = kFlagHigh[r];
      low[order[r]] = kFlagLow[r];
    }
    return;
  }
  const double inv = 1.0 / sigma;
  double exp_rank[kNumTowers] = {0.0, 0.0, 0.0, 0.0, 0.0};
  for (int t = 0; t < kNumTowers - 1; ++t) {  // each pair once: P(u above t) + P(t above u) = 1
    const int ht = heights[t];
    for (int u = t + 1; u < kNumTowers; ++u) {
      const double d = ((heights[u] - ht) - 0.5) * inv;  // t is further left: it wins ties
      const double p = d > -30.0 ? 1.0 / (1.0 + std::exp(-d)) : 0.0;
      exp_rank[t] += p;
      exp_rank[u] += 1.0 - p;
    }
  }
  for (int t = 0; t < kNumTowers; ++t) {
    const double e = exp_rank[t];
    const int i = static_cast<int>(e);
    if (i >= 4) continue;
    const double f = e - i;
    high[t] = kFlagHigh[i] + (kFlagHigh[i + 1] - kFlagHigh[i]) * f;
    low[t] = kFlagLow[i] + (kFlagLow[i + 1] - kFlagLow[i]) * f;
  }
}

// rules.backers as the heuristic reads it: the lead and the second backer (-1: none) with their stakes
struct Backers {
  int lead = -1, stake1 = 0, second = -1, stake2 = 0;
};

// a tower's backers, with one more chip (seat, value) placed last when value > 0
Backers backers_of(const State& s, int t, int seat = -1, int value = 0) {
  const Top2 r = value ? s.top2_with(t, seat, value) : s.top2(t);
  auto stake = [&](int x) { return s.stake[t][x] + (x == seat ? value : 0); };
  Backers b;
  b.lead = r.first;
  b.second = r.second;
  if (b.lead >= 0) b.stake1 = stake(b.lead);
  if (b.second >= 0) b.stake2 = stake(b.second);
  return b;
}

// one chip more under tower t, as State::bet_and_draw places it (the seat's chip count is left alone: the
// heuristic's bets list `nb` does not change it either)
void add_chip(State& w, int t, int seat, int value) {
  if (w.num_bets[t] < kBetCap) w.bets[t][w.num_bets[t]++] = Bet{static_cast<int8_t>(seat), static_cast<int8_t>(value)};
  if (w.first[t][seat] < 0) w.first[t][seat] = w.num_backers[t]++;
  w.stake[t][seat] += value;
}

struct Option {  // (value, tower) of a bet; (0, -1): no bet
  int value, tower;
};

// heuristic.py's Evaluator and the functions around it, for one decision of `seat` in `s`
class Heuristic {
 public:
  Heuristic(const State& s, int seat, const HeuristicParams& p) : s_(s), seat_(seat), n_(s.opt.num_players), p_(p) {
    for (int t = 0; t < kNumTowers; ++t) ranked_[t] = backers_of(s, t);
    s.unseen_counts(seat, unseen_);
  }

  // scored_actions
  void values(const int* legal, int count, double* out) const {
    if (s_.phase_ == kPhaseBet) {
      const int k = s_.played_storeys;
      for (int i = 0; i < count; ++i) {
        const int a = legal[i];
        const Option o = a == kNoBet ? Option{0, -1} : Option{(a - kBet) % 3 + 1, (a - kBet) / 3};
        out[i] = turn_value(s_.heights, k, &o, 1);
      }
      return;
    }
    // play phase: every play, its best bet, the card drawn and the card given up
    double cards[kNumTowers] = {0.0, 0.0, 0.0, 0.0, 0.0};  // cards.get(c, 0.0)
    const bool use_cards = held_cards(cards);
    for (int i = 0; i < count; ++i) {
      const Play p = play(legal[i], cards);
      double val = turn_value(p.heights, p.k, p.options, p.nopt);
      if (use_cards) val += p.card_term;
      out[i] = val;
    }
  }

  // scored_turns: every legal play (view.legal_actions()) with every bet _bet_options allows after it
  int turns(ScoredTurn* out) const {
    double cards[kNumTowers] = {0.0, 0.0, 0.0, 0.0, 0.0};
    const bool use_cards = held_cards(cards);
    int legal[32];
    const int count = s_.compute_legal(legal);
    int c = 0;
    for (int i = 0; i < count; ++i) {
      const int a = legal[i];
      const Play p = play(a, cards);
      double every[1 + kNumTowers * 3];
      turn_value(p.heights, p.k, p.options, p.nopt, every);
      const double extra = use_cards ? p.card_term : 0.0;  // `... if cards else 0.0`, added to every value
      for (int j = 0; j < p.nopt && c < kMaxTurns; ++j)
        out[c++] = ScoredTurn{every[j] + extra, a,
                              p.options[j].value == 0 ? kNoBet : bet_action(p.options[j].value, p.options[j].tower)};
    }
    return c;
  }

  // Evaluator.margin(Evaluator.soft_points(s.heights, s.bets, left_turns, left_share))
  double soft_margin(double left_turns, double left_share) const {
    double pts[kMaxPlayers];
    soft_points(s_.heights, left_turns, left_share, pts);
    return margin(pts);
  }

 private:
  // a play `a` as both values and turns read it: the towers after it, the bets it allows, and the term of the
  // card drawn and the card given up (used only where the seat's cards are known)
  struct Play {
    int k, nopt;
    int heights[kNumTowers];
    Option options[1 + kNumTowers * 3];
    double card_term;
  };
  Play play(int a, const double* cards) const {
    Play p;
    const int t = (a - kPlay) / 3;
    p.k = (a - kPlay) % 3 + 1;
    for (int x = 0; x < kNumTowers; ++x) p.heights[x] = s_.heights[x];
    p.heights[t] += p.k;
    p.nopt = bet_options(p.k, t, p.options);
    const int drawn = s_.face_up(p.k - 1);
    p.card_term = p_.card_weight * ((drawn >= 0 ? cards[drawn] : 0.0) - cards[t]);
    return p;
  }

  const State& s_;
  const int seat_, n_;
  const HeuristicParams p_;
  Backers ranked_[kNumTowers];
  int unseen_[kNumTowers];

  // _card_values of the styles in the seat's hand and face up (`cards`, into out), unless card_weight is 0:
  // whether there are any (`if cards:`)
  bool held_cards(double* out) const {
    bool styles[kNumTowers] = {false, false, false, false, false};
    bool any = false;
    for (int i = 0; i < s_.hand_size[seat_]; ++i) styles[s_.hands[seat_][i]] = any = true;
    for (int e = 0; e < kNumPiles; ++e)
      if (s_.face_up(e) >= 0) styles[s_.face_up(e)] = any = true;
    const bool use_cards = p_.card_weight != 0.0 && any;
    if (use_cards) card_values(styles, out);
    return use_cards;
  }

  double margin(const double* pts) const { return pts[seat_] - max_other(pts, n_, seat_); }
  int margin(const int* scores) const { return scores[seat_] - max_other(scores, n_, seat_); }

  // Evaluator.tower_points
  void tower_points(double* pts, const Backers& b, double high, double low, double left) const {
    if (b.lead < 0 || high <= 0.0) return;
    if (b.second < 0) {  // a lone backer takes the high number
      pts[b.lead] += high;
      return;
    }
    double pr = 0.0;
    if (p_.contest > 0.0 && left > 0.0) {
      const int need = b.stake1 - b.stake2 + 1;
      const double x = p_.contest * left * std::exp(-0.6 * need);
      pr = x < 0.45 ? x : 0.45;
    }
    pts[b.lead] += high - (high - low) * pr;
    pts[b.second] += low + (high - low) * pr;
  }

  // Evaluator.soft_points (the towers' backers: ranked_)
  void soft_points(const int* heights, double left_turns, double left_share, double* pts) const {
    double high[kNumTowers], low[kNumTowers];
    soft_flags(heights, p_.spread * std::sqrt(left_turns), high, low);
    for (int q = 0; q < n_; ++q) pts[q] = 0.0;
    for (int t = 0; t < kNumTowers; ++t)
      if (s_.num_bets[t]) tower_points(pts, ranked_[t], high[t], low[t], left_share);
  }

  // Evaluator.final_value with the bet `o` added
  double final_value(const int* heights, const Option& o) const {
    Top2 backed[kNumTowers];
    for (int t = 0; t < kNumTowers; ++t) backed[t] = s_.top2(t);
    if (o.value) backed[o.tower] = s_.top2_with(o.tower, seat_, o.value);
    int order[kNumTowers], scores[kMaxPlayers];
    flag_order(heights, order);
    score_backed(order, backed, n_, scores);
    return static_cast<double>(margin(scores)) + p_.end_weight * (2.0 * final_reward(scores, n_, seat_) - 1.0);
  }

  // _bet_options: no bet first, then tower by tower, value by value
  int bet_options(int storeys, int played_tower, Option* out) const {
    const int* held = s_.chips[seat_];
    int values[3], nv = 0;
    if (s_.opt.bet_chip == kExact) {
      if (held[storeys - 1]) values[nv++] = storeys;
    } else {
      for (int v = storeys; v < 4; ++v)
        if (held[v - 1]) values[nv++] = v;
    }
    bool towers[kNumTowers] = {false, false, false, false, false};
    if (s_.opt.variant == kPlayed) {
      towers[played_tower] = true;
    } else {
      for (int e = 0; e < kNumPiles; ++e)
        if (s_.face_up(e) >= 0) towers[s_.face_up(e)] = true;
    }
    int c = 0;
    out[c++] = Option{0, -1};
    for (int t = 0; t < kNumTowers; ++t)
      if (towers[t])
        for (int i = 0; i < nv; ++i) out[c++] = Option{values[i], t};
    return c;
  }

  // _turn_value: the best value over `options` of a turn whose play left `heights`; `every`, if given,
  // receives each option's value
  double turn_value(const int* heights, int storeys, const Option* options, int nopt, double* every = nullptr) const {
    int sizes[kNumPiles];
    for (int e = 0; e < kNumPiles; ++e) sizes[e] = s_.pile_len[e];
    sizes[storeys - 1] -= 1;
    double best = -kInf;
    if (sizes[storeys - 1] == 0) {  // C3.3: this draw ends the game: score every bet exactly
      for (int i = 0; i < nopt; ++i) {
        const double val = final_value(heights, options[i]);
        if (every) every[i] = val;
        if (val > best) best = val;
      }
      return best;
    }
    const double left = turns_left(sizes);
    const double share = share_of(left);
    double high[kNumTowers], low[kNumTowers];
    soft_flags(heights, p_.spread * std::sqrt(left), high, low);
    double base[kMaxPlayers], per_tower[kNumTowers][kMaxPlayers];
    for (int q = 0; q < n_; ++q) base[q] = 0.0;
    for (int t = 0; t < kNumTowers; ++t) {
      double* pts = per_tower[t];
      for (int q = 0; q < n_; ++q) pts[q] = 0.0;
      if (ranked_[t].lead >= 0) tower_points(pts, ranked_[t], high[t], low[t], share);
      for (int q = 0; q < n_; ++q) base[q] += pts[q];
    }
    const bool threat = p_.danger && (sizes[0] == 1 || sizes[1] == 1 || sizes[2] == 1);
    for (int i = 0; i < nopt; ++i) {
      const Option& o = options[i];
      const double* pts = base;
      double with_bet[kMaxPlayers];
      if (o.value) {
        double tp[kMaxPlayers];
        for (int q = 0; q < n_; ++q) tp[q] = 0.0;
        tower_points(tp, backers_of(s_, o.tower, seat_, o.value), high[o.tower], low[o.tower], share);
        for (int q = 0; q < n_; ++q) with_bet[q] = base[q] - per_tower[o.tower][q] + tp[q];
        pts = with_bet;
      }
      double val = margin(pts) - p_.chip_cost * o.value * share;
      if (threat) val = threat_value(heights, o, sizes, storeys, val);
      if (every) every[i] = val;
      if (val > best) best = val;
    }
    return best;
  }

  // _threat_value: the value when the next player may end the game at once
  double threat_value(const int* heights, const Option& o, const int* sizes, int drawn_pile, double soft) const {
    const int nxt = (s_.current + 1) % n_;
    if (nxt == seat_) return soft;
    State with_chip;
    const State* st = &s_;
    if (o.value) {  // the endings see the bets after this turn's chip
      with_chip = s_;
      add_chip(with_chip, o.tower, seat_, o.value);
      st = &with_chip;
    }
    Top2 backed[kNumTowers];
    for (int t = 0; t < kNumTowers; ++t) backed[t] = st->top2(t);
    double best_for_them = -1.0, mine_then = soft;
    next_player_endings(*st, seat_, heights, sizes, drawn_pile, backed, unseen_, [&](const int* scores) {
      const double theirs = final_reward(scores, n_, nxt);
      if (theirs > best_for_them) {
        best_for_them = theirs;
        mine_then = static_cast<double>(margin(scores)) +
                    p_.end_weight * (2.0 * final_reward(scores, n_, seat_) - 1.0);
      }
      return best_for_them >= 1.0;  // a sole win: no later ending is taken instead
    });
    if (best_for_them >= 1.0 / n_ - 1e-9 && best_for_them > 0.0) return mine_then < soft ? mine_then : soft;
    return soft;
  }

  // _card_values: what raising each tower in `styles` by two storeys would gain now
  void card_values(const bool* styles, double* out) const {
    int sizes[kNumPiles];
    for (int e = 0; e < kNumPiles; ++e) sizes[e] = s_.pile_len[e];
    const double left = turns_left(sizes);
    const double share = share_of(left);
    double pts[kMaxPlayers];
    soft_points(s_.heights, left, share, pts);
    const double base = margin(pts);
    for (int c = 0; c < kNumTowers; ++c) {
      if (!styles[c]) continue;
      if (ranked_[c].lead < 0) {  // nobody backs it
        out[c] = 0.0;
        continue;
      }
      int h2[kNumTowers];
      for (int t = 0; t < kNumTowers; ++t) h2[t] = s_.heights[t];
      h2[c] += 2;
      soft_points(h2, left, share, pts);
      const double gain = margin(pts) - base;
      out[c] = gain > 0.0 ? gain : 0.0;
    }
  }
};

}  // namespace

int greedy_action(const State& s, int seat, const int* legal, int count, ftcore::Pcg64& rng) {
  if (count == 1) return legal[0];
  const int n = s.opt.num_players;
  Top2 backed[kNumTowers];
  for (int t = 0; t < kNumTowers; ++t) backed[t] = s.top2(t);
  int order_now[kNumTowers];
  s.flag_order(order_now);
  int best[kMaxChoices], nbest = 0, best_margin = 0, best_own = 0;
  for (int i = 0; i < count && i < kMaxChoices; ++i) {
    const int a = legal[i];
    // the scores of the view after `a` (best_after's child): a play raises a tower, a bet adds a chip for the
    // player on move; the draw that follows a bet changes no score
    int scores[kMaxPlayers];
    if (a < kNoBet) {
      int heights[kNumTowers], order[kNumTowers];
      for (int t = 0; t < kNumTowers; ++t) heights[t] = s.heights[t];
      heights[(a - kPlay) / 3] += (a - kPlay) % 3 + 1;
      flag_order(heights, order);
      score_backed(order, backed, n, scores);
    } else if (a == kNoBet) {
      score_backed(order_now, backed, n, scores);
    } else {
      const int t = (a - kBet) / 3;
      const Top2 keep = backed[t];
      backed[t] = s.top2_with(t, s.current, (a - kBet) % 3 + 1);
      score_backed(order_now, backed, n, scores);
      backed[t] = keep;
    }
    const int own = scores[seat], margin = own - max_other(scores, n, seat);  // _margin_key
    if (nbest == 0 || margin > best_margin || (margin == best_margin && own > best_own)) {
      best[0] = a;
      nbest = 1;
      best_margin = margin;
      best_own = own;
    } else if (margin == best_margin && own == best_own) {
      best[nbest++] = a;
    }
  }
  return nbest > 1 ? best[integers_below(rng, static_cast<uint32_t>(nbest))] : best[0];
}

void heuristic_values(const State& s, int seat, const int* legal, int count, const HeuristicParams& p, double* out) {
  Heuristic(s, seat, p).values(legal, count, out);
}

int scored_turns(const State& s, int seat, const HeuristicParams& p, ScoredTurn* out) {
  return Heuristic(s, seat, p).turns(out);
}

double soft_margin(const State& s, int seat, const HeuristicParams& p, double left_turns, double left_share) {
  return Heuristic(s, seat, p).soft_margin(left_turns, left_share);
}

int heuristic_action(const State& s, int seat, const int* legal, int count, const HeuristicParams& p) {
  if (count == 1) return legal[0];
  double values[kMaxChoices];
  if (count > kMaxChoices) count = kMaxChoices;
  heuristic_values(s, seat, legal, count, p, values);
  int best_a = legal[0];
  double best_v = -kInf;
  for (int i = 0; i < count; ++i)  // choose: the best value, the lowest id on ties
    if (values[i] > best_v + 1e-9) {
      best_a = legal[i];
      best_v = values[i];
    }
  return best_a;
}

}  // namespace cp

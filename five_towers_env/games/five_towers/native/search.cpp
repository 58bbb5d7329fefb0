// 5 Towers' search hooks and decision (== agents/search_hooks.py, MCTSAgent.search); see search.hpp.
#include "search.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "py_sum.hpp"
#include "rollout.hpp"
#include "scoring.hpp"

namespace ft {
namespace search {

namespace {

// tree_actions(view, view.hand): the legal actions worth telling apart. At the root the cards taken before the
// search are the whole hand, so only the base game's build order across types is cut: the first type's builds.
std::vector<int> tree_actions(State& view) {
  const std::vector<int>& legal = view.legal_actions();
  if (view.phase() == PHASE_BUILD && !view.gp && !legal.empty()) {
    auto type_of_build = [](int a) {
      const int d = a - BUILD;
      return d >= 0 ? d / kNumValues : -((-d + kNumValues - 1) / kNumValues);  // Python's //
    };
    const int first = type_of_build(legal[0]);
    std::vector<int> kept;
    for (int a : legal)
      if (type_of_build(a) == first) kept.push_back(a);
    if (!kept.empty()) return kept;
  }
  return legal;
}

// _end_key (or ("end", scores) for a finished game): everything the future of a round-end position depends on
std::vector<uint8_t> end_key(const State& s) {
  std::vector<uint8_t> k;
  const int n = s.num_players_;
  if (s.is_terminal()) {
    k.push_back(1);
    int scores[kMaxPlayers];
    s.scores(scores);
    for (int p = 0; p < n; ++p)
      for (int b = 0; b < 4; ++b) k.push_back(static_cast<uint8_t>(static_cast<uint32_t>(scores[p]) >> (8 * b)));
    return k;
  }
  k.push_back(0);
  for (int p = 0; p < n; ++p)
    for (int t = 0; t < kNumTypes; ++t) {
      const Tower& tw = s.towers[p][t];
      k.push_back(tw.n);
      k.insert(k.end(), tw.v, tw.v + tw.n);
    }
  for (int p = 0; p < n; ++p) {
    k.push_back(s.piles[p].n);
    k.insert(k.end(), s.piles[p].v, s.piles[p].v + s.piles[p].n);
  }
  k.push_back(static_cast<uint8_t>(s.start_player));
  k.push_back(s.deck_ran_out ? 1 : 0);
  std::vector<uint8_t> discard(s.discard.begin(), s.discard.end());
  std::sort(discard.begin(), discard.end());
  k.push_back(static_cast<uint8_t>(discard.size()));
  k.insert(k.end(), discard.begin(), discard.end());
  std::vector<uint8_t> unseen(s.deck.begin(), s.deck.end());
  unseen.insert(unseen.end(), s.display.begin(), s.display.end());
  std::sort(unseen.begin(), unseen.end());
  k.push_back(static_cast<uint8_t>(unseen.size()));
  k.insert(k.end(), unseen.begin(), unseen.end());
  k.push_back(s.display.n);
  return k;
}

// round_end: the view after `action` and the default policy to the end of the round, the reshuffle (if any)
// drawn from the agent's generator
State round_end(const State& view, int action, ftcore::Pcg64& rng, double beta) {
  State s = view;
  s.rng_ = rng;
  s.apply_action(action);
  const int rounds = s.rounds_played;
  while (!s.is_terminal() && s.rounds_played == rounds) s.apply_action(rollout::rollout_action(s, beta));
  rng = s.rng_;
  return s;
}

// one determinisation (_Deal and _Reshuffle): for each pool size, its shuffle and the generator after it
struct Deal {
  uint64_t base;
  int i;
  struct Cut {
    int n;
    std::vector<int> perm;
    ftcore::Pcg64 after;
  };
  std::vector<Cut> cuts;

  const Cut& cut(int n) {
    for (const Cut& c : cuts)
      if (c.n == n) return c;
    Cut c{n, std::vector<int>(n), ftcore::Pcg64::from_seeds(base, static_cast<uint64_t>(i))};
    for (int x = 0; x < n; ++x) c.perm[x] = x;
    c.after.shuffle(c.perm);
    cuts.push_back(std::move(c));
    return cuts.back();
  }
};

// FiveTowersSearch: candidate j is the round-end position ends[j]
struct Hooks {
  const std::vector<State>& ends;
  int seat;
  uint64_t base;
  const Settings& settings;
  std::vector<std::vector<uint8_t>> pools;  // the cards a determinisation deals again (deck and display)

  Deal sample(int i) { return Deal{base, i, {}}; }

  double value(int j, Deal& deal) {
    const std::vector<uint8_t>& pool = pools[j];
    const int n = static_cast<int>(pool.size());
    const Deal::Cut& cut = deal.cut(n);
    uint8_t unseen[kMaxCards];
    for (int x = 0; x < n; ++x) unseen[x] = pool[cut.perm[x]];
    State s = ends[j];
    s.redeal(unseen, n, cut.after);
    double left = 0.0;
    const bool over = rollout::play_rounds(s, settings.beta, settings.rollout_rounds, &left);
    double r[kMaxPlayers];
    settings.scoring.rewards(s, over, left, r);
    return r[seat];
  }
};

}  // namespace

void Scoring::rewards(const State& s, bool over, double left, double* out) const {
  const int n = s.num_players_;
  double values[kMaxPlayers], win[kMaxPlayers];
  if (over) {
    for (int p = 0; p < n; ++p) values[p] = score_player(s.towers[p], s.piles[p], s.gp);
    const double best = *std::max_element(values, values + n);
    int winners = 0;
    for (int p = 0; p < n; ++p) winners += values[p] == best;
    const double share = winners == 1 ? 1.0 : 0.5;
    for (int p = 0; p < n; ++p) win[p] = values[p] == best ? share : 0.0;
  } else {
    rollout::evaluate_towers(s, left, eval_weight, values);
    const double m = *std::max_element(values, values + n);
    const double temp = temperature * (1.0 + 1.3 * left);
    double ex[kMaxPlayers];
    for (int p = 0; p < n; ++p) ex[p] = std::exp((values[p] - m) / temp);
    const double tot = ftcore::py_sum(ex, n);
    for (int p = 0; p < n; ++p) win[p] = ex[p] / tot;
  }
  const double mw = margin_weight;
  if (mw <= 0.0) {
    for (int p = 0; p < n; ++p) out[p] = win[p];
    return;
  }
  for (int p = 0; p < n; ++p) {
    bool any = false;
    double other = 0.0;
    for (int q = 0; q < n; ++q)
      if (q != p && (!any || values[q] > other)) other = values[q], any = true;
    out[p] = (1.0 - mw) * win[p] + mw / (1.0 + std::exp(-(values[p] - other) / 10.0));
  }
}

Decision decide(const State& view_in, ftcore::Pcg64& rng, const Settings& settings, const PolicyPrior* prior) {
  State view = view_in;
  std::vector<int> order;
  int limit = -1;
  if (prior) {  // the policy's likeliest actions first, until top_k distinct round ends: the others are never played
    order = view.legal_actions();
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return -prior->probs[a] < -prior->probs[b]; });
    limit = prior->top_k;
  } else {
    order = tree_actions(view);
  }
  // round_ends: the distinct round-end positions and the actions reaching each
  std::vector<State> ends;
  std::vector<std::vector<int>> members;
  std::vector<std::vector<uint8_t>> keys;
  for (int a : order) {
    if (limit >= 0 && static_cast<int>(ends.size()) >= limit) break;
    State e = round_end(view, a, rng, settings.beta);
    std::vector<uint8_t> key = end_key(e);
    size_t j = 0;
    while (j < keys.size() && keys[j] != key) ++j;
    if (j == keys.size()) {
      keys.push_back(std::move(key));
      ends.push_back(e);
      members.emplace_back();
    }
    members[j].push_back(a);
  }
  const int ncand = static_cast<int>(ends.size());
  std::vector<double> priors(ncand, 0.0);
  if (prior && ncand) {  // ActionPrior.candidates: log(p / p_best), every candidate kept (at most top_k of them)
    std::vector<double> p(ncand);
    for (int j = 0; j < ncand; ++j) {
      const std::vector<int>& acts = members[j];
      p[j] = ftcore::py_sum(static_cast<int>(acts.size()), [&](int k) { return prior->probs[acts[k]]; });
    }
    const double best = *std::max_element(p.begin(), p.end());
    if (best > 0.0)
      for (int j = 0; j < ncand; ++j) priors[j] = prior->weight * std::log(std::max(p[j], 1e-9) / best);
  }
  // drawn even when there is nothing to search, so that later decisions see the same generator
  const uint64_t base = ftcore::integers_below64(rng, 1ULL << 62);
  Decision out;
  if (!ncand) return out;  // (no candidate: the caller's flat_search raises)
  Hooks hooks{ends, view.current_player(), base, settings, {}};
  std::vector<std::optional<double>> exact(ncand);
  for (int j = 0; j < ncand; ++j) {
    const State& e = ends[j];
    if (e.is_terminal()) {
      double r[kMaxPlayers];
      settings.scoring.rewards(e, true, 0.0, r);
      exact[j] = r[hooks.seat];
      hooks.pools.emplace_back();
    } else {
      std::vector<uint8_t> pool(e.deck.begin(), e.deck.end());
      pool.insert(pool.end(), e.display.begin(), e.display.end());
      std::sort(pool.begin(), pool.end());
      hooks.pools.push_back(std::move(pool));
    }
  }
  const ftcore::SearchResult result = ftcore::flat_search(hooks, ncand, settings.budget, settings.schedule, exact, priors);
  out.action = members[result.best][0];
  out.simulations = result.simulations;
  for (int j = 0; j < ncand; ++j)
    for (int a : members[j]) {
      out.actions.push_back(a);
      out.values.push_back(result.means[j] ? *result.means[j] : 0.0);
    }
  return out;
}

}  // namespace search
}  // namespace ft

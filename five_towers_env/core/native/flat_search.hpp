// Determinised flat Monte Carlo search for every game (== core/search.py): common random numbers across the
// candidates, a race between them (successive elimination) or successive halving, the best score wins. Every
// sum is Python's sum() (py_sum.hpp) in the Python code's order, so both backends choose the same candidate.
//
// A game supplies hooks: `Det sample(int i)` (determinisation i, shared by every candidate) and
// `double value(int j, Det& det)` (candidate j played in it, rolled out by the default policy and scored for
// the searcher: play, rollout and evaluate of search.py in one call). It imports no game.
//
// A budget may carry a deadline (deadline.hpp, == core/deadline.py): once it has passed the search stops
// between two rollouts and answers the best candidate so far; without one the search is exactly as before.
#pragma once

#include <chrono>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "deadline.hpp"
#include "py_sum.hpp"

namespace ftcore {

// Budget: `simulations` rollouts, or `time_limit` seconds (< 0: none) from the start, then at least
// `min_simulations`; whichever it is, nothing after `deadline` (a hard stop: see the top)
struct Budget {
  int simulations = 400;
  double time_limit = -1.0;
  int min_simulations = 8;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  Deadline deadline;

  bool left(int sims) const {
    if (deadline.passed()) return false;
    if (time_limit >= 0.0) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return sims < min_simulations || spent < time_limit;
    }
    return sims < simulations;
  }
};

// the schedule: Race (successive elimination after min_samples, z < 0: never drop) or Halving
struct Schedule {
  bool halving = false;
  double z = 2.0;  // < 0: None
  int min_samples = 8;
};

struct SearchResult {
  int best = 0;
  std::vector<std::optional<double>> means;  // None: never sampled
  int simulations = 0;
};

namespace detail {

constexpr double kRaceSlack = 1e-12;  // _RACE_SLACK

inline int floordiv(int a, int b) {  // Python's a // b (b > 0)
  const int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

struct Tally {
  std::vector<std::vector<double>> samples;
  std::vector<std::optional<double>> exact;
  std::vector<double> prior;
  bool cut = false;  // a sample stopped at the deadline: the candidates' samples are uneven, the search ends

  std::optional<double> mean(int j) const {
    if (exact[j]) return exact[j];
    const std::vector<double>& s = samples[j];
    if (s.empty()) return std::nullopt;
    return py_sum(s.data(), static_cast<int>(s.size())) / static_cast<double>(s.size());
  }
  double score(int j) const {
    const std::optional<double> m = mean(j);
    return (m ? *m : 0.0) + prior[j];
  }
  // candidate j's reward in determinisation i (< n) of the first n
  double reward(int j, int i) const { return exact[j] ? *exact[j] : samples[j][i]; }

  // determinisation i played by every live candidate that needs sampling (the rollouts run), stopping between
  // two candidates once `deadline` has passed (then `cut`)
  template <class Game>
  int sample(Game& game, const std::vector<int>& alive, int i, const Deadline& deadline) {
    auto det = game.sample(i);
    int runs = 0;
    for (int j : alive) {
      if (!exact[j]) {
        if (deadline.passed()) {
          cut = true;
          break;
        }
        samples[j].push_back(game.value(j, det));
        ++runs;
      }
    }
    return runs;
  }
};

// max(alive, key=score): the first of equals
template <class Key>
int first_max(const std::vector<int>& alive, Key&& key) {
  int best = alive[0];
  double best_v = key(best);
  for (size_t k = 1; k < alive.size(); ++k) {
    const double v = key(alive[k]);
    if (v > best_v) best = alive[k], best_v = v;
  }
  return best;
}

inline std::vector<int> eliminate(const Tally& t, const std::vector<int>& alive, int n, double z) {
  std::vector<double> score(t.prior.size());
  for (int j : alive) score[j] = py_sum(n, [&](int i) { return t.reward(j, i); }) / n + t.prior[j];
  const int best = first_max(alive, [&](int j) { return score[j]; });
  std::vector<int> keep;
  std::vector<double> diffs(n);
  for (int j : alive) {
    if (j != best) {
      for (int i = 0; i < n; ++i) diffs[i] = t.reward(best, i) - t.reward(j, i);
      const double d = py_sum(diffs.data(), n) / n;
      const double var = py_sum(n, [&](int i) { return (diffs[i] - d) * (diffs[i] - d); }) / (n > 1 ? n - 1 : 1);
      if (d + (t.prior[best] - t.prior[j]) > z * std::sqrt(var / n) + kRaceSlack) continue;
    }
    keep.push_back(j);
  }
  return keep;
}

}  // namespace detail

// flat_search(game, candidates, budget, schedule, exact, prior) over `ncand` candidates (at least one)
template <class Game>
SearchResult flat_search(Game& game, int ncand, const Budget& budget, const Schedule& schedule,
                         const std::vector<std::optional<double>>& exact, const std::vector<double>& prior) {
  detail::Tally t;
  t.samples.resize(ncand);
  t.exact = exact;
  t.prior = prior;
  std::vector<int> alive(ncand);
  for (int j = 0; j < ncand; ++j) alive[j] = j;
  int sims = 0, i = 0;
  if (schedule.halving) {
    int rounds = 1;
    while ((1 << rounds) < ncand) ++rounds;  // max(1, ceil(log2(candidates)))
    int left = budget.simulations;
    for (int r = 0; r < rounds; ++r) {
      const int alive_n = static_cast<int>(alive.size());
      const int per = std::max(1, detail::floordiv(detail::floordiv(left, rounds - r), alive_n));
      for (int k = 0; k < per && !t.cut; ++k) {
        sims += t.sample(game, alive, i, budget.deadline);
        ++i;
        left -= alive_n;
      }
      if (t.cut) break;
      if (alive_n > 2 && r < rounds - 1) {
        std::stable_sort(alive.begin(), alive.end(), [&](int a, int b) { return -t.score(a) < -t.score(b); });
        alive.resize(std::max(2, (alive_n + 1) / 2));
      }
    }
  } else {
    auto unsolved = [&]() {
      for (int j : alive)
        if (!t.exact[j]) return true;
      return false;
    };
    while (alive.size() > 1 && unsolved() && budget.left(sims)) {
      sims += t.sample(game, alive, i, budget.deadline);
      ++i;
      if (t.cut) break;
      if (schedule.z >= 0.0 && i >= schedule.min_samples) alive = detail::eliminate(t, alive, i, schedule.z);
    }
  }
  SearchResult out;
  out.best = detail::first_max(alive, [&](int j) { return t.score(j); });
  out.means.resize(ncand);
  for (int j = 0; j < ncand; ++j) out.means[j] = t.mean(j);
  out.simulations = sims;
  return out;
}

}  // namespace ftcore

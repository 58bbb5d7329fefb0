// N games of one setup, stepped together: the batched core under the Python vector environments.
// Plain C++ (no Python): bind_common.hpp binds it and releases the GIL around every call. Not thread-safe
// by itself: every call that touches the games holds mutex() (bind_common.hpp's with_games).
//
// A game G meets the contract of docs/architecture.md ("The native core"): Options, kNumActions,
// kObsSize, new_game(options, rng), options(), num_players(), current_player(), is_terminal(),
// legal_actions(), apply_action(a), scores(out), observe(seat, out), rng().
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rng.hpp"

namespace ftcore {

constexpr int kMaxSeats = 5;
constexpr int64_t kRandom = -1;  // VectorEnv::step: a uniform random legal move from the env's move generator
constexpr int64_t kSkip = -2;    // VectorEnv::step: this game does not move
constexpr int kMaxEnvs = 1 << 18;  // the most games one VectorEnv holds (vector_env.py MAX_ENVS: the memory it takes)

// apply forced single choices (the PettingZoo environment's default, explicit=False)
template <class G>
void skip_forced(G& g) {
  while (!g.is_terminal()) {
    const auto& legal = g.legal_actions();
    if (legal.size() != 1) return;
    g.apply_action(legal[0]);
  }
}

// `games` games of templ's setup with uniform random legal moves; the decisions made
template <class G>
uint64_t random_playouts(const G& templ, int games, uint64_t seed) {
  Pcg64 moves = Pcg64::from_seed(seed);
  uint64_t decisions = 0;
  for (int k = 0; k < games; ++k) {
    G g = G::new_game(templ.options(), Pcg64::from_seed(seed + 1 + static_cast<uint64_t>(k)));
    while (!g.is_terminal()) {
      const auto& legal = g.legal_actions();
      if (legal.empty()) break;  // never in a game dealt by new_game; a guard all the same
      const int a = legal[moves.interval(legal.size() - 1)];
      g.apply_action(a);
      ++decisions;
    }
  }
  return decisions;
}

template <class G>
class VectorEnv {
 public:
  VectorEnv(const G& templ, int num_envs, bool explicit_choices)
      : options_(templ.options()), num_players_(templ.num_players()), explicit_(explicit_choices) {
    games_.reserve(num_envs);
    for (int i = 0; i < num_envs; ++i) games_.push_back(G::new_game(options_, Pcg64::from_seed(static_cast<uint64_t>(i))));
    seed_moves(0);
    for (auto& g : games_) settle(g);
  }

  int num_envs() const { return static_cast<int>(games_.size()); }  // (fixed at construction: read without the lock)
  int num_players() const { return num_players_; }
  std::mutex& mutex() { return mutex_; }
  const G& game(int i) const { return games_[i]; }
  void set_game(int i, const G& g) {
    games_[i] = g;
    settle(games_[i]);
  }

  void seed_moves(uint64_t seed) {
    moves_.clear();
    for (int i = 0; i < num_envs(); ++i) moves_.push_back(Pcg64::from_seed(seed + static_cast<uint64_t>(i)));
  }

  // game i dealt from default_rng(seeds[i]) (as the PettingZoo environment's reset(seed=...))
  void reset(const std::vector<uint64_t>& seeds) {
    for (int i = 0; i < num_envs(); ++i) {
      games_[i] = G::new_game(options_, Pcg64::from_seed(seeds[i]));
      settle(games_[i]);
    }
  }

  void write(float* obs, int8_t* mask, int32_t* seat) {
    for (int i = 0; i < num_envs(); ++i) {
      G& g = games_[i];
      const int p = g.current_player();
      seat[i] = p;
      int8_t* m = mask + static_cast<size_t>(i) * G::kNumActions;
      std::fill(m, m + G::kNumActions, int8_t{0});
      for (int a : g.legal_actions()) m[a] = 1;
      g.observe(p, obs + static_cast<size_t>(i) * G::kObsSize);
    }
  }

  // Actions: an id, kRandom (a uniform random legal move) or kSkip (this game waits). A game that ends
  // writes its row of rewards and scores, sets done, writes final_seat[i]'s observation of the final
  // position into final_obs (when given) and is dealt again. Returns -1 when every action was legal and
  // the games stepped; else the first bad game's index, and nothing moved.
  long step(const int64_t* actions, float* rewards, uint8_t* done, int32_t* scores, const int32_t* final_seat = nullptr,
            float* final_obs = nullptr) {
    for (int i = 0; i < num_envs(); ++i) {
      const int64_t a = actions[i];
      if (a == kRandom || a == kSkip) continue;
      const auto& legal = games_[i].legal_actions();
      if (a < 0 || a >= G::kNumActions || !std::binary_search(legal.begin(), legal.end(), static_cast<int>(a)))
        return i;
    }
    std::fill(rewards, rewards + static_cast<size_t>(num_envs()) * kMaxSeats, 0.0f);
    std::fill(scores, scores + static_cast<size_t>(num_envs()) * kMaxSeats, 0);
    std::fill(done, done + num_envs(), uint8_t{0});
    for (int i = 0; i < num_envs(); ++i) {
      G& g = games_[i];
      int a = static_cast<int>(actions[i]);
      if (a == kSkip) continue;
      if (a == kRandom) {
        const auto& legal = g.legal_actions();
        if (legal.empty()) continue;  // never in a game dealt by new_game; a guard all the same
        a = legal[moves_[i].interval(legal.size() - 1)];
      }
      g.apply_action(a);
      if (!explicit_) skip_forced(g);
      if (g.is_terminal()) {
        finish(g, rewards + static_cast<size_t>(i) * kMaxSeats, scores + static_cast<size_t>(i) * kMaxSeats);
        done[i] = 1;
        if (final_obs != nullptr) {
          const int seat = final_seat[i];
          if (seat >= 0 && seat < g.num_players()) g.observe(seat, final_obs + static_cast<size_t>(i) * G::kObsSize);
        }
        Pcg64 rng = g.rng();
        g = G::new_game(options_, rng);  // the next deal continues the finished game's generator
        settle(g);
      }
    }
    return -1;
  }

  // One learner seat per game, random opponents (the Gymnasium vector env's native path). With actions
  // (not null), each game first applies its learner's action (all checked first: -1 when all are legal,
  // else the first bad game's index, and nothing moved); then every game plays uniform random moves until
  // its seat on move is learner[i]. A game that ends meanwhile sets done[i], reward[i] (the learner's +1 /
  // -1), final_obs[i] (the learner's observation of the final position) and is dealt again.
  long learner_step(const int64_t* actions, const int32_t* learner, float* reward, uint8_t* done, float* final_obs) {
    if (actions != nullptr) {
      for (int i = 0; i < num_envs(); ++i) {
        const int64_t a = actions[i];
        const auto& legal = games_[i].legal_actions();
        if (a < 0 || a >= G::kNumActions || !std::binary_search(legal.begin(), legal.end(), static_cast<int>(a)))
          return i;
      }
    }
    std::fill(reward, reward + num_envs(), 0.0f);
    std::fill(done, done + num_envs(), uint8_t{0});
    for (int i = 0; i < num_envs(); ++i) {
      G& g = games_[i];
      if (actions != nullptr) {
        g.apply_action(static_cast<int>(actions[i]));
        if (!explicit_) skip_forced(g);
        end_for_learner(i, learner[i], reward, done, final_obs);
      }
      for (int guard = 0; games_[i].current_player() != learner[i] && guard < kMaxOpponentMoves; ++guard) {
        G& h = games_[i];
        const auto& legal = h.legal_actions();
        if (legal.empty()) break;  // never in a game dealt by new_game; a guard all the same
        h.apply_action(legal[moves_[i].interval(legal.size() - 1)]);
        if (!explicit_) skip_forced(h);
        end_for_learner(i, learner[i], reward, done, final_obs);
      }
    }
    return -1;
  }

 private:
  static constexpr int kMaxOpponentMoves = 1 << 20;

  void end_for_learner(int i, int seat, float* reward, uint8_t* done, float* final_obs) {
    G& g = games_[i];
    if (!g.is_terminal()) return;
    float rewards[kMaxSeats];
    int32_t scores[kMaxSeats];
    finish(g, rewards, scores);
    const bool in_game = seat >= 0 && seat < g.num_players();
    reward[i] = in_game ? rewards[seat] : 0.0f;
    done[i] = 1;
    if (in_game) g.observe(seat, final_obs + static_cast<size_t>(i) * G::kObsSize);
    Pcg64 rng = g.rng();
    g = G::new_game(options_, rng);
    settle(g);
  }

  void settle(G& g) {
    if (!explicit_) skip_forced(g);
  }

  static void finish(const G& g, float* reward, int32_t* score) {
    const int n = g.num_players();
    g.scores(score);
    const int best = *std::max_element(score, score + n);
    for (int p = 0; p < n; ++p) reward[p] = score[p] == best ? 1.0f : -1.0f;
  }

  typename G::Options options_;
  int num_players_;
  bool explicit_;
  std::mutex mutex_;
  std::vector<G> games_;
  std::vector<Pcg64> moves_;
};

}  // namespace ftcore

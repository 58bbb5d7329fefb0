// Campanile's MCTSAgent decision (== agents/mcts.py); see mcts.hpp.
#include "mcts.hpp"

#include <algorithm>
#include <optional>

#include "flat_search.hpp"

namespace cp {
namespace mcts {

namespace {

struct Ranked {  // a candidate and the heuristic's value of it
  double value;
  search::Move move;
};

// the candidates in the heuristic's order: sorted by (-value, play, bet), or (-value, bet) in the bet phase
// (every key differs, so any sort gives Python's order)
bool before(const Ranked& x, const Ranked& y) {
  if (x.value != y.value) return -x.value < -y.value;
  for (int k = 0; k < x.move.n; ++k)
    if (x.move.a[k] != y.move.a[k]) return x.move.a[k] < y.move.a[k];
  return false;
}

search::Move move_of(int a, int b = -1) {
  search::Move m;
  m.a[m.n++] = a;
  if (b >= 0) m.a[m.n++] = b;
  return m;
}

// act's candidates: in the bet phase every legal bet (scored_actions), in the play phase every whole turn
// (scored_turns) whose play is in `legal`, ranked by the heuristic
std::vector<Ranked> ranked_moves(const State& view, int seat, const int* legal, int count, const HeuristicParams& h) {
  std::vector<Ranked> out;
  if (view.phase_ == kPhaseBet) {
    std::vector<double> values(count);
    heuristic_values(view, seat, legal, count, h, values.data());
    for (int i = 0; i < count; ++i) out.push_back(Ranked{values[i], move_of(legal[i])});
  } else {
    ScoredTurn turns[kMaxTurns];
    const int nt = scored_turns(view, seat, h, turns);
    for (int i = 0; i < nt; ++i)
      if (std::find(legal, legal + count, turns[i].play) != legal + count)
        out.push_back(Ranked{turns[i].value, move_of(turns[i].play, turns[i].bet)});
  }
  std::sort(out.begin(), out.end(), before);
  return out;
}

}  // namespace

Decision decide(const State& view, int seat, const int* legal, int count, ftcore::Pcg64& rng, const Settings& st) {
  std::vector<Ranked> ranked = ranked_moves(view, seat, legal, count, st.heuristic);
  Decision out;
  if (ranked.empty()) return out;  // (no candidate: the caller refuses it)
  if (0 < st.candidates && st.candidates < static_cast<int>(ranked.size())) ranked.resize(st.candidates);
  int smallest = view.pile_len[0];
  for (int e = 1; e < kNumPiles; ++e) smallest = std::min<int>(smallest, view.pile_len[e]);
  if (smallest > st.search_from) ranked.resize(1);  // far from the end: the heuristic's choice
  for (const Ranked& r : ranked) out.moves.push_back(r.move);
  if (ranked.size() == 1) {
    out.best = ranked[0].move;
    return out;
  }
  // search: successive halving over the candidates with common determinisations, the heuristic's value
  // (points over 20, relative to the best) as the prior
  out.searched = true;
  const int ncand = static_cast<int>(ranked.size());
  double top = ranked[0].value;
  for (const Ranked& r : ranked)
    if (r.value > top) top = r.value;
  std::vector<double> prior(ncand);
  for (int j = 0; j < ncand; ++j) prior[j] = st.prior * (ranked[j].value - top) / 20.0;
  search::Hooks hooks(view, seat, rng, st.hooks, out.moves);
  ftcore::Budget budget;
  budget.simulations = st.simulations;
  budget.deadline = st.deadline;
  ftcore::Schedule schedule;
  schedule.halving = true;
  const ftcore::SearchResult result =
      ftcore::flat_search(hooks, ncand, budget, schedule, std::vector<std::optional<double>>(ncand), prior);
  out.means = result.means;
  out.best = out.moves[result.best];
  return out;
}

}  // namespace mcts
}  // namespace cp

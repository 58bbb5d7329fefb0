// five_towers_env.games.campanile._native: the C++ Campanile engine (State), its vector env, and the
// fields / from_fields round trip native_state.py builds the Python CampanileState from; the rule-based agents
// (agents.hpp) and the Monte Carlo search agent's decision (mcts.hpp, search_hooks.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agents.hpp"
#include "bind_common.hpp"
#include "mcts.hpp"
#include "observation.hpp"
#include "py_sum.hpp"
#include "search_hooks.hpp"
#include "state.hpp"

namespace py = pybind11;
using cp::State;

namespace {

int parse_variant(const std::string& s) {
  if (s == "pile") return cp::kPile;
  if (s == "played") return cp::kPlayed;
  throw py::value_error("variant must be one of 'pile', 'played', got '" + s + "'");
}

int parse_bet_chip(const std::string& s) {
  if (s == "at_least") return cp::kAtLeast;
  if (s == "exact") return cp::kExact;
  throw py::value_error("bet_chip must be one of 'at_least', 'exact', got '" + s + "'");
}

State::Options make_options(int num_players, const std::string& variant, const std::string& bet_chip) {
  if (num_players < cp::kMinPlayers || num_players > cp::kMaxPlayers)
    throw py::value_error("num_players must be an integer from 2 to 5, got " + std::to_string(num_players));
  State::Options o;
  o.num_players = num_players;
  o.variant = parse_variant(variant);
  o.bet_chip = parse_bet_chip(bet_chip);
  return o;
}

const char* variant_name(int v) { return v == cp::kPlayed ? "played" : "pile"; }
const char* bet_chip_name(int b) { return b == cp::kExact ? "exact" : "at_least"; }

template <class T>
py::tuple tuple_of(const T* xs, int n) {
  py::tuple t(n);
  for (int i = 0; i < n; ++i) t[i] = py::int_(static_cast<int>(xs[i]));
  return t;
}

py::dict fields(const State& s) {
  const int n = s.opt.num_players;
  py::dict d;
  d["num_players"] = n;
  d["variant"] = variant_name(s.opt.variant);
  d["bet_chip"] = bet_chip_name(s.opt.bet_chip);
  py::list heights, cards_played, bets, chips, hands, revealed, piles;
  for (int t = 0; t < cp::kNumTowers; ++t) {
    heights.append(s.heights[t]);
    cards_played.append(s.cards_played[t]);
    py::tuple b(s.num_bets[t]);
    for (int i = 0; i < s.num_bets[t]; ++i)
      b[i] = py::make_tuple(static_cast<int>(s.bets[t][i].seat), static_cast<int>(s.bets[t][i].value));
    bets.append(b);
  }
  for (int p = 0; p < n; ++p) {
    chips.append(tuple_of(s.chips[p], 3));
    hands.append(tuple_of(s.hands[p], s.hand_size[p]));
    revealed.append(tuple_of(s.revealed[p], s.revealed_size[p]));
  }
  for (int i = 0; i < cp::kNumPiles; ++i) {
    py::list pile;
    for (int j = 0; j < s.pile_len[i]; ++j) pile.append(static_cast<int>(s.piles[i][j]));
    piles.append(pile);
  }
  d["heights"] = heights;
  d["bets"] = bets;
  d["chips"] = chips;
  d["hands"] = hands;
  d["revealed"] = revealed;
  d["piles"] = piles;
  d["leftover"] = tuple_of(s.leftover, s.leftover_size);
  d["cards_played"] = cards_played;
  d["current_player"] = s.current;
  d["phase"] = s.phase_;
  d["played_tower"] = s.played_tower;
  d["played_storeys"] = s.played_storeys;
  d["done"] = s.done;
  d["turns"] = s.turns;
  d["rng_words"] = s.gen.words();
  return d;
}

[[noreturn]] void bad(const std::string& why) { throw py::value_error("from_fields: " + why); }

py::object need(const py::dict& d, const char* key) {
  if (!d.contains(key)) bad(std::string("missing key '") + key + "'");
  return d[key];
}

template <class T>
T as(const py::handle& h, const std::string& what) {
  try {
    return h.cast<T>();
  } catch (const py::cast_error&) {
    bad(what + " has the wrong type");
  }
}

std::vector<int> cards_of(const py::handle& h, const std::string& what, int cap) {
  auto v = as<std::vector<long long>>(h, what);
  if (static_cast<int>(v.size()) > cap) bad(what + " holds more than " + std::to_string(cap) + " cards");
  std::vector<int> out;
  for (long long c : v) {
    if (c < 0 || c >= cp::kNumTowers) bad(what + " holds a card that is not 0..4");
    out.push_back(static_cast<int>(c));
  }
  return out;
}

std::vector<py::object> seq(const py::handle& h, const std::string& what, size_t size) {
  auto v = as<std::vector<py::object>>(h, what);
  if (v.size() != size) bad(what + " must have " + std::to_string(size) + " entries");
  return v;
}

State from_fields(const py::dict& d) {
  State s{};
  const int n = as<int>(need(d, "num_players"), "num_players");
  s.opt = make_options(n, as<std::string>(need(d, "variant"), "variant"), as<std::string>(need(d, "bet_chip"), "bet_chip"));
  auto heights = as<std::vector<int>>(need(d, "heights"), "heights");
  auto played = as<std::vector<int>>(need(d, "cards_played"), "cards_played");
  if (heights.size() != cp::kNumTowers || played.size() != cp::kNumTowers) bad("heights and cards_played need 5 entries");
  for (int t = 0; t < cp::kNumTowers; ++t) {
    if (heights[t] < 0 || heights[t] > 1000000 || played[t] < 0 || played[t] > 1000000) bad("heights/cards_played out of range");
    s.heights[t] = heights[t];
    s.cards_played[t] = played[t];
  }
  auto chips = seq(need(d, "chips"), "chips", n);
  long long chips_left = 0;
  for (int p = 0; p < n; ++p) {
    auto c = as<std::vector<int>>(chips[p], "chips");
    if (c.size() != 3) bad("each seat's chips are three counts");
    for (int v = 0; v < 3; ++v) {
      if (c[v] < 0 || c[v] > cp::kBetCap) bad("chip counts out of range");
      s.chips[p][v] = c[v];
      chips_left += c[v];
    }
  }
  auto bets = seq(need(d, "bets"), "bets", cp::kNumTowers);
  for (int t = 0; t < cp::kNumTowers; ++t) {
    auto b = as<std::vector<std::pair<int, int>>>(bets[t], "bets");
    if (static_cast<long long>(b.size()) + chips_left > cp::kBetCap) bad("too many chips for one tower");
    s.num_bets[t] = static_cast<uint8_t>(b.size());
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i].first < 0 || b[i].first >= n || b[i].second < 1 || b[i].second > 3) bad("a bet is not (seat, value 1..3)");
      s.bets[t][i] = cp::Bet{static_cast<int8_t>(b[i].first), static_cast<int8_t>(b[i].second)};
    }
  }
  auto hands = seq(need(d, "hands"), "hands", n);
  auto revealed = seq(need(d, "revealed"), "revealed", n);
  for (int p = 0; p < n; ++p) {
    auto h = cards_of(hands[p], "a hand", cp::kHandCap);
    auto r = cards_of(revealed[p], "revealed", cp::kHandCap);
    std::sort(h.begin(), h.end());
    std::sort(r.begin(), r.end());
    std::vector<int> rest = h;
    for (int c : r) {
      auto it = std::find(rest.begin(), rest.end(), c);
      if (it == rest.end()) bad("revealed cards must be in the hand");
      rest.erase(it);
    }
    s.hand_size[p] = static_cast<uint8_t>(h.size());
    for (size_t i = 0; i < h.size(); ++i) s.hands[p][i] = static_cast<int8_t>(h[i]);
    s.revealed_size[p] = static_cast<uint8_t>(r.size());
    for (size_t i = 0; i < r.size(); ++i) s.revealed[p][i] = static_cast<int8_t>(r[i]);
  }
  auto piles = seq(need(d, "piles"), "piles", cp::kNumPiles);
  for (int i = 0; i < cp::kNumPiles; ++i) {
    auto p = cards_of(piles[i], "a pile", cp::kPileCap);
    s.pile_len[i] = static_cast<uint8_t>(p.size());
    for (size_t j = 0; j < p.size(); ++j) s.piles[i][j] = static_cast<int8_t>(p[j]);
  }
  auto left = cards_of(need(d, "leftover"), "leftover", cp::kLeftoverCap);
  s.leftover_size = static_cast<uint8_t>(left.size());
  for (size_t i = 0; i < left.size(); ++i) s.leftover[i] = static_cast<int8_t>(left[i]);
  s.current = as<int>(need(d, "current_player"), "current_player");
  s.phase_ = as<int>(need(d, "phase"), "phase");
  s.played_tower = as<int>(need(d, "played_tower"), "played_tower");
  s.played_storeys = as<int>(need(d, "played_storeys"), "played_storeys");
  s.done = as<bool>(need(d, "done"), "done");
  s.turns = as<int>(need(d, "turns"), "turns");
  if (s.current < 0 || s.current >= n) bad("current_player is not a seat");
  if (s.phase_ == cp::kPhasePlay) {
    if (s.played_tower != -1 || s.played_storeys != 0) bad("played is (-1, 0) in the play phase");
  } else if (s.phase_ == cp::kPhaseBet) {
    if (s.done) bad("a finished game is in the play phase");
    if (s.played_tower < 0 || s.played_tower >= cp::kNumTowers || s.played_storeys < 1 || s.played_storeys > 3)
      bad("the bet phase needs the tower 0..4 and storeys 1..3 just played");
  } else {
    bad("phase must be 0 (play) or 1 (bet)");
  }
  if (!s.done) {
    for (int i = 0; i < cp::kNumPiles; ++i)
      if (!s.pile_len[i]) bad("a game in progress has a card on every pile");
    for (int p = 0; p < n; ++p)  // a seat with no card at its play would have no move
      if (s.hand_size[p] == 0 && !(s.phase_ == cp::kPhaseBet && p == s.current)) bad("an empty hand in a game in progress");
  }
  try {
    s.gen = ftcore::rng_from_py(need(d, "rng_words"));
  } catch (const py::builtin_exception& e) {
    bad(e.what());
  }
  s.rebuild_derived();
  return s;
}

// random games of one setup, timed in C++: (decisions, seconds); with observe, the mover's
// observation is also encoded before every decision
std::pair<uint64_t, double> bench_random_games(const State::Options& o, int games, uint64_t seed, bool observe) {
  const auto start = std::chrono::steady_clock::now();
  ftcore::Pcg64 moves = ftcore::Pcg64::from_seed(seed);
  uint64_t decisions = 0;
  float buf[State::kObsSize];
  float sink = 0;
  for (int k = 0; k < games; ++k) {
    State g = State::new_game(o, ftcore::Pcg64::from_seed(seed + 1 + static_cast<uint64_t>(k)));
    while (!g.is_terminal()) {
      if (observe) {
        g.observe(g.current_player(), buf);
        sink += buf[cp::obs::kEndShare];
      }
      const auto& legal = g.legal_actions();
      g.apply_action(legal[moves.interval(legal.size() - 1)]);
      ++decisions;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sink < 0) decisions = 0;  // keep the observations from being optimised away
  return {decisions, secs};
}

// -- the rule-based agents (agents.hpp) ------------------------------------------------------------------

// the ids an agent chooses among: 1..64 ids, each legal in s (the Python agents' info["legal_actions"])
void check_choices(const State& s, int seat, const std::vector<int>& legal) {
  ftcore::check_seat(s, seat);
  if (legal.empty() || legal.size() > 64) throw py::value_error("legal must hold 1 to 64 action ids");
  const uint32_t mask = s.legal_mask();
  for (int a : legal)
    if (a < 0 || a >= cp::kNumActions || !((mask >> a) & 1u))
      throw py::value_error("action " + std::to_string(a) + " is not legal in this state");
}

// the states of a batch (kept alive by the caller's sequence), each with a player to move
std::vector<const State*> batch_of(const py::sequence& states) {
  std::vector<const State*> out;
  out.reserve(py::len(states));
  for (const py::handle h : states) {
    const State& s = h.cast<const State&>();
    if (s.is_terminal()) throw py::value_error("a finished game has no move to choose");
    out.push_back(&s);
  }
  return out;
}

// copies of them, for a call that releases the GIL: another Python thread may then move the caller's states
// (a copy costs a few percent of a heuristic decision)
std::vector<State> copies_of(const std::vector<const State*>& states) {
  std::vector<State> out;
  out.reserve(states.size());
  for (const State* s : states) out.push_back(*s);
  return out;
}

cp::HeuristicParams heuristic_params(double spread, double contest, double chip_cost, double card_weight,
                                     double end_weight, bool danger) {
  cp::HeuristicParams p;
  p.spread = spread;
  p.contest = contest;
  p.chip_cost = chip_cost;
  p.card_weight = card_weight;
  p.end_weight = end_weight;
  p.danger = danger;
  return p;
}

void bind_agents(py::module_& m) {
  m.def("greedy_action", [](const State& s, int seat, const std::vector<int>& legal, py::object rng_words) -> py::tuple {
    check_choices(s, seat, legal);
    ftcore::Pcg64 rng = ftcore::rng_from_py(rng_words);
    const int a = cp::greedy_action(s, seat, legal.data(), static_cast<int>(legal.size()), rng);
    return py::make_tuple(a, rng.draws() ? py::cast(rng.words()) : py::none());
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), py::arg("rng_words"),
     "GreedyAgent.act for seat among the ids legal, ties drawn from the generator rng_words:\n"
     "(action, the generator's words after the draw, or None when it drew nothing).");
  m.def("greedy_actions", [](const py::sequence& states, const py::sequence& rng_words) {
    const std::vector<const State*> games = batch_of(states);
    if (py::len(rng_words) != games.size()) throw py::value_error("one generator (rng_words) per state");
    std::vector<std::array<uint64_t, 6>> words(games.size());
    for (size_t i = 0; i < games.size(); ++i) words[i] = ftcore::rng_words_of(rng_words[i]);
    std::vector<int> actions(games.size());
    // the GIL held: a greedy decision costs less than copying its state would (see heuristic_actions)
    for (size_t i = 0; i < games.size(); ++i) {
      int legal[32];
      const int count = games[i]->compute_legal(legal);
      ftcore::Pcg64 rng = ftcore::Pcg64::from_words(words[i]);
      actions[i] = cp::greedy_action(*games[i], games[i]->current_player(), legal, count, rng);
      words[i] = rng.words();
    }
    return py::make_tuple(actions, words);
  }, py::arg("states"), py::arg("rng_words"),
     "greedy_action for the player on move in each state, its legal actions and its own generator:\n"
     "(actions, every generator's words after).");
  m.def("heuristic_action", [](const State& s, int seat, const std::vector<int>& legal, double spread, double contest,
                               double chip_cost, double card_weight, double end_weight, bool danger) {
    check_choices(s, seat, legal);
    const cp::HeuristicParams p = heuristic_params(spread, contest, chip_cost, card_weight, end_weight, danger);
    return cp::heuristic_action(s, seat, legal.data(), static_cast<int>(legal.size()), p);
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), py::arg("spread") = 1.0, py::arg("contest") = 0.6,
     py::arg("chip_cost") = 0.35, py::arg("card_weight") = 0.3, py::arg("end_weight") = 20.0, py::arg("danger") = true,
     "HeuristicAgent.act (its weights as keywords) for seat among the ids legal.");
  m.def("heuristic_values", [](const State& s, int seat, const std::vector<int>& legal, double spread, double contest,
                               double chip_cost, double card_weight, double end_weight, bool danger) {
    check_choices(s, seat, legal);
    const cp::HeuristicParams p = heuristic_params(spread, contest, chip_cost, card_weight, end_weight, danger);
    std::vector<double> out(legal.size());
    cp::heuristic_values(s, seat, legal.data(), static_cast<int>(legal.size()), p, out.data());
    return out;
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), py::arg("spread") = 1.0, py::arg("contest") = 0.6,
     py::arg("chip_cost") = 0.35, py::arg("card_weight") = 0.3, py::arg("end_weight") = 20.0, py::arg("danger") = true,
     "heuristic.scored_actions: the value of each id in legal (same order).");
  m.def("heuristic_actions", [](const py::sequence& states, double spread, double contest, double chip_cost,
                                double card_weight, double end_weight, bool danger) {
    const std::vector<State> games = copies_of(batch_of(states));
    const cp::HeuristicParams p = heuristic_params(spread, contest, chip_cost, card_weight, end_weight, danger);
    std::vector<int> actions(games.size());
    {
      py::gil_scoped_release release;
      for (size_t i = 0; i < games.size(); ++i) {
        int legal[32];
        const int count = games[i].compute_legal(legal);
        actions[i] = cp::heuristic_action(games[i], games[i].current_player(), legal, count, p);
      }
    }
    return actions;
  }, py::arg("states"), py::arg("spread") = 1.0, py::arg("contest") = 0.6, py::arg("chip_cost") = 0.35,
     py::arg("card_weight") = 0.3, py::arg("end_weight") = 20.0, py::arg("danger") = true,
     "heuristic_action for the player on move in each state and its legal actions, the GIL released.");
}

py::tuple move_tuple(const cp::search::Move& mv) {
  py::tuple t(mv.n);
  for (int k = 0; k < mv.n; ++k) t[k] = py::int_(mv.a[k]);
  return t;
}

void bind_search(py::module_& m) {
  m.def("rollout_action", [](const State& s, double u, double bet_rate, double lead_rate) {
    if (s.is_terminal()) throw py::value_error("the game is over: no move to choose");
    if (!(u >= 0.0 && u < 1.0)) throw py::value_error("u must be in [0, 1)");
    return cp::search::rollout_action(s, u, bet_rate, lead_rate);
  }, py::arg("state"), py::arg("u"), py::arg("bet_rate"), py::arg("lead_rate") = 0.0,
     "search_hooks.rollout_action: the default policy's action in state for a uniform number u in [0, 1).");
  m.def("scored_turns", [](const State& s, int seat, double spread, double contest, double chip_cost,
                           double card_weight, double end_weight, bool danger) {
    ftcore::check_seat(s, seat);
    if (s.is_terminal() || s.phase() != cp::kPhasePlay) throw py::value_error("scored_turns needs a play phase");
    const cp::HeuristicParams p = heuristic_params(spread, contest, chip_cost, card_weight, end_weight, danger);
    cp::ScoredTurn turns[cp::kMaxTurns];
    const int count = cp::scored_turns(s, seat, p, turns);
    py::list out;
    for (int i = 0; i < count; ++i) out.append(py::make_tuple(turns[i].value, turns[i].play, turns[i].bet));
    return out;
  }, py::arg("state"), py::arg("seat"), py::arg("spread") = 1.0, py::arg("contest") = 0.6,
     py::arg("chip_cost") = 0.35, py::arg("card_weight") = 0.3, py::arg("end_weight") = 20.0, py::arg("danger") = true,
     "heuristic.scored_turns: (value, play, bet) of every whole turn of a play-phase state.");
  m.def("mcts_decide", [](const State& view, int seat, const std::vector<int>& legal,
                          py::object rng_words, int simulations, int candidates,
                          std::optional<int> rollout_turns, double bet_rate, double lead_rate, double temperature,
                          double margin_weight, double prior, int search_from, double eval_spread,
                          double eval_contest, double eval_chip_cost, double spread, double contest, double chip_cost,
                          double card_weight, double end_weight, bool danger, std::optional<double> stop_after) {
    check_choices(view, seat, legal);
    if (view.is_terminal()) throw py::value_error("the game is over: no move to search");
    if (seat != view.current_player()) throw py::value_error("the searcher must be the player on move");
    if (simulations < 1) throw py::value_error("simulations must be at least 1");
    if (temperature == 0.0) throw py::value_error("temperature must not be 0");  // (the Python code divides by it)
    if (stop_after && std::isnan(*stop_after)) throw py::value_error("stop_after must be a number of seconds");
    cp::mcts::Settings st;
    st.simulations = simulations;
    st.candidates = candidates;
    st.prior = prior;
    st.search_from = search_from;
    st.heuristic = heuristic_params(spread, contest, chip_cost, card_weight, end_weight, danger);
    st.hooks.cut = rollout_turns.has_value();
    st.hooks.rollout_turns = rollout_turns ? *rollout_turns : 0;
    st.hooks.bet_rate = bet_rate;
    st.hooks.lead_rate = lead_rate;
    st.hooks.temperature = temperature;
    st.hooks.margin_weight = margin_weight;
    st.hooks.eval = heuristic_params(eval_spread, eval_contest, eval_chip_cost, 0.3, 0.0, true);
    if (stop_after) st.deadline = ftcore::Deadline::after(*stop_after);
    ftcore::Pcg64 rng = ftcore::rng_from_py(rng_words);
    const State own = view;  // (a copy: another Python thread may move the caller's state once the GIL is released)
    cp::mcts::Decision d;
    {
      py::gil_scoped_release release;
      d = cp::mcts::decide(own, seat, legal.data(), static_cast<int>(legal.size()), rng, st);
    }
    if (d.best.n == 0) throw py::value_error("no candidate to search");
    py::list moves, means;
    if (d.searched)  // (without a search the Python code leaves last_values empty)
      for (const cp::search::Move& mv : d.moves) moves.append(move_tuple(mv));
    for (const std::optional<double>& v : d.means) means.append(v ? py::object(py::float_(*v)) : py::object(py::none()));
    return py::make_tuple(move_tuple(d.best), moves, means, rng.words());
  }, py::arg("view"), py::arg("seat"), py::arg("legal"), py::arg("rng_words"), py::arg("simulations") = 400,
     py::arg("candidates") = 3, py::arg("rollout_turns") = py::none(), py::arg("bet_rate") = 0.5,
     py::arg("lead_rate") = 0.0, py::arg("temperature") = 4.0, py::arg("margin_weight") = 0.1, py::arg("prior") = 0.0,
     py::arg("search_from") = 5, py::arg("eval_spread") = 1.0, py::arg("eval_contest") = 0.6,
     py::arg("eval_chip_cost") = 0.35, py::arg("spread") = 1.0, py::arg("contest") = 0.6, py::arg("chip_cost") = 0.35,
     py::arg("card_weight") = 0.3, py::arg("end_weight") = 20.0, py::arg("danger") = true,
     py::arg("stop_after") = py::none(),
     "MCTSAgent.act after its planned bet, from a public view, for seat among the ids legal, with the agent's\n"
     "generator rng_words (its settings as keywords; eval_*: the rollouts' Evaluator weights, the rest the ranking\n"
     "heuristic's; stop_after: the decision's deadline in seconds from now, a hard stop whatever the budget,\n"
     "None: none): (the move chosen, the candidates searched and each one's mean reward (None where never\n"
     "sampled; both empty without a search), the generator's words after).");
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The C++ Campanile engine: bit for bit the Python CampanileState (rules, draws, observation).";
  py::class_<State> cls(m, "State");
  ftcore::bind_state<State>(m, cls);
  ftcore::bind_vector_env<State>(m);
  cls.def_property_readonly("variant", [](const State& s) { return std::string(variant_name(s.opt.variant)); })
      .def_property_readonly("bet_chip", [](const State& s) { return std::string(bet_chip_name(s.opt.bet_chip)); })
      .def("fields", &fields, "Every attribute of the Python CampanileState, as plain Python values (rng as rng_words).")
      .def("__repr__", [](const State& s) {
        return "<campanile._native.State " + std::to_string(s.opt.num_players) + " players, " +
               variant_name(s.opt.variant) + ", phase=" + s.phase_name() + ">";
      });
  m.def("new_game", [](int num_players, const std::string& variant, const std::string& bet_chip, py::object rng_words) {
    return State::new_game(make_options(num_players, variant, bet_chip), ftcore::rng_from_py(rng_words));
  }, py::arg("num_players"), py::arg("variant"), py::arg("bet_chip"), py::arg("rng_words"),
     "CampanileState.new_game(num_players, variant, rng, bet_chip=bet_chip) with rng's state as six words\n"
     "(rng_words(): the generator after the deal).");
  m.def("from_fields", &from_fields, py::arg("fields"), "The State of a fields() dict; ValueError if it is not representable.");
  m.def("_bench_random_games", [](int num_players, const std::string& variant, const std::string& bet_chip, int games,
                                  uint64_t seed, bool observe) {
    if (games < 0 || games > 100000000) throw py::value_error("games must be 0..100000000");
    const State::Options o = make_options(num_players, variant, bet_chip);
    py::gil_scoped_release release;
    return bench_random_games(o, games, seed, observe);
  }, py::arg("num_players"), py::arg("variant"), py::arg("bet_chip"), py::arg("games"), py::arg("seed") = 0,
     py::arg("observe") = false, "Random games timed in C++: (decisions, seconds).");
  bind_agents(m);
  bind_search(m);
  // Python's sum() of floats, which the search's Python code uses, is compensated from 3.12 on
  ftcore::set_compensated_sum(PY_VERSION_HEX >= 0x030C0000);
}

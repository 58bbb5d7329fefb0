// Python binding of the native 5 Towers engine: five_towers_env.games.five_towers._native.
//
//   new_game(num_players=2, variant="base", rng_words=(6 ints), start_player=0) -> State
//   from_fields(dict) -> State            (the inverse of State.fields())
//   State.fields() -> dict                (every GameState attribute, rng as rng_words)
//   State.variant, State.ceiling(p), State.bid_mask(p)
//   + the game-neutral methods of ftcore::bind_state and VectorEnv (bind_common.hpp)
//   greedy_action / greedy_actions, heuristic_action / heuristic_values / heuristic_actions (agents.hpp)
//   rollout_action, play_rounds (rollout.hpp), mcts_decide (search.hpp)
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "agents.hpp"
#include "py_sum.hpp"
#include "rollout.hpp"
#include "search.hpp"
#include "bind_common.hpp"
#include "state.hpp"

namespace py = pybind11;
using ft::State;

namespace {

int check_players(int n) {
  if (n < ft::kMinPlayers || n > ft::kMaxPlayers)
    throw py::value_error("num_players must be an integer from 2 to 5, got " + std::to_string(n));
  return n;
}

bool parse_variant(const std::string& v) {
  if (v == "base") return false;
  if (v == "great_powers") return true;
  throw py::value_error("variant must be one of 'base', 'great_powers', got '" + v + "'");
}

py::tuple tower_tuple(const ft::Tower& tw) {
  py::tuple t(tw.n);
  for (int i = 0; i < tw.n; ++i) t[i] = py::int_(tw.v[i]);
  return t;
}

template <class L>
py::list as_list(const L& l) {
  py::list out;
  for (int i = 0; i < l.n; ++i) out.append(py::int_(l.v[i]));
  return out;
}

template <class L>
py::tuple as_tuple(const L& l) {
  py::tuple t(l.n);
  for (int i = 0; i < l.n; ++i) t[i] = py::int_(l.v[i]);
  return t;
}

py::dict fields(const State& s) {
  py::dict d;
  d["num_players"] = s.num_players_;
  d["variant"] = s.gp ? "great_powers" : "base";
  d["deck"] = as_list(s.deck);
  d["discard"] = as_list(s.discard);
  d["display"] = as_tuple(s.display);
  py::list towers, piles, bids;
  for (int p = 0; p < s.num_players_; ++p) {
    py::tuple tw(ft::kNumTypes);
    for (int t = 0; t < ft::kNumTypes; ++t) tw[t] = tower_tuple(s.towers[p][t]);
    towers.append(tw);
    piles.append(as_tuple(s.piles[p]));
    if (s.bids[p] == ft::BID_NONE) bids.append(py::none());
    else bids.append(py::int_(s.bids[p]));
  }
  d["towers"] = towers;
  d["piles"] = piles;
  d["start_player"] = s.start_player;
  d["deck_ran_out"] = s.deck_ran_out;
  d["rounds_played"] = s.rounds_played;
  d["phase"] = s.phase_;
  d["current_player"] = s.current_player_;
  d["bids"] = bids;
  d["bid_turn"] = s.bid_turn;
  d["high_bid"] = s.high_bid;
  d["builder"] = s.builder;
  d["target"] = s.target;
  d["hand"] = as_tuple(s.hand);
  d["taken"] = s.taken;
  d["took_tree"] = s.took_tree;
  d["paid"] = s.paid;
  if (s.torn == ft::TORN_NONE) d["torn"] = py::none();
  else d["torn"] = py::int_(s.torn);
  d["sand_end"] = static_cast<int>(s.sand_end);
  const auto w = s.rng_.words();
  py::tuple words(6);
  for (int i = 0; i < 6; ++i) words[i] = py::int_(w[i]);
  d["rng_words"] = words;
  d["first_player"] = s.opts.start_player;
  return d;
}

// ---- from_fields: every value checked, so no dict can make an unsafe state ----------------------------

[[noreturn]] void bad(const std::string& what) { throw py::value_error("from_fields: " + what); }

bool get_bool(const py::dict& d, const char* key) {
  if (!d.contains(key)) bad(std::string("missing '") + key + "'");
  return py::bool_(d[key]).cast<bool>();
}

int as_int(py::handle o, int lo, int hi, const std::string& what) {
  if (py::isinstance<py::bool_>(o)) bad(what + " must hold ints");
  long long v;
  int overflow = 0;
  // a plain int (nearly every value a state holds) is read directly: operator.index per value was most of a
  // conversion's time, which the agents pay at every decision on a converted view
  if (PyLong_CheckExact(o.ptr()) && (v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow), !overflow)) {
    if (v < lo || v > hi) bad(what + " holds a value out of range");
    return static_cast<int>(v);
  }
  try {
    v = py::module_::import("operator").attr("index")(o).cast<long long>();
  } catch (py::error_already_set&) {
    bad(what + " must hold ints");
  }
  if (v < lo || v > hi) bad(what + " holds a value out of range");
  return static_cast<int>(v);
}

int get_int(const py::dict& d, const char* key, int lo, int hi) {
  if (!d.contains(key)) bad(std::string("missing '") + key + "'");
  return as_int(d[key], lo, hi, std::string("'") + key + "'");
}

template <int Cap>
void get_cards(py::handle seq, ft::SmallList<Cap>& out, int cap, const std::string& what, bool sorted) {
  out.clear();
  if (!py::isinstance<py::sequence>(seq)) bad(what + " must be a sequence");
  py::sequence s = py::reinterpret_borrow<py::sequence>(seq);
  if (static_cast<int>(py::len(s)) > cap) bad(what + " holds too many cards");
  for (py::handle x : s) out.push_back(as_int(x, 0, ft::kNumCardIds - 1, what));
  if (sorted)
    for (int i = 1; i < out.n; ++i)
      if (out.v[i - 1] > out.v[i]) bad(what + " must be sorted");
}

State from_fields(const py::dict& d) {
  State s;
  const int n = check_players(get_int(d, "num_players", 2, 5));
  if (!d.contains("variant")) bad("missing 'variant'");
  const bool gp = parse_variant(py::str(d["variant"]).cast<std::string>());
  ft::CardList deck, discard;
  ft::Display display;
  get_cards(d["deck"], deck, ft::kMaxCards, "deck", false);
  get_cards(d["discard"], discard, ft::kMaxCards, "discard", false);
  get_cards(d["display"], display, 5, "display", true);
  std::array<ft::Towers, ft::kMaxPlayers> towers{};
  std::array<ft::Pile, ft::kMaxPlayers> piles{};
  py::sequence tws = d["towers"].cast<py::sequence>();
  py::sequence pls = d["piles"].cast<py::sequence>();
  if (static_cast<int>(py::len(tws)) != n || static_cast<int>(py::len(pls)) != n) bad("towers and piles need one entry per seat");
  int counts[ft::kNumCardIds] = {0};
  for (int p = 0; p < n; ++p) {
    py::sequence five = py::reinterpret_borrow<py::object>(tws[p]).cast<py::sequence>();
    if (py::len(five) != ft::kNumTypes) bad("towers[p] must hold 5 towers");
    for (int t = 0; t < ft::kNumTypes; ++t) {
      py::sequence tw = py::reinterpret_borrow<py::object>(five[t]).cast<py::sequence>();
      if (static_cast<int>(py::len(tw)) > 22) bad("a tower holds too many cards");
      for (py::handle x : tw) {
        const int v = as_int(x, 0, ft::kNumValues - 1, "towers");
        towers[p][t].push(v);
        ++counts[ft::card_id(t, v)];
      }
    }
    get_cards(pls[p], piles[p], ft::kMaxCards, "piles", true);
    for (int c : piles[p]) ++counts[c];
  }
  ft::Hand hand;
  get_cards(d["hand"], hand, 5, "hand", true);
  for (int c : deck) ++counts[c];
  for (int c : discard) ++counts[c];
  for (int c : display) ++counts[c];
  for (int c : hand) ++counts[c];
  for (int c = 0; c < ft::kNumCardIds; ++c)
    if (counts[c] > ft::card_count(n, c)) bad("more copies of a card than the card set holds");

  if (!d.contains("rng_words")) bad("missing 'rng_words'");
  std::array<uint64_t, 6> words;
  try {
    words = ftcore::rng_words_of(d["rng_words"], "'rng_words'");
  } catch (const py::builtin_exception& e) {
    bad(e.what());
  }
  const int start = get_int(d, "start_player", 0, n - 1);
  s.init(n, gp, ftcore::Pcg64::from_words(words), deck, discard, display, towers, piles, start, get_bool(d, "deck_ran_out"));
  s.opts.start_player = d.contains("first_player") ? get_int(d, "first_player", 0, n - 1) : 0;
  s.rounds_played = get_int(d, "rounds_played", 0, 1 << 30);
  s.phase_ = get_int(d, "phase", 0, 5);
  s.current_player_ = get_int(d, "current_player", s.phase_ == ft::PHASE_GAME_OVER ? -1 : 0, n - 1);
  py::sequence bids = d["bids"].cast<py::sequence>();
  if (static_cast<int>(py::len(bids)) != n) bad("bids needs one entry per seat");
  for (int p = 0; p < n; ++p) {
    py::handle b = bids[p];
    s.bids[p] = b.is_none() ? ft::BID_NONE : static_cast<int8_t>(as_int(b, -1, ft::MAX_BID, "bids"));
  }
  s.bid_turn = get_int(d, "bid_turn", 0, n);
  s.high_bid = get_int(d, "high_bid", -1, ft::MAX_BID);
  const bool building = s.phase_ != ft::PHASE_BID && s.phase_ != ft::PHASE_GAME_OVER;
  s.builder = get_int(d, "builder", building ? 0 : -1, n - 1);
  s.target = get_int(d, "target", 0, ft::MAX_BID);
  s.hand = hand;
  s.taken = get_int(d, "taken", 0, 5);
  s.took_tree = get_bool(d, "took_tree");
  s.paid = get_int(d, "paid", 0, ft::MAX_BID);
  s.torn = d["torn"].is_none() ? ft::TORN_NONE : static_cast<int8_t>(get_int(d, "torn", -1, ft::kNumTypes - 1));
  s.sand_end = static_cast<int8_t>(get_int(d, "sand_end", 0, 2));
  if (s.phase_ == ft::PHASE_BID) {  // the bidding so far must be one the rules allow
    if (s.bid_turn >= n || s.current_player_ != (s.start_player + s.bid_turn) % n) bad("bid_turn / current_player inconsistent");
    int high = -1, holder = -1;
    for (int p = 0; p < n; ++p)
      if (s.bids[p] > high) {
        high = s.bids[p];
        holder = p;
      }
    if (high != s.high_bid || (high >= 0 && holder != s.builder)) bad("high_bid / builder inconsistent with bids");
    if (high >= 0 && !((s.bid_mask(holder) >> high) & 1)) bad("the high bid cannot be carried out");
    if (!s.hand.empty() || s.taken || s.took_tree || s.paid || s.target || s.torn != ft::TORN_NONE || s.sand_end != ft::END_NONE)
      bad("a round still bidding has taken, paid or built nothing yet");
  }
  if (s.phase_ == ft::PHASE_TAKE) {  // the take so far must be one the rules allow
    bool tree = false;
    for (int c : s.hand) tree = tree || ft::type_of(c) == ft::TREE;
    if (s.taken != s.hand.n || s.took_tree != tree || s.target <= s.taken || s.paid != 0 || s.target != s.high_bid)
      bad("taken / took_tree / target / paid inconsistent with the hand");
  }
  if (s.phase_ == ft::PHASE_GAME_OVER) {
    s.legal_.clear();
    s.legal_valid_ = true;
  } else if (s.legal_actions().empty()) {
    bad("the position has no legal action (its fields are not consistent)");
  }
  return s;
}

// ---- the rule-based agents (agents.hpp) ------------------------------------------------------------------

// the ids an agent chooses among: 1..NUM_ACTIONS ids, each legal in s (the Python agents' info["legal_actions"])
void check_choices(State& s, int seat, const std::vector<int>& legal) {
  ftcore::check_seat(s, seat);
  if (legal.empty() || legal.size() > static_cast<size_t>(ft::NUM_ACTIONS))
    throw py::value_error("legal must hold 1 to " + std::to_string(ft::NUM_ACTIONS) + " action ids");
  for (int a : legal)
    if (!s.is_legal(a)) throw py::value_error("action " + std::to_string(a) + " is not legal in this state");
}

// the states of a batch, each with a player to move, and their legal actions, listed while the GIL is held
// (listing them fills the state's caches, as a Python call would)
std::vector<State*> batch_of(const py::sequence& states, std::vector<std::vector<int>>& legal) {
  std::vector<State*> out;
  out.reserve(py::len(states));
  for (const py::handle h : states) {
    State& s = h.cast<State&>();
    if (s.is_terminal()) throw py::value_error("a finished game has no move to choose");
    legal.push_back(s.legal_actions());
    out.push_back(&s);
  }
  return out;
}

// copies of them, for a call that releases the GIL: another Python thread may then move the caller's states
// (a copy costs a few percent of a heuristic decision)
std::vector<State> copies_of(const std::vector<State*>& states) {
  std::vector<State> out;
  out.reserve(states.size());
  for (const State* s : states) out.push_back(*s);
  return out;
}

ft::HeuristicParams heuristic_params(double chain_weight, double zero_weight, double pair_weight, double recover_relief,
                                     double opponent_weight) {
  ft::HeuristicParams p;
  p.chain_weight = chain_weight;
  p.zero_weight = zero_weight;
  p.pair_weight = pair_weight;
  p.recover_relief = recover_relief;
  p.opponent_weight = opponent_weight;
  return p;
}

#define FT_WEIGHTS                                                                                         \
  py::arg("chain_weight") = 0.8, py::arg("zero_weight") = 0.3, py::arg("pair_weight") = 0.8,               \
      py::arg("recover_relief") = 0.3, py::arg("opponent_weight") = 1.0

void bind_agents(py::module_& m) {
  m.def("greedy_action", [](State& s, int seat, const std::vector<int>& legal, py::object rng_words) {
    check_choices(s, seat, legal);
    ftcore::Pcg64 rng = ftcore::rng_from_py(rng_words);
    const int a = ft::greedy_action(s, seat, legal.data(), static_cast<int>(legal.size()), rng);
    return py::make_tuple(a, rng.draws() ? py::cast(rng.words()) : py::none());
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), py::arg("rng_words"),
     "GreedyAgent.act for seat among the ids legal, ties drawn from the generator rng_words:\n"
     "(action, the generator's words after the draw, or None when it drew nothing).");
  m.def("greedy_actions", [](const py::sequence& states, const py::sequence& rng_words) {
    std::vector<std::vector<int>> legal;
    const std::vector<State*> games = batch_of(states, legal);
    if (py::len(rng_words) != games.size()) throw py::value_error("one generator (rng_words) per state");
    std::vector<std::array<uint64_t, 6>> words(games.size());
    for (size_t i = 0; i < games.size(); ++i) words[i] = ftcore::rng_words_of(rng_words[i]);
    std::vector<int> actions(games.size());
    // the GIL held: a greedy decision costs less than copying its state would (see heuristic_actions)
    for (size_t i = 0; i < games.size(); ++i) {
      ftcore::Pcg64 rng = ftcore::Pcg64::from_words(words[i]);
      actions[i] = ft::greedy_action(*games[i], games[i]->current_player(), legal[i].data(),
                                     static_cast<int>(legal[i].size()), rng);
      words[i] = rng.words();
    }
    return py::make_tuple(actions, words);
  }, py::arg("states"), py::arg("rng_words"),
     "greedy_action for the player on move in each state, its legal actions and its own generator:\n"
     "(actions, every generator's words after).");
  m.def("heuristic_action", [](State& s, int seat, const std::vector<int>& legal, double chain_weight, double zero_weight,
                               double pair_weight, double recover_relief, double opponent_weight) {
    check_choices(s, seat, legal);
    const ft::HeuristicParams p = heuristic_params(chain_weight, zero_weight, pair_weight, recover_relief, opponent_weight);
    return ft::heuristic_action(s, seat, legal.data(), static_cast<int>(legal.size()), p);
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), FT_WEIGHTS,
     "HeuristicAgent.act (its parameters as keywords) for seat among the ids legal.");
  m.def("heuristic_values", [](State& s, int seat, const std::vector<int>& legal, double chain_weight, double zero_weight,
                               double pair_weight, double recover_relief, double opponent_weight) {
    check_choices(s, seat, legal);
    const ft::HeuristicParams p = heuristic_params(chain_weight, zero_weight, pair_weight, recover_relief, opponent_weight);
    std::vector<double> out(legal.size());
    ft::heuristic_values(s, seat, legal.data(), static_cast<int>(legal.size()), p, out.data());
    return out;
  }, py::arg("state"), py::arg("seat"), py::arg("legal"), FT_WEIGHTS,
     "HeuristicAgent.scored_actions: the value of each id in legal (same order; -inf: not searched).");
  m.def("heuristic_actions", [](const py::sequence& states, double chain_weight, double zero_weight, double pair_weight,
                                double recover_relief, double opponent_weight) {
    std::vector<std::vector<int>> legal;
    const std::vector<State> games = copies_of(batch_of(states, legal));
    const ft::HeuristicParams p = heuristic_params(chain_weight, zero_weight, pair_weight, recover_relief, opponent_weight);
    std::vector<int> actions(games.size());
    {
      py::gil_scoped_release release;
      for (size_t i = 0; i < games.size(); ++i)
        actions[i] = ft::heuristic_action(games[i], games[i].current_player(), legal[i].data(),
                                          static_cast<int>(legal[i].size()), p);
    }
    return actions;
  }, py::arg("states"), FT_WEIGHTS,
     "heuristic_action for the player on move in each state and its legal actions, the GIL released.");
}

void bind_search(py::module_& m) {
  m.def("rollout_action", [](State& s, double beta) {
    if (s.is_terminal()) throw py::value_error("the game is over: no move to choose");
    return ft::rollout::rollout_action(s, beta);
  }, py::arg("state"), py::arg("beta") = 0.45, "rollout.rollout_action: the default policy's move in state.");
  m.def("play_rounds", [](State& s, double beta, std::optional<int> rounds) {
    if (s.phase() != ft::PHASE_BID || s.bid_turn != 0) throw py::value_error("play_rounds needs a round start");
    if (rounds && *rounds < 0) throw py::value_error("rounds must be at least 0 (None: to the end)");
    double left = 0.0;
    const bool over = ft::rollout::play_rounds(s, beta, rounds ? *rounds : -1, &left);
    return py::make_tuple(over, left);
  }, py::arg("state"), py::arg("beta") = 0.45, py::arg("rounds") = py::none(),
     "rollout.play_rounds on state (changed in place): (game over, fraction of the game left).");
  m.def("mcts_decide", [](const State& view, py::object rng_words, int simulations,
                          std::optional<double> time_limit, int min_simulations, std::optional<int> rollout_rounds,
                          double beta, double eval_weight, double temperature, double margin_weight,
                          std::optional<double> race_z, int min_samples,
                          std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> probs,
                          int top_k, double weight, std::optional<double> stop_after) {
    ft::search::Settings st;  // (the budget's clock starts here)
    if (view.is_terminal()) throw py::value_error("the game is over: no move to search");
    if (simulations < 1) throw py::value_error("simulations must be at least 1");
    if (time_limit && !(*time_limit >= 0.0)) throw py::value_error("time_limit must be at least 0 (None: none)");
    if (rollout_rounds && *rollout_rounds < 0) throw py::value_error("rollout_rounds must be at least 0 (None: to the end)");
    if (race_z && !(*race_z >= 0.0)) throw py::value_error("race_z must be at least 0 (None: never)");
    if (probs && (probs->ndim() != 1 || probs->size() != ft::NUM_ACTIONS || top_k < 1))
      throw py::value_error("probs: one probability per action id (307), and top_k at least 1");
    if (stop_after && std::isnan(*stop_after)) throw py::value_error("stop_after must be a number of seconds");
    if (stop_after) st.budget.deadline = ftcore::Deadline::after(*stop_after);
    st.budget.simulations = simulations;
    st.budget.time_limit = time_limit ? *time_limit : -1.0;
    st.budget.min_simulations = min_simulations;
    st.schedule.z = race_z ? *race_z : -1.0;
    st.schedule.min_samples = std::max(1, min_samples);
    st.rollout_rounds = rollout_rounds ? *rollout_rounds : -1;
    st.beta = beta;
    st.scoring = ft::search::Scoring{eval_weight, temperature, margin_weight};
    ft::search::PolicyPrior prior;
    if (probs) {
      prior.probs.assign(probs->data(), probs->data() + probs->size());
      prior.top_k = top_k;
      prior.weight = weight;
    }
    ftcore::Pcg64 rng = ftcore::rng_from_py(rng_words);
    const State own = view;  // (a copy: another Python thread may move the caller's state once the GIL is released)
    ft::search::Decision d;
    {
      py::gil_scoped_release release;
      d = ft::search::decide(own, rng, st, probs ? &prior : nullptr);
    }
    if (d.action < 0) throw py::value_error("no candidate to search");
    return py::make_tuple(d.action, d.simulations, d.actions, d.values, rng.words());
  }, py::arg("view"), py::arg("rng_words"), py::arg("simulations") = 400, py::arg("time_limit") = py::none(),
     py::arg("min_simulations") = 8, py::arg("rollout_rounds") = 5, py::arg("beta") = 0.45,
     py::arg("eval_weight") = 1.0, py::arg("temperature") = 3.0, py::arg("margin_weight") = 0.2,
     py::arg("race_z") = 2.0, py::arg("min_samples") = 8, py::arg("probs") = py::none(), py::arg("top_k") = 4,
     py::arg("weight") = 0.02, py::arg("stop_after") = py::none(),
     "MCTSAgent.search from a public view with the agent's generator rng_words (its settings as keywords; probs:\n"
     "a policy's probability of every action id, for the guided rollout search; stop_after: the decision's\n"
     "deadline in seconds from now, a hard stop whatever the budget, None: none): (action, rollouts run, the\n"
     "actions searched, each one's mean reward, the generator's words after).");
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "Native (C++) 5 Towers engine, bit for bit the Python GameState";
  py::class_<State> cls(m, "State");
  ftcore::bind_state<State>(m, cls);
  ftcore::bind_vector_env<State>(m);

  m.def("new_game", [](int num_players, const std::string& variant, py::object rng_words, int start_player) {
    State::Options o;
    o.num_players = check_players(num_players);
    o.gp = parse_variant(variant);
    if (start_player < 0 || start_player >= o.num_players)
      throw py::value_error("start_player must be a seat 0.." + std::to_string(o.num_players - 1));
    o.start_player = start_player;
    return State::new_game(o, ftcore::rng_from_py(rng_words));
  }, py::arg("num_players") = 2, py::arg("variant") = "base", py::arg("rng_words"), py::arg("start_player") = 0,
     "GameState.new_game(num_players, variant, rng, start_player) with rng given as its six words");
  m.def("from_fields", &from_fields, py::arg("fields"), "The State whose fields() are these (ValueError if inconsistent)");
  cls.def("fields", &fields, "Every GameState attribute as plain Python values (the rng as rng_words)");
  cls.def_property_readonly("variant", [](const State& s) { return s.gp ? "great_powers" : "base"; });
  cls.def_property_readonly("gp", [](const State& s) { return s.gp; });
  cls.def("ceiling", [](const State& s, int p) { ftcore::check_seat(s, p); return s.ceiling(p); }, py::arg("player"));
  cls.def("bid_mask", [](State& s, int p) { ftcore::check_seat(s, p); return s.bid_mask(p); }, py::arg("player"));
  cls.def("__repr__", [](const State& s) {
    return std::string("<_native.State ") + (s.gp ? "great_powers" : "base") + ", " + std::to_string(s.num_players_) +
           " players, phase=" + s.phase_name() + ", to_act=" + std::to_string(s.current_player_) + ">";
  });
  bind_agents(m);
  bind_search(m);
  // Python's sum() of floats, which the search's Python code uses, is compensated from 3.12 on
  ftcore::set_compensated_sum(PY_VERSION_HEX >= 0x030C0000);
}

// The game-neutral half of every game's Python binding: the State methods every engine shares, and
// the batched vector environment over N games. A game's module.cpp binds its own construction and
// fields, then calls bind_state<G>(m, cls) and bind_vector_env<G>(m). Everything here checks its
// inputs and raises a Python exception (IndexError / ValueError / TypeError); nothing a caller passes
// can crash the interpreter.
//
// Threads. A call that releases the GIL reads only what no Python thread can change meanwhile: copies
// made while the GIL is held (the actions, seeds and learner seats it was given, a State it was given),
// or a VectorEnv's games under that VectorEnv's lock (with_games), which every call touching them takes.
// Python threads may therefore share a VectorEnv, or pass a State another thread is moving: their calls
// are serialised, never interleaved inside the games.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng.hpp"
#include "vector_env.hpp"

namespace ftcore {

namespace py = pybind11;

inline std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")).cast<std::string>(); }

// The six words of a PCG64 generator (five_towers_env.core.native.words_of_generator) from any sequence of
// six ints: TypeError for what is not a sequence of ints, ValueError for another length or a word outside
// 0 .. 2**64 - 1.
inline std::array<uint64_t, 6> rng_words_of(py::handle words, const std::string& what = "rng_words") {
  if (!py::isinstance<py::sequence>(words) || py::isinstance<py::str>(words) || py::isinstance<py::bytes>(words))
    throw py::type_error(what + " must be a sequence of 6 ints, got " + type_name(words));
  const auto seq = py::reinterpret_borrow<py::sequence>(words);
  const size_t size = py::len(seq);
  if (size != 6) throw py::value_error(what + " must hold 6 ints, got " + std::to_string(size));
  std::array<uint64_t, 6> out{};
  for (size_t i = 0; i < 6; ++i) {
    const py::object x = seq[i];
    if (PyBool_Check(x.ptr())) throw py::type_error(what + " must hold ints, got a bool");
    PyObject* index = PyNumber_Index(x.ptr());  // ints and numpy integers; NULL (TypeError set) for others
    if (index == nullptr) {
      PyErr_Clear();
      throw py::type_error(what + " must hold ints, got " + type_name(x));
    }
    const unsigned long long v = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error(what + " must hold ints from 0 to 2**64 - 1");
    }
    out[i] = static_cast<uint64_t>(v);
  }
  return out;
}

inline Pcg64 rng_from_py(py::handle words) { return Pcg64::from_words(rng_words_of(words)); }

// the text of a refused action, one line, at most a few dozen characters
inline std::string action_text(py::handle a) {
  std::string text = py::repr(a).cast<std::string>();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

[[noreturn]] inline void refuse_action(const std::string& action, size_t game, const char* why = "") {
  throw py::value_error("illegal action " + action + " in game " + std::to_string(game) + " (" + why + "no game was stepped)");
}

// One action id per game, copied (the caller's array can change once the GIL is released): a 1-D array of
// an integer dtype, or a sequence of Python or numpy ints. Anything else as an action -- a float, a string,
// a bool, NaN -- is refused as an illegal action is (ValueError, nothing moved), never rounded or parsed;
// so is an int outside int64.
inline std::vector<int64_t> action_ids(py::handle actions, int num_envs) {
  const size_t n = static_cast<size_t>(num_envs);
  const char* not_an_id = "actions are integer ids; ";
  std::vector<int64_t> out(n);
  if (py::isinstance<py::array>(actions) && py::reinterpret_borrow<py::array>(actions).dtype().kind() != 'O') {
    const auto arr = py::reinterpret_borrow<py::array>(actions);
    if (arr.ndim() != 1 || static_cast<size_t>(arr.shape(0)) != n)
      throw py::value_error("actions must be a 1-D array of num_envs ids");
    const char kind = arr.dtype().kind();
    if (kind != 'i' && kind != 'u') refuse_action(action_text(arr.attr("__getitem__")(0).attr("item")()), 0, not_an_id);
    if (kind == 'u' && arr.itemsize() == 8) {  // (above 2**63 - 1 an id would wrap to a negative one)
      const auto wide = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
      for (size_t i = 0; i < n; ++i)
        if (wide.data()[i] > static_cast<uint64_t>(INT64_MAX)) refuse_action(std::to_string(wide.data()[i]), i);
    }
    const auto ids = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    std::copy(ids.data(), ids.data() + n, out.begin());
    return out;
  }
  if (!py::isinstance<py::sequence>(actions) || py::isinstance<py::str>(actions) || py::isinstance<py::bytes>(actions))
    throw py::value_error("actions must be a 1-D array of num_envs ids, got " + type_name(actions));
  const auto seq = py::reinterpret_borrow<py::sequence>(actions);
  if (py::len(seq) != n) throw py::value_error("actions must be a 1-D array of num_envs ids");
  const py::object integer = py::module_::import("numpy").attr("integer");
  for (size_t i = 0; i < n; ++i) {
    const py::object a = seq[i];
    const bool is_int = (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr())) || py::isinstance(a, integer);
    if (!is_int) refuse_action(action_text(a), i, not_an_id);
    const py::int_ as_int(a);
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
    if (overflow) refuse_action(action_text(a), i);
    out[i] = v;
  }
  return out;
}

// f() on v's games with the GIL released and v's lock held. The lock is taken after the GIL is released
// and let go before the GIL is taken back: a thread never waits for the lock while holding the GIL, and
// the lock's holder never needs the GIL, so no two threads can wait on each other.
template <class V, class F>
auto with_games(V& v, F&& f) -> decltype(f()) {
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(v.mutex());
  return f();
}

template <class G>
void check_seat(const G& g, int seat) {
  if (seat < 0 || seat >= g.num_players())
    throw py::index_error("seat " + std::to_string(seat) + " is not a seat 0.." + std::to_string(g.num_players() - 1));
}

// a writable, C-contiguous array of `count` items of T (the caller's preallocated output)
template <class T>
T* out_buffer(py::array& out, size_t count, const char* what) {
  if (!py::isinstance<py::array_t<T>>(out) || !(out.flags() & py::array::c_style) || !out.writeable())
    throw py::type_error(std::string(what) + " must be a writable C-contiguous " + py::str(py::dtype::of<T>()).cast<std::string>() + " array");
  if (static_cast<size_t>(out.size()) != count)
    throw py::value_error(std::string(what) + " must hold " + std::to_string(count) + " items, got " + std::to_string(out.size()));
  return static_cast<T*>(out.mutable_data());
}

template <class G, class C>
void bind_state(py::module_& m, C& cls) {
  (void)m;
  cls.def_property_readonly("num_players", &G::num_players)
      .def_property_readonly("current_player", &G::current_player)
      .def_property_readonly("phase", &G::phase)
      .def_property_readonly("phase_name", [](const G& g) { return std::string(g.phase_name()); })
      .def("is_terminal", &G::is_terminal)
      .def("legal_actions", [](G& g) { return g.legal_actions(); })
      .def("apply_action", &G::apply_action, py::arg("action"),
           "Apply a legal action; False (and nothing changed) for any other int.")
      .def("scores", [](const G& g) {
        std::array<int, 8> s{};
        g.scores(s.data());
        return std::vector<int>(s.begin(), s.begin() + g.num_players());
      })
      .def("observe", [](const G& g, int seat, py::object out) -> py::object {
        check_seat(g, seat);
        if (out.is_none()) {
          py::array_t<float> arr(G::kObsSize);
          g.observe(seat, arr.mutable_data());
          return std::move(arr);
        }
        py::array a = out.cast<py::array>();
        g.observe(seat, out_buffer<float>(a, G::kObsSize, "out"));
        return out;
      }, py::arg("seat"), py::arg("out") = py::none())
      .def("mask", [](G& g, py::object out) -> py::object {
        py::array a = out.is_none() ? py::array(py::array_t<int8_t>(G::kNumActions)) : out.cast<py::array>();
        int8_t* p = out_buffer<int8_t>(a, G::kNumActions, "out");
        std::fill(p, p + G::kNumActions, int8_t{0});
        if (!g.is_terminal())
          for (int x : g.legal_actions()) p[x] = 1;
        return std::move(a);
      }, py::arg("out") = py::none())
      .def("clone", [](const G& g) { return G(g); })
      .def("__copy__", [](const G& g) { return G(g); })
      .def("__deepcopy__", [](const G& g, py::object) { return G(g); }, py::arg("memo"))
      .def("public_view", [](const G& g, int seat) { check_seat(g, seat); return g.public_view(seat); }, py::arg("seat"))
      .def("determinize", [](const G& g, int observer, py::object words) {
        check_seat(g, observer);
        return g.determinize(observer, rng_from_py(words));
      }, py::arg("observer"), py::arg("rng_words"))
      .def("rng_words", [](G& g) { return g.rng().words(); })
      .def("set_rng_words", [](G& g, py::object words) { g.rng() = rng_from_py(words); }, py::arg("rng_words"))
      .def("rng_draws", [](G& g) { return g.rng().draws(); });
  m.attr("NUM_ACTIONS") = G::kNumActions;
  m.attr("OBS_SIZE") = G::kObsSize;
  // the bare engine's speed, without Python in the loop: `games` random games from `template`'s setup,
  // uniform random legal moves drawn from default_rng(seed); returns the decisions made
  m.def("random_playouts", [](const G& templ, int games, uint64_t seed) {
    if (games < 0 || games > 100000000) throw py::value_error("games must be 0..100000000");
    const G own = templ;  // (another thread may move the caller's state once the GIL is released)
    py::gil_scoped_release release;
    return random_playouts(own, games, seed);
  }, py::arg("template"), py::arg("games"), py::arg("seed"));
}

template <class G>
void bind_vector_env(py::module_& m) {
  using V = VectorEnv<G>;
  py::class_<V>(m, "VectorEnv", R"doc(N games stepped in one call (the GIL released while they step).

Each game's seat on move, observation and mask are written into the caller's preallocated arrays; a
game that ends reports every seat's reward (+1 each winner, -1 the others) and scores, and is dealt
again at once from its own generator (as the PettingZoo environment's unseeded reset does).

Threads may share one VectorEnv: each call holds the env's lock while it touches the games (taken with
the GIL released), so calls from several threads run one after another, never inside each other.)doc")
      .def(py::init([](const G& templ, int num_envs, bool explicit_choices) {
             if (num_envs < 1 || num_envs > kMaxEnvs)
               throw py::value_error("num_envs must be 1.." + std::to_string(kMaxEnvs));
             return new V(templ, num_envs, explicit_choices);
           }),
           py::arg("template"), py::arg("num_envs"), py::arg("explicit") = false)
      .def_property_readonly("num_envs", &V::num_envs)
      .def_property_readonly("num_players", &V::num_players)
      .def("reset", [](V& v, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> seeds) {
        if (seeds.ndim() != 1 || seeds.shape(0) != v.num_envs())
          throw py::value_error("seeds must be a 1-D array of num_envs seeds");
        std::vector<uint64_t> s(seeds.data(), seeds.data() + v.num_envs());
        with_games(v, [&] { v.reset(s); });
      }, py::arg("seeds"))
      .def("write", [](V& v, py::array obs, py::array mask, py::array seat) {
        float* o = out_buffer<float>(obs, static_cast<size_t>(v.num_envs()) * G::kObsSize, "obs");
        int8_t* k = out_buffer<int8_t>(mask, static_cast<size_t>(v.num_envs()) * G::kNumActions, "mask");
        int32_t* s = out_buffer<int32_t>(seat, static_cast<size_t>(v.num_envs()), "seat");
        with_games(v, [&] { v.write(o, k, s); });
      }, py::arg("obs"), py::arg("mask"), py::arg("seat"),
         "Write each game's seat on move, its observation and its mask.")
      .def("step", [](V& v, py::object actions, py::array rewards, py::array done, py::array scores,
                      py::object final_seat, py::object final_obs) {
        const std::vector<int64_t> a = action_ids(actions, v.num_envs());
        const size_t n = static_cast<size_t>(v.num_envs());
        float* r = out_buffer<float>(rewards, n * kMaxSeats, "rewards");
        uint8_t* d = out_buffer<uint8_t>(done, n, "done");
        int32_t* sc = out_buffer<int32_t>(scores, n * kMaxSeats, "scores");
        std::vector<int32_t> fs;
        float* fo = nullptr;
        py::array fo_arr;
        if (final_seat.is_none() != final_obs.is_none())
          throw py::value_error("final_seat and final_obs go together");
        if (!final_obs.is_none()) {
          py::array fs_arr = final_seat.cast<py::array>();
          fo_arr = final_obs.cast<py::array>();
          const int32_t* seats = out_buffer<int32_t>(fs_arr, n, "final_seat");
          fs.assign(seats, seats + n);  // (a copy: the caller's array can change once the GIL is released)
          fo = out_buffer<float>(fo_arr, n * G::kObsSize, "final_obs");
        }
        const long bad = with_games(v, [&] { return v.step(a.data(), r, d, sc, fs.empty() ? nullptr : fs.data(), fo); });
        if (bad >= 0) refuse_action(std::to_string(a[bad]), static_cast<size_t>(bad));
      }, py::arg("actions"), py::arg("rewards"), py::arg("done"), py::arg("scores"), py::arg("final_seat") = py::none(),
         py::arg("final_obs") = py::none(),
         R"doc(Apply one action per game: an id, RANDOM (-1: a uniform random legal move from the env's own move
generator) or SKIP (-2: the game waits). Actions are ints (an integer array, or a sequence of Python or
numpy ints). An illegal action, or one that is not an int (a float, a string, a bool), raises ValueError
naming the game, and then no game has moved. A finished game's row of rewards (float32, MAX_SEATS wide:
+1 each winner, -1 the other seats, 0 beyond num_players) and scores is written, done set, final_seat[i]'s
observation of the final position written into final_obs (when given), and the game dealt again; other
rows are zeroed.)doc")
      .def("learner_step", [](V& v, py::object actions, py::array learner, py::array reward, py::array done,
                              py::array final_obs) {
        const size_t n = static_cast<size_t>(v.num_envs());
        std::vector<int64_t> a;
        if (!actions.is_none()) a = action_ids(actions, v.num_envs());
        const int32_t* seats = out_buffer<int32_t>(learner, n, "learner");
        const std::vector<int32_t> l(seats, seats + n);  // (copied: see step)
        for (size_t i = 0; i < n; ++i)
          if (l[i] < 0 || l[i] >= v.num_players()) throw py::value_error("learner seats must be seats of the game");
        float* r = out_buffer<float>(reward, n, "reward");
        uint8_t* d = out_buffer<uint8_t>(done, n, "done");
        float* fo = out_buffer<float>(final_obs, n * G::kObsSize, "final_obs");
        const long bad = with_games(v, [&] { return v.learner_step(a.empty() ? nullptr : a.data(), l.data(), r, d, fo); });
        if (bad >= 0) refuse_action(std::to_string(a[bad]), static_cast<size_t>(bad));
      }, py::arg("actions"), py::arg("learner"), py::arg("reward"), py::arg("done"), py::arg("final_obs"),
         R"doc(One learner seat per game, random opponents: apply each game's learner action (None: none, as
after a reset), then uniform random moves until every game waits on its learner's seat. Games that end
meanwhile set done, reward (the learner's +1 / -1) and final_obs (its last observation), and are dealt
again. An illegal action, or one that is not an int, raises ValueError naming the game, and then no game
has moved.)doc")
      .def("seed_moves", [](V& v, uint64_t seed) { with_games(v, [&] { v.seed_moves(seed); }); }, py::arg("seed"),
           "Seed the generators of the -1 (random) moves: env i's is default_rng(seed + i).")
      .def("state", [](V& v, int i) {
        if (i < 0 || i >= v.num_envs()) throw py::index_error("game index out of range");
        return with_games(v, [&] { return G(v.game(i)); });
      }, py::arg("index"), "A copy of game index.")
      .def("set_state", [](V& v, int i, const G& g) {
        if (i < 0 || i >= v.num_envs()) throw py::index_error("game index out of range");
        if (g.num_players() != v.num_players()) throw py::value_error("the state has another number of players");
        const G own = g;  // (copied while the GIL is held: the caller's state can move once it is released)
        with_games(v, [&] { v.set_game(i, own); });
      }, py::arg("index"), py::arg("state"));
  m.attr("MAX_ENVS") = kMaxEnvs;
  // a game's memory in a VectorEnv, at most: the state, its move generator, its list of legal moves
  m.attr("GAME_BYTES") = sizeof(G) + sizeof(Pcg64) + G::kNumActions * sizeof(int);
  m.attr("MAX_SEATS") = kMaxSeats;
  m.attr("RANDOM") = kRandom;
  m.attr("SKIP") = kSkip;
}

}  // namespace ftcore

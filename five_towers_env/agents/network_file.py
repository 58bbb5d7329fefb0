"""Network files: the ``.npz`` every trained network is saved as, its one writer, its reader and its numpy
forward pass.

A network file holds ``format`` (2; files of format 1 are MLPs without the ``architecture`` entry),
``architecture`` (``mlp`` or ``typed``), ``activation`` (``tanh`` or ``relu``, of the MLP's hidden layers),
``layers`` (the MLP's linear layers, 0 for ``typed``), ``meta`` (a ``repr``'d dict: what training recorded;
``meta["game"]`` names the game the network plays) and float32 arrays:

* ``mlp``: ``w<i>`` / ``b<i>``, the linear layers from the flat observation to one logit per action id
  (SB3's ``MlpPolicy`` actor, or expert iteration's ``mlp`` body and head);
* ``typed``: ``typed.<layer>.w`` / ``.b``, the layers of :mod:`five_towers_env.core.typed_net` over the
  layout of the game it was trained for;
* optionally a value head (expert iteration): ``value.w0`` / ``value.b0`` (a ReLU layer reading the
  policy's last features) and ``value.w1`` / ``value.b1`` (one logit per seat from the observer on).

:func:`write_network` is the one writer (atomic): :func:`export_policy` (a ``MaskablePPO`` model's actor:
``ppo`` training's ``policy.npz`` and snapshots) and expert iteration's
:meth:`~five_towers_env.training.expert.model.PolicyValueModel.export` both write through it.
:func:`read_network` reads a file (or a ``MaskablePPO`` checkpoint ``.zip``, converted without unpickling
anything unless told ``trust_pickles``);
:class:`NumpyNetwork` is its forward pass, which the ``ppo``, ``net`` and ``guided`` agents play.
"""
from __future__ import annotations

import stat
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.npz_reader import MAX_TOTAL_BYTES, NpzError, read_npz
from five_towers_env.atomic import atomic_open
from five_towers_env.core.game import GAMES, game_names, get_game

FORMAT = 2  # 2 added the "architecture" entry and the typed network; format 1 files are MLPs
ARCHITECTURES = ("mlp", "typed")
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


# -- which game a network plays ----------------------------------------------------------------------

def game_sizes(game: str) -> tuple[int, int]:
    """``(observation size, action count)`` of ``game``'s flat observation and action space."""
    spec = get_game(game)
    return spec.observation_size, spec.num_actions


def game_of_sizes(obs_size: int, num_actions: int) -> str | None:
    """The game whose observation size and action count these are, or None."""
    for name, spec in GAMES.items():
        if (spec.observation_size, spec.num_actions) == (obs_size, num_actions):
            return name
    return None


def policy_game(meta: dict[str, Any], obs_size: int, num_actions: int, where: str) -> str:
    """The game a network with these input and output sizes plays: ``meta["game"]`` (checked against the
    sizes), or for a file that does not name one, the game the sizes belong to."""
    sized = game_of_sizes(obs_size, num_actions)
    game = meta.get("game")
    if game is None:
        if sized is None:
            raise ValueError(f"{where}: a network of {obs_size} inputs and {num_actions} actions matches no game "
                             f"({', '.join(f'{g}: {game_sizes(g)[0]} / {game_sizes(g)[1]}' for g in GAMES)})")
        return sized
    want = game_sizes(game)  # ValueError for an unknown game
    if want != (obs_size, num_actions):
        raise ValueError(f"{where}: the network has {obs_size} inputs and {num_actions} actions, but {game} "
                         f"observations have {want[0]} and its actions number {want[1]}")
    return get_game(game).name


def layout_game(architecture: str, meta: dict[str, Any], hint: str | None, where: str) -> str:
    """The game a network that reads one game's layout plays: ``meta["game"]``; for a file that does not record
    it, the game it is to play (``hint``) if that game has such a network, else the one game that has."""
    if meta.get("game") is not None:
        return get_game(meta["game"]).name
    if hint is not None and architecture in get_game(hint).architectures:
        return get_game(hint).name
    having = [name for name in game_names() if architecture in get_game(name).architectures]
    if len(having) != 1:
        raise ValueError(f"{where}: the file does not name the game of its {architecture} network, and "
                         f"{len(having)} games have one ({', '.join(having) or 'none'})")
    return having[0]


# -- writing -------------------------------------------------------------------------------------------

def write_network(path: str | Path, architecture: str, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                  activation: str = "relu") -> Path:
    """Write a network file (atomically, under exactly ``path``): ``arrays`` (float32 weights by entry name,
    see the module docstring) and ``meta``; returns ``path``."""
    if architecture not in ARCHITECTURES or activation not in ACTIVATIONS:
        raise ValueError(f"cannot write a {architecture!r} network with {activation!r} activations "
                         f"(architectures: {', '.join(ARCHITECTURES)}; activations: {', '.join(ACTIVATIONS)})")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    layers = 0 if architecture == "typed" else sum(k.startswith("w") for k in arrays)
    entries: dict[str, Any] = {"format": FORMAT, "architecture": architecture, "activation": activation,
                               "layers": layers, "meta": repr(dict(meta)), **arrays}
    with atomic_open(path, "wb") as f:  # a file object: written as named, no .npz added
        np.savez_compressed(f, **entries)
    return path


def _numpy(tensor: Any) -> np.ndarray:
    return tensor.detach().cpu().numpy().astype(np.float32)


def export_policy(model: Any, path: str | Path, **meta: Any) -> Path:
    """Write the actor of a ``MaskablePPO`` model as a network file (float32 weights plus ``meta``).

    ``meta["game"]`` names the game the policy plays; without it, the game whose observation size
    and action count the network has is recorded. A network that fits neither raises ``ValueError``."""
    import torch.nn as nn

    policy = model.policy
    meta = dict(meta)
    if hasattr(policy.action_net, "numpy_params"):  # the typed actor: it reads the layout of the game it was built for
        actor_game = policy.action_net.game
        meta["game"] = policy_game({"game": actor_game, **meta}, *game_sizes(actor_game),
                                   f"ppo: the typed network of {actor_game}")
        return write_network(path, "typed", policy.action_net.numpy_params(), meta)
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m).__name__.lower() for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    if acts not in ({"tanh"}, {"relu"}):
        raise ValueError(f"cannot export activations {acts}; tanh or relu expected")
    arrays = {}
    for i, layer in enumerate(layers + [policy.action_net]):
        arrays[f"w{i}"], arrays[f"b{i}"] = _numpy(layer.weight), _numpy(layer.bias)
    meta["game"] = policy_game(meta, arrays["w0"].shape[1], arrays[f"w{len(layers)}"].shape[0],
                               "the model's input/output sizes do not match the game's observation/actions")
    return write_network(path, "mlp", arrays, meta, activation=acts.pop())


# -- reading -------------------------------------------------------------------------------------------

class NetworkFileError(ValueError):
    """A network ``.npz`` that cannot be played: damaged, over a size limit (:mod:`.npz_reader`), missing
    entries, non-finite weights or layers whose shapes do not fit together; the message is one line."""


@dataclass(frozen=True)
class NetworkFile:
    """What a network file holds: its ``architecture``, float32 ``arrays`` by entry name, the MLP's
    ``activation`` and ``meta``; ``path`` is the file read."""

    path: Path
    architecture: str
    arrays: dict[str, np.ndarray]
    activation: str
    meta: dict[str, Any]


#: the largest policy file read: an ``.npz`` may hold :data:`~.npz_reader.MAX_TOTAL_BYTES` (stored), plus its
#: zip directory; the shipped policies are under 2 MB
MAX_POLICY_BYTES = MAX_TOTAL_BYTES + (1 << 20)


def check_network_path(path: Path) -> None:
    """Raise a clear error for a network path that is missing, a folder, not a regular file (a device, a FIFO),
    over :data:`MAX_POLICY_BYTES`, or not a zip archive (an ``.npz`` and an sb3 ``.zip`` both are): before
    anything reads it."""
    import zipfile

    if path.is_dir():
        inside = sorted(path.glob("*.npz"))
        hint = f" (it holds {', '.join(p.name for p in inside[:3])})" if inside else ""
        raise IsADirectoryError(f"ppo: {path} is a folder, not a policy file; give an exported policy .npz "
                                f"or a checkpoint .zip{hint}")
    if not path.exists():
        raise FileNotFoundError(f"ppo: no policy file at {path}")
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):  # a device (/dev/zero) or a FIFO: read forever by the zip checks below
        raise NetworkFileError(f"ppo: {path} is not a regular file; give an exported policy .npz or a checkpoint .zip")
    if info.st_size > MAX_POLICY_BYTES:
        raise NetworkFileError(f"ppo: {path} is {info.st_size:,} bytes, more than the {MAX_POLICY_BYTES:,} a policy "
                               "file may be")
    if not zipfile.is_zipfile(path):
        raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: not a zip archive (expected a policy "
                         "exported by training, e.g. runs/<name>/policy.npz, or a checkpoint step_N.zip)")


# checkpoints already converted in this process, by (resolved path, mtime, size, trust_pickles): loading one
# through sb3 takes seconds, and an evaluation builds its agents again for every game
_CHECKPOINTS: dict[tuple[str, int, int, bool], NetworkFile] = {}


def _read_checkpoint(path: Path, trust_pickles: bool = False) -> NetworkFile:
    """A ``MaskablePPO`` checkpoint's actor, exported and read back (once per process and file version)."""
    info = path.stat()
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size, bool(trust_pickles))
    if key not in _CHECKPOINTS:
        _CHECKPOINTS[key] = _convert_trusted(path) if trust_pickles else _convert_checkpoint(path)
    return _CHECKPOINTS[key]


def _not_a_checkpoint(path: Path, e: BaseException) -> ValueError:
    return ValueError(f"ppo: {path} is not a policy .npz/.zip: not a MaskablePPO checkpoint "
                      f"({type(e).__name__}: {e})")


def _sb3_missing(path: Path, e: ImportError) -> ImportError:
    return ImportError(f"ppo: reading the checkpoint {path} needs the rl extra (pip install -e \".[rl]\"); "
                       f"an exported policy .npz needs numpy alone ({e})")


def _convert_checkpoint(path: Path) -> NetworkFile:
    """A ``MaskablePPO`` checkpoint's actor, rebuilt without unpickling anything
    (:mod:`~five_towers_env.agents.sb3_zip`), exported and read back."""
    import zipfile

    try:
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # torch, SB3 and sb3-contrib

        from five_towers_env.agents import sb3_zip
    except ImportError as e:
        raise _sb3_missing(path, e) from e
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            if "data" not in names or "policy.pth" not in names:
                raise ValueError(f"no 'data' and 'policy.pth' entries; it holds {names[:4]}")
        data = sb3_zip.read_data(sb3_zip.read_member(path, "data").decode("utf-8", "replace"))
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise _not_a_checkpoint(path, e) from e
    cls = sb3_zip.policy_class(data, path, "ppo")
    action = sb3_zip.action_space(data)
    if not (issubclass(cls, MaskableActorCriticPolicy) and isinstance(action, spaces.Discrete)):
        raise _not_a_checkpoint(path, ValueError(f"its policy is a {cls.__name__} with the action space {action}"))
    observation = sb3_zip.observation_space(data, path, "ppo")
    policy = sb3_zip.build_policy(path, cls, observation, action, sb3_zip.policy_kwargs(data, cls, path, "ppo"), "ppo")
    return _exported(path, policy)


def _convert_trusted(path: Path) -> NetworkFile:
    """A ``MaskablePPO`` checkpoint's actor, loaded by SB3 (unpickling what the file carries), exported and
    read back."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise _sb3_missing(path, e) from e
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as e:  # sb3 raises many kinds for a zip that is not one of its checkpoints
        raise _not_a_checkpoint(path, e) from e
    return _exported(path, model.policy)


def _exported(path: Path, policy: Any) -> NetworkFile:
    """The actor of ``policy``, exported as a network file and read back."""
    import tempfile
    from types import SimpleNamespace

    with tempfile.TemporaryDirectory() as tmp:
        exported = read_network(export_policy(SimpleNamespace(policy=policy), Path(tmp) / "policy.npz"))
    return NetworkFile(path, exported.architecture, exported.arrays, exported.activation, exported.meta)


def read_network(path: str | Path, trust_pickles: bool = False) -> NetworkFile:
    """The network in the file at ``path`` (a network ``.npz``, or a ``MaskablePPO`` checkpoint ``.zip``, whose
    actor is converted); ``ValueError`` (``FileNotFoundError``, ``IsADirectoryError``) saying what is wrong.

    A ``.zip`` is read without unpickling anything (:mod:`~five_towers_env.agents.sb3_zip`), or refused in one
    line naming ``trust_pickles``; ``trust_pickles=True`` loads it with SB3's own ``load``, running the code
    it carries."""
    import ast

    path = Path(path)
    check_network_path(path)
    if path.suffix == ".zip":
        return _read_checkpoint(path, trust_pickles)
    try:
        data = read_npz(path)  # every entry checked before it is made (sizes, dtypes): npz_reader
    except NpzError as e:
        raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: {e}") from None
    missing = [k for k in ("format", "activation", "meta") if k not in data]
    if missing:
        held = ", ".join(list(data)[:6]) or "nothing"
        raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: no {', '.join(map(repr, missing))} "
                               f"entr{'ies' if len(missing) > 1 else 'y'} (it holds {held})")
    try:
        version = int(data["format"])
        arch = str(data["architecture"]) if "architecture" in data else "mlp"
        arrays = {k: v.astype(np.float32) for k, v in data.items() if k.startswith(("w", "b", "typed.", "value."))}
        activation, meta = str(data["activation"]), ast.literal_eval(str(data["meta"]))
    except (ValueError, TypeError, SyntaxError, OverflowError, MemoryError, RecursionError) as e:
        raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: {type(e).__name__}: "
                               f"{' '.join(str(e).split())[:200]}") from None
    if version not in (1, FORMAT):
        raise NetworkFileError(f"{path}: policy format {version}, this version reads 1 and {FORMAT}")
    if not isinstance(meta, dict):
        raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: its meta is a {type(meta).__name__}, "
                               "not a dict")
    if not isinstance(meta.get("game", ""), str):
        raise NetworkFileError(f"ppo: {path}: its meta names the game {meta['game']!r}, not a game's name")
    for key, value in arrays.items():  # weights are matrices, biases vectors
        last = key.rsplit(".", 1)[-1]
        dims = 2 if last.startswith("w") else 1 if last.startswith("b") else value.ndim
        if value.ndim != dims:
            raise NetworkFileError(f"ppo: {path}: the entry {key} has shape {value.shape}; "
                                   f"{'weights are matrices' if dims == 2 else 'biases are vectors'}")
    bad = next((k for k, v in arrays.items() if not np.isfinite(v).all()), None)
    if bad is not None:
        raise NetworkFileError(f"ppo: {path}: the weights {bad} hold NaN or infinite values (a diverged run?); "
                               "refused")
    return NetworkFile(path, arch, arrays, activation, meta)


# -- the forward pass ----------------------------------------------------------------------------------

def typed_forward(arrays: dict[str, np.ndarray], game: str) -> Any:
    """The ``typed`` network's numpy forward pass over ``game``'s layout (its spec's ``architectures``)."""
    from five_towers_env.core.typed_net import TypedForward

    return TypedForward(get_game(game).architecture("typed"), arrays)


class NumpyNetwork:
    """A network file's forward pass in numpy (no torch needed).

    ``hint``: the game the network is to play, for a ``typed`` file that does not name its own. Attributes:
    ``path``, ``architecture``, ``meta``, ``game`` (the game it plays), ``obs_size`` and ``num_actions``
    (that game's), ``num_players`` (the seats of its value head; None without one)."""

    def __init__(self, net: NetworkFile, hint: str | None = None) -> None:
        path, arrays = net.path, net.arrays
        if net.architecture not in ARCHITECTURES or net.activation not in ACTIVATIONS:
            raise NetworkFileError(f"ppo: {path}: unknown architecture {net.architecture!r} or activation "
                             f"{net.activation!r} (this version reads mlp / typed and {', '.join(ACTIVATIONS)})")
        self.path, self.architecture, self.meta = path, net.architecture, net.meta
        self._typed: Any = None  # the typed network's forward pass, None for an mlp
        self._layers: list[tuple[np.ndarray, np.ndarray]] = []  # the mlp's (weights, biases)
        try:
            if net.architecture == "typed":
                self.game = layout_game(net.architecture, net.meta, hint, f"ppo: {path}")
                self._typed = typed_forward(arrays, self.game)
            else:
                count = sum(k.startswith("w") for k in arrays)
                self._layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]
                if not self._layers:
                    raise KeyError("w0")
        except KeyError as e:
            raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: no weight entry {e}") from None
        if self._typed is None:
            sizes = (self._layers[0][0].shape[1], self._layers[-1][0].shape[0])
            self.game = policy_game(net.meta, *sizes, f"{path}: network sizes do not match the game")
            self._act = ACTIVATIONS[net.activation]
            # the observation is sparse: the first layer gathers the weight rows of its non-zero entries
            self._w0t = np.ascontiguousarray(self._layers[0][0].T)
        self.obs_size, self.num_actions = game_sizes(self.game)
        self._value = None
        if any(k.startswith("value.") for k in arrays):
            try:
                self._value = ((arrays["value.w0"], arrays["value.b0"]), (arrays["value.w1"], arrays["value.b1"]))
            except KeyError as e:
                raise NetworkFileError(f"ppo: {path} is not a policy .npz/.zip: no value head entry {e}") from None
        self.num_players = None if self._value is None else int(self._value[1][0].shape[0])
        self._check_shapes()

    def _check_shapes(self) -> None:
        """Refuse layers whose shapes do not chain (one line, at load, rather than a broadcast error mid-game):
        every linear layer a matrix and its bias a vector of its outputs, and one observation through the
        network giving one logit per action (and one value per seat)."""
        where = f"ppo: {self.path}: the network's layers do not fit together"
        layers = list(self._layers) + (list(self._value) if self._value is not None else [])
        if self._typed is not None:
            layers += list(self._typed.w.values())
        for w, b in layers:
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise NetworkFileError(f"{where} (a layer of weights {w.shape} and bias {b.shape})")
        for (w, _), (nxt, _) in zip(self._layers, self._layers[1:]):
            if nxt.shape[1] != w.shape[0]:
                raise NetworkFileError(f"{where} (a layer of {w.shape[0]} outputs feeds one of {nxt.shape[1]} inputs)")
        if self._typed is not None:
            layout = self._typed.layout
            if (self._typed.w["ghead"][0].shape[0], self._typed.w["thead.2"][0].shape[0]) != (
                    layout.global_slots, layout.type_slots):
                raise NetworkFileError(f"{where} (its output heads do not match {self.game}'s actions)")
        try:
            logits = self.logits(np.ones(self.obs_size, dtype=np.float32))
            values = self.value_logits(self.forward(np.ones((1, self.obs_size), np.float32))[1]) \
                if self._value is not None else np.zeros((1, self.num_players or 0))
        except (ValueError, IndexError) as e:
            raise NetworkFileError(f"{where} ({' '.join(str(e).split())[:200]})") from None
        if logits.shape != (self.num_actions,) or values.shape != (1, self.num_players or 0):
            raise NetworkFileError(f"{where} (it gives {logits.shape[-1]} logits for {self.num_actions} actions)")

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one flat observation, or a batch of them row by row.

        A batch's rows are computed one at a time, exactly as a lone observation is: a BLAS matrix
        product rounds each row differently with the batch's size and the row's place in it, so the
        batched logits would depend on which games share a process (and so on the worker count)."""
        x = np.asarray(observation, dtype=np.float32)
        if x.ndim > 1:
            return np.stack([self.logits(row) for row in x.reshape(-1, x.shape[-1])]).reshape(
                x.shape[:-1] + (self.num_actions,))
        if self._typed is not None:
            return self._typed(x)
        # einsum instead of BLAS: a multi-threaded BLAS matrix-vector product can take
        # milliseconds on a busy machine (threads waiting for each other), einsum never does
        nz = np.flatnonzero(x)
        h = np.einsum("i,ij->j", x[nz], self._w0t[nz]) + self._layers[0][1]
        for w, b in self._layers[1:]:
            h = np.einsum("ij,j->i", w, self._act(h)) + b
        return h

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and the features a value head reads (the typed trunk, the MLP's last hidden layer) for a
        batch of observations ``(B, obs_size)``, in one pass of matrix products (the search's batches)."""
        if self._typed is not None:
            return self._typed.forward(obs)
        h = obs
        for w, b in self._layers[:-1]:
            h = self._act(h @ w.T + b)
        w, b = self._layers[-1]
        return h @ w.T + b, h

    def value_logits(self, features: np.ndarray) -> np.ndarray:
        """The value head's logits ``(B, players)`` for :meth:`forward`'s features; ``ValueError`` without one."""
        if self._value is None:
            raise ValueError(f"{self.path} has no value head (a ppo policy?)")
        (w0, b0), (w1, b1) = self._value
        return np.maximum(features @ w0.T + b0, 0.0) @ w1.T + b1


#: stacked weights of the network sets :func:`stacked_logits` ran lately, each kept with its networks (so the ids
#: in its key stay theirs): training's pool keeps the same snapshots for many rounds
_STACKS: OrderedDict[tuple[int, ...], tuple[tuple[NumpyNetwork, ...], Any]] = OrderedDict()
_STACKS_KEPT = 4


def stacked_logits(networks: Sequence[NumpyNetwork], batches: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """Each network's unmasked logits for its own batch ``(rows, obs_size)``, in one stacked pass of matrix
    products (:class:`~five_towers_env.core.typed_net.StackedTypedForward`), or None where they are not all
    ``typed`` networks of one layout and size. A row rounds as a batched :meth:`NumpyNetwork.forward` does: not
    batch-invariant, for callers whose batches are fixed by a seed (training's pool)."""
    from five_towers_env.core.typed_net import StackedTypedForward, stackable

    typed = [n._typed for n in networks]
    if len(networks) < 2 or any(t is None for t in typed) or not stackable(typed):
        return None
    key = tuple(id(n) for n in networks)
    if key in _STACKS:
        _STACKS.move_to_end(key)
    else:
        _STACKS[key] = (tuple(networks), StackedTypedForward(typed))
        while len(_STACKS) > _STACKS_KEPT:
            _STACKS.popitem(last=False)
    rows = max(len(b) for b in batches)
    x = np.zeros((len(batches), rows, networks[0].obs_size), dtype=np.float32)
    for k, batch in enumerate(batches):
        x[k, :len(batch)] = batch
    logits = _STACKS[key][1].logits(x)
    return [logits[k, :len(batch)] for k, batch in enumerate(batches)]


__all__ = ["ACTIVATIONS", "ARCHITECTURES", "FORMAT", "NetworkFile", "NetworkFileError", "NumpyNetwork",
           "check_network_path", "export_policy", "game_of_sizes", "game_sizes", "layout_game", "policy_game",
           "read_network", "stacked_logits", "typed_forward", "write_network"]

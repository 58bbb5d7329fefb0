"""A trained policy as an agent (``"ppo"``): numpy inference, no torch needed to play.

Training saves resumable sb3-contrib ``MaskablePPO`` checkpoints (``.zip``, torch) and exports
the policy network to a small ``.npz`` of numpy arrays (:func:`export_policy`). ``PolicyAgent``
loads either: an ``.npz`` with numpy alone, a ``.zip`` through sb3-contrib (converted on load).
Without a path it plays the policy the game ships for the setup (player count and variant) of the game
it is seated in (its :class:`~five_towers_env.core.game.GameSpec`'s ``shipped_policies``), and refuses,
saying so, a setup the game ships none for.

Two networks are read: SB3's ``MlpPolicy`` actor (``architecture`` "mlp": the flat observation,
``OBS_SIZE`` floats, through the hidden layers, ``tanh`` or ``relu``, to one logit per action id)
and the ``typed`` actor of ``five_towers_env/training/networks.py`` (weights shared across the
tower types; its forward pass is replayed here in numpy). Illegal actions are masked out.
Played deterministically (the most likely legal action) by default, or sampled.

A policy plays one game: the exported ``meta`` names it (``"game"``: ``"five_towers"`` or
``"campanile"``; files from before there were two games are 5 Towers policies, as their sizes show).
``PolicyAgent`` refuses, with a message saying why, to be built for another game (``game=``, which
:func:`~five_towers_env.agents.registry.make_agent` fills in) and to act on an observation of
another size or with an ``info`` naming another game.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.atomic import atomic_open
from five_towers_env.core.agent import SetupWarning
from five_towers_env.core.game import GAMES, get_game, parse_setup_key

#: the game whose observation layout the ``typed`` network reads
TYPED_GAME = "five_towers"

#: (policy file, players, variant) already warned about in this process: one warning per setup
_WARNED: set[tuple[str, int, str]] = set()

FORMAT = 2  # 2 added the "architecture" entry and the typed network; format 1 files are MLPs
_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


def __getattr__(name: str) -> Any:
    # the shipped policies' paths, computed on first use (each needs its game's package)
    if name == "SHIPPED_POLICY":  # 5 Towers' 2-player base policy
        return get_game(TYPED_GAME).policy_path(2, "base")
    if name == "SHIPPED_POLICIES":  # each game's default policy
        return {g: spec.default_policy() for g, spec in GAMES.items() if spec.default_policy() is not None}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _policy_game(meta: dict[str, Any], obs_size: int, num_actions: int, where: str) -> str:
    """The game a policy with these network sizes plays: ``meta["game"]`` (checked against the
    sizes), or for files written before there were two games the game the sizes belong to."""
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


def export_policy(model: Any, path: str | Path, **meta: Any) -> Path:
    """Write the actor of a ``MaskablePPO`` model as an ``.npz`` (float32 weights plus ``meta``).

    ``meta["game"]`` names the game the policy plays; without it, the game whose observation size
    and action count the network has is recorded. A network that fits neither raises ``ValueError``."""
    import torch.nn as nn

    policy = model.policy
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(meta)
    if hasattr(policy.action_net, "numpy_params"):  # the typed actor: its layout is 5 Towers' observation
        meta["game"] = _policy_game(meta, *game_sizes(TYPED_GAME), "ppo: the typed network (5 Towers only)")
        with atomic_open(path, "wb") as f:  # a file object: written as named, no .npz added
            np.savez_compressed(f, format=FORMAT, architecture="typed", activation="relu", layers=0,
                                meta=repr(meta), **policy.action_net.numpy_params())
        return path
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m).__name__.lower() for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    if acts not in ({"tanh"}, {"relu"}):
        raise ValueError(f"cannot export activations {acts}; tanh or relu expected")
    arrays = {}
    for i, layer in enumerate(layers + [policy.action_net]):
        arrays[f"w{i}"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    meta["game"] = _policy_game(meta, arrays["w0"].shape[1], arrays[f"w{len(layers)}"].shape[0],
                                "the model's input/output sizes do not match the game's observation/actions")
    with atomic_open(path, "wb") as f:
        np.savez_compressed(f, format=FORMAT, architecture="mlp", activation=acts.pop(), layers=len(layers) + 1,
                            meta=repr(meta), **arrays)
    return path



def _check_policy_path(path: Path) -> None:
    """Raise a clear error for a policy path that is missing, a folder, or not a zip archive
    (an ``.npz`` and an sb3 ``.zip`` both are)."""
    import zipfile

    if path.is_dir():
        inside = sorted(path.glob("*.npz"))
        hint = f" (it holds {', '.join(p.name for p in inside[:3])})" if inside else ""
        raise IsADirectoryError(f"ppo: {path} is a folder, not a policy file; give an exported policy .npz "
                                f"or a checkpoint .zip{hint}")
    if not path.exists():
        raise FileNotFoundError(f"ppo: no policy file at {path}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"ppo: {path} is not a policy .npz/.zip: not a zip archive (expected a policy "
                         "exported by training, e.g. runs/<name>/policy.npz, or a checkpoint step_N.zip)")


def _load_arrays(path: Path) -> tuple[str, dict[str, np.ndarray], str, dict[str, Any]]:
    """``(architecture, float32 weight arrays by name, activation, meta)`` of a policy file."""
    _check_policy_path(path)
    if path.suffix == ".zip":
        import tempfile

        try:
            from sb3_contrib import MaskablePPO
        except ImportError as e:
            raise ImportError(f"ppo: reading the checkpoint {path} needs the rl extra (pip install -e \".[rl]\"); "
                              f"an exported policy .npz needs numpy alone ({e})") from e
        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as e:  # sb3 raises many kinds for a zip that is not one of its checkpoints
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: not a MaskablePPO checkpoint "
                             f"({type(e).__name__}: {e})") from e
        with tempfile.TemporaryDirectory() as tmp:
            return _load_arrays(export_policy(model, Path(tmp) / "policy.npz"))
    import ast

    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise ValueError(f"ppo: {path} is not a policy .npz/.zip: {e}") from e
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError(f"ppo: {path} is not a policy .npz/.zip: it holds one array, not a policy's entries")
    with data:
        missing = [k for k in ("format", "activation", "meta") if k not in data.files]
        if missing:
            held = ", ".join(data.files[:6]) or "nothing"
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: no {', '.join(map(repr, missing))} "
                             f"entr{'ies' if len(missing) > 1 else 'y'} (it holds {held})")
        try:
            version = int(data["format"])
            arch = str(data["architecture"]) if "architecture" in data.files else "mlp"
            arrays = {k: data[k].astype(np.float32) for k in data.files if k.startswith(("w", "b", "typed.", "value."))}
            activation, meta = str(data["activation"]), ast.literal_eval(str(data["meta"]))
        except (ValueError, TypeError, SyntaxError, OSError) as e:
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: {e}") from e
        if version not in (1, FORMAT):
            raise ValueError(f"{path}: policy format {version}, this version reads 1 and {FORMAT}")
        return arch, arrays, activation, meta


def _typed_forward(arrays: dict[str, np.ndarray]) -> Any:
    """The ``typed`` network's numpy forward pass (it reads 5 Towers' observation layout)."""
    from five_towers_env.games.five_towers.typed_layout import TypedForward

    return TypedForward(arrays)


class PolicyAgent:
    """Plays a trained policy network.

    Args:
        path: an exported ``.npz`` or a ``MaskablePPO`` ``.zip`` checkpoint, played in any setup (with a
            :class:`SetupWarning` in one it was not trained for). Default: the policy the game ships for the
            setup being played, chosen when the agent first sees it (its first decision, or
            :meth:`check_setup`); ``ValueError`` naming the shipped setups if there is none for it.
        version: with no ``path``, a numbered version of the shipped policy (5 Towers 2-player base: ``1``,
            the first, trained with SB3's vector envs; ``2``, the current one); default: the current one.
        seed: seeds the generator used when ``deterministic`` is False.
        deterministic: play the most likely legal action (default) or sample from the policy.
        name: the agent's name in reports.
        game: the game it is to play (``make_agent`` fills it in): ``ValueError`` if the policy
            was trained for another. None accepts the policy's own game.

    Attributes: ``game`` (the game the policy was trained for, from its ``meta``), ``obs_size``
    and ``num_actions`` (its network's input and output sizes), ``meta`` (what training recorded), ``path``
    (the file playing now).
    """

    # the network in play (set by _use from the file's _read: one policy file per setup when shipped)
    path: Path
    architecture: str
    meta: dict[str, Any]
    game: str
    obs_size: int
    num_actions: int
    layers: list[tuple[np.ndarray, np.ndarray]]  # the mlp network's (weights, biases)
    _typed: Any  # the typed network's forward pass, None for an mlp
    _act: Callable[[np.ndarray], np.ndarray]
    _w0t: np.ndarray

    def __init__(self, path: str | Path | None = None, seed: int | None = None,
                 deterministic: bool = True, name: str = "ppo", game: str | None = None,
                 version: int | None = None) -> None:
        if path is not None and version is not None:
            raise ValueError("ppo: give path=... or version=..., not both")
        # no path: the policy shipped for the setup being played, chosen at the first decision of each setup
        self.shipped = path is None
        self.version = version
        self._networks: dict[Path, dict[str, Any]] = {}  # loaded files, by path
        if path is None:
            spec = get_game(game)
            path = spec.default_policy(version)
            if path is None and version is not None and spec.default_policy() is not None:
                setup = next(key for key in spec.shipped_policies if ":" not in key)
                versions = spec.policy_versions(*parse_setup_key(setup))
                raise ValueError(f"ppo: {spec.title} has no shipped policy version {version}; versions: "
                                 f"{', '.join(map(str, versions)) or 'none numbered'} (default: the current one)")
            if path is None or not path.exists():
                raise ValueError(f"ppo: no policy is shipped for {game}; give path=...")
        self._use(Path(path))
        if game is not None:
            self.check_game(game)
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng(seed)
        self._setup_seen: tuple[Any, Any] = (None, None)  # the setup last checked by act()

    def _use(self, path: Path) -> None:
        """Play the policy file at ``path`` (each file is read once)."""
        if path not in self._networks:
            self._networks[path] = self._read(path)
        self.__dict__.update(self._networks[path])

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        """The attributes of the network in the policy file at ``path``."""
        architecture, arrays, activation, meta = _load_arrays(path)
        net: dict[str, Any] = {"path": path, "architecture": architecture, "meta": meta}
        if architecture not in ("mlp", "typed") or activation not in _ACTIVATIONS:
            raise ValueError(f"ppo: {path}: unknown architecture {architecture!r} or activation "
                             f"{activation!r} (this version reads mlp / typed and {', '.join(_ACTIVATIONS)})")
        try:
            net["_typed"] = _typed_forward(arrays) if architecture == "typed" else None
            if net["_typed"] is None:
                count = sum(k.startswith("w") for k in arrays)
                net["layers"] = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]
                if not net["layers"]:
                    raise KeyError("w0")
        except KeyError as e:
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: no weight entry {e}") from None
        if net["_typed"] is None:
            layers = net["layers"]
            sizes = (layers[0][0].shape[1], layers[-1][0].shape[0])
            net["game"] = _policy_game(meta, *sizes, f"{path}: network sizes do not match the game")
            net["_act"] = _ACTIVATIONS[activation]
            # the observation is sparse: the first layer gathers the weight rows of its non-zero entries
            net["_w0t"] = np.ascontiguousarray(layers[0][0].T)
        else:
            net["game"] = _policy_game(meta, *game_sizes(TYPED_GAME), f"{path}: the typed network")
        net["obs_size"], net["num_actions"] = game_sizes(net["game"])
        return net

    def seed(self, seed: int | None) -> None:
        """Re-seed the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def check_game(self, game: str) -> None:
        """Raise ``ValueError`` unless the policy was trained for ``game``."""
        if get_game(game).name != self.game:
            raise ValueError(f"ppo: {self.path} is a {get_game(self.game).title} policy (trained for "
                             f"game={self.game!r}); it cannot play {get_game(game).title} (game={game!r}). "
                             f"Give the path of a policy trained with game: {game} (runs/<name>/policy.npz)")

    def trained_setup(self) -> tuple[int, str] | None:
        """``(num_players, variant)`` the policy was trained in, from its ``meta`` (None if unrecorded; a
        policy trained over several setups gives the first, :meth:`trained_setups` all)."""
        players, variant = self.meta.get("num_players"), self.meta.get("variant")
        return (int(players), str(variant)) if players is not None and variant is not None else None

    def trained_setups(self) -> list[tuple[int, str]]:
        """Every ``(num_players, variant)`` the policy was trained in (``meta["setups"]``, else the one)."""
        if "setups" in self.meta:
            return [parse_setup_key(key) for key in self.meta["setups"]]
        one = self.trained_setup()
        return [one] if one is not None else []

    def shipped_for(self, num_players: int, variant: str) -> Path:
        """The file the game ships for this setup (its ``version`` if one was asked for); ``ValueError``
        saying so where it ships none."""
        spec = get_game(self.game)
        path = spec.policy_path(num_players, variant, self.version)
        if path is None:
            setups = sorted({key.partition(":")[0] for key in spec.shipped_policies
                             if self.version is None or key.endswith(f":v{self.version}")})
            what = "no policy" if self.version is None else f"no policy version {self.version}"
            raise ValueError(f"ppo: {spec.title} ships {what} for {num_players} players, variant {variant} "
                             f"(shipped: {', '.join(setups) or 'none'}); give ppo:path=... to play a policy "
                             "trained for it")
        return path

    def check_setup(self, num_players: int, variant: str) -> bool:
        """Whether the policy was trained for this setup. The shipped policy switches to the file shipped
        for it (``ValueError`` if there is none); a policy given by path plays on, after a
        :class:`SetupWarning` (once per process and setup) naming the setups it was trained for."""
        if self.shipped:
            self._use(self.shipped_for(num_players, variant))
        trained = self.trained_setups()
        if not trained or (num_players, variant) in trained:
            return True
        key = (str(self.path), num_players, variant)
        if key not in _WARNED:
            _WARNED.add(key)
            title = get_game(self.game).title
            where = ", ".join(f"{p} players, variant {v}" for p, v in trained)
            warnings.warn(f"ppo: {self.path.name} was trained for {title} with {where}; it is playing "
                          f"{num_players} players, variant {variant}", SetupWarning, stacklevel=2)
        return False

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
        h = np.einsum("i,ij->j", x[nz], self._w0t[nz]) + self.layers[0][1]
        for w, b in self.layers[1:]:
            h = np.einsum("ij,j->i", w, self._act(h)) + b
        return h

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The policy's choice among the legal actions of ``observation["action_mask"]``.

        ``ValueError`` if ``info`` names another game than the policy's, or the observation is not
        of the size the network was trained on (a policy of one game seated in the other)."""
        game = info.get("game") if isinstance(info, dict) else None
        if game is not None and game != self.game:
            self.check_game(game)
        view = info.get("view") if isinstance(info, dict) else None
        setup: tuple[Any, Any] = (getattr(view, "num_players", None), getattr(view, "variant", None))
        if setup != self._setup_seen and setup[0] is not None:
            self._setup_seen = setup
            self.check_setup(*setup)
        obs = observation["observation"]
        if np.shape(obs)[-1:] != (self.obs_size,):
            raise ValueError(f"ppo: {self.path} was trained on {get_game(self.game).title} observations of "
                             f"{self.obs_size} values, got one of shape {np.shape(obs)}: it plays "
                             f"game={self.game!r} only")
        mask = np.asarray(observation["action_mask"], dtype=bool)
        logits = np.where(mask, self.logits(obs), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(self.num_actions, p=p / p.sum()))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  rngs: Sequence[np.random.Generator] | None = None) -> np.ndarray:
        """The policy's choices for a batch of flat observations ``(k, obs_size)`` with their legal-action
        masks ``(k, num_actions)``: what :meth:`act` would choose for each. Sampled rows draw from
        ``rngs[i]`` (each game's own generator), or from :attr:`rng` in row order."""
        logits = np.where(np.asarray(masks, dtype=bool), self.logits(np.asarray(observations, dtype=np.float32)),
                          -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        draws = rngs if rngs is not None else [self.rng] * len(p)
        return np.array([rng.choice(self.num_actions, p=row) for rng, row in zip(draws, p)], dtype=np.int64)

"""A trained policy as an agent (``"ppo"``): numpy inference, no torch needed to play.

Training saves resumable sb3-contrib ``MaskablePPO`` checkpoints (``.zip``, torch) and exports
the policy network to a small network file of numpy arrays
(:func:`~five_towers_env.agents.network_file.export_policy`). ``PolicyAgent`` loads either: an ``.npz``
with numpy alone, a ``.zip`` with torch and SB3 (converted on load, unpickling nothing unless told
``trust_pickles=True``: :mod:`~five_towers_env.agents.sb3_zip`); its forward pass is
:class:`~five_towers_env.agents.network_file.NumpyNetwork`.
Without a path it plays the policy the game ships for the setup (player count and variant) of the game
it is seated in (its :class:`~five_towers_env.core.game.GameSpec`'s ``shipped_policies``), and refuses,
saying so, a setup the game ships none for.

Two networks are read: SB3's ``MlpPolicy`` actor (``architecture`` "mlp": the flat observation,
``OBS_SIZE`` floats, through the hidden layers, ``tanh`` or ``relu``, to one logit per action id)
and the ``typed`` actor of ``five_towers_env/training/ppo/networks.py`` (weights shared across the
tower types; its forward pass is replayed in numpy). Illegal actions are masked out.
Played deterministically (the most likely legal action) by default, or sampled.

A policy plays one game: the exported ``meta`` names it (``"game"``: ``"five_towers"`` or
``"campanile"``; a file without that entry plays the game its network's sizes fit).
``PolicyAgent`` refuses, with a message saying why, to be built for another game (``game=``, which
:func:`~five_towers_env.agents.registry.make_agent` fills in) and to act on an observation of
another size or with an ``info`` naming another game.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from five_towers_env.agents.network_file import NumpyNetwork, read_network, stacked_logits
from five_towers_env.core.agent import AgentBase, SetupWarning, WaitingGames, path_setting_files
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, parse_setup_key
from five_towers_env.core.setting_ranges import Range, SettingRange

#: (policy file, players, variant) already warned about in this process: one warning per setup
_WARNED: set[tuple[str, int, str]] = set()
#: the networks read lately, by file (path, inode, size, modification time) and how it was read: agents playing
#: one file share its network (read-only once built), so that building an agent per game reads the file once
#: and the games' rows go through one batched call (:meth:`PolicyAgent.act_group`); a file rewritten since is
#: another key, read again
_NETWORKS: OrderedDict[tuple[Any, ...], NumpyNetwork] = OrderedDict()
_NETWORKS_KEPT = 16


def load_network(path: Path, trust_pickles: bool = False, hint: str | None = None) -> NumpyNetwork:
    """The network in the file at ``path`` (:func:`~five_towers_env.agents.network_file.read_network`), shared
    with every agent that loaded the same file, unchanged on disk, the same way in this process (the last
    few files are kept)."""
    try:
        stat = path.stat()
        key: tuple[Any, ...] | None = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns,
                                       trust_pickles, hint)
    except OSError:
        key = None  # read_network says what is wrong with the path
    if key is not None and key in _NETWORKS:
        _NETWORKS.move_to_end(key)
        return _NETWORKS[key]
    network = NumpyNetwork(read_network(path, trust_pickles), hint=hint)
    if key is not None:
        _NETWORKS[key] = network
        while len(_NETWORKS) > _NETWORKS_KEPT:
            _NETWORKS.popitem(last=False)
    return network


def masked_choice(logits: np.ndarray, mask: np.ndarray, deterministic: bool, rng: np.random.Generator) -> int:
    """The action a policy with these logits plays among the legal ones of ``mask``: the most likely
    (``deterministic``), else one drawn with ``rng`` from the softmax of the legal logits (``ppo``,
    ``sb3`` and ``rllib`` all choose with it)."""
    masked = np.where(np.asarray(mask, dtype=bool), logits, -np.inf)
    if deterministic:
        return int(np.argmax(masked))
    p = np.exp(masked - masked.max())
    return int(rng.choice(len(p), p=p / p.sum()))


class PolicyAgent(AgentBase):
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
        trust_pickles: read a ``.zip`` with SB3's own ``load``, which unpickles (runs) the code the file
            carries; for a checkpoint of your own that the default reader refuses. Default: a ``.zip`` is
            read without unpickling anything (:mod:`~five_towers_env.agents.sb3_zip`).
        batch_invariant: compute a batch of games (:meth:`act_batch`, :meth:`act_group`) row by row, exactly as
            one game alone (default), so that choices never depend on which games share a batch; False: one
            pass of matrix products per batch, several times faster for batches of a dozen or more, its rounding
            depending on the batch (training's opponent pool, whose batches its seed fixes).

    Attributes: ``game`` (the game the policy was trained for, from its ``meta``), ``obs_size``
    and ``num_actions`` (its network's input and output sizes), ``meta`` (what training recorded), ``path``
    (the file playing now), ``network`` (its forward pass).
    """

    pool_opponent = False  # it plays a trained network
    #: what each setting may be (:mod:`five_towers_env.core.setting_ranges`): the shipped versions are
    #: numbered from 1 (one the game does not ship is refused, naming those it does)
    SETTING_RANGES: ClassVar[dict[str, SettingRange]] = {"version": Range(1, 1_000)}

    # the network in play (set by _use: one policy file per setup when shipped)
    network: NumpyNetwork
    path: Path
    architecture: str
    meta: dict[str, Any]
    game: str
    obs_size: int
    num_actions: int

    def __init__(self, path: str | Path | None = None, seed: int | None = None,
                 deterministic: bool = True, name: str = "ppo", game: str | None = None,
                 version: int | None = None, trust_pickles: bool = False, batch_invariant: bool = True) -> None:
        if path is not None and version is not None:
            raise ValueError("ppo: give path=... or version=..., not both")
        # no path: the policy shipped for the setup being played, chosen at the first decision of each setup
        self.shipped = path is None
        self.version = version
        self._networks: dict[Path, NumpyNetwork] = {}  # loaded files, by path
        self._hint = game  # the game a file that does not name its own is read for
        self.trust_pickles = bool(trust_pickles)
        if path is None:
            spec = get_game(DEFAULT_GAME if game is None else game)  # a public agent: 5 Towers unless told
            self._hint = spec.name
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
        # False: a batch goes through the network in one pass of matrix products (several times faster), whose
        # rounding depends on the batch's size and the row's place in it; for a caller whose batches are fixed
        # by its seed (a training pool), not for evaluations whose batches follow the worker count
        self.batch_invariant = bool(batch_invariant)
        self.name = name
        self.rng = np.random.default_rng(seed)
        self._setup_seen: tuple[Any, Any] = (None, None)  # the setup last checked by act()

    @classmethod
    def files(cls, settings: Mapping[str, Any], game: GameSpec, num_players: int,
              variant: str) -> list[Path] | None:
        """The policy file it plays in the setup: ``path``, else the one ``game`` ships for the setup (its
        ``version``); ``None`` if it ships none."""
        if settings.get("path") is not None:
            return path_setting_files(settings)
        path = game.policy_path(num_players, variant, settings.get("version"))
        return None if path is None else [Path(path)]

    def _use(self, path: Path) -> None:
        """Play the policy file at ``path`` (each file is read once)."""
        if path not in self._networks:
            self._networks[path] = load_network(path, self.trust_pickles, self._hint)
        net = self.network = self._networks[path]
        self.path, self.architecture, self.meta, self.game = path, net.architecture, net.meta, net.game
        self.obs_size, self.num_actions = net.obs_size, net.num_actions

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
        """Unmasked action logits for one flat observation, or a batch of them row by row
        (:meth:`~five_towers_env.agents.network_file.NumpyNetwork.logits`)."""
        return self.network.logits(observation)

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
        self._check_size(np.shape(obs))
        return masked_choice(self.logits(obs), observation["action_mask"], self.deterministic, self.rng)

    def _check_size(self, shape: tuple[int, ...]) -> None:
        if shape[-1:] != (self.obs_size,):
            raise ValueError(f"ppo: {self.path} was trained on {get_game(self.game).title} observations of "
                             f"{self.obs_size} values, got one of shape {shape}: it plays "
                             f"game={self.game!r} only")

    @classmethod
    def act_group(cls, agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """The policies' choices for all the games ``rows`` (:meth:`AgentBase.act_group`): each agent first checks
        the game and setup as its :meth:`act` does (the shipped policy switching to the setup's file), then the
        rows of the agents playing one network file the same way (one :class:`NumpyNetwork`, see
        :func:`load_network`; deterministic or sampled) go through :meth:`act_batch` in one call, each sampled
        row drawing from its own agent's generator in row order: :meth:`act`'s moves and draws. A subclass
        with its own ``act`` or ``act_batch`` decides through :class:`AgentBase`'s default."""
        if any(type(a).act is not PolicyAgent.act or type(a).act_batch is not PolicyAgent.act_batch for a in agents):
            return super().act_group(agents, games, rows)
        obs, masks = games.observations(rows)
        setup = (games.num_players, games.variant)
        for agent in {id(a): a for a in agents}.values():
            if games.game != agent.game:
                agent.check_game(games.game)
            if setup != agent._setup_seen:
                agent._setup_seen = setup
                agent.check_setup(*setup)
            agent._check_size(obs.shape)
        out = np.empty(len(rows), dtype=np.int64)
        groups: dict[tuple[int, bool, bool], list[int]] = {}
        for j, agent in enumerate(agents):
            groups.setdefault((id(agent.network), agent.deterministic, agent.batch_invariant), []).append(j)
        # the groups that need not be batch-invariant (training's pool snapshots): their networks in one pass
        loose = [key for key in groups if not key[2]]
        raw = stacked_logits([agents[groups[key][0]].network for key in loose], [obs[groups[key]] for key in loose])
        stacked = dict(zip(loose, raw)) if raw is not None else {}
        for key, members in groups.items():
            rngs = [agents[j].rng for j in members]
            if key in stacked:
                out[members] = agents[members[0]]._choose(stacked[key], masks[members], rngs)
            else:
                out[members] = agents[members[0]].act_batch(obs[members], masks[members], rngs=rngs)
        return out

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  rngs: Sequence[np.random.Generator] | None = None) -> np.ndarray:
        """The policy's choices for a batch of flat observations ``(k, obs_size)`` with their legal-action
        masks ``(k, num_actions)``: what :meth:`act` would choose for each (with ``batch_invariant`` False, up to
        the batched pass's rounding). Sampled rows draw from ``rngs[i]`` (each game's own generator), or from
        :attr:`rng` in row order."""
        x = np.asarray(observations, dtype=np.float32)
        raw = self.logits(x) if self.batch_invariant or len(x) < 2 else self.network.forward(x)[0]
        return self._choose(raw, masks, rngs)

    def _choose(self, raw: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator] | None) -> np.ndarray:
        """The choices for unmasked logits ``raw`` ``(k, num_actions)``: the most likely legal action, or one drawn
        from the masked softmax by ``rngs[i]`` (or :attr:`rng` in row order)."""
        logits = np.where(np.asarray(masks, dtype=bool), raw, -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        draws = rngs if rngs is not None else [self.rng] * len(p)
        return np.array([rng.choice(self.num_actions, p=row) for rng, row in zip(draws, p)], dtype=np.int64)

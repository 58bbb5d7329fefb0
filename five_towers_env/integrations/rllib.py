"""Every game for RLlib's new API stack (``RLModule`` / ``Learner`` / ``EnvRunner``): the path for
training that outgrows one machine.

Needs the ``rllib`` extra (``pip install "five-towers-env[rllib]"``, CPU torch first on a machine
without a GPU). Tested with ray 2.60.0 (gymnasium 1.2.2, torch 2.13.0).

* :class:`GameMultiAgentEnv`: a ``MultiAgentEnv`` over the PettingZoo AEC environment of any registered
  game (``env_config["game"]``) that keeps the turn structure: each step returns an observation for
  the seat on move only (the same seat again when it has several decisions in a row), the rewards
  come at game end, to every seat, together with a last observation for every seat and
  ``terminateds["__all__"] = True``. An observation is ``{"observations": float32[observation size],
  "action_mask": float32[actions]}`` (RLlib's action-masking convention; the AEC env's int8 mask as
  0.0 / 1.0; 5 Towers: 2,116 and 307).
* :class:`ActionMaskingTorchRLModule`: RLlib's default PPO torch module with masked logits (illegal
  actions get the logit ``MASKED_LOGIT``) in exploration, inference and training, so a sampled or
  greedy action is always legal and the PPO loss never sees an illegal one.
* :class:`MaskedRandomRLModule`: a uniformly random *legal* player (RLlib's own random module
  ignores the mask), the baseline of the self-play opponent pool.
* :func:`selfplay_ppo_config`, :class:`PoolMapping`, :func:`snapshot_learner`: PPO self-play of one
  shared policy (``"main"``) for all seats against a frozen opponent pool: the random player and
  ``snapshots`` slots of frozen copies of ``"main"`` (untrained networks, each with its own initial
  weights, until :func:`snapshot_learner` overwrites them round-robin with the current ``"main"``).
* :class:`RLlibAgent`, :func:`evaluate_module`: play a trained module through the package's agent
  interface and evaluation (seeded, seat-rotated games against the baselines).

The env reads only the PettingZoo API of the AEC env (``agent_selection``, ``observe``, ``step``,
``rewards``, ``terminations``) and its ``scores()`` / ``winners()`` for the last step's infos;
it never reads the AEC env's ``infos``.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from five_towers_env.core.game import DEFAULT_GAME, get_game

#: keys of an observation, as in RLlib's action-masking examples
OBS_KEY = "observations"
MASK_KEY = "action_mask"
#: the logit an illegal action gets (RLlib's ``FLOAT_MIN``: its probability is exactly 0)
MASKED_LOGIT = -3.4e38
#: module ids of the self-play setup
LEARNER = "main"
RANDOM = "random"
SNAPSHOT = "snapshot_{}"

if TYPE_CHECKING:
    from typing import TypeAlias

    # RLlib's MultiAgentDicts of observations and of infos: per agent id, its observation dict / info
    _Observations: TypeAlias = "dict[str, dict[str, np.ndarray]]"
    _Infos: TypeAlias = "dict[str, dict[str, Any]]"


# -- the environment ----------------------------------------------------------------------------

class GameMultiAgentEnv(MultiAgentEnv):
    """A game's AEC environment as a turn-based RLlib ``MultiAgentEnv``.

    ``config`` (RLlib's ``env_config``) takes ``game`` (a registry name; default
    :data:`~five_towers_env.core.game.DEFAULT_GAME`), ``num_players`` (2), ``variant`` (the game's default)
    and the game's own settings, passed to its ``raw_env``, which rejects those it does not have
    (5 Towers: ``reward`` ``"win_loss"``, +1 each winner and -1 every other seat, or ``"margin"``;
    ``explicit``. Campanile: ``bet_chip``).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.spec = get_game(config.pop("game", DEFAULT_GAME))
        self.aec = self.spec.make_raw_env(num_players=config.pop("num_players", 2),
                                          variant=config.pop("variant", self.spec.default_variant), **config)
        self.num_actions = self.spec.num_actions
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_space(self.possible_agents[0])["observation"]
        space = gym.spaces.Dict({
            OBS_KEY: inner,
            MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(self.num_actions,), dtype=np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gym.spaces.Discrete(self.num_actions) for a in self.possible_agents}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[_Observations, _Infos]:
        """A new game (``seed`` / ``options`` as the AEC env's); the observation of the seat on move."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[_Observations, dict[str, float], dict[str, bool],
                                                            dict[str, bool], _Infos]:
        """Apply the action of the seat on move (an illegal one raises ``IllegalActionError``)."""
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is on move but the action dict has {sorted(action_dict)}")
        aec.step(int(action_dict[agent]))
        if aec.terminations[agent]:
            scores, winners = aec.scores(), aec.winners()
            obs = {a: self._observe(a) for a in self.possible_agents}
            rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
            terminateds = dict.fromkeys(self.possible_agents, True)
            terminateds["__all__"] = True
            infos = {a: {"score": scores[i], "win_share": (1.0 / len(winners)) if i in winners else 0.0}
                     for i, a in enumerate(self.possible_agents)}
            self.agents = []
            return obs, rewards, terminateds, {"__all__": False}, infos
        nxt = aec.agent_selection
        # the acting seat's reward (0 until the end) must be there when it moves again at once
        return {nxt: self._observe(nxt)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def render(self) -> str:
        """Text picture of the table (the game's ``GameUI.text_view``, public information only)."""
        return self.spec.load_ui().text_view(self.aec.game, None)


# -- the RLModules --------------------------------------------------------------------------------

def _split(batch: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``(action mask, batch with the bare observations)``; ``batch`` itself is left as it is."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, Mapping) or MASK_KEY not in obs or OBS_KEY not in obs:
        raise ValueError(f"observations must be dicts with keys {OBS_KEY!r} and {MASK_KEY!r} "
                         "(GameMultiAgentEnv's); got " + (f"keys {sorted(obs)}" if isinstance(obs, Mapping)
                                                                else type(obs).__name__))
    return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBS_KEY]}


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action whose mask is 0 set to ``MASKED_LOGIT`` (an all-zero mask, a
    finished game's observation, gives the uniform distribution, never NaN)."""
    return logits.masked_fill(mask < 0.5, MASKED_LOGIT)


def _check_space(space: Any) -> None:
    if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {OBS_KEY, MASK_KEY}:
        raise ValueError(f"this RLModule needs a Dict observation space with keys {OBS_KEY!r} and {MASK_KEY!r} "
                         f"(GameMultiAgentEnv's), got {space}")


class ActionMaskingTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module (MLP encoder, policy and value heads; ``model_config`` as
    ``DefaultModelConfig``) built on the ``"observations"`` part of the observation, with the
    ``"action_mask"`` part applied to its logits in every forward pass."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        _check_space(observation_space)
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=cast(gym.spaces.Dict, observation_space)[OBS_KEY], **kwargs)  # checked above

    def setup(self) -> None:
        super().setup()  # builds the networks for the bare observations
        # the module's own space is the env's (a spec made from this module rebuilds it right)
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


class MaskedRandomRLModule(RLModule):
    """Picks a uniformly random legal action (never trained: keep it out of ``policies_to_train``)."""

    def setup(self) -> None:
        _check_space(self.observation_space)
        seed = (self.model_config or {}).get("seed") if isinstance(self.model_config, Mapping) else None
        self._rng = np.random.default_rng(seed)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, _ = _split(batch)
        mask = mask.detach().cpu().numpy() if hasattr(mask, "detach") else np.asarray(mask)
        actions = []
        for row in mask.reshape(-1, mask.shape[-1]):
            legal = np.flatnonzero(row > 0.5)
            actions.append(int(legal[self._rng.integers(len(legal))]) if len(legal) else 0)
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("MaskedRandomRLModule is not trainable: leave it out of policies_to_train")

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (called by torch learners on every module)."""


# -- self-play against a frozen pool ----------------------------------------------------------------

class PoolMapping:
    """RLlib's ``policy_mapping_fn`` for self-play: each episode (game) is, with probability
    ``self_play_prob``, the learner in every seat; otherwise the learner in one seat drawn at random
    and, in each other seat, an opponent drawn from ``opponents`` with ``weights``. The draw is a
    function of the episode id, so every seat of a game sees the same lineup."""

    def __init__(self, num_players: int, opponents: Sequence[str], weights: Sequence[float] | None = None,
                 self_play_prob: float = 0.5, learner: str = LEARNER) -> None:
        self.num_players = int(num_players)
        self.opponents = list(opponents)
        w = np.ones(len(self.opponents)) if weights is None else np.asarray(weights, dtype=float)
        if len(w) != len(self.opponents) or (w < 0).any() or (self.opponents and w.sum() <= 0):
            raise ValueError("weights must be one non-negative number per opponent, not all zero")
        self.weights = (w / w.sum()).tolist() if self.opponents else []
        if not 0.0 <= self_play_prob <= 1.0 or (not self.opponents and self_play_prob < 1.0):
            raise ValueError("self_play_prob must be in [0, 1], and 1 when there are no opponents")
        self.self_play_prob = float(self_play_prob)
        self.learner = learner

    def lineup(self, episode_id: str) -> list[str]:
        """The module id in each seat of the episode ``episode_id``."""
        rng = random.Random(str(episode_id))
        if rng.random() < self.self_play_prob:
            return [self.learner] * self.num_players
        seat = rng.randrange(self.num_players)
        seats = rng.choices(self.opponents, weights=self.weights, k=self.num_players)
        seats[seat] = self.learner
        return seats

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        return self.lineup(episode.id_)[int(str(agent_id).rsplit("_", 1)[-1])]


class SelfPlayMetrics(RLlibCallback):
    """Logs, per training iteration, the learner's win rate against the pool (``"learner_win_rate"``,
    games with at least one opponent, a shared win counting as a win) and the share of games it
    played against itself (``"self_play_share"``), under the results' ``env_runners`` key."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        modules = {aid: episode.module_for(aid) for aid in episode.agent_episodes}
        mine = [aid for aid, m in modules.items() if m == LEARNER]
        self_play = len(mine) == len(modules)
        metrics_logger.log_value("self_play_share", float(self_play), reduce="mean", window=200)
        if mine and not self_play:
            won = any(episode.agent_episodes[aid].get_rewards()[-1] > 0 for aid in mine)
            metrics_logger.log_value("learner_win_rate", float(won), reduce="mean", window=200)


def snapshot_ids(snapshots: int) -> list[str]:
    """The module ids of the ``snapshots`` frozen-copy slots."""
    return [SNAPSHOT.format(i) for i in range(snapshots)]


def selfplay_ppo_config(*, game: str = DEFAULT_GAME, num_players: int = 2, variant: str | None = None,
                        env_options: Mapping[str, Any] | None = None, num_env_runners: int = 0,
                        num_envs_per_env_runner: int = 16, snapshots: int = 4,
                        random_weight: float = 0.25, self_play_prob: float = 0.5,
                        hiddens: Sequence[int] = (256, 256), train_batch_size: int = 4000,
                        minibatch_size: int = 500, num_epochs: int = 4, lr: float = 3e-4, gamma: float = 1.0,
                        lambda_: float = 0.95, entropy_coeff: float = 0.01, num_learners: int = 0,
                        num_gpus_per_learner: float = 0, seed: int | None = None) -> PPOConfig:
    """A ``PPOConfig`` for self-play of one shared policy ``"main"`` (an
    :class:`ActionMaskingTorchRLModule`) in every seat of ``game`` (``variant`` None: its default; the
    game's own ``raw_env`` settings in ``env_options``, e.g. 5 Towers' ``{"reward": "margin"}``), against a
    frozen pool.

    Each game is self-play with probability ``self_play_prob``; otherwise ``"main"`` takes one seat
    and every other seat gets ``"random"`` (a :class:`MaskedRandomRLModule`) with weight
    ``random_weight`` or one of the ``snapshots`` frozen copies of ``"main"`` (together weight
    ``1 - random_weight``). Only ``"main"`` is trained; the slots start as untrained networks (their
    own initial weights) until :func:`snapshot_learner` overwrites one with the current ``"main"``.
    ``num_env_runners=0`` samples in the driver process; more runners sample in parallel Ray
    actors (on any node of the cluster ``ray.init`` joined), 1 CPU each. ``num_learners=0`` updates
    the networks in the driver; more learners are Ray actors that split each batch (data-parallel),
    with ``num_gpus_per_learner`` GPUs each. ``train_batch_size`` is per learner.
    """
    spec = get_game(game)
    snaps = snapshot_ids(snapshots)
    opponents = ([RANDOM] if random_weight > 0 else []) + snaps
    weights = ([random_weight] if random_weight > 0 else []) + [(1.0 - random_weight) / max(1, len(snaps))] * len(snaps)
    if not 0.0 <= random_weight <= 1.0 or (random_weight < 1.0 and not snaps and self_play_prob < 1.0):
        raise ValueError("random_weight must be in [0, 1] (and 1 when there are no snapshots)")
    model_config = DefaultModelConfig(fcnet_hiddens=list(hiddens), fcnet_activation="relu", vf_share_layers=False)
    learner_spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config)
    random_spec = RLModuleSpec(module_class=MaskedRandomRLModule, model_config={"seed": seed})
    specs = {LEARNER: learner_spec, RANDOM: random_spec}
    specs.update({s: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config) for s in snaps})
    config = (
        PPOConfig()
        .environment(GameMultiAgentEnv,
                     env_config={**dict(env_options or {}), "game": spec.name, "num_players": num_players,
                                 "variant": spec.default_variant if variant is None else variant},
                     # RLlib's env check steps with unmasked random actions, which the env rejects
                     disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .multi_agent(policies=set(specs),
                     policy_mapping_fn=PoolMapping(num_players, opponents, weights, self_play_prob),
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=gamma, lambda_=lambda_, entropy_coeff=entropy_coeff,
                  vf_loss_coeff=0.5)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .callbacks(SelfPlayMetrics)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def snapshot_learner(algo: Any, slot: str) -> None:
    """Copy the learner's current weights into the frozen module ``slot``, on the learners and on
    every env runner (local and remote)."""
    weights = algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
    algo.learner_group.set_weights({slot: weights})
    algo.env_runner_group.sync_weights(policies=[slot], from_worker_or_learner_group=algo.learner_group,
                                       inference_only=True, timeout_seconds=60.0)


def train_selfplay(algo: Any, iterations: int, snapshot_every: int = 5,
                   on_iteration: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``iterations`` PPO iterations of ``algo`` (built from :func:`selfplay_ppo_config`); after
    every ``snapshot_every``-th iteration (counted over the algorithm's life) copy the learner into
    the next snapshot slot, round-robin. Returns (and passes to ``on_iteration``) one row per
    iteration: ``iteration``, ``seconds`` (wall time of ``train()``), ``env_steps`` (env steps
    sampled so far, one per decision of any seat), ``learner_win_rate`` / ``self_play_share``
    (:class:`SelfPlayMetrics`, windowed), ``snapshot`` (the slot overwritten, or None)."""
    slots = [m for m in snapshot_ids(64) if m in algo.config.policies]
    rows = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        result = algo.train()
        seconds = time.perf_counter() - t0
        runners = result.get("env_runners", {})
        n = int(algo.iteration)
        slot = None
        if snapshot_every > 0 and slots and n % snapshot_every == 0:
            slot = slots[(n // snapshot_every - 1) % len(slots)]
            snapshot_learner(algo, slot)
        row = {"iteration": n, "seconds": seconds,
               "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
               "learner_win_rate": runners.get("learner_win_rate"), "self_play_share": runners.get("self_play_share"),
               "snapshot": slot}
        rows.append(row)
        if on_iteration is not None:
            on_iteration(row)
    return rows


def learner_module(algo: Any, module_id: str = LEARNER) -> RLModule:
    """The trained module ``module_id`` in this process (an env runner's inference-only copy, with
    the learner's current weights), for :class:`RLlibAgent` and :func:`evaluate_module`."""
    module = algo.get_module(module_id)
    module.set_state(algo.learner_group.get_weights(module_ids=[module_id])[module_id])
    return module


def load_module(checkpoint: str | Path, module_id: str = LEARNER) -> RLModule:
    """The module ``module_id`` of an algorithm checkpoint (``algo.save_to_path(...)``), for
    :class:`RLlibAgent` / :func:`evaluate_module`; needs no running Ray."""
    path = Path(checkpoint) / "learner_group" / "learner" / "rl_module" / module_id
    if not path.is_dir():
        raise FileNotFoundError(f"no module {module_id!r} in checkpoint {checkpoint} (looked for {path})")
    return RLModule.from_checkpoint(str(path))


# -- playing a trained module ------------------------------------------------------------------------

class RLlibAgent:
    """A trained :class:`ActionMaskingTorchRLModule` behind the package's agent interface
    (``act(observation, info)``; the observation as the AEC env's). ``deterministic``: the most
    probable legal action; otherwise sample from the masked policy with ``seed``."""

    def __init__(self, module: RLModule, deterministic: bool = True, seed: int | None = None,
                 name: str = "rllib") -> None:
        self.module = module
        self.deterministic = bool(deterministic)
        self.generator = torch.Generator().manual_seed(int(seed) % 2**63) if seed is not None else None
        self.name = name

    @torch.no_grad()
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """A legal action id for ``observation`` (``{"observation": ..., "action_mask": ...}``)."""
        obs = torch.as_tensor(np.asarray(observation["observation"], dtype=np.float32))[None]
        mask = torch.as_tensor(np.asarray(observation["action_mask"], dtype=np.float32))[None]
        out = self.module.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})
        logits = out[Columns.ACTION_DIST_INPUTS][0]
        if self.deterministic:
            return int(torch.argmax(logits))
        return int(torch.multinomial(torch.softmax(logits, -1), 1, generator=self.generator))


class RLlibAgentFactory:
    """Builds :class:`RLlibAgent`\\ s of one module for :func:`five_towers_env.evaluation.match.evaluate`
    (a factory with a ``label``)."""

    def __init__(self, module: RLModule, label: str = "rllib", deterministic: bool = True) -> None:
        self.module, self.label, self.deterministic = module, label, deterministic

    def __call__(self, seed: int | None = None) -> RLlibAgent:
        return RLlibAgent(self.module, deterministic=self.deterministic, seed=seed, name=self.label)


def evaluate_module(module: RLModule, opponent: str = "random", num_games: int = 40, num_players: int = 2,
                    variant: str | None = None, seed: int = 0, deterministic: bool = True,
                    game: str = DEFAULT_GAME) -> dict[str, Any]:
    """Play ``num_games`` seeded, seat-rotated games (paired deals) of ``game`` (``variant`` None: its default)
    between ``module`` and ``num_players - 1`` copies of the game's registry agent ``opponent``, in this
    process; return the
    module's summary row of :func:`five_towers_env.evaluation.match.evaluate` (``win_rate``: a
    ``j``-way shared win counts ``1/j``; ``ci_low`` / ``ci_high``; ``strict_win_rate``...)."""
    from five_towers_env.evaluation.match import evaluate

    factory = RLlibAgentFactory(module, label="rllib", deterministic=deterministic)
    result = evaluate([factory] + [opponent] * (num_players - 1), num_games=num_games, num_players=num_players,
                      variant=variant, seed=seed, workers=1, progress=False, game=game)
    return result.agents[0]


__all__ = ["ActionMaskingTorchRLModule", "GameMultiAgentEnv", "LEARNER", "MASKED_LOGIT", "MASK_KEY",
           "MaskedRandomRLModule", "OBS_KEY", "PoolMapping", "RANDOM", "RLlibAgent", "RLlibAgentFactory",
           "SelfPlayMetrics", "evaluate_module", "learner_module", "load_module", "mask_logits", "selfplay_ppo_config",
           "snapshot_ids", "snapshot_learner", "train_selfplay"]

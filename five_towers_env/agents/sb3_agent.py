"""A Stable-Baselines3 model trained in another pipeline as an agent (``"sb3"``): :class:`SB3Agent`.

It plays the ``.zip`` that ``model.save(...)`` writes (loaded on the CPU; the ``rl`` extra) for a model with a
``Discrete`` action space and one score per action: sb3-contrib's ``MaskablePPO`` (its own masking), SB3's
``PPO``, ``A2C`` and sb3-contrib's ``TRPO`` (their logits), ``DQN`` and ``QRDQN`` (Q-values; QR-DQN's averaged
over its quantiles). The legal-action mask is applied to the scores before choosing
(:func:`~five_towers_env.agents.policy.masked_choice`): an illegal action is never played. Recurrent
policies, continuous actions and ARS are refused.

The model is fed what :class:`~five_towers_env.wrappers.single_agent.SingleAgentGymEnv` shows a learner:
the flat observation vector (a ``Box``), or the game's other observation whose ``Dict`` space the model
was trained on (``observation="dict"``), encoded from the seat's public view (``info["view"]``) by the
game's own observation wrapper. Loaded models are kept per process, by file and modification time, so
an evaluation building one agent per game reads each file once.

Nothing in the file is unpickled (:mod:`~five_towers_env.agents.sb3_zip`): the policy is rebuilt from what
the model's ``data`` declares and its weights read with ``weights_only=True``. A model that cannot be read
so is refused in one line naming ``trust_pickles``: ``sb3:path=model.zip,trust_pickles=true`` loads it with
SB3's own ``load``, which runs any code the file carries.
"""
from __future__ import annotations

import functools
import json
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from five_towers_env.agents import sb3_zip
from five_towers_env.agents.policy import masked_choice
from five_towers_env.agents.sb3_zip import INSTALL_HINT
from five_towers_env.core.agent import AgentBase
from five_towers_env.core.game import GameSpec, game_names, get_game
from five_towers_env.wrappers.single_agent import FLAT  # the observation every game has


class LoadedModel(NamedTuple):
    """A loaded model: torch ``policy``, ``kind`` of scores (logits, masked, q, quantiles), ``algorithm`` name."""

    policy: Any
    kind: str
    algorithm: str
    observation_space: Any
    num_actions: int


#: models loaded in this process, by (resolved path, modification time, size, trust_pickles)
_MODELS: dict[tuple[str, int, int, bool], LoadedModel] = {}


_one_line = sb3_zip.one_line


def _zip_kind(names: list[str]) -> str:
    """What a zip that is not an SB3 model holds, for the message."""
    if names and all(n.endswith(".npy") for n in names):
        return "numpy arrays (an .npz; a policy exported by this package plays as ppo:path=...)"
    return "a torch.save archive" if any(n.endswith("data.pkl") for n in names) else f"{names[:4]}"


def _algorithm(policy_class: type, data: dict[str, Any], where: str) -> tuple[Any, str]:
    """The SB3 algorithm class that loads a model with this policy class, and the kind of its scores."""
    from stable_baselines3 import A2C, DQN, PPO
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    if policy_class.__module__.startswith("sb3_contrib."):
        from sb3_contrib import QRDQN, MaskablePPO
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
        from sb3_contrib.qrdqn.policies import QRDQNPolicy

        if issubclass(policy_class, MaskableActorCriticPolicy):
            return MaskablePPO, "masked"
        if issubclass(policy_class, QRDQNPolicy):
            return QRDQN, "quantiles"
    elif issubclass(policy_class, ActorCriticPolicy):
        # PPO, A2C and sb3-contrib's TRPO share this policy: told apart by a setting only each saves
        if "cg_max_steps" in data:
            from sb3_contrib import TRPO

            return TRPO, "logits"
        return (PPO if "clip_range" in data else A2C), "logits"
    elif issubclass(policy_class, DQNPolicy):
        return DQN, "q"
    raise ValueError(f"sb3: {where} is a model with the policy {policy_class.__name__}, which SB3Agent cannot "
                     "play (it plays MaskablePPO, PPO, A2C, TRPO, DQN and QRDQN models with a Discrete action space)")


def load_model(path: str | Path, trust_pickles: bool = False) -> LoadedModel:
    """The SB3 model of the ``.zip`` at ``path``, loaded once per process and file version.

    By default nothing in the file is unpickled (:mod:`~five_towers_env.agents.sb3_zip`): a model that cannot
    be read so is refused with a :class:`~five_towers_env.agents.sb3_zip.PickledModelError` naming
    ``trust_pickles``. ``trust_pickles=True`` loads it with SB3's own ``load``, which runs the code it carries."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"sb3: {path} is a folder, not a Stable-Baselines3 model .zip" if path.is_dir()
                         else f"sb3: no model file at {path}")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, bool(trust_pickles))
    if key in _MODELS:
        return _MODELS[key]
    if not zipfile.is_zipfile(path):
        raise ValueError(f"sb3: {path} is not a Stable-Baselines3 model: not a zip archive "
                         "(expected the .zip that model.save(...) writes)")
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if "data" not in names or "policy.pth" not in names:
            raise ValueError(f"sb3: {path} is a zip from another library, not a Stable-Baselines3 model "
                             f"(no 'data' and 'policy.pth' entries; it holds {_zip_kind(names)})")
    from five_towers_env.agents.sb3_zip import read_member

    text = read_member(path, "data").decode("utf-8", "replace")
    try:
        from stable_baselines3.common.save_util import json_to_data  # imports torch
    except ImportError as e:
        raise ImportError(f"sb3: playing {path} needs torch and stable-baselines3: {INSTALL_HINT}") from e
    _MODELS[key] = _load_trusted(path, text, json_to_data) if trust_pickles else _load_safely(path, text)
    return _MODELS[key]


def _load_safely(path: Path, text: str) -> LoadedModel:
    """The model rebuilt from what its data declares, unpickling nothing (:mod:`five_towers_env.agents.sb3_zip`)."""
    try:
        data = sb3_zip.read_data(text)
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"sb3: {path} is not a readable Stable-Baselines3 model ({_one_line(e)})") from e
    policy_class = sb3_zip.policy_class(data, path, "sb3")
    algorithm, kind = _algorithm(policy_class, data, str(path))
    action_space = sb3_zip.action_space(data)
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"sb3: {path} has the action space {action_space}; SB3Agent plays Discrete ones")
    observation_space = sb3_zip.observation_space(data, path, "sb3")
    kwargs = sb3_zip.policy_kwargs(data, policy_class, path, "sb3")
    policy = sb3_zip.build_policy(path, policy_class, observation_space, action_space, kwargs, "sb3")
    return LoadedModel(policy, kind, algorithm.__name__, observation_space, int(action_space.n))


def _load_trusted(path: Path, text: str, json_to_data: Any) -> LoadedModel:
    """The model loaded by SB3's own ``load``: every pickle in the file is unpickled (its code runs)."""
    try:
        saved = json.loads(text)
        # only what picks the algorithm: SB3's load reads the rest (schedules...) itself
        data = json_to_data(json.dumps({k: saved[k] for k in ("policy_class", "action_space") if k in saved}))
    except ModuleNotFoundError as e:  # a policy class of a package not installed here (sb3_contrib, ...)
        raise ImportError(f"sb3: {path} needs the module {e.name!r} to load: {INSTALL_HINT}") from e
    except (ValueError, TypeError, AttributeError, RecursionError) as e:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"sb3: {path} is not a readable Stable-Baselines3 model ({_one_line(e)})") from e
    policy_class = data.get("policy_class")
    if not isinstance(policy_class, type):
        raise ValueError(f"sb3: {path} is not a readable Stable-Baselines3 model (its policy class did not load)")
    algorithm, kind = _algorithm(policy_class, saved, str(path))
    action_space = data.get("action_space")
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"sb3: {path} has the action space {action_space}; SB3Agent plays Discrete ones")
    try:
        model = algorithm.load(path, device="cpu")
    except Exception as e:  # SB3 raises many kinds for a file it cannot restore
        raise ValueError(f"sb3: {path} did not load as a {algorithm.__name__} model ({_one_line(e)})") from e
    model.policy.set_training_mode(False)
    return LoadedModel(model.policy, kind, algorithm.__name__, model.observation_space, int(action_space.n))


def _shapes(space: Any) -> Any:
    """A space's shape, or for a Dict its keys' shapes: what a model's input must match."""
    subspaces = getattr(space, "spaces", None)
    return ({k: tuple(s.shape) for k, s in subspaces.items()} if isinstance(subspaces, dict)
            else tuple(getattr(space, "shape", ()) or ()))


def observation_name(spec: GameSpec, space: Any) -> str | None:
    """The name of ``spec``'s observation (``"flat"`` or one of ``spec.observations``) with ``space``'s shapes."""
    if _shapes(space) == (spec.observation_size,):
        return FLAT
    for name in spec.observations:
        raw, wrapper = _observer(spec.name, name, spec.min_players, None)
        if _shapes(wrapper.observation_space(raw.possible_agents[0])) == _shapes(space):
            return name
    return None


@functools.cache
def _observer(game: str, name: str, num_players: int, variant: Any) -> tuple[Any, Any]:
    """A raw env of the setup (one per process) inside the game's observation wrapper ``name``."""
    raw = get_game(game).make_raw_env(num_players=num_players, **({} if variant is None else {"variant": variant}))
    return raw, get_game(game).observation_wrapper(name)(raw)


class SB3Agent(AgentBase):
    """Plays a Stable-Baselines3 model (``.zip``) trained on a game's single-agent environment.

    Args:
        path: the model's ``.zip`` (``model.save(...)``).
        seed: seeds the generator used when ``deterministic`` is False.
        game: the game it is to play (``make_agent`` fills it in): ``ValueError`` if the model's action
            count or observation does not fit it. None: the one game the model fits.
        deterministic: play the highest-scoring legal action (default), or sample from the softmax of the
            legal actions' scores (logits; for a Q-network its Q-values, a Boltzmann choice).
        name: the agent's name in reports.
        trust_pickles: load the file with SB3's own ``load``, which unpickles (runs) the code the file
            carries; for a model of your own that the default reader refuses. Default: nothing is unpickled.
    """

    pool_opponent = False  # a model trained elsewhere plays it

    def __init__(self, path: str | Path, seed: int | None = None, game: str | None = None,
                 deterministic: bool = True, name: str = "sb3", trust_pickles: bool = False) -> None:
        self.path = Path(path)
        self.model = load_model(self.path, trust_pickles=trust_pickles)
        if game is None:
            game = self._own_game()
        self.spec = get_game(game)
        self.game = self.spec.name
        if self.model.num_actions != self.spec.num_actions:
            raise ValueError(f"sb3: {self.path} has {self.model.num_actions} actions, {self.spec.title} has "
                             f"{self.spec.num_actions} (game={self.game!r}): it was trained for another game")
        found = observation_name(self.spec, self.model.observation_space)
        if found is None:
            others = "".join(f" or its {name!r} observation" for name in self.spec.observations)
            shape = _shapes(self.model.observation_space)
            raise ValueError(f"sb3: {self.path} was trained on observations of shape {shape}; {self.spec.title} has "
                             f"flat ones of shape ({self.spec.observation_size},){others} (game={self.game!r}): it was "
                             "trained for another game")
        self.observation = found
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng(seed)

    def _own_game(self) -> str:
        """The one game whose actions and observations the model fits (``ValueError`` if none or several)."""
        n, space = self.model.num_actions, self.model.observation_space
        fits = [g for g in game_names() if get_game(g).num_actions == n and observation_name(get_game(g), space)]
        if len(fits) != 1:
            which = f"several games fit ({', '.join(fits)}): give game=..." if fits else "no game has them"
            raise ValueError(f"sb3: {self.path} has {n} actions and observations of shape {_shapes(space)}: {which}")
        return fits[0]

    def seed(self, seed: int | None) -> None:
        """Re-seed the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def model_observation(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """What the model is fed: the flat vector, or the :attr:`observation` dict of the seat's public view."""
        obs = observation["observation"]
        if self.observation == FLAT:
            if np.shape(obs) != (self.spec.observation_size,):
                raise ValueError(f"sb3: {self.path} plays {self.spec.title} observations of "
                                 f"{self.spec.observation_size} values, got one of shape {np.shape(obs)}")
            return np.asarray(obs, dtype=np.float32)
        wanted = self.model.observation_space.spaces
        if isinstance(obs, dict):  # an env already giving this observation (raw_env(observation="dict"))
            out = dict(obs)
        else:
            view = info.get("view")
            if view is None:
                raise ValueError(f"sb3: {self.path} reads the {self.observation!r} observation, built from "
                                 "info['view'], which this info lacks")
            raw, wrapper = _observer(self.game, self.observation, view.num_players, getattr(view, "variant", None))
            # a game's env keeps its state in .game (core/env.py): the wrapper encodes the view given there
            raw.game = view
            seat = info.get("seat", view.current_player)
            out = dict(wrapper.observe(raw.possible_agents[seat]))
        if "action_mask" in wanted:
            out["action_mask"] = np.asarray(observation["action_mask"], dtype=np.int8)
        return {k: out[k] for k in wanted}

    def scores(self, observation: dict[str, Any], info: dict[str, Any]) -> np.ndarray:
        """The model's logits or Q-values of every action id (masked only by ``MaskablePPO`` itself)."""
        import torch

        policy = self.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(self.model_observation(observation, info))
            if self.model.kind == "q":
                out = policy.q_net(tensor)
            elif self.model.kind == "quantiles":
                out = policy.quantile_net(tensor).mean(dim=1)
            elif self.model.kind == "masked":
                mask = np.asarray(observation["action_mask"], dtype=bool)[None]
                out = policy.get_distribution(tensor, action_masks=mask).distribution.logits
            else:
                out = policy.get_distribution(tensor).distribution.logits
        return out[0].numpy().astype(np.float64)

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int:
        """The model's choice among the legal actions (``ValueError`` if ``info`` names another game)."""
        game = info.get("game") if isinstance(info, dict) else None
        if game is not None and game != self.game:
            raise ValueError(f"sb3: {self.path} plays {self.spec.title} (game={self.game!r}); it cannot play "
                             f"{get_game(game).title} (game={game!r})")
        return masked_choice(self.scores(observation, info), observation["action_mask"], self.deterministic,
                             self.rng)


__all__ = ["LoadedModel", "SB3Agent", "load_model", "observation_name"]

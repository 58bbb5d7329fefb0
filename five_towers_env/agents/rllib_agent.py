"""An RLlib checkpoint as an agent (``"rllib"``): :class:`RLlibCheckpointAgent`, and the game record beside
a checkpoint.

:class:`RLlibCheckpointAgent` plays a module (default ``"main"``, the learner) of an algorithm checkpoint that
``examples/rllib_selfplay.py`` writes (``<out>/checkpoint``; the run folder ``<out>`` is accepted too).
The module alone is restored, on the CPU and without starting Ray, with
:func:`~five_towers_env.integrations.rllib.load_module` (``RLModule.from_checkpoint`` of
``learner_group/learner/rl_module/<module>``); each one is restored once per process (per modification
time). It is fed the observation as training fed it (``{"observations": float32 vector, "action_mask":
float32 0/1}``, :class:`~five_towers_env.integrations.rllib.GameMultiAgentEnv`'s), so its
:class:`~five_towers_env.integrations.rllib.ActionMaskingTorchRLModule` masks its own logits, and the
mask is applied once more before choosing: an illegal action is never played.

A checkpoint plays one game: the one :func:`write_checkpoint_game` recorded in it
(:data:`GAME_RECORD`, written by the example), else the one of the run's ``log.json`` beside it, else the
one whose observation size and action count its module has. Importing this module needs no Ray.

**An RLlib checkpoint is code.** RLlib restores a module by unpickling the class and settings saved with it
(``RLModule.from_checkpoint``), so playing a checkpoint runs what it carries, and RLlib offers no reader that
does not: play only checkpoints you made or trust as you would a program (unlike ``sb3:path=`` and
``ppo:path=``, which read a Stable-Baselines3 zip without unpickling anything by default).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.network_file import game_of_sizes
from five_towers_env.agents.policy import masked_choice
from five_towers_env.atomic import write_text
from five_towers_env.core.agent import AgentBase
from five_towers_env.core.game import get_game

#: the file in a checkpoint folder naming the game (and setup) it was trained for
GAME_RECORD = "five_towers_env.json"
INSTALL_HINT = 'pip install -e ".[rllib]"'

#: restored modules of this process, by (module folder, modification time of its state)
_MODULES: dict[tuple[str, int], Any] = {}


def _one_line(e: BaseException) -> str:
    return " ".join(f"{type(e).__name__}: {e}".split())[:300]


def write_checkpoint_game(checkpoint: str | Path, game: str, num_players: int | None = None,
                          variant: str | None = None) -> Path:
    """Record in ``checkpoint`` (an algorithm checkpoint folder) the game it was trained for; returns the file."""
    record = {"game": get_game(game).name, "num_players": num_players, "variant": variant}
    path = Path(checkpoint) / GAME_RECORD
    write_text(path, json.dumps(record, indent=2) + "\n")
    return path


def checkpoint_game(checkpoint: str | Path) -> str | None:
    """The game recorded for ``checkpoint``: its :data:`GAME_RECORD`, else the ``args.game`` of the example's
    ``log.json`` in the folder above it; None when neither names one."""
    checkpoint = Path(checkpoint)
    for path, keys in ((checkpoint / GAME_RECORD, ("game",)), (checkpoint.parent / "log.json", ("args", "game"))):
        try:
            value: Any = json.loads(path.read_text())
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
        except (OSError, ValueError):
            continue
        if isinstance(value, str):
            return value
    return None


def find_checkpoint(path: str | Path) -> Path:
    """The algorithm checkpoint folder at ``path`` (or in its ``checkpoint/`` subfolder: the example's run
    folder); ``ValueError`` with a one-line message if there is none."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"rllib: no checkpoint folder at {path}")
    if not path.is_dir():
        raise ValueError(f"rllib: {path} is a file, not an RLlib checkpoint folder")
    for folder in (path, path / "checkpoint"):
        if (folder / "rllib_checkpoint.json").is_file():
            return folder
    raise ValueError(f"rllib: {path} is not an RLlib checkpoint: no rllib_checkpoint.json (give the folder "
                     "examples/rllib_selfplay.py writes, <out>/checkpoint)")


def restore_module(checkpoint: Path, module_id: str) -> Any:
    """The RLModule ``module_id`` of the algorithm checkpoint ``checkpoint``, restored on the CPU once per
    process; ``ValueError`` if the checkpoint has no such module, ``ImportError`` without Ray."""
    folder = checkpoint / "learner_group" / "learner" / "rl_module"
    if not (folder / module_id).is_dir():
        have = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        raise ValueError(f"rllib: {checkpoint} has no module {module_id!r} (its modules: {', '.join(have) or 'none'}); "
                         "is it a checkpoint of examples/rllib_selfplay.py?")
    states = sorted((folder / module_id).glob("module_state*"))
    key = (str((folder / module_id).resolve()), max((p.stat().st_mtime_ns for p in states), default=0))
    if key not in _MODULES:
        try:
            from five_towers_env.integrations.rllib import load_module
        except ImportError as e:
            raise ImportError(f"rllib: playing {checkpoint} needs ray[rllib] and torch: {INSTALL_HINT} "
                              f"({_one_line(e)})") from e
        try:
            _MODULES[key] = load_module(checkpoint, module_id)
        except Exception as e:  # RLlib raises many kinds for a folder it cannot restore
            raise ValueError(f"rllib: module {module_id!r} of {checkpoint} did not restore ({_one_line(e)})") from e
    return _MODULES[key]


class RLlibCheckpointAgent(AgentBase):
    """Plays the masked PPO module of a checkpoint written by ``examples/rllib_selfplay.py``.

    Args:
        path: the checkpoint folder (``<out>/checkpoint``) or the run folder ``<out>`` holding it. Restoring
            it unpickles what it holds, which runs code: give only a checkpoint you trust.
        seed: seeds the generator used when ``deterministic`` is False.
        game: the game it is to play (``make_agent`` fills it in): ``ValueError`` if the checkpoint was
            trained for another. None: the checkpoint's own game.
        deterministic: play the most likely legal action (default), or sample from the masked policy.
        name: the agent's name in reports.
        module_id: the module to play: ``"main"`` (the learner) or a frozen ``"snapshot_<i>"``.
    """

    pool_opponent = False  # a model trained elsewhere plays it

    def __init__(self, path: str | Path, seed: int | None = None, game: str | None = None,
                 deterministic: bool = True, name: str = "rllib", module_id: str = "main") -> None:
        self.path = find_checkpoint(path)
        self.module = restore_module(self.path, module_id)
        from five_towers_env.integrations.rllib import MASK_KEY, OBS_KEY, ActionMaskingTorchRLModule

        if not isinstance(self.module, ActionMaskingTorchRLModule):
            raise ValueError(f"rllib: module {module_id!r} of {self.path} is a {type(self.module).__name__}, not "
                             "the masked policy network (ActionMaskingTorchRLModule) examples/rllib_selfplay.py trains")
        self._keys = OBS_KEY, MASK_KEY
        spaces: tuple[Any, Any] = (self.module.observation_space, self.module.action_space)  # a Dict and a Discrete
        self.obs_size, self.num_actions = int(spaces[0][OBS_KEY].shape[0]), int(spaces[1].n)
        recorded = checkpoint_game(self.path)
        sized = game_of_sizes(self.obs_size, self.num_actions)
        found = get_game(recorded).name if recorded is not None else sized
        if found is None:
            raise ValueError(f"rllib: {self.path} plays observations of {self.obs_size} values and "
                             f"{self.num_actions} actions, which no game has")
        self.game: str = found
        if sized != self.game:
            raise ValueError(f"rllib: {self.path} was recorded as a {get_game(self.game).title} checkpoint but its "
                             f"module has {self.obs_size} inputs and {self.num_actions} actions, not that game's")
        if game is not None:
            self.check_game(game)
        self.module_id = module_id
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng(seed)

    def check_game(self, game: str) -> None:
        """Raise ``ValueError`` unless the checkpoint was trained for ``game``."""
        if get_game(game).name != self.game:
            raise ValueError(f"rllib: {self.path} is a {get_game(self.game).title} checkpoint (game={self.game!r}); "
                             f"it cannot play {get_game(game).title} (game={game!r})")

    def seed(self, seed: int | None) -> None:
        """Re-seed the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The module's action logits for one AEC observation (masked by the module as in training)."""
        import torch
        from ray.rllib.core.columns import Columns

        obs = np.asarray(observation["observation"], dtype=np.float32)
        if obs.shape != (self.obs_size,):
            raise ValueError(f"rllib: {self.path} plays {get_game(self.game).title} observations of {self.obs_size} "
                             f"values, got one of shape {obs.shape}")
        mask = np.asarray(observation["action_mask"], dtype=np.float32)  # training's float 0/1 mask
        batch = {Columns.OBS: {self._keys[0]: torch.from_numpy(obs)[None], self._keys[1]: torch.from_numpy(mask)[None]}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS][0].numpy().astype(np.float64)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The module's choice among the legal actions of ``observation["action_mask"]``; ``ValueError`` if
        ``info`` names another game than the checkpoint's."""
        game = info.get("game") if isinstance(info, dict) else None
        if game is not None and game != self.game:
            self.check_game(game)
        return masked_choice(self.logits(observation), observation["action_mask"], self.deterministic, self.rng)


__all__ = ["GAME_RECORD", "RLlibCheckpointAgent", "checkpoint_game", "find_checkpoint", "restore_module",
           "write_checkpoint_game"]

"""A trained policy as an agent (``"ppo"``): numpy inference, no torch needed to play.

Training saves resumable sb3-contrib ``MaskablePPO`` checkpoints (``.zip``, torch) and exports
the policy network to a small ``.npz`` of numpy arrays (:func:`export_policy`). ``PolicyAgent``
loads either: an ``.npz`` with numpy alone, a ``.zip`` through sb3-contrib (converted on load).
Without a path it loads the shipped 2-player base-game policy :data:`SHIPPED_POLICY`.

Two networks are read: SB3's ``MlpPolicy`` actor (``architecture`` "mlp": the flat observation,
``OBS_SIZE`` floats, through the hidden layers, ``tanh`` or ``relu``, to one logit per action id)
and the ``typed`` actor of ``five_towers_env/training/networks.py`` (weights shared across the
tower types; its forward pass is replayed here in numpy). Illegal actions are masked out.
Played deterministically (the most likely legal action) by default, or sampled.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.cards import NUM_TYPES
from ..environment.observation import OBS_SIZE
from . import typed_layout as TL

#: The policy trained by ``configs/ppo_selfplay_2p.yaml`` (see the README), shipped with the package.
SHIPPED_POLICY = Path(__file__).with_name("policies") / "ppo_2p_base.npz"
FORMAT = 2  # 2 added the "architecture" entry and the typed network; format 1 files are MLPs
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
_relu = _ACTIVATIONS["relu"]


def export_policy(model: Any, path: str | Path, **meta: Any) -> Path:
    """Write the actor of a ``MaskablePPO`` model as an ``.npz`` (float32 weights plus ``meta``)."""
    import torch.nn as nn

    policy = model.policy
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if hasattr(policy.action_net, "numpy_params"):  # the typed actor
        np.savez_compressed(path, format=FORMAT, architecture="typed", activation="relu", layers=0,
                            meta=repr(dict(meta)), **policy.action_net.numpy_params())
        return path
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m).__name__.lower() for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    if acts not in ({"tanh"}, {"relu"}):
        raise ValueError(f"cannot export activations {acts}; tanh or relu expected")
    arrays = {}
    for i, layer in enumerate(layers + [policy.action_net]):
        arrays[f"w{i}"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    if arrays["w0"].shape[1] != OBS_SIZE or arrays[f"w{len(layers)}"].shape[0] != NUM_ACTIONS:
        raise ValueError("the model's input/output sizes do not match this environment's observation/actions")
    np.savez_compressed(path, format=FORMAT, architecture="mlp", activation=acts.pop(), layers=len(layers) + 1,
                        meta=repr(dict(meta)), **arrays)
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
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: no {', '.join(map(repr, missing))} "
                             f"entr{'ies' if len(missing) > 1 else 'y'} (it holds {', '.join(data.files[:6]) or 'nothing'})")
        try:
            version = int(data["format"])
            arch = str(data["architecture"]) if "architecture" in data.files else "mlp"
            arrays = {k: data[k].astype(np.float32) for k in data.files if k.startswith(("w", "b", "typed."))}
            activation, meta = str(data["activation"]), ast.literal_eval(str(data["meta"]))
        except (ValueError, TypeError, SyntaxError, OSError) as e:
            raise ValueError(f"ppo: {path} is not a policy .npz/.zip: {e}") from e
        if version not in (1, FORMAT):
            raise ValueError(f"{path}: policy format {version}, this version reads 1 and {FORMAT}")
        return arch, arrays, activation, meta


class _TypedForward:
    """The ``typed`` actor's forward pass (``training/networks.py``) in numpy."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.w = {name: (arrays[f"typed.{name}.w"], arrays[f"typed.{name}.b"]) for name in TL.TYPED_LAYERS}
        if self.w["tenc.0"][0].shape[1] != TL.TYPE_INPUT or self.w["genc.0"][0].shape[1] != len(TL.GLOBAL_INDEX):
            raise ValueError("typed network sizes do not match this environment's observation")
        self.onehot = np.eye(NUM_TYPES, dtype=np.float32)

    def _lin(self, name: str, x: np.ndarray, batched: bool) -> np.ndarray:
        # one observation: einsum, not BLAS (see PolicyAgent.logits); a batch: BLAS pays off
        w, b = self.w[name]
        return (x @ w.T if batched else np.einsum("...i,ji->...j", x, w)) + b

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Logits for one observation ``(OBS_SIZE,)`` or a batch ``(B, OBS_SIZE)``."""
        batched = obs.ndim > 1

        def lin(name: str, x: np.ndarray) -> np.ndarray:
            return self._lin(name, x, batched)

        types = obs[..., TL.TYPE_INDEX]                                    # (..., 5, type input)
        per_type = np.concatenate([types, np.broadcast_to(self.onehot, types.shape[:-1] + (NUM_TYPES,))], axis=-1)
        enc = _relu(lin("tenc.2", _relu(lin("tenc.0", per_type))))
        glob = _relu(lin("genc.0", obs[..., TL.GLOBAL_INDEX]))
        trunk = _relu(lin("trunk.2", _relu(lin("trunk.0", np.concatenate([glob, enc.sum(-2), enc.max(-2)], axis=-1)))))
        shared = np.broadcast_to(trunk[..., None, :], enc.shape[:-1] + trunk.shape[-1:])
        type_logits = lin("thead.2", _relu(lin("thead.0", np.concatenate([enc, shared], axis=-1))))
        flat = type_logits.reshape(type_logits.shape[:-2] + (-1,))
        return np.concatenate([lin("ghead", trunk), flat], axis=-1)[..., TL.ACTION_ORDER]


class PolicyAgent:
    """Plays a trained policy network.

    Args:
        path: an exported ``.npz`` or a ``MaskablePPO`` ``.zip`` checkpoint; default: the shipped policy.
        seed: seeds the generator used when ``deterministic`` is False.
        deterministic: play the most likely legal action (default) or sample from the policy.
        name: the agent's name in reports.
    """

    def __init__(self, path: str | Path | None = None, seed: int | None = None,
                 deterministic: bool = True, name: str = "ppo") -> None:
        self.path = Path(path) if path is not None else SHIPPED_POLICY
        self.architecture, arrays, activation, self.meta = _load_arrays(self.path)
        if self.architecture not in ("mlp", "typed") or activation not in _ACTIVATIONS:
            raise ValueError(f"ppo: {self.path}: unknown architecture {self.architecture!r} or activation "
                             f"{activation!r} (this version reads mlp / typed and {', '.join(_ACTIVATIONS)})")
        try:
            self._typed = _TypedForward(arrays) if self.architecture == "typed" else None
            if self._typed is None:
                self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"])
                               for i in range(sum(k.startswith("w") for k in arrays))]
                if not self.layers:
                    raise KeyError("w0")
        except KeyError as e:
            raise ValueError(f"ppo: {self.path} is not a policy .npz/.zip: no weight entry {e}") from None
        if self._typed is None:
            if self.layers[0][0].shape[1] != OBS_SIZE or self.layers[-1][0].shape[0] != NUM_ACTIONS:
                raise ValueError(f"{self.path}: network sizes do not match this environment")
            self._act = _ACTIVATIONS[activation]
            # the observation is sparse: the first layer gathers the weight rows of its non-zero entries
            self._w0t = np.ascontiguousarray(self.layers[0][0].T)
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Re-seed the sampling generator."""
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one flat observation (or a batch of them)."""
        x = np.asarray(observation, dtype=np.float32)
        if self._typed is not None:
            return self._typed(x)
        if x.ndim == 1:
            # einsum instead of BLAS: a multi-threaded BLAS matrix-vector product can take
            # milliseconds on a busy machine (threads waiting for each other), einsum never does
            nz = np.flatnonzero(x)
            h = np.einsum("i,ij->j", x[nz], self._w0t[nz]) + self.layers[0][1]
            for w, b in self.layers[1:]:
                h = np.einsum("ij,j->i", w, self._act(h)) + b
            return h
        for w, b in self.layers[:-1]:
            x = self._act(x @ w.T + b)
        w, b = self.layers[-1]
        return x @ w.T + b

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The policy's choice among the legal actions of ``observation["action_mask"]``."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        logits = np.where(mask, self.logits(observation["observation"]), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(NUM_ACTIONS, p=p / p.sum()))

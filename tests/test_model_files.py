"""Loading a model runs no code by default (``five_towers_env/agents/sb3_zip.py``): ``sb3:path=`` and
``ppo:path=*.zip`` read a Stable-Baselines3 zip without unpickling anything, play a real model as SB3's own
``load`` does, and refuse in one line naming ``trust_pickles`` what they cannot read so; ``trust_pickles=true``
takes SB3's ``load``, which runs what the file carries.

Every crafted file is made here from a model saved in ``tmp_path``: its ``data`` entry gets a pickle that
creates a marker file when unpickled, so a test sees whether anything ran.
"""
from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="needs the rl extra: pip install -e '.[rl]'")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402

from five_towers_env.agents import make_agent  # noqa: E402
from five_towers_env.agents.sb3_agent import SB3Agent, load_model  # noqa: E402
from five_towers_env.agents.sb3_zip import PickledModelError  # noqa: E402
from five_towers_env.cli import main  # noqa: E402
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv  # noqa: E402

# pi/vf arches and a ReLU: policy_kwargs is saved as a pickle with readable attributes, the case to rebuild
KWARGS = {"net_arch": {"pi": [24, 16], "vf": [8]}, "activation_fn": torch.nn.ReLU}


class _Payload:
    """Unpickled, it creates the file ``path`` (``open(path, "w")``): the sign that a pickle ran."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory) -> Path:
    """A small MaskablePPO, trained a little on 5 Towers and saved by SB3."""
    torch.set_num_threads(1)
    path = tmp_path_factory.mktemp("models") / "maskable.zip"
    model = MaskablePPO("MlpPolicy", SingleAgentGymEnv(opponents="random"), n_steps=64, batch_size=64, n_epochs=1,
                        seed=0, device="cpu", policy_kwargs=KWARGS)
    model.learn(64).save(path)
    return path


def crafted(source: Path, out: Path, marker: Path, entry: str, **readable: str) -> Path:
    """``source`` with the pickle of ``data[entry]`` replaced by one that creates ``marker``, and its readable
    attributes updated with ``readable`` (what the file claims)."""
    with zipfile.ZipFile(source) as z:
        members = {name: z.read(name) for name in z.namelist()}
    data = json.loads(members["data"])
    data[entry] = {**data[entry], **readable, ":serialized:": base64.b64encode(pickle.dumps(_Payload(marker))).decode()}
    members["data"] = json.dumps(data, indent=4).encode()
    with zipfile.ZipFile(out, "w") as z:
        for name, raw in members.items():
            z.writestr(name, raw)
    return out


# the entry carrying the payload, and what it claims: each still loads without unpickling
LOADABLE = {
    "schedule": ("lr_schedule", {}),
    "policy_class": ("policy_class", {}),  # the pickle is evil, the readable name a known class
}
# a policy class of the attacker's own module: refused
FOREIGN = ("policy_class", {"__module__": "evil_module", "__init__": "<function EvilPolicy.__init__ at 0x0>"})


def _play(agent, env: SingleAgentGymEnv):
    aec = env._aec  # the learner's AEC observation, as an agent in its seat gets it
    return agent.act(aec.observe(aec.possible_agents[env.learner_seat]), env.learner_info())


def test_a_real_maskable_ppo_zip_plays_as_sb3s_own_load(model_zip):
    """Nothing unpickled, the same network: sb3 and ppo choose what SB3's loaded model predicts."""
    reference = MaskablePPO.load(model_zip, device="cpu")
    loaded = load_model(model_zip)
    assert loaded.algorithm == "MaskablePPO" and loaded.kind == "masked" and loaded.num_actions == 307
    mine, theirs = loaded.policy.state_dict(), reference.policy.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert str(loaded.policy.mlp_extractor) == str(reference.policy.mlp_extractor)  # ReLU, pi [24, 16], vf [8]
    sb3, ppo = SB3Agent(model_zip), make_agent("ppo", path=str(model_zip))
    env = SingleAgentGymEnv(opponents="random")
    obs, _ = env.reset(seed=4)
    for _ in range(30):
        expected, _ = reference.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert _play(sb3, env) == _play(ppo, env) == int(expected)
        obs, _, done, _, _ = env.step(int(expected))
        if done:
            obs, _ = env.reset()


@pytest.mark.parametrize("case", sorted(LOADABLE))
@pytest.mark.parametrize("agent", ["sb3", "ppo"])
def test_a_pickled_payload_is_never_run_by_default(model_zip, tmp_path, agent, case):
    marker = tmp_path / "ran"
    entry, claims = LOADABLE[case]
    path = crafted(model_zip, tmp_path / f"{case}.zip", marker, entry, **claims)
    player = make_agent(agent, path=str(path))
    env = SingleAgentGymEnv(opponents="random")
    env.reset(seed=1)
    assert _play(player, env) in env.learner_info()["legal_actions"]
    assert not marker.exists()


@pytest.mark.parametrize("agent", ["sb3", "ppo"])
def test_a_model_that_needs_unpickling_is_refused_in_one_line(model_zip, tmp_path, agent):
    marker = tmp_path / "ran"
    path = crafted(model_zip, tmp_path / "foreign.zip", marker, FOREIGN[0], **FOREIGN[1])
    with pytest.raises(PickledModelError) as caught:
        make_agent(agent, path=str(path))
    message = str(caught.value)
    assert f"{agent}:path={path},trust_pickles=true" in message and "evil_module.EvilPolicy" in message
    assert "\n" not in message and not marker.exists()


def run_cli(capsys, *argv: object) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("agent", ["sb3", "ppo"])
def test_the_command_line_refuses_it_with_exit_2_and_runs_nothing(model_zip, tmp_path, capsys, agent):
    marker = tmp_path / "ran"
    path = crafted(model_zip, tmp_path / "foreign.zip", marker, FOREIGN[0], **FOREIGN[1])
    code, _, err = run_cli(capsys, "play", "--agents", f"{agent}:path={path}", "random")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "trust_pickles=true" in err and "Traceback" not in err and not marker.exists()
    # a payload beside a model that loads: the game is played, nothing runs
    path = crafted(model_zip, tmp_path / "schedule.zip", marker, "lr_schedule")
    code, out, err = run_cli(capsys, "play", "--agents", f"{agent}:path={path}", "random")
    assert code == 0 and "Traceback" not in err and not marker.exists(), err


def test_five_towers_play_in_a_process_of_its_own(model_zip, tmp_path):
    """The installed command, as a user runs it: one line on stderr, exit 2, no marker."""
    marker = tmp_path / "ran"
    path = crafted(model_zip, tmp_path / "foreign.zip", marker, FOREIGN[0], **FOREIGN[1])
    done = subprocess.run([sys.executable, "-m", "five_towers_env.cli", "play", "--agents", f"sb3:path={path}",
                           "random"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "trust_pickles" in done.stderr and not marker.exists()


@pytest.mark.parametrize("agent", ["sb3", "ppo"])
def test_trust_pickles_takes_sb3s_own_load(model_zip, tmp_path, capsys, agent):
    marker = tmp_path / "ran"
    path = crafted(model_zip, tmp_path / "schedule.zip", marker, "lr_schedule")
    make_agent(agent, path=str(path))  # read safely first: the trusted load is not served from its cache
    assert not marker.exists()
    make_agent(agent, path=str(path), trust_pickles=True)
    assert marker.exists()  # unpickled: the old way, which runs what the file carries
    marker.unlink()
    path = crafted(model_zip, tmp_path / "foreign.zip", marker, FOREIGN[0], **FOREIGN[1])
    code, _, err = run_cli(capsys, "play", "--agents", f"{agent}:path={path},trust_pickles=true", "random")
    assert marker.exists() and code == 2 and "Traceback" not in err, err  # ran, then its class did not load


def test_weights_are_read_with_weights_only(model_zip, tmp_path):
    """A policy.pth holding more than tensors is refused, its pickle never run."""
    marker = tmp_path / "ran"
    with zipfile.ZipFile(model_zip) as z:
        members = {name: z.read(name) for name in z.namelist()}
    weights = tmp_path / "policy.pth"
    torch.save({"payload": _Payload(marker)}, weights)
    members["policy.pth"] = weights.read_bytes()
    path = tmp_path / "weights.zip"
    with zipfile.ZipFile(path, "w") as z:
        for name, raw in members.items():
            z.writestr(name, raw)
    for agent in ("sb3", "ppo"):
        with pytest.raises(PickledModelError, match="trust_pickles"):
            make_agent(agent, path=str(path))
    assert not marker.exists()


@pytest.mark.parametrize("entry, claims", [("policy_kwargs", {"net_arch": {"pi": [10**9], "vf": [8]}}),
                                           ("observation_space", {"_shape": [10**12]})])
def test_absurd_declared_sizes_are_refused_before_any_allocation(model_zip, tmp_path, entry, claims):
    marker = tmp_path / "ran"
    path = crafted(model_zip, tmp_path / "huge.zip", marker, entry, **claims)
    for agent in ("sb3", "ppo"):
        with pytest.raises(PickledModelError, match="trust_pickles"):
            make_agent(agent, path=str(path))
    assert not marker.exists()

"""The games a training run is judged by: evaluations during training (:func:`play_games`, in the
environment workers with :func:`evaluation_games`) and the final table (:func:`final_evaluation`); the
learning curve is drawn by :func:`~five_towers_env.training.run_folder.plot_curve`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.core.game import DEFAULT_GAME
from five_towers_env.training.ppo.config import TrainConfig
from five_towers_env.training.ppo.reward import shape_reward
from five_towers_env.training.ppo.turns import play_batched
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv


def play_games(agent: Any, num_players: int, variant: str, opponents: Any, games: int,
               seed: int, game: str, batch: int = 32) -> dict[str, float]:
    """Win rate (shared wins count), mean score and margin of ``agent`` (any agent of ``game``: it
    gets the game's usual ``agent_info``) over ``games`` seeded games in random seats; ``opponents``
    is a registry name of ``game`` or a pool sampler. An agent with ``act_batch`` (a policy network)
    plays ``batch`` games at a time, one network pass per step for all of them."""
    kwargs = {"opponent_sampler": opponents} if callable(opponents) else {"opponents": opponents}

    def make() -> SingleAgentGymEnv:
        return SingleAgentGymEnv(game, num_players=num_players, variant=variant, **kwargs)

    seeds = [seed + g for g in range(games)]
    if callable(getattr(agent, "act_batch", None)):
        finals = play_batched(agent, [make() for _ in range(min(batch, games))], seeds)
    else:
        gym_env = make()
        finals = []
        for s in seeds:
            obs, info = gym_env.reset(seed=s)
            terminated = False
            while not terminated:
                mask = gym_env.action_masks().astype(np.int8)
                action = agent.act({"observation": obs, "action_mask": mask}, gym_env.learner_info())
                obs, _, terminated, _, info = gym_env.step(action)
            finals.append(info)
    outcome = shape_reward(0.0)
    wins = score = margin = 0.0
    for info in finals:
        outcome(0.0, True, info)
        wins += info["episode_outcome"]["win"]
        score += info["episode_outcome"]["score"]
        margin += info["episode_outcome"]["margin"]
    return {"win_rate": wins / games, "score": score / games, "margin": margin / games}


def evaluation_games(policy: str, game: str, num_players: int, variant: str, opponents: Any, games: int,
                     seed: int) -> dict[str, float]:
    """:func:`play_games` of the exported policy at ``policy`` (picklable: it runs in an environment worker)."""
    agent = PolicyAgent(policy, game=game)
    return play_games(agent, num_players, variant, opponents, games, seed, game=game)


def evaluation_table(policy: str | Path, num_players: int, variant: str, opponents: list[str], games: int,
                     seed: int = 0, workers: int | None = 1, progress: bool = True,
                     *, game: str) -> list[dict[str, Any]]:
    """The policy against each baseline of ``game`` (``num_players - 1`` copies of it), seats rotated, over
    ``games`` seeded paired games: one row per baseline with the policy's
    :func:`~five_towers_env.evaluation.summary.summarize` row (win rate with a shared win counting 1/k,
    strict win rate, their 95% intervals clustered by deal, score and margin) and ``opponent``."""
    from five_towers_env.evaluation.match import evaluate

    rows = []
    for name in opponents:
        result = evaluate([("ppo", {"path": str(policy)})] + [name] * (num_players - 1), num_games=games,
                          num_players=num_players, variant=variant, seed=seed, workers=workers, progress=progress,
                          game=game)
        row = dict(result.agents[0])
        row["opponent"] = name
        rows.append(row)
    return rows


def format_evaluation_table(rows: list[dict[str, Any]]) -> str:
    """Rows of :func:`evaluation_table` as an aligned text table."""
    from five_towers_env.evaluation.report import text_table
    from five_towers_env.evaluation.summary import RATE_HEADERS, rate_cells

    headers = ["against", "games"] + RATE_HEADERS + ["mean score", "mean margin"]
    body = [[r["opponent"], str(r["games"])] + rate_cells(r) + [f"{r['mean_score']:.2f}", f"{r['mean_margin']:+.2f}"]
            for r in rows]
    return text_table(headers, body)


FINAL_EVAL_MD = "final_eval.md"
FINAL_EVAL_JSON = "final_eval.json"


def final_evaluation(policy: str | Path, cfg: TrainConfig, games: int, workers: int | None = 1,
                     progress: bool = True) -> str:
    """The evaluation table printed at the end of ``five-towers train``: :func:`evaluation_table`
    against ``cfg.eval_opponents`` (seed ``cfg.seed``), in each setup trained. Writes it into the run folder
    as ``final_eval.md`` (the same text) and ``final_eval.json`` (the settings and rows); returns the text."""
    from five_towers_env.evaluation.report import write_json, write_text
    from five_towers_env.evaluation.summary import WIN_CONVENTION

    title = "" if cfg.game == DEFAULT_GAME else f"{cfg.game}, "  # the default game's heading names no game
    texts, printed, all_rows = [], [], []
    for players, variant in cfg.setup_list:
        rows = evaluation_table(policy, players, variant, cfg.eval_opponents, games, seed=cfg.seed,
                                workers=workers, progress=progress, game=cfg.game)
        for row in rows:
            row.update(num_players=players, variant=variant)
        all_rows += rows
        head = f"{policy} against the baselines ({title}{players} players, {variant}, {games} games each):"
        table = format_evaluation_table(rows)
        texts.append(f"{head}\n\n```\n{table}\n```\n")
        printed.append(f"{head}\n{table}")
    write_text(cfg.run_dir / FINAL_EVAL_MD, "\n".join(texts) + f"\n{WIN_CONVENTION}\n")
    setups = [{"num_players": n, "variant": v} for n, v in cfg.setup_list]
    write_json(cfg.run_dir / FINAL_EVAL_JSON,
               {"policy": str(policy), "game": cfg.game, "num_players": setups[0]["num_players"],
                "variant": setups[0]["variant"], "setups": setups, "games": games, "seed": cfg.seed,
                "paired": True, "win_convention": WIN_CONVENTION, "rows": all_rows})
    return "\n".join(printed) + f"\n({WIN_CONVENTION})"

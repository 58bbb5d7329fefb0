"""Both games in OpenSpiel: its bots play them the ordinary way, then play in our evaluation.

Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``). For each game this script

1. loads it with ``pyspiel.load_game`` (importing ``five_towers_env.integrations.openspiel`` registers
   ``python_five_towers`` and ``python_campanile``),
2. plays games between OpenSpiel's search bot (``MCTSBot`` for 5 Towers, which has perfect
   information with chance; ``ISMCTSBot`` for Campanile, whose hands are hidden) and OpenSpiel's
   uniform random bot, in OpenSpiel's usual loop: chance outcomes sampled from
   ``state.chance_outcomes()``, ``bot.step(state)`` for the player on move,
3. and plays the same bots as our agents (``openspiel-mcts``, ``openspiel-ismcts``) against our
   heuristic with :func:`five_towers_env.evaluation.evaluate` (seat-rotated, seeded games).

    python examples/openspiel_bots.py --games 2 --simulations 50
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import five_towers_env.integrations.openspiel  # noqa: F401  (registers the games with pyspiel)
from five_towers_env.evaluation import evaluate


def make_bot(game: pyspiel.Game, simulations: int, rng: np.random.RandomState) -> pyspiel.Bot:
    """MCTS with random rollouts where every seat sees everything, information-set MCTS where cards are hidden."""
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        return mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=rng)
    sampler = pyspiel.UniformProbabilitySampler(int(rng.randint(2**31)), 0.0, 1.0)  # seeded: repeatable games
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


def play(game: pyspiel.Game, bots: list, rng: np.random.RandomState) -> list[float]:
    """One game in OpenSpiel's usual loop; the players' returns."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state.returns()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per game and part (default 2)")
    parser.add_argument("--simulations", type=int, default=50, help="search simulations per move (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.RandomState(args.seed)
    for name, ours in (("python_five_towers(players=2)", "openspiel-mcts"),
                       ("python_campanile(players=2,variant=pile)", "openspiel-ismcts")):
        game = pyspiel.load_game(name)
        start, wins = time.time(), 0.0
        for i in range(args.games):
            seat = i % 2  # the search bot takes each seat in turn
            bots = [make_bot(game, args.simulations, rng) if s == seat else pyspiel.make_uniform_random_bot(s, i)
                    for s in range(2)]
            wins += play(game, bots, rng)[seat] > 0
        print(f"{name}: the search bot won {wins:.0f} of {args.games} games against uniform random "
              f"({time.time() - start:.1f} s)")
        result = evaluate([f"{ours}:simulations={args.simulations}", "heuristic"], num_games=args.games,
                          game=game.get_type().short_name.removeprefix("python_"), seed=args.seed, progress=False)
        row = result.agents[0]
        print(f"  as our agent {ours}: win rate {row['win_rate']:.3f} against the heuristic in {row['games']} games")


if __name__ == "__main__":
    main()

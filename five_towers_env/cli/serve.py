"""``five-towers serve``: a local web page to play against the agents (``human`` seats are the page's) or watch
them play, with the seats and agents of ``five-towers play``. The server (:mod:`five_towers_env.web`, the ``web``
extra) is imported only when this command runs."""
from __future__ import annotations

import argparse
import importlib.util
import sys

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.limits import DEFAULT_TABLES, MAX_TABLES

#: the port when none is given (not 8000, which `mkdocs serve` and many other tools take)
DEFAULT_PORT = 8765


def port(text: str) -> int:
    """``--port``: 0 (a free port, printed) to 65535."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 (any free port) to 65535, got {text!r}")
    return n


def tables(text: str) -> int:
    """``--max-games``: 1 to :data:`MAX_TABLES`."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_TABLES:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to {MAX_TABLES:,}, got {text!r}")
    return n


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help="a local web page to play against the agents (human: you) or watch them play")
    p.add_argument("--agents", nargs="+", default=["human", "random"], metavar="AGENT",
                   help=a.AGENT_HELP + "; human seats are the page's, and with none the page watches the agents "
                                       "(default: human random)")
    p.add_argument("--players", type=a.players, help="seats (default: the number of agents; agents repeat to fill)")
    a.add_variant(p)
    a.add_game(p)
    p.add_argument("--seed", type=a.nonneg, default=None,
                   help="run seed, for reproducible sessions: game N of the server deals and seats as `five-towers "
                        "play --game-index N --unpaired` with this seed, so anyone who knows it can rebuild the "
                        "deals (the page says so); default: each game's own seed, drawn from the operating "
                        "system and shown once the game is over")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only); any other address "
                        "needs --allow-remote")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a --host that other machines reach; the server then prints its address with a "
                        "random token (?token=...), and refuses every request without it (the page has no login)")
    p.add_argument("--port", type=port, default=DEFAULT_PORT,
                   help=f"the port (default {DEFAULT_PORT}; 0: any free port, printed)")
    p.add_argument("--hint", metavar="AGENT",
                   help="a search agent (mcts, guided, with settings) whose top moves and their values the page "
                        "shows for a person's decision, on request")
    p.add_argument("--move-timeout", type=a.seconds, default=60.0, metavar="SECONDS",
                   help="seconds an agent may think about one move (or a hint) before its game is stopped "
                        "(default 60)")
    p.add_argument("--max-games", type=tables, default=DEFAULT_TABLES, metavar="N",
                   help="games kept at once, one per page; past that the one left alone longest is forgotten "
                        f"(default {DEFAULT_TABLES})")
    p.add_argument("--open", action="store_true", help="open the page in this machine's web browser")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    missing = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
    if missing:
        parser.error(f"the web extra is not installed ({', '.join(missing)} missing): pip install -e \".[web]\"")
    check_host(parser, args)
    a.check_setup(parser, args, seated=len(args.agents))
    a.check_agents(parser, args.agents, args.game, people=True)
    check_fit(parser, args)
    if args.hint is not None:
        check_hint(parser, args)


def check_host(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--host``: an address without spaces or control characters; one other than this machine's loopback
    needs ``--allow-remote``."""
    from five_towers_env.web.access import is_loopback

    host = args.host
    if not host or not host.isprintable() or any(c.isspace() for c in host):
        parser.error(f"argument --host: must be an address to listen on, e.g. 127.0.0.1, got {host!r:.60}")
    if not is_loopback(host) and not args.allow_remote:
        parser.error(f"argument --host: {host} is reached from other machines and the page has no login: add "
                     "--allow-remote (the server then needs the token in the address it prints)")


def check_fit(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """An agent that cannot play the setup (a shipped policy made for another one) is refused before the server
    starts, not on the page at its first move."""
    from five_towers_env.agents.registry import is_interactive
    from five_towers_env.evaluation.runner import check_setups
    from five_towers_env.evaluation.specs import resolve_specs

    agents = [text for text in args.agents if not is_interactive(text, game=args.game)]
    try:
        check_setups(resolve_specs(agents, args.game) if agents else [], args.players or max(2, len(args.agents)),
                     args.variant)
    except ValueError as exc:
        parser.error(f"argument --agents: {' '.join(str(exc).split())}")


def check_hint(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--hint`` must name an agent that searches and keeps the values it found (see :mod:`five_towers_env.web.hints`),
    with what it plays from shipped for the setup."""
    from five_towers_env.agents.registry import files_played_from, is_interactive
    from five_towers_env.core.game import get_game
    from five_towers_env.evaluation.specs import resolve_specs
    from five_towers_env.web.hints import gives_values

    if is_interactive(args.hint, game=args.game):
        parser.error(f"argument --hint: {args.hint} is a person: name a search agent (mcts, guided)")
    a.check_agents(parser, [args.hint], args.game, argument="--hint")
    agent = resolve_specs([args.hint], args.game)[0].build(0)
    if not gives_values(agent):
        parser.error(f"argument --hint: {args.hint} keeps no values of the moves it weighs: name a search agent "
                     "(mcts, guided)")
    num_players = args.players or max(2, len(args.agents))
    if files_played_from(args.hint, num_players, args.variant, game=args.game) is None:
        spec = get_game(args.game)
        parser.error(f"argument --hint: {args.hint}: {spec.title} ships no file it plays in {num_players}p-"
                     f"{args.variant}; give path=... or another agent")


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Serve games of the setup until interrupted (Ctrl-C)."""
    import webbrowser

    from five_towers_env.core.game import get_game
    from five_towers_env.web.access import is_loopback
    from five_towers_env.web.app import serve
    from five_towers_env.web.tables import Setup

    num_players = args.players or max(2, len(args.agents))
    setup = Setup(args.game, args.variant, num_players, tuple(args.agents), args.seed, args.move_timeout,
                  args.hint, args.max_games)
    title = get_game(args.game).title
    seeds = (f"seed {args.seed}: anyone who knows it can rebuild the deals" if args.seed is not None
             else "a fresh seed each game")

    def announce(address: str) -> None:
        print(f"five-towers serve: {address}  ({title}, {num_players} players, {args.variant}; agents "
              f"{', '.join(args.agents)}; {seeds}; Ctrl-C stops)", flush=True)
        if not is_loopback(args.host):
            print(f"five-towers serve: listening on {args.host} for other machines: the page needs the token in "
                  "this address; anyone given it can play", file=sys.stderr, flush=True)
        if args.open:
            webbrowser.open(address)

    try:
        serve(setup, args.host, args.port, announce, allow_remote=args.allow_remote)
    except OSError as exc:
        reason = exc.strerror or " ".join(str(exc).split())
        print(f"five-towers serve: error: cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    print("five-towers serve: stopped")
    return 0

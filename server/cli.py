"""The server's ``ballroom`` commands: serve, deal, odds and tournament verify.

Registered under the ``ballroom.commands`` entry point (see
:mod:`protocol.cli`). ``python -m server.cli`` runs these commands alone, the
way the launcher, the benches and the tests start a node.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

from protocol.cli import Commands, main
from protocol.text import render_view
from server import arguments, solve_command, winnable_command
from server.engine import DEAL_VERSION, VARIANTS, find_variant
from server.rules.expert import ExpertBudget, budget_for
from server.rules.odds import measure_odds
from server.settings import EventLoop

__all__ = ["legal_line", "register"]


def legal_line(moves: list[str]) -> str:
    """The ``legal:`` line: moves separated by ", ", since one move may hold spaces
    (Virginia Reel's ``swap p4 p19``) but never a comma."""
    return "legal: " + ", ".join(moves)


def _deal(args: argparse.Namespace) -> int:
    game = find_variant(args.variant)
    state = game.deal(args.seed, args.deal_version)
    print(f"{game.title}, deal {args.seed} (deal version {args.deal_version})")
    print(render_view(game.layout, game.view(state)))
    print(legal_line(game.legal_moves(state).texts()))
    return 0


def _odds(args: argparse.Namespace) -> int:
    names = sorted(VARIANTS) if args.variant == "all" else [args.variant]
    deals = max(args.n, args.bot_n) if args.solver else args.n
    past = arguments.seeds_past_last(args.seed_base, deals)
    if past is not None:
        print(f"ballroom odds: error: {past}", file=sys.stderr)
        return 2
    if args.solver:
        return solve_command.run_odds(args, names)
    for name in names:
        result = measure_odds(
            find_variant(name),
            args.n,
            args.seed_base,
            args.strategy,
            clock=time.perf_counter,
            budget=_expert_budget(name, args),
        )
        print(result.summary(), flush=True)
    return 0


def _expert_budget(variant: str, args: argparse.Namespace) -> ExpertBudget:
    """The rule set's own expert budget, with what the command line says instead."""
    budget = budget_for(variant)
    samples = budget.samples if args.samples is None else args.samples
    return dataclasses.replace(budget, samples=samples, nodes=args.nodes or 0)


def _serve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from server.serve import Launch, ServeError, run_server
    from server.settings import Settings

    settings = Settings.from_env(
        host=args.host,
        port=args.port,
        redis_url=args.redis,
        data_dir=args.data_dir,
        allowed_origins=tuple(args.allowed_origin) or None,
        node=args.node,
        event_loop=EventLoop(args.loop) if args.loop else None,
    )
    launch = Launch(
        workers=args.workers,
        listen_fd=args.listen_fd,
        parent=args.parent,
        temporary_dir=Path(args.temporary_dir) if args.temporary_dir else None,
    )
    try:
        run_server(settings, launch)
    except ServeError as exc:
        print(f"ballroom serve: {exc}", file=sys.stderr)
        return 1
    return 0


def _workers(text: str) -> int:
    from server.supervisor import worker_count

    try:
        return worker_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _tournament_verify(args: argparse.Namespace) -> int:
    import json

    from protocol.exceptions import InvalidField
    from server.rules.record import verify

    try:
        with open(args.file, encoding="utf-8") as source:
            record = json.load(source)
        problems = verify(record)
    except OSError as exc:
        print(
            f"ballroom tournament verify: cannot read {args.file}: {exc.strerror}", file=sys.stderr
        )
        return 1
    except InvalidField as exc:  # before ValueError, of which it is one
        print(
            f"ballroom tournament verify: {args.file} is not a tournament record "
            f"(ballroom tournament export writes one): {exc.field}: {exc.reason}",
            file=sys.stderr,
        )
        return 1
    except ValueError as exc:  # JSONDecodeError is one
        print(f"ballroom tournament verify: {args.file} is not JSON: {exc}", file=sys.stderr)
        return 1
    except RecursionError:  # the decoder recurses once per level of nesting
        print(
            f"ballroom tournament verify: {args.file} is not JSON this can read:"
            " it is nested too deeply",
            file=sys.stderr,
        )
        return 1
    for problem in problems:
        print(problem)
    races = len(record.get("races", ())) if isinstance(record, dict) else 0
    if problems:
        print(f"{len(problems)} problem(s) in {races} races", file=sys.stderr)
        return 1
    print(f"verified: {races} races, every seed matches its commitment and every log replays")
    return 0


def register(commands: Commands) -> None:
    """Add the server's commands to ``ballroom``."""
    variants = sorted(VARIANTS)

    deal = commands.top.add_parser("deal", help="print the opening layout of a deal")
    deal.add_argument("variant", choices=variants)
    deal.add_argument("--seed", type=arguments.seed, required=True)
    deal.add_argument("--deal-version", type=arguments.deal_version, default=DEAL_VERSION)
    deal.set_defaults(run=_deal)

    odds = commands.top.add_parser("odds", help="win rate of the bot over N seeded deals")
    odds.add_argument("variant", choices=[*variants, "all"])
    odds.add_argument(
        "-n",
        type=arguments.whole("the number of deals", 1),
        default=1000,
        help="number of deals (default 1000)",
    )
    odds.add_argument("--seed-base", type=arguments.seed, default=0, help="first seed (default 0)")
    odds.add_argument("--strategy", choices=["greedy", "random", "expert"], default="greedy")
    odds.add_argument(
        "--samples",
        type=arguments.whole("the number of samples", 1),
        default=None,
        help=f"expert: deals of the unseen cards per choice (default {ExpertBudget().samples}, "
        "or the rule set's own: server/rules/expert.py; with --nodes N, a solver call of N "
        "positions per sample before its greedy play-out)",
    )
    solve_command.add_odds_options(odds)
    odds.set_defaults(run=_odds)
    solve_command.add_parser(commands.top)
    winnable_command.add_parser(commands.top)

    serve = commands.top.add_parser("serve", help="run a server node")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=arguments.whole("a port", 0, 65535), default=8765)
    serve.add_argument(
        "--redis",
        default=None,
        help="Redis URL, or redis+cluster://host:port for a Redis Cluster "
        "(default: $REDIS_URL or embedded)",
    )
    serve.add_argument("--data-dir", default="var/redis", help="embedded Redis data directory")
    serve.add_argument(
        "--allowed-origin",
        type=arguments.origin,
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a site (e.g. https://watch.example.org) whose pages may connect; repeatable "
        "(the node's own page always may)",
    )
    serve.add_argument(
        "--loop",
        choices=[kind.value for kind in EventLoop],
        default=None,
        help="event loop: auto (default, or $BALLROOM_LOOP: uvloop where installed), asyncio "
        "or uvloop",
    )
    serve.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help="node processes sharing the port: a number, or 'auto' for one per core (default 1)",
    )
    # Set by the supervisor for its workers and by `ballroom play` for its
    # private server; not for people, so not in --help.
    serve.add_argument("--node", default=None, help=argparse.SUPPRESS)
    serve.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)
    serve.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)
    serve.add_argument("--temporary-dir", default=None, help=argparse.SUPPRESS)
    serve.set_defaults(run=_serve)

    check = commands.tournament.add_parser(
        "verify", help="check an exported JSON record: seeds and logs"
    )
    check.add_argument("file")
    check.set_defaults(run=_tournament_verify)


if __name__ == "__main__":
    sys.exit(main(registers=[register]))

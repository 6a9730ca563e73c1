"""``ballroom solve`` and ``ballroom odds --solver``: the solver from the command line.

Kept apart from the rest of the command-line code so that it can be
registered with two calls: :func:`add_parser` for ``solve`` and
:func:`add_odds_options` for the ``odds`` command's ``--solver``.

A line is written as its moves in the protocol's text separated by commas
(``deal, w>f1, swap p3 p9``); a line file may also hold one move per line.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from server import arguments
from server.engine import (
    DEAL_VERSION,
    VARIANTS,
    find_variant,
)
from server.engine.solver import DEFAULT_SECONDS, Outcome, Solution, line_fault, solve_deal
from server.rules.odds import measure_odds
from server.rules.solver_odds import ODDS_HEADER, expert_cells, odds_row, tally

__all__ = ["add_odds_options", "add_parser", "parse_line", "run", "run_odds"]

HEADLINES = {
    Outcome.WINNABLE: "winnable",
    Outcome.UNWINNABLE: "unwinnable (proved)",
    Outcome.UNKNOWN: "unknown within limits",
}


def _add_limits(parser: argparse.ArgumentParser) -> None:
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument(
        "--limit",
        type=arguments.positive_seconds,
        default=None,
        metavar="SECONDS",
        help=f"time limit per deal (default {DEFAULT_SECONDS:g} s)",
    )
    limits.add_argument(
        "--nodes",
        type=arguments.whole("the node limit", 1),
        default=None,
        metavar="N",
        help="node limit instead of a time limit",
    )


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``solve`` on a subcommand set."""
    solve = commands.add_parser(
        "solve", help="decide a deal with the solver, or check a line with --verify"
    )
    solve.add_argument("variant", choices=sorted(VARIANTS))
    solve.add_argument("--seed", type=arguments.seed, required=True)
    solve.add_argument("--deal-version", type=arguments.deal_version, default=DEAL_VERSION)
    _add_limits(solve)
    solve.add_argument(
        "--verify", action="store_true", help="replay --line (or --line-file) instead of solving"
    )
    solve.add_argument("--line", default=None, help='moves separated by commas: "deal, w>f1"')
    solve.add_argument("--line-file", default=None, help="a file of moves (commas or lines)")
    solve.set_defaults(run=run)


def add_odds_options(odds: argparse.ArgumentParser) -> None:
    """Add ``--solver`` and its limits to the ``odds`` command."""
    odds.add_argument(
        "--solver", action="store_true", help="the share of winnable deals, by the solver"
    )
    _add_limits(odds)
    odds.add_argument(
        "--jobs",
        type=arguments.whole("the number of processes", 1),
        default=1,
        metavar="J",
        help="solver processes (default 1)",
    )
    odds.add_argument(
        "--bot-n",
        type=arguments.whole("the number of deals", 1),
        default=1000,
        metavar="N",
        help="deals for the greedy bot's column of --solver (default 1000)",
    )
    odds.add_argument(
        "--keep-expert",
        type=Path,
        default=None,
        metavar="FILE",
        help="--solver: the odds table whose expert bot cells the new table keeps "
        "(measured apart with --strategy expert; default docs/odds.md, if there)",
    )


#: The odds table whose expert bot cells ``odds --solver`` keeps unless told another.
ODDS_TABLE = Path("docs/odds.md")


def parse_line(text: str) -> list[str]:
    """Moves from a line's text: separated by commas or newlines, blanks ignored."""
    return [move.strip() for move in text.replace("\n", ",").split(",") if move.strip()]


def _limits(args: argparse.Namespace) -> tuple[float | None, int | None]:
    if args.nodes is not None:
        return None, args.nodes
    return (DEFAULT_SECONDS if args.limit is None else args.limit), None


def run(args: argparse.Namespace) -> int:
    """``ballroom solve``: 0 when done (or the line wins), 1 for a line that does not win."""
    if args.verify:
        return _verify(args)
    if args.line is not None or args.line_file is not None:
        print("ballroom solve: --line and --line-file need --verify", file=sys.stderr)
        return 2
    game = find_variant(args.variant)
    seconds, nodes = _limits(args)
    solution = solve_deal(
        game, args.seed, args.deal_version, seconds=seconds, nodes=nodes, clock=time.monotonic
    )
    print(HEADLINES[solution.outcome])
    if solution.won:
        print(f"line ({len(solution.line)} moves): {', '.join(solution.line)}")
    rate = solution.nodes / solution.elapsed if solution.elapsed > 0 else 0.0
    print(f"nodes {solution.nodes}, time {solution.elapsed:.2f} s ({rate:,.0f} nodes/s)")
    return 0


def _verify(args: argparse.Namespace) -> int:
    if (args.line is None) == (args.line_file is None):
        print(
            "ballroom solve --verify: give exactly one of --line and --line-file", file=sys.stderr
        )
        return 2
    text = (
        args.line
        if args.line_file is None
        else _text_of(args.line_file, "ballroom solve --verify: cannot read")
    )
    if text is None:  # the file could not be read, and it was said
        return 2
    moves = parse_line(text)
    game = find_variant(args.variant)
    fault = line_fault(game, game.deal(args.seed, args.deal_version), moves)
    if fault is None:
        print(f"wins: {len(moves)} moves, every card home")
        return 0
    print(f"does not win: {fault}")
    return 1


def _text_of(path: str | Path, failing: str) -> str | None:
    """The UTF-8 text of a file the command line named, or None once ``failing``, the
    file and why are said on stderr."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else "it is not UTF-8 text"
        print(f"{failing} {path}: {why}", file=sys.stderr)
        return None


def _solve_seed(variant: str, seed: int, seconds: float | None, nodes: int | None) -> Solution:
    """One deal's solve, in a worker of ``--jobs``."""
    game = find_variant(variant)
    return solve_deal(game, seed, seconds=seconds, nodes=nodes, clock=time.monotonic)


def run_odds(args: argparse.Namespace, names: Sequence[str]) -> int:
    """``ballroom odds --solver``: the odds table of ``docs/odds.md``, one row per rule set.

    Each row: the solver's answers on deals ``--seed-base`` onwards (``-n``
    of them, each within the limit, spread over ``--jobs`` processes), and
    the greedy bot's win rate on ``--bot-n`` deals from the same seed; the
    expert bot's cell as ``--keep-expert``'s table has it (measured apart).
    """
    kept = args.keep_expert
    if kept is None:  # the default table may be absent: the column then says so
        default = ODDS_TABLE.read_text(encoding="utf-8") if ODDS_TABLE.is_file() else ""
        expert = expert_cells(default)
    else:
        table = _text_of(kept, "ballroom odds: cannot read --keep-expert")
        if table is None:
            return 2
        expert = expert_cells(table)
    seconds, nodes = _limits(args)
    limit = f"{nodes} positions" if nodes is not None else f"{seconds:g} s"
    print(
        f"solver: {args.n} deals per rule set from seed {args.seed_base}, {limit} per deal; "
        f"greedy bot: {args.bot_n} deals from seed {args.seed_base}",
        flush=True,
    )
    print(ODDS_HEADER, flush=True)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for name in names:
            seeds = range(args.seed_base, args.seed_base + args.n)
            if pool is None:
                solutions = [_solve_seed(name, seed, seconds, nodes) for seed in seeds]
            else:
                count = len(seeds)
                solutions = list(
                    pool.map(_solve_seed, [name] * count, seeds, [seconds] * count, [nodes] * count)
                )
            solver = tally(name, solutions)
            greedy = measure_odds(
                find_variant(name), args.bot_n, args.seed_base, "greedy", clock=time.perf_counter
            )
            print(odds_row(solver, greedy, expert.get(name)), flush=True)
    finally:
        if pool is not None:
            pool.shutdown()
    return 0

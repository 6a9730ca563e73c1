"""``ballroom winnable``: check that a race's winnable deal was its draw's first winnable one.

The results of a race that asked for a winnable deal reveal its seed, the
secret draw it was chosen from, the candidate's number and its winning line
(docs/protocol.md, "Winnable deals"); this command checks all of it
(:func:`~server.rules.winnable.check_choice`) and says what is wrong, if anything.
"""

from __future__ import annotations

import argparse

from server import arguments
from server.engine import DEAL_VERSION, VARIANTS, find_variant
from server.rules.winnable import CANDIDATES, NODES, check_choice, check_fallback
from server.solve_command import parse_line

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    """Check a revealed winnable deal: 0 when it checks out, 1 (with the reasons) if not."""
    game = find_variant(args.variant)
    if not args.line:  # a fallback deal: only that it is candidate 0 of the draw
        ok = check_fallback(
            game.id, args.deal_version, draw=args.draw, pick=args.pick, seed=args.seed
        )
        print("fallback deal: candidate 0 of the draw" if ok else "not candidate 0 of the draw")
        return 0 if ok else 1
    problems = check_choice(
        game, args.deal_version, draw=args.draw, pick=args.pick, seed=args.seed,
        line=parse_line(args.line), nodes=args.nodes,
    )  # fmt: skip
    for problem in problems:
        print(f"✗ {problem}")
    if problems:
        return 1
    print(f"✓ the first winnable candidate of the draw (candidate {args.pick}); the line wins")
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``winnable`` on a subcommand set."""
    check = commands.add_parser(
        "winnable", help="check that a winnable deal was the first winnable one of its draw"
    )
    check.add_argument("variant", choices=sorted(VARIANTS))
    check.add_argument("--draw", type=arguments.draw, required=True, help="the results' draw")
    check.add_argument(
        "--pick",
        type=arguments.whole("a pick", 0, CANDIDATES - 1),
        required=True,
        help="the results' pick",
    )
    check.add_argument("--seed", type=arguments.seed, required=True, help="the results' seed")
    check.add_argument("--deal-version", type=arguments.deal_version, default=DEAL_VERSION)
    check.add_argument("--line", default="", help='the results\' line: "deal, w>f1, ..."')
    check.add_argument(
        "--nodes", type=arguments.whole("the node limit", 1), default=NODES, help=argparse.SUPPRESS
    )
    check.set_defaults(run=run)

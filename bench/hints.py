"""What a hint answers: the share of racers' positions it gives a winning line for.

Run: ``.venv/bin/python -m bench.hints [--deals N] [--at 0,20,40] [--limit SECONDS |
--nodes N] [variant ...]``

A racer asks for a hint from wherever they are, so the positions are those
a racer reaches: the greedy bot's play of deals 0..N-1 (the same bot as
``ballroom odds``), taken after 0, 20 and 40 of its moves (``--at``; a
game over sooner gives fewer). Each is solved as a hint solves it
(:data:`server.settings.Solving.hint`, 0.8 s, timed here by the process's
CPU time, so that other work on the machine does not count), and the
answer is one of: a winning line (the hint is its next move), lost (proved:
"no winning line from here"), or unknown (the hint is the most promising
move, :func:`~server.engine.solver.first_choice`). A won position counts
as neither and is left out. ``--nodes N`` bounds each solve by positions
instead: the same answer on any machine, for a before/after comparison on a
shared one.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.policy import make_policy
from server.engine import VARIANTS, Game, State, find_variant
from server.engine.solver import Outcome, solve
from server.settings import Solving


@dataclass(frozen=True, slots=True)
class HintFigures:
    """One rule set's hints."""

    variant: str
    positions: int
    lines: int
    lost: int
    median: float

    @property
    def unknown(self) -> int:
        return self.positions - self.lines - self.lost


def racers_positions(game: Game, seed: int, at: Sequence[int]) -> list[State]:
    """The greedy bot's positions of deal ``seed`` after ``at`` moves, while not over."""
    policy = make_policy("greedy", game.layout, seed)
    state, found = game.deal(seed), []
    for moves in range(max(at) + 1):
        legal = game.legal_moves(state)
        if not legal or game.is_won(state):
            break
        if moves in at:
            found.append(state)
        state = game.apply(state, policy.choose(game.view(state), legal))
    return found


def measure(
    game: Game, deals: int, at: Sequence[int], limit: float, nodes: int | None
) -> HintFigures:
    """Solve the racers' positions of deals 0..``deals``-1 as hints: within ``limit`` CPU
    seconds each, or ``nodes`` positions."""
    lines = lost = 0
    seconds: list[float] = []
    positions = [p for seed in range(deals) for p in racers_positions(game, seed, at)]
    for state in positions:
        if nodes is None:
            solution = solve(game, state, seconds=limit, clock=time.process_time)
        else:
            solution = solve(game, state, nodes=nodes, clock=time.process_time)
        seconds.append(solution.elapsed)
        lines += solution.outcome is Outcome.WINNABLE
        lost += solution.outcome is Outcome.UNWINNABLE
    median = statistics.median(seconds) if seconds else 0.0
    return HintFigures(game.id, len(positions), lines, lost, median)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--deals", type=int, default=20, help="deals per rule set (default 20)")
    parser.add_argument("--at", default="0,20,40", help="moves into each game (default 0,20,40)")
    parser.add_argument(
        "--limit", type=float, default=Solving().hint, help="CPU seconds per hint (0.8)"
    )
    parser.add_argument("--nodes", type=int, help="positions per hint, not seconds")
    args = parser.parse_args(argv)
    at = sorted({int(n) for n in args.at.split(",")})
    bound = f"{args.nodes} positions" if args.nodes else f"{args.limit} CPU s"
    print(f"deals 0-{args.deals - 1}, positions after {at} greedy moves, {bound} a hint")
    print("| rule set | positions | winning line | lost | unknown | median s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in args.variants:
        f = measure(find_variant(name), args.deals, at, args.limit, args.nodes)
        share = f"{f.lines / f.positions:.0%}" if f.positions else "-"
        print(
            f"| {f.variant} | {f.positions} | {f.lines} ({share}) | {f.lost} | {f.unknown} "
            f"| {f.median:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Solver speed per variant: seconds per deal (median, p95), unknown share, nodes/s.

Run: ``.venv/bin/python bench/solver.py [--deals N] [--limit SECONDS | --nodes N] [variant ...]``

Each variant's deals ``--seed-base`` .. ``--seed-base + N - 1`` are solved
one after another on one core, each within ``--limit`` seconds (the solver's
default is 10 s; a smaller limit keeps a run short, and a deal that hits it
counts as unknown and as taking the whole limit). "nodes/s" is all positions
searched over all time spent. ``--nodes N`` limits each deal to N positions
instead of a time: the unknown share is then the same on any machine and
under any load, which makes a before/after comparison on a shared machine fair.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from server.engine import VARIANTS, find_variant
from server.engine.solver import DEFAULT_SECONDS, Outcome, solve_deal


@dataclass(frozen=True, slots=True)
class SolverBench:
    """One variant's figures."""

    variant: str
    deals: int
    median: float
    p95: float
    winnable: int
    unknown: int
    nodes_per_second: float


def bench_variant(
    variant: str,
    deals: int,
    limit: float | None,
    seed_base: int = 0,
    node_limit: int | None = None,
) -> SolverBench:
    game = find_variant(variant)
    times: list[float] = []
    counts = dict.fromkeys(Outcome, 0)
    nodes = 0
    start = time.perf_counter()
    for seed in range(seed_base, seed_base + deals):
        solution = solve_deal(game, seed, seconds=limit, nodes=node_limit)
        times.append(solution.elapsed)
        counts[solution.outcome] += 1
        nodes += solution.nodes
    spent = time.perf_counter() - start
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return SolverBench(
        variant,
        deals,
        statistics.median(times),
        p95,
        counts[Outcome.WINNABLE],
        counts[Outcome.UNKNOWN],
        nodes / spent if spent else 0.0,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variants", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--deals", type=int, default=20, help="deals per variant (default 20)")
    parser.add_argument(
        "--limit", type=float, default=DEFAULT_SECONDS, help="seconds per deal (default 10)"
    )
    parser.add_argument("--nodes", type=int, default=None, help="positions per deal, not seconds")
    parser.add_argument("--seed-base", type=int, default=0)
    args = parser.parse_args()
    limit = None if args.nodes is not None else args.limit
    per_deal = f"{args.nodes} positions" if limit is None else f"{limit:g} s"
    print(f"{args.deals} deals per variant, limit {per_deal} per deal")
    print(
        f"| {'variant':26} | {'median s':>8} | {'p95 s':>6} | {'winnable':>8} "
        f"| {'unknown':>7} | {'nodes/s':>8} |"
    )
    print(f"| {'-' * 26} | {'-' * 7}: | {'-' * 5}: | {'-' * 7}: | {'-' * 6}: | {'-' * 7}: |")
    for variant in args.variants:
        row = bench_variant(variant, args.deals, limit, args.seed_base, args.nodes)
        print(
            f"| {variant:26} | {row.median:8.2f} | {row.p95:6.2f} | {row.winnable:8d} "
            f"| {100 * row.unknown / row.deals:6.0f}% | {row.nodes_per_second:8.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()

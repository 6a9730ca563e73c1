"""Solver speed and reach per rule set: decided share, seconds per deal, positions/s per core.

Run: ``.venv/bin/python bench/solver.py [--deals N] [--limit SECONDS | --nodes N]
[--jobs J] [--out FILE] [variant ...]``

Each rule set's deals ``--seed-base`` .. ``--seed-base + N - 1`` are solved,
each within ``--limit`` seconds (the solver's default is 10 s; a smaller
limit keeps a run short, and a deal that hits it counts as unknown and as
taking the whole limit). ``--jobs`` spreads the deals over that many
processes; a deal is still solved on one core, so "positions/s per core" is
the positions searched over the seconds the solves themselves took, whatever
the number of jobs. ``--nodes N`` limits each deal to N positions instead of
a time: the unknown share is then the same on any machine and under any
load, which makes a before/after comparison on a shared machine fair.
``--cpu`` times each solve (and its limit) by its process's CPU time: on a
machine shared with other work, the figures are then those of a core of
one's own. ``--out`` writes one line per deal (variant, seed, outcome, positions,
seconds) for a closer look.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TextIO

from server import arguments
from server.engine import VARIANTS, find_variant
from server.engine.solver import DEFAULT_SECONDS, Outcome, solve_deal


@dataclass(frozen=True, slots=True)
class DealRun:
    """One deal's answer."""

    variant: str
    seed: int
    outcome: Outcome
    nodes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class SolverBench:
    """One rule set's figures."""

    variant: str
    deals: int
    winnable: int
    unwinnable: int
    unknown: int
    median: float
    p99: float
    nodes_per_second: float

    @property
    def unknown_share(self) -> float:
        return self.unknown / self.deals if self.deals else 0.0


def solve_one(
    variant: str, seed: int, limit: float | None, node_limit: int | None, cpu: bool = False
) -> DealRun:
    """Solve one deal (a worker's job), timed by the wall clock or by ``cpu`` time."""
    clock = time.process_time if cpu else time.perf_counter
    solution = solve_deal(find_variant(variant), seed, seconds=limit, nodes=node_limit, clock=clock)
    return DealRun(variant, seed, solution.outcome, solution.nodes, solution.elapsed)


def percentile(sorted_values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile of values already sorted."""
    return sorted_values[min(len(sorted_values) - 1, round(share * (len(sorted_values) - 1)))]


def summarise(variant: str, runs: Iterable[DealRun]) -> SolverBench:
    """One rule set's row from its deals' answers."""
    runs = list(runs)
    times = sorted(run.seconds for run in runs)
    counts = dict.fromkeys(Outcome, 0)
    for run in runs:
        counts[run.outcome] += 1
    spent = sum(times)
    return SolverBench(
        variant,
        len(runs),
        counts[Outcome.WINNABLE],
        counts[Outcome.UNWINNABLE],
        counts[Outcome.UNKNOWN],
        statistics.median(times) if times else 0.0,
        percentile(times, 0.99) if times else 0.0,
        sum(run.nodes for run in runs) / spent if spent else 0.0,
    )


def bench_variant(
    variant: str,
    deals: int,
    limit: float | None,
    seed_base: int = 0,
    node_limit: int | None = None,
    pool: ProcessPoolExecutor | None = None,
    cpu: bool = False,
) -> list[DealRun]:
    """Every deal's answer, in seed order."""
    seeds = range(seed_base, seed_base + deals)
    if pool is None:
        return [solve_one(variant, seed, limit, node_limit, cpu) for seed in seeds]
    return [
        future.result() for future in submit_variant(pool, variant, seeds, limit, node_limit, cpu)
    ]


def submit_variant(
    pool: ProcessPoolExecutor,
    variant: str,
    seeds: range,
    limit: float | None,
    node_limit: int | None,
    cpu: bool,
) -> list[Future[DealRun]]:
    """Queue every deal of one rule set on the pool, in seed order.

    Queuing every rule set before waiting on any keeps all the processes busy
    to the end: waiting on each rule set in turn would leave most of them idle
    while the last few deals of each ran out their limit.
    """
    return [pool.submit(solve_one, variant, seed, limit, node_limit, cpu) for seed in seeds]


HEADER = (
    f"| {'rule set':26} | {'n':>5} | {'winnable':>8} | {'unwinnable':>10} | {'unknown':>7} "
    f"| {'median s':>8} | {'p99 s':>6} | {'positions/s/core':>16} |\n"
    f"| {'-' * 26} | {'-' * 4}: | {'-' * 7}: | {'-' * 9}: | {'-' * 6}: "
    f"| {'-' * 7}: | {'-' * 5}: | {'-' * 15}: |"
)


def row(bench: SolverBench) -> str:
    """The table row of one rule set."""
    return (
        f"| {bench.variant:26} | {bench.deals:5d} | {bench.winnable:8d} | {bench.unwinnable:10d} "
        f"| {100 * bench.unknown_share:6.1f}% | {bench.median:8.3f} | {bench.p99:6.2f} "
        f"| {bench.nodes_per_second:16,.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variants", nargs="*", help="rule sets (default all)")
    parser.add_argument(
        "--deals", type=arguments.whole("deals", 1), default=20, help="deals per rule set (20)"
    )
    parser.add_argument(
        "--limit",
        type=arguments.positive_seconds,
        default=DEFAULT_SECONDS,
        help="seconds per deal (default 10)",
    )
    parser.add_argument(
        "--nodes", type=arguments.whole("positions", 1), help="positions per deal, not seconds"
    )
    parser.add_argument("--seed-base", type=arguments.seed, default=0)
    parser.add_argument(
        "--jobs", type=arguments.whole("processes", 1), default=1, help="processes (default 1)"
    )
    parser.add_argument("--out", default=None, help="write every deal's answer to this file")
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time each solve by its process's CPU time, not the wall clock (a shared machine)",
    )
    args = parser.parse_args()
    variants = args.variants or sorted(VARIANTS)
    # Checked here, not by argparse's choices: with nargs="*" it would check an empty list too.
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown rule set {unknown[0]!r}; choose from {', '.join(sorted(VARIANTS))}")
    past = arguments.seeds_past_last(args.seed_base, args.deals)
    if past is not None:
        parser.error(past)
    limit = None if args.nodes is not None else args.limit
    per_deal = f"{args.nodes} positions" if limit is None else f"{limit:g} s"
    if args.cpu:
        per_deal += ", seconds of CPU time"
    print(f"{args.deals} deals per rule set from seed {args.seed_base}, limit {per_deal} per deal")
    print(HEADER, flush=True)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    seeds = range(args.seed_base, args.seed_base + args.deals)
    try:
        queued = (
            {}
            if pool is None
            else {
                variant: submit_variant(pool, variant, seeds, limit, args.nodes, args.cpu)
                for variant in variants
            }
        )
        for variant in variants:
            answers: Iterable[DealRun] = (
                (solve_one(variant, seed, limit, args.nodes, args.cpu) for seed in seeds)
                if pool is None
                else (future.result() for future in queued[variant])
            )
            runs = []
            for run in answers:
                runs.append(run)
                if out is not None:
                    write_run(out, run)
            print(row(summarise(variant, runs)), flush=True)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if out is not None:
            out.close()


def write_run(out: TextIO, run: DealRun) -> None:
    """One deal's answer as a line of ``--out``, written at once (a run cut short keeps it)."""
    out.write(f"{run.variant} {run.seed} {run.outcome.value} {run.nodes} {run.seconds:.4f}\n")
    out.flush()


if __name__ == "__main__":
    main()

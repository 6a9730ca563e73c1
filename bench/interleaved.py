"""Node CPU per move of two checkouts, in interleaved runs: the ratio of a change.

Run: ``.venv/bin/python -m bench.interleaved BEFORE AFTER [--pairs 5] [--racers 100]
[--seconds 6]``, where BEFORE and AFTER are checkouts of the project (``git
worktree add ../before HEAD~1``, say).

On a shared machine one run's CPU per move moves by 10–20 % from one minute
to the next, more than most single changes save, so a before and an after
measured minutes apart say little. Here each pair runs BEFORE, then AFTER,
under the same load as ``../shared/peers/run.sh`` gives Ballroom: a fresh
Redis and one node from the checkout, the node pinned to core 0 and the
load (:func:`bench.race_load.saturation`, racers in pairs moving back to
back) and Redis to core 1 where the machine has two cores. What is printed
is each run's node and Redis CPU per move, each pair's ratio AFTER/BEFORE,
and the median of those ratios: the figure to report.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from bench.harness import child, saturation_env, server_argv
from bench.race_load import saturation
from server.storage.embedded import EmbeddedRedis

__all__ = ["main"]


class Figures(NamedTuple):
    """One run: node and Redis CPU µs per move, and moves per second."""

    node: float
    redis: float
    rate: float


def _pin(core: int) -> list[str]:
    """The prefix that pins a command to ``core``, where the machine has two cores."""
    return ["taskset", "-c", str(core)] if (os.cpu_count() or 1) >= 2 else []


def one_run(checkout: Path, args: argparse.Namespace, log_dir: Path) -> Figures:
    """A fresh Redis and a node from ``checkout`` under the saturation load."""
    with (
        EmbeddedRedis(Path(tempfile.mkdtemp(dir=log_dir))) as redis,
        child(
            "node", [*_pin(0), *server_argv(redis.url)], log_dir, saturation_env(), cwd=checkout
        ) as node,
    ):
        assert redis.process is not None
        pids = {"server": node.pid, "redis": redis.process.pid, "load": os.getpid()}
        load = argparse.Namespace(
            racers=args.racers, race_size=2, variant="contradance",
            warmup=args.warmup, seconds=args.seconds, strict=False,
        )  # fmt: skip
        run = asyncio.run(saturation(node.url, load, pids))
        if not run.count:  # say what happened rather than divide by zero
            raise SystemExit(
                f"no move answered in the window of the run in {checkout}: refusals "
                f"{dict(run.errors)}, {run.extra['races']} races opened; the node's log:\n"
                f"{node.output()}"
            )
    cpu, rate = run.extra["cpu"], run.rate
    return Figures(cpu["server"] / rate * 1e6, cpu["redis"] / rate * 1e6, rate)


def main(argv: Sequence[str] | None = None) -> float:
    """Run the pairs; returns the median ratio AFTER/BEFORE of node CPU per move."""
    parser = argparse.ArgumentParser(description="Node CPU per move of two checkouts.")
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--racers", type=int, default=100)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args(argv)
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {1})  # the load, and the Redis it starts, on core 1
    gc.disable()  # as bench.race_load: no collector pauses in the load
    ratios: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ballroom-interleaved-") as logs:
        for pair in range(1, args.pairs + 1):
            before = one_run(args.before.resolve(), args, Path(logs))
            after = one_run(args.after.resolve(), args, Path(logs))
            ratios.append(after.node / before.node)
            print(
                f"pair {pair}: before {before.node:5.0f} µs/move (+{before.redis:.0f} Redis, "
                f"{before.rate:,.0f}/s)  after {after.node:5.0f} µs/move "
                f"(+{after.redis:.0f} Redis, {after.rate:,.0f}/s)  after/before {ratios[-1]:.2f}",
                flush=True,
            )
    median = statistics.median(ratios)
    print(f"median after/before: {median:.2f} over {len(ratios)} pairs")
    return median


if __name__ == "__main__":
    main()

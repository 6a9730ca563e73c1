"""What one spectator joining a live race costs a node: CPU and Redis commands per join.

Run: ``.venv/bin/python -m bench.join_path [--joins N] [--moves M] [--repeat R]``

:mod:`bench.spectators` measures joins among thousands of watchers and
moves, where a join's own cost is hidden in the total. This one isolates
it: on loopback, a redis-server, one node, and a live race between two
racers who have made ``--moves`` moves and then stand still; then
``--joins`` new clients, from this process, connect, say hello as guests
and ``spectate`` the race, ``--batch`` at a time. Printed per join, for
each of ``--repeat`` rounds and their median:

* the node's CPU (user and system, from ``/proc``), split into the part up
  to the ``welcome`` (connection, handshake, guest session) and the
  ``spectate`` that follows (its reads, the snapshot, the reply);
* Redis commands (``INFO commandstats``, every command the node sent);
* Redis's own CPU.

Spectators stay connected until their round ends, so later joins of a
round pay for the node holding the earlier ones (keepalives, sweeps), as
in a real crowd; rounds close theirs before the next starts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from bench.harness import (
    child,
    close_all,
    connect_many,
    cpu_split,
    load_average,
    machine,
    open_race,
    raise_open_files,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient
from protocol.messages import Spectate, SubmitMove
from server.storage.embedded import EmbeddedRedis


async def _commands(client: aioredis.Redis) -> tuple[int, float]:
    """Commands Redis has run so far (INFO itself left out) and its CPU seconds."""
    stats = await client.info("commandstats")
    calls = sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info")
    cpu = await client.info("cpu")
    return calls, float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])


async def _moves(racers: Sequence[LeanClient], starts: Sequence[Any], race: str, n: int) -> None:
    """``n`` random legal moves, racers in turn."""
    rng = random.Random(0)
    legal = [list(s["legal"]) for s in starts]
    seqs = [0] * len(racers)
    for i in range(n):
        k = i % len(racers)
        if not legal[k]:
            continue
        reply = await racers[k].request(
            SubmitMove, race=race, seq=seqs[k], move=rng.choice(legal[k])
        )
        legal[k], seqs[k] = reply.get("legal", []), seqs[k] + 1


async def _round(
    url: str, race: str, pid: int, redis: aioredis.Redis, joins: int, batch: int
) -> dict[str, float]:
    """One round of ``joins`` joins; per-join figures."""
    before_cpu, before_redis = cpu_split(pid), await _commands(redis)
    clients: list[LeanClient] = []
    for first in range(0, joins, batch):
        count = min(batch, joins - first)
        clients += await connect_many(url, count, f"j{first}-", strict=True, limit=batch)
    hello_cpu, hello_redis = cpu_split(pid), await _commands(redis)
    for first in range(0, joins, batch):
        replies = await asyncio.gather(
            *(c.request(Spectate, race=race) for c in clients[first : first + batch])
        )
        assert all(r["t"] == "spectating" for r in replies), replies[0]
    after_cpu, after_redis = cpu_split(pid), await _commands(redis)
    await close_all(clients)

    def per_join(a: tuple[float, float], b: tuple[float, float]) -> float:
        return (sum(b) - sum(a)) / joins * 1e6

    return {
        "hello_us": per_join(before_cpu, hello_cpu),
        "spectate_us": per_join(hello_cpu, after_cpu),
        "join_us": per_join(before_cpu, after_cpu),
        "hello_commands": (hello_redis[0] - before_redis[0]) / joins,
        "spectate_commands": (after_redis[0] - hello_redis[0]) / joins,
        "redis_us": (after_redis[1] - before_redis[1]) / joins * 1e6,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    raise_open_files(args.joins + 256)
    load_at_start = load_average()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="join-path-")))
        embedded = stack.enter_context(EmbeddedRedis(tmp / "redis"))
        node = stack.enter_context(
            child("node", server_argv(embedded.url), tmp, server_env(BALLROOM_COUNTDOWN="0"))
        )
        redis = aioredis.from_url(embedded.url)
        try:
            racers = await connect_many(node.url, 2, "racer", strict=True)
            starts = await open_race(racers, [], variant=args.variant, time_limit=7200)
            race: str = starts[0]["race"]
            await _moves(racers, starts, race, args.moves)
            await _round(node.url, race, node.pid, redis, min(50, args.joins), args.batch)
            rounds = [
                await _round(node.url, race, node.pid, redis, args.joins, args.batch)
                for _ in range(args.repeat)
            ]
        finally:
            await redis.aclose()
    median = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    return {
        "machine": machine(),
        "load_average": {"start": load_at_start, "end": load_average()},
        "args": {k: v for k, v in vars(args).items() if k != "out"},
        "rounds": rounds,
        "median": median,
    }


def _print(figures: dict[str, Any]) -> None:
    print(
        f"joins of a live race ({figures['args']['moves']} moves), "
        f"{figures['args']['joins']} a round in batches of {figures['args']['batch']}; "
        f"load average {figures['load_average']}"
    )
    for name, r in [*((f"round {i}", r) for i, r in enumerate(figures["rounds"], 1)),
                    ("median", figures["median"])]:  # fmt: skip
        print(
            f"  {name}: node CPU per join {r['join_us']:.0f} µs "
            f"(to the welcome {r['hello_us']:.0f}, spectate {r['spectate_us']:.0f}); "
            f"Redis commands per join {r['hello_commands']:.1f} + {r['spectate_commands']:.1f}; "
            f"Redis CPU per join {r['redis_us']:.0f} µs"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.join_path", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--joins", type=int, default=1000, help="joins a round (1000)")
    parser.add_argument("--batch", type=int, default=20, help="joins at a time (20)")
    parser.add_argument("--moves", type=int, default=40, help="moves before the joins (40)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (3)")
    parser.add_argument("--variant", default="royal-cotillion")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    figures = asyncio.run(run(args))
    _print(figures)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

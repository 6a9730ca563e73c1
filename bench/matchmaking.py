"""Quick races at scale: players queueing across nodes, paired by rating.

Run: ``.venv/bin/python -m bench.matchmaking [--players N] [--nodes K] [--ramp S]``

Each player is an account written straight into Redis (no argon2: this
measures pairing, not logging in) with a settled rating drawn from a normal
distribution around 1500 (sd 200). It says hello with its token on node
``n % K`` and asks for a quick race of two at a random moment of the ramp.
Printed: time to match, from the ``queue`` reply to the ``matched`` push
(p50, p99, max); the rating gap of matched pairs (p50, p99, max); the
nodes' CPU seconds per match over the run; and the machine's load, which
skews every figure on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import random
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import (
    child,
    close_all,
    cpu_seconds,
    gather_limited,
    load_average,
    percentile,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, connect
from protocol.messages import Hello, QuickRace
from protocol.version import PROTOCOL_VERSION
from server.storage import keys
from server.storage.embedded import EmbeddedRedis
from server.storage.store import connect as connect_store

VARIANT = "quadrille"


async def make_accounts(redis_url: str, count: int, rng: random.Random) -> list[tuple[str, int]]:
    """``count`` accounts with settled ratings: (token, rating) each."""
    store = await connect_store(redis_url)
    made = []
    try:
        async with store.redis.pipeline(transaction=False) as pipe:
            for n in range(count):
                player = f"u{n:012x}"
                token = f"{player}.{secrets.token_urlsafe(16)}"
                rating = round(rng.gauss(1500, 200))
                mu = 25 + (rating - 1500) / 40
                pipe.hset(keys.account(player), mapping={"name": f"B{n}", "password": "-"})
                digest = hashlib.sha256(token.encode()).hexdigest()
                pipe.hset(keys.account_tokens(player), digest, repr(time.time() + 86400))
                pipe.hset(
                    keys.account_stats(player),
                    mapping={f"mu:{VARIANT}": mu, f"sigma:{VARIANT}": 0.5, f"n:{VARIANT}": 50},
                )
                made.append((token, rating))
            await pipe.execute()
    finally:
        await store.close()
    return made


class Queuer:
    """One player: connected, then queued at its moment, then matched."""

    def __init__(self, client: LeanClient, rating: int) -> None:
        self.client = client
        self.rating = rating
        self.queued_at = 0.0
        self.matched: asyncio.Future[tuple[float, str]] = asyncio.get_running_loop().create_future()
        client.on_push = self._pushed

    def _pushed(self, message: dict[str, Any]) -> None:
        if message.get("t") == "matched" and not self.matched.done():
            self.matched.set_result((time.monotonic(), str(message["race"])))

    async def queue(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        await self.client.call(QuickRace, variant=VARIANT, size=2)
        self.queued_at = time.monotonic()


async def run(players: int, nodes: int, ramp: float, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="ballroom-mm-") as data:
        redis = EmbeddedRedis(Path(data))
        redis.start()
        try:
            accounts = await make_accounts(redis.url, players, rng)
            env = server_env()
            argv = server_argv(redis.url)
            with contextlib.ExitStack() as stack:
                procs = [
                    stack.enter_context(child(f"node{n}", argv, Path(data), env))
                    for n in range(nodes)
                ]
                await measure(procs, accounts, ramp, rng)
        finally:
            redis.stop()


async def measure(procs: list[Any], accounts: list[tuple[str, int]], ramp: float,
                  rng: random.Random) -> None:  # fmt: skip
    urls = [f"ws://127.0.0.1:{proc.port}/" for proc in procs]

    def opener(n: int, token: str) -> Any:
        async def open_one() -> LeanClient:
            client = await connect(urls[n % len(urls)])
            await client.call(Hello, v=PROTOCOL_VERSION, name=f"B{n}", token=token)
            return client

        return open_one

    clients = await gather_limited([opener(n, token) for n, (token, _) in enumerate(accounts)], 64)
    queuers = [Queuer(c, rating) for c, (_, rating) in zip(clients, accounts, strict=True)]
    cpu_before = sum(cpu_seconds(proc.process.pid) for proc in procs)
    start = time.monotonic() + 1.0
    await asyncio.gather(*(q.queue(start + rng.uniform(0, ramp)) for q in queuers))
    done, _ = await asyncio.wait([q.matched for q in queuers], timeout=ramp + 120)
    cpu = sum(cpu_seconds(proc.process.pid) for proc in procs) - cpu_before
    waits = [q.matched.result()[0] - q.queued_at for q in queuers if q.matched.done()]
    by_race: dict[str, list[int]] = {}
    for q in queuers:
        if q.matched.done():
            by_race.setdefault(q.matched.result()[1], []).append(q.rating)
    gaps = [max(r) - min(r) for r in by_race.values() if len(r) == 2]
    matches = len(by_race)
    print(f"players {len(queuers)} on {len(procs)} nodes, joining over {ramp:.0f} s")
    print(f"matched {len(done)} players in {matches} races; unmatched {len(queuers) - len(done)}")
    if waits:
        p50, p99 = percentile(waits, 0.5), percentile(waits, 0.99)
        print(f"time to match  p50 {p50:.2f} s  p99 {p99:.2f} s  max {max(waits):.2f} s")
    if gaps:
        print(
            f"rating gap     p50 {percentile(gaps, 0.5):.0f}  p99 {percentile(gaps, 0.99):.0f}"
            f"  max {max(gaps)}"
        )
    if matches:
        print(f"node CPU per match {1000 * cpu / matches:.2f} ms ({cpu:.1f} s in all)")
    print(f"load average {load_average():.1f}")
    await close_all(clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds over which they join")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    asyncio.run(run(args.players, args.nodes, args.ramp, args.seed))


if __name__ == "__main__":
    main()

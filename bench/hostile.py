"""Each hostile-input attack against one node: its peak RSS and CPU, and an honest client's p99.

Run: ``.venv/bin/python -m bench.hostile [--before CHECKOUT] [--seconds 5]
[--attack NAME ...]``; ``--before`` runs every attack against a node from
that checkout too (``git worktree add /tmp/before <commit>``) and prints
both, one table row per attack.

For each attack a fresh Redis and a fresh node (``ballroom serve`` with
its default limits) start; an honest client connects from 127.0.0.1 and
pings every 40 ms (below the 30 messages a second it may send), while a
process of its own (:mod:`bench.attacks`) attacks from 127.0.0.2 for
``--seconds``. The node's RSS and CPU are read from ``/proc`` every 0.1 s.
What is printed: the node's RSS before and at its peak, its mean CPU
during the attack, the honest client's p99 round trip, whether the honest
client is still connected after it, and what the attacker saw. The tests
in ``tests/server/test_hostile_input.py`` run the same :func:`siege`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.attacks import ATTACKS
from bench.harness import ROOT, child, cpu_seconds, percentile, rss_mib, server_argv
from client.session import ClientSession
from protocol.messages import CreateTournament, Ping, Pong, TournamentFormat, TournamentInfo
from server.storage.embedded import EmbeddedRedis

__all__ = ["ENTRY_PASSWORD", "Siege", "host_tournament", "main", "siege"]

#: The entry password of the tournament whose password the attacker guesses.
ENTRY_PASSWORD = "correct horse battery staple"
#: The honest client's pace: 25 pings a second, below the 30 messages a second allowed.
PING_EVERY = 0.04


@dataclass
class Siege:
    """One attack's figures."""

    attack: str
    rss_before: float  # MiB
    rss_peak: float  # MiB
    cpu: float  # the node's mean CPU during the attack, % of one core
    p99: float  # the honest client's 99th-percentile round trip, ms
    pings: int  # round trips timed
    seconds: float  # the measured window: from the attack's start to its end
    honest_connected: bool
    outcome: dict[str, Any] = field(default_factory=dict)  # what the attacker saw

    def row(self) -> str:
        return (
            f"{self.rss_before:6.0f} {self.rss_peak:6.0f} {self.cpu:5.0f} "
            f"{self.p99:7.1f} {'yes' if self.honest_connected else 'NO':>4}"
        )


async def host_tournament(url: str, count: int = 1) -> tuple[list[ClientSession], str]:
    """``count`` tournaments with an entry password, two to a host: (the hosts, the
    tournaments' ids joined by commas, as ``bench.attacks --tournament`` takes them)."""
    hosts: list[ClientSession] = []
    ids = []
    for n in range(count):
        if n % 2 == 0:
            hosts.append(await ClientSession.connect(url, f"Host{n // 2}"))
        info = await hosts[-1].request(
            CreateTournament(
                name=f"Cup {n}",
                format=TournamentFormat.ROUNDS,
                variants=["quadrille"],
                time_limit=600,
                password=ENTRY_PASSWORD,
            ),
            TournamentInfo,
        )
        ids.append(info.tournament.id)
    return hosts, ",".join(ids)


async def _start(
    name: str, port: int, seconds: float, tournament: str | None, source: str
) -> asyncio.subprocess.Process:
    """Start one attack in a process of its own; return once it says it is ready."""
    argv = [sys.executable, "-m", "bench.attacks", name, "--port", str(port)]
    argv += ["--seconds", str(seconds), "--source", source]
    argv += [] if tournament is None else ["--tournament", tournament]
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    ready = await asyncio.wait_for(process.stdout.readline(), 60)
    if ready.strip() != b"ready":
        await process.wait()
        raise RuntimeError(f"attack {name} did not start: {ready!r}")
    return process


async def _outcome_of(process: asyncio.subprocess.Process, seconds: float) -> dict[str, Any]:
    """What the attack printed at its end."""
    out, err = await asyncio.wait_for(process.communicate(), seconds + 60)
    if process.returncode != 0:
        raise RuntimeError(f"an attack failed: {err.decode(errors='replace')[-2000:]}")
    outcome: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return outcome


async def _sample(pid: int, peak: list[float], stop: asyncio.Event) -> None:
    """Keep the node's peak RSS in ``peak[0]``, reading it every 0.1 s."""
    while not stop.is_set():
        with contextlib.suppress(OSError, RuntimeError):
            peak[0] = max(peak[0], rss_mib(pid))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)


async def _ping(honest: ClientSession, times: list[float], stop: asyncio.Event) -> None:
    """The honest client's round trips, one every ``PING_EVERY``."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.wait_for(honest.request(Ping(), Pong), 10)
        elapsed = time.perf_counter() - started
        times.append(elapsed * 1000)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, PING_EVERY - elapsed))


async def siege(
    name: str,
    pid: int,
    port: int,
    *,
    seconds: float = 5.0,
    tournament: str | None = None,
    source: str = "127.0.0.2",
) -> Siege:
    """Attack the node ``pid`` on ``port`` with ``name`` while an honest client pings it."""
    url = f"ws://127.0.0.1:{port}/"
    honest = await ClientSession.connect(url, "Honest")
    try:
        for _ in range(5):  # warm: the first round trips pay for imports and caches
            await honest.request(Ping(), Pong)
        attack = await _start(name, port, seconds, tournament, source)
        rss_before = rss_mib(pid)
        peak, stop = [rss_before], asyncio.Event()
        times: list[float] = []
        cpu_before, started = cpu_seconds(pid), time.monotonic()
        jobs = [
            asyncio.create_task(_sample(pid, peak, stop)),
            asyncio.create_task(_ping(honest, times, stop)),
        ]
        try:
            outcome = await _outcome_of(attack, seconds)
        finally:
            window = time.monotonic() - started
            cpu = (cpu_seconds(pid) - cpu_before) / window * 100
            stop.set()
            done = await asyncio.gather(*jobs, return_exceptions=True)
        connected = not any(isinstance(result, BaseException) for result in done)
        if connected:
            try:
                await asyncio.wait_for(honest.request(Ping(), Pong), 10)
            except Exception:
                connected = False
        return Siege(name, rss_before, peak[0], cpu, percentile(times, 0.99), len(times),
                     window, connected, outcome)  # fmt: skip
    finally:
        with contextlib.suppress(Exception):
            await honest.close()


def session_keys(url: str) -> tuple[int, int]:
    """How many guest sessions Redis holds, and the longest time one has left (s)."""
    client = redis.Redis.from_url(url)
    try:
        ttls = [int(client.ttl(key)) for key in client.scan_iter("session:*", count=1000)]
        return len(ttls), max(ttls, default=0)
    finally:
        client.close()


@contextlib.asynccontextmanager
async def _node(checkout: Path, log_dir: Path) -> AsyncIterator[tuple[Any, str]]:
    """A fresh Redis and a node from ``checkout`` with its default limits."""
    with (
        EmbeddedRedis(Path(tempfile.mkdtemp(dir=log_dir))) as store,
        child("node", server_argv(store.url), log_dir, {"PYTHONUNBUFFERED": "1"}, cwd=checkout)
        as node,
    ):  # fmt: skip
        yield node, store.url


async def one(checkout: Path, name: str, seconds: float, log_dir: Path) -> tuple[Siege, str]:
    """One attack on a fresh node from ``checkout``; its figures and a note of what it left."""
    async with _node(checkout, log_dir) as (node, redis_url):
        hosts, tournament = await host_tournament(node.url)
        before = node.log_path.read_text(errors="replace").count("Traceback")
        result = await siege(name, node.pid, node.port, seconds=seconds, tournament=tournament)
        for host in hosts:
            await host.close()
        tracebacks = node.log_path.read_text(errors="replace").count("Traceback") - before
        sessions, ttl = session_keys(redis_url)
    note = f"sessions {sessions} (longest TTL {ttl} s), tracebacks logged {tracebacks}"
    return result, note


def _outcome(siege: Siege) -> str:
    seen = siege.outcome
    closed = f"closed {seen.get('close_code')}" if seen.get("closed") else "not closed"
    counts = ", ".join(f"{k} {v}" for k, v in sorted(seen.get("counts", {}).items()))
    return f"{closed}; {counts}"


async def run(args: argparse.Namespace) -> None:
    log_dir = Path(tempfile.mkdtemp(prefix="hostile-"))
    checkouts = [("after", ROOT)]
    if args.before:
        checkouts.insert(0, ("before", Path(args.before).resolve()))
    print(f"{args.seconds:g} s per attack, {os.cpu_count()} cores; logs in {log_dir}")
    print("RSS in MiB (at the start, at the peak), node CPU in % of a core, honest p99 in ms")
    header = f"{'attack':16} {'run':6} {'rss0':>6} {'peak':>6} {'cpu%':>5} {'p99ms':>7} {'ok?':>4}"
    print(header)
    for name in args.attack or list(ATTACKS):
        for label, checkout in checkouts:
            result, note = await one(checkout, name, args.seconds, log_dir)
            print(f"{name:16} {label:6} {result.row()}  {_outcome(result)}; {note}", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a checkout to run the same attacks against first")
    parser.add_argument("--seconds", type=float, default=5.0, help="per attack (5)")
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS))
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()

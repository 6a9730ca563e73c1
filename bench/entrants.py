"""Lean tournament entrants: many per asyncio process, each one websocket, no task per frame.

:mod:`bench.events` starts one or more of these load processes
(``python -m bench.entrants``). Each connects its share of entrants (spread
over the nodes), enters the tournament by its join code, says ``joined`` on
a line of its own, and then races every seat the pushed document gives it:
``resume`` into the race, a bounded number of random legal moves at a
human pace (one every ``pace`` seconds on average, each wait drawn from
half to one and a half of it), then ``resign`` (a race of a thousand must
end in reasonable time, and a real racer's pace is what loads the
server). When the document says the tournament is over (or the deadline
passes) it prints one JSON line: what each entrant saw, and when.

A tournament's document is pushed whole at every change and is large at a
thousand entrants; a node encodes it once for all its watchers, so every
entrant of a process on that node receives the same bytes. The process
decodes each distinct frame once (:class:`Documents`) instead of once per
entrant: the server's cost and the bytes on the wire are unchanged, only
this load generator's unpacking is shared.

Times are wall-clock (``time.time()``), comparable with the server's
``started`` stamps on the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import random
import sys
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from bench.harness import close_all, gather_limited, raise_open_files
from bench.lean_client import LeanClient, Wire
from protocol.messages import JoinTournament, Ping, Resign, Resume, SubmitMove

__all__ = ["Documents", "Entrant", "Plan", "Seats", "main"]

#: How a pushed ``tournament`` frame starts (a map of two: ``t``, then the document);
#: a reply to a request has an ``id`` too, and is left to the client's own reading.
DOCUMENT_PUSH = b"\x82\xa1t\xaatournament"


@dataclass(frozen=True, slots=True)
class Seats:
    """What entrants need from one document: its status, every stage's, and each one's seats."""

    status: str
    #: Every stage's number and status.
    stages: tuple[tuple[int, str], ...]
    #: player -> (stage number, its status, race) of each stage they sit in.
    of_player: dict[str, list[tuple[int, str, str]]]

    @classmethod
    def of(cls, doc: Wire) -> Seats:
        stages = []
        of_player: dict[str, list[tuple[int, str, str]]] = {}
        for stage in doc.get("stages", ()):
            n, status = int(stage["n"]), str(stage["status"])
            stages.append((n, status))
            for table in stage["races"]:
                for player in table["players"]:
                    of_player.setdefault(player, []).append((n, status, table["race"]))
        return cls(str(doc["status"]), tuple(stages), of_player)

    @property
    def over(self) -> bool:
        return self.status in ("finished", "cancelled")


class Documents:
    """Each distinct tournament frame decoded once for the whole process (the newest few)."""

    def __init__(self, keep: int = 4) -> None:
        self._seen: OrderedDict[bytes, Seats] = OrderedDict()
        self._keep = keep
        self.frames = 0
        self.decoded = 0
        self.bytes = 0
        #: When the last document came (a tournament whose pushes stop has stalled).
        self.last = time.time()

    def read(self, data: bytes) -> Seats:
        """What the document pushed in ``data`` seats (a frame seen before is not decoded)."""
        self.frames += 1
        self.bytes += len(data)
        self.last = time.time()
        found = self._seen.get(data)
        if found is not None:
            return found
        message: Wire = msgpack.unpackb(data, raw=False)
        self.decoded += 1
        found = Seats.of(message["tournament"])
        self._seen[data] = found
        while len(self._seen) > self._keep:
            self._seen.popitem(last=False)
        return found


class EntrantClient(LeanClient):
    """A :class:`LeanClient` whose large tournament pushes go through :class:`Documents`."""

    documents: Documents
    on_document: Callable[[Seats], None]

    def _receive(self, data: bytes) -> None:
        if data.startswith(DOCUMENT_PUSH):
            self.pushes += 1
            self.on_document(self.documents.read(data))
            return
        super()._receive(data)


@dataclass(frozen=True, slots=True)
class Plan:
    """How every entrant races: at most ``moves`` moves, one every ``pace`` s on average."""

    moves: int
    pace: float
    request_timeout: float = 30.0


@dataclass
class Seat:
    """One race of one entrant, with the times it saw (unix seconds)."""

    stage: int
    race: str
    seen: float  # the document that seated it arrived
    running: float | None = None  # its race_started (its board) arrived
    started_at: float | None = None  # the server's start of the race
    finished: float | None = None  # its last move or resignation was acknowledged
    moves: int = 0
    resigned: bool = False
    playing: bool = False

    def to_data(self) -> dict[str, Any]:
        return {
            "stage": self.stage, "race": self.race, "seen": self.seen, "running": self.running,
            "started_at": self.started_at, "finished": self.finished, "moves": self.moves,
            "resigned": self.resigned,
        }  # fmt: skip


class Entrant:
    """One entrant: follows the document, races each seat it is given."""

    def __init__(
        self, client: EntrantClient, plan: Plan, rng: random.Random, *, every_stage: bool = True
    ) -> None:
        self.client = client
        #: Note when every stage was first seen in each status, or only the entrant's own
        #: (an arena's stages are its races: thousands).
        self.every_stage = every_stage
        self.plan = plan
        self.rng = rng
        self.seats: dict[str, Seat] = {}
        #: (stage, status) -> when a document first showed it so.
        self.stage_seen: dict[tuple[int, str], float] = {}
        self.errors: Counter[str] = Counter()
        self.over: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        #: Done when the entrant saw the end, or lost its connection (which it keeps: a lean
        #: entrant does not reconnect, so a lost one is counted, not hidden).
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lost: float | None = None
        self.entered = False
        client.closed.add_done_callback(self._lost)
        self.tasks: set[asyncio.Task[None]] = set()
        #: Whether the connection was still open when the tournament ended.
        self.connected = True
        client.on_document = self._document
        client.on_push = self._pushed

    @property
    def player(self) -> str:
        return self.client.player

    async def enter(self, code: str, tries: int = 60) -> None:
        """Join, trying again (at most ``tries`` times) while the tournament's lock is busy
        or a reply is slow to come."""
        for attempt in range(tries):
            if self.client.closed.done():
                self.errors["join: connection lost"] += 1
                return
            try:
                reply = await asyncio.wait_for(
                    self.client.request(JoinTournament, code=code), self.plan.request_timeout
                )
            except TimeoutError:
                reply = {"t": "error", "code": "timeout"}
            if reply["t"] == "tournament":
                self.entered = True
                self._document(Seats.of(reply["tournament"]))
                return
            if reply.get("code") not in ("unavailable", "rate_limited", "timeout"):
                raise RuntimeError(f"{self.player} could not enter: {reply}")
            self.errors[f"join {reply.get('code')}"] += 1
            await asyncio.sleep(min(2.0, 0.05 * 2**attempt) * self.rng.uniform(0.5, 1.5))
        raise RuntimeError(f"{self.player} could not enter in {tries} tries")

    def _document(self, seats: Seats) -> None:
        now = time.time()
        if self.every_stage:
            for key in seats.stages:
                self.stage_seen.setdefault(key, now)
        for n, status, race in seats.of_player.get(self.player, ()):
            self.stage_seen.setdefault((n, status), now)
            if status == "running" and race not in self.seats:
                self.seats[race] = Seat(n, race, now)
                self._spawn(self._resume(self.seats[race]))
        if seats.over and not self.over.done():
            self.over.set_result(now)
            if not self.ended.done():
                self.ended.set_result(None)

    def _lost(self, _: object) -> None:
        if not self.over.done():
            self.lost = time.time()
        if not self.ended.done():
            self.ended.set_result(None)

    def _pushed(self, message: Wire) -> None:
        if message["t"] == "race_started":
            seat = self.seats.get(message["race"])
            if seat is not None:
                self._start(seat, message)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _resume(self, seat: Seat) -> None:
        try:
            reply = await asyncio.wait_for(
                self.client.request(Resume, race=seat.race, since=0), self.plan.request_timeout
            )
        except (TimeoutError, ConnectionError) as exc:
            self.errors[f"resume {type(exc).__name__}"] += 1
            return
        if reply["t"] == "race_started":
            self._start(seat, reply)
        elif reply["t"] != "race":  # the race's info: in its countdown; the start is pushed
            self.errors[f"resume {reply.get('code', reply['t'])}"] += 1

    def _start(self, seat: Seat, started: Wire) -> None:
        if seat.running is not None:
            return  # a replay of the start
        seat.running = time.time()
        seat.started_at = float(started["started_at"])
        self._spawn(self._play(seat, list(started["legal"])))

    async def _play(self, seat: Seat, legal: list[str]) -> None:
        """At most ``plan.moves`` random legal moves at the plan's pace, then resign."""
        plan, rng, client = self.plan, self.rng, self.client
        seat.playing = True
        try:
            for seq in range(plan.moves):
                await asyncio.sleep(plan.pace * rng.uniform(0.5, 1.5))
                if not legal:
                    break  # the game is over: nothing to resign
                move = legal[rng.randrange(len(legal))]
                reply = await asyncio.wait_for(
                    client.request(SubmitMove, race=seat.race, seq=seq, move=move),
                    plan.request_timeout,
                )
                if reply["t"] != "moved":
                    self.errors[f"move {reply.get('code', reply['t'])}"] += 1
                    legal = []
                    break
                seat.moves += 1
                legal = reply["legal"]
                seat.finished = time.time()
            if legal:
                reply = await asyncio.wait_for(
                    client.request(Resign, race=seat.race), plan.request_timeout
                )
                if reply["t"] == "error":
                    self.errors[f"resign {reply.get('code')}"] += 1
                else:
                    seat.resigned = True
                seat.finished = time.time()
        except (TimeoutError, ConnectionError) as exc:
            self.errors[f"play {type(exc).__name__}"] += 1
        finally:
            seat.playing = False

    def to_data(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "seats": [seat.to_data() for seat in self.seats.values()],
            "stage_seen": [[n, status, t] for (n, status), t in self.stage_seen.items()],
            "over": self.over.result() if self.over.done() else None,
            "connected": self.connected,
            "lost": self.lost,
            "errors": dict(self.errors),
        }


async def _until_ended(
    entrants: Sequence[Entrant], documents: Documents, deadline: float, stall: float
) -> bool:
    """Until every entrant saw the end or lost its connection, the deadline passed, or no
    document came for ``stall`` seconds (True: the tournament stalled, as an arena whose
    document outgrew a frame does)."""
    waiting = {e.ended for e in entrants if not e.ended.done()}
    while waiting and time.time() < deadline:
        _, waiting = await asyncio.wait(waiting, timeout=min(5.0, max(0.1, deadline - time.time())))
        if waiting and time.time() - documents.last > stall:
            return True
    return False


async def _keep_alive(
    entrants: Sequence[Entrant], stop: asyncio.Event, every: float = 60.0
) -> None:
    """A ping from every entrant each ``every`` seconds, as the real bot sends when quiet: a
    node closes a connection silent for ``timeouts.idle`` (an entrant knocked out early)."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
        for entrant in entrants:
            if not entrant.client.closed.done():
                entrant.client.send(Ping())


async def _connect(url: str, name: str, documents: Documents) -> EntrantClient:
    from picows import ws_connect

    def make() -> EntrantClient:
        client = EntrantClient()
        client.documents = documents
        return client

    _, client = await ws_connect(
        make, url, websocket_handshake_timeout=30, max_frame_size=16 * 2**20,
        read_buffer_init_size=4096, enable_auto_pong=True,
    )  # fmt: skip
    assert isinstance(client, EntrantClient)
    await asyncio.wait_for(client.hello(name), 30)
    return client


async def load(args: argparse.Namespace) -> dict[str, Any]:
    """Connect, enter, say ``joined``, race until the tournament is over or the deadline."""
    urls: Sequence[str] = args.urls.split(",")
    documents = Documents()
    rng = random.Random(args.index)
    plan = Plan(moves=args.moves, pace=args.pace)
    began = time.time()
    names = [f"e{args.index}-{i}" for i in range(args.count)]
    clients = await gather_limited(
        [
            functools.partial(_connect, urls[(args.offset + i) % len(urls)], names[i], documents)
            for i in range(args.count)
        ],
        64,
    )
    entrants = [
        Entrant(c, plan, random.Random(rng.random()), every_stage=not args.own_stages)
        for c in clients
    ]
    connected = time.time()
    stop = asyncio.Event()
    # From the first connection on: an entry of a thousand takes minutes, and a node closes a
    # connection quiet for five.
    pinging = asyncio.ensure_future(_keep_alive(entrants, stop))
    await gather_limited([functools.partial(e.enter, args.code) for e in entrants], args.join_limit)
    entered = sum(e.entered for e in entrants)
    print(json.dumps({"joined": entered, "connect_s": connected - began,
                      "join_s": time.time() - connected}), flush=True)  # fmt: skip
    stalled = await _until_ended(entrants, documents, args.deadline, args.stall)
    stop.set()
    await pinging
    # Moves still in flight when the document said "over" (none should be) get a moment.
    with contextlib.suppress(TimeoutError):
        tasks = [t for e in entrants for t in e.tasks]
        if tasks:
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    for entrant in entrants:
        entrant.connected = not entrant.client.closed.done()
    await close_all(clients)
    return {
        "index": args.index,
        "entrants": [e.to_data() for e in entrants],
        "over": sum(1 for e in entrants if e.over.done()),
        "stalled": stalled,
        "documents": {"frames": documents.frames, "decoded": documents.decoded,
                      "bytes": documents.bytes},
    }  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.entrants", description=__doc__)
    parser.add_argument("--urls", required=True, help="the nodes, comma-separated")
    parser.add_argument("--code", required=True, help="the tournament's join code")
    parser.add_argument("--index", type=int, required=True, help="this load process's number")
    parser.add_argument("--count", type=int, required=True, help="entrants in this process")
    parser.add_argument("--offset", type=int, default=0, help="the first entrant's node")
    parser.add_argument("--moves", type=int, default=8, help="most moves per race")
    parser.add_argument("--pace", type=float, default=1.0, help="mean seconds between moves")
    parser.add_argument("--join-limit", type=int, default=4, help="joins in flight at once")
    parser.add_argument(
        "--own-stages", action="store_true", help="note only the entrant's own stages' times"
    )
    parser.add_argument(
        "--stall", type=float, default=90.0, help="s without a document before giving up"
    )
    parser.add_argument("--deadline", type=float, required=True, help="unix time to give up")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    raise_open_files(65536)
    print(json.dumps(asyncio.run(load(args))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""An arena while nodes die (docs/tournaments.md, *Arena*): ten rounds of a SIGKILL at a
random moment, a node started in the dead one's place each time.

Nine bot entrants race an arena of two-racer races on three node processes (so one
at least is waiting at most moments: an odd one out); every bot follows the
arena and its races from whichever node is up (a client whose node died connects
to another with its token). After each kill, every entrant who was waiting for a
race must be grouped into a new one, and at no moment may an entrant sit in two
races; at the end the record verifies, points included, and every race made for
the arena is one of its stages (no group was made twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

import pytest

from client.bot import Patience
from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    CreateTournament,
    ManageTournament,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
)
from protocol.tournaments import Record, Tournament
from server.rules.record import verify
from server.storage import keys
from server.storage.arena import ArenaStore
from server.storage.store import Store
from server.storage.tournaments import TournamentStore
from tests.server.conftest import NODE_ENV, TIMEOUT, ServerProcess
from tests.server.hosting import whole_record

pytestmark = pytest.mark.slow

BOTS, NODES, KILLS, SEED = 9, 3, 10, 28
RACE_SECONDS = 30  # each race's time limit
#: Bots keep trying for as long as the test runs: their nodes come and go.
PATIENT = Patience(reconnects=None, max_backoff=0.5, request=TIMEOUT, keepalive=TIMEOUT)


class Nodes:
    """Node processes on one Redis: one is killed at a time once two are up, and another
    started in its place meanwhile; the bots are pointed at the live ones."""

    def __init__(self, redis_url: str, logs: Path) -> None:
        self.redis_url, self.logs = redis_url, logs
        self.up: list[ServerProcess] = []
        self.started: list[ServerProcess] = []
        self.bots: list[TournamentBot] = []
        self.changed = asyncio.Condition()
        self.starting: set[asyncio.Task[None]] = set()

    async def grow(self) -> None:
        node = ServerProcess(self.logs, ["--redis", self.redis_url], NODE_ENV)
        self.started.append(node)
        await asyncio.to_thread(node.wait_ready, 6 * TIMEOUT)  # two may start at once
        async with self.changed:
            self.up.append(node)
            point_bots_at(self.bots, self.urls)
            self.changed.notify_all()

    @property
    def urls(self) -> list[str]:
        return [f"ws://127.0.0.1:{node.port}/" for node in self.up]

    async def kill_one(self, rng: random.Random) -> None:
        """SIGKILL a node at random once two are up; start another in its place."""
        async with self.changed:
            await self.changed.wait_for(lambda: len(self.up) >= 2)
            victim = self.up.pop(rng.randrange(len(self.up)))
            point_bots_at(self.bots, self.urls)
        await asyncio.to_thread(victim.kill)
        task = asyncio.create_task(self.grow())
        self.starting.add(task)
        task.add_done_callback(self.starting.discard)

    def stop(self) -> None:
        for node in self.started:
            node.stop(TIMEOUT)


def point_bots_at(bots: list[TournamentBot], urls: list[str]) -> None:
    """Each bot's next connection goes to a live node (spread over them)."""
    for i, bot in enumerate(bots):
        bot.urls[:] = urls[i % len(urls) :] + urls[: i % len(urls)]


def in_two_races(doc: Tournament) -> list[str]:
    seats = [p for stage in doc.running_stages for t in stage.races for p in t.players]
    return sorted({p for p in seats if seats.count(p) > 1})


async def watch(
    docs: TournamentStore, tournament: str, faults: list[str], stop: asyncio.Event
) -> None:
    """Read the document from Redis all along: nobody in two races at any moment."""
    while not stop.is_set():
        doc = await docs.load(tournament)
        if doc is not None and (twice := in_two_races(doc)):
            faults.append(f"in two races: {twice}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)  # the polling pace


async def grouped_after(
    docs: TournamentStore, tournament: str, waiting: list[str], after: int
) -> list[str]:
    """Poll until every entrant of ``waiting`` races in a race numbered above ``after``;
    those who never do within the deadline."""
    # An odd one out waits for the first race under way to end: its time limit at most.
    deadline = time.monotonic() + RACE_SECONDS + 2 * TIMEOUT
    while True:
        doc = await docs.load(tournament)
        assert doc is not None
        later = {p for s in doc.stages if s.n > after for t in s.races for p in t.players}
        missing = [p for p in waiting if p not in later]
        if not missing or time.monotonic() > deadline:
            return missing
        await asyncio.sleep(0.1)  # polled: the next sweep groups them


async def everyone_placed(store: Store, tournament: str, players: set[str]) -> set[str]:
    """Poll until every player waits or races, and none does both (one snapshot of both
    keys, in a transaction); those who do not by the deadline (paused ones among them)."""
    deadline = time.monotonic() + 2 * TIMEOUT
    while True:
        async with store.redis.pipeline(transaction=True) as pipe:
            pipe.zrange(keys.arena_waiting(tournament), 0, -1)
            pipe.hkeys(keys.arena_racing(tournament))
            listed, raced = await pipe.execute()
        waiting = {p.decode() for p in listed}
        racing = {p.decode() for p in raced}
        both, lost = waiting & racing, players - waiting - racing
        if (not both and not lost) or time.monotonic() > deadline:
            return lost | both
        await asyncio.sleep(0.1)  # polled: a sweep puts back whoever is missing


async def test_nodes_killed_during_an_arena_lose_nobody(
    redis_url: str, tmp_path: Path, store: Store
) -> None:
    """Ten SIGKILLs at random moments: after each, every entrant who was waiting is
    grouped into a new race; nobody is ever in two races; the record verifies and holds
    every race made."""
    rng = random.Random(SEED)
    nodes = Nodes(redis_url, tmp_path)
    docs, grouping = TournamentStore(store), ArenaStore(store)
    faults: list[str] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task[Tournament]] = []
    rounds: list[tuple[int, float]] = []
    try:
        await asyncio.gather(*(nodes.grow() for _ in range(NODES)))
        host = await ClientSession.connect(nodes.urls[0], "Host")
        assert host.welcome is not None
        token = host.welcome.token
        created = await host.request(
            CreateTournament(
                name="Night arena", format=TournamentFormat.ARENA, variants=["quadrille"],
                time_limit=RACE_SECONDS, table_size=2, duration=600, cutoff=5, grace=10,
                break_seconds=0, spectate=SpectatePolicy.AFTER,
            ),
            TournamentInfo,
        )  # fmt: skip
        doc = created.tournament
        bots = [
            TournamentBot(nodes.urls[0], name=f"Bot {i}", speed=0, seed=i, patience=PATIENT)
            for i in range(BOTS)
        ]
        nodes.bots = bots
        point_bots_at(bots, nodes.urls)
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(bot.joined.wait() for bot in bots))
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        await host.close()
        watcher = asyncio.create_task(watch(docs, doc.id, faults, stop))
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.1, 1.5))  # a random moment of the arena
            await nodes.kill_one(rng)
            killed_at = time.monotonic()
            now = await docs.load(doc.id)
            assert now is not None
            last = max((s.n for s in now.stages), default=0)
            # Waiting, or grouped into a race that no node has made yet: all must race.
            waiting = await grouping.waiting(doc.id)
            waiting += [p for g in await grouping.pending(doc.id) if g.n > last for p in g.players]
            missing = await grouped_after(docs, doc.id, waiting, last)
            assert not missing, f"waiting at the kill and never grouped: {missing}"
            rounds.append((len(waiting), time.monotonic() - killed_at))
        await asyncio.gather(*nodes.starting)
        # Nobody lost: each entrant waits or races (never both), as Redis holds it.
        lost = await everyone_placed(store, doc.id, {str(bot.player) for bot in bots})
        assert not lost, f"neither waiting nor racing: {lost}"
        host = await ClientSession.connect(nodes.urls[0], "Host", token)
        cancelled = await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.CANCEL), TournamentInfo
        )
        final = cancelled.tournament
        record = await whole_record(host, tournament=doc.id)
        await host.close()
        stop.set()
        await watcher
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*nodes.starting, return_exceptions=True)
        await asyncio.to_thread(nodes.stop)

    assert final.status == "cancelled"
    assert not faults, faults
    assert verify(record) == []
    made = {
        race.decode()[len("race:{") : -len("}:meta")]
        async for race in store.redis.scan_iter(match=f"race:{{{doc.id.lower()}-*}}:meta")
    }
    # The record's stages: the document keeps only the newest scored races.
    stages = Record.from_data(record).tournament.stages
    staged = {t.race for s in stages for t in s.races}
    assert made == staged, (made - staged, staged - made)
    assert len(stages) > KILLS and len(stages) == final.stages_played
    print(
        f"\narena kills: {KILLS} kills, {len(stages)} races, waiting at each kill and "
        "seconds to group them: " + ", ".join(f"{n} in {seconds:.1f}" for n, seconds in rounds)
    )

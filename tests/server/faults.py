"""Helpers of the Redis fault tests: a Redis of the test's own, nodes on it, racers.

Each fault test stops, kills or rewinds its own redis-server (never the
session's), with the append-only file fsynced every second as in
docker-compose.yml, and talks to in-process nodes over real websockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    RaceInfo,
    RaceStarted,
    Rewound,
    ServerMessage,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.engine import Game, find_variant
from server.net.node import Node, running_node
from server.settings import Limits, Settings, Timeouts
from server.storage.board_check import stored_board_faults
from server.storage.boards import RacerBoard
from server.storage.embedded import EmbeddedRedis, free_port
from server.storage.races import RaceMeta
from server.storage.store import connect
from tests.server.conftest import TIMEOUT

__all__ = [
    "Racer",
    "aof_written",
    "assert_logs_replay_to_snapshots",
    "copy_aof",
    "eventually",
    "own_redis",
    "restart",
    "rewind_redis",
    "serve",
    "start_race",
    "told",
]


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A redis-server with appendfsync everysec that the test may kill and restart."""
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="everysec").start()
    yield server
    server.stop()


@contextlib.asynccontextmanager
async def serve(redis: EmbeddedRedis, *, health: float = 0.1) -> AsyncIterator[tuple[str, Node]]:
    """An in-process node on ``redis`` probing its health every ``health`` seconds."""
    port = free_port()
    settings = Settings(
        port=port,
        redis_url=redis.url,
        limits=Limits(rate=10_000, burst=10_000),
        timeouts=Timeouts(countdown=0.0, health=health, health_timeout=0.5),
    )
    async with running_node(settings) as node:
        yield f"ws://127.0.0.1:{port}/", node


async def restart(redis: EmbeddedRedis) -> None:
    """Start ``redis`` again on its port and data directory, off the event loop."""
    await asyncio.to_thread(redis.start)


def _aof(redis: EmbeddedRedis) -> Path:
    """The append-only file (Redis 6) or directory (Redis 7) in the data directory."""
    directory = redis.data_dir / "appendonlydir"
    return directory if directory.exists() else redis.data_dir / "appendonly.aof"


async def aof_written(
    redis: EmbeddedRedis,
    *,
    no_fsync_running: bool = False,
    then: Callable[[], object] | None = None,
) -> None:
    """Until Redis has written every write it acknowledged to its append-only file.

    With ``everysec`` Redis writes before it replies, except while a slow
    background fsync runs: then it may postpone the write (up to 2 s) and
    reply anyway (docs/reliability.md). ``no_fsync_running`` also waits
    until no background fsync runs, so that none can postpone the writes of
    the next moments either. ``then`` runs as soon as that holds, before any
    other task of the test may run.
    """
    client = aioredis.Redis.from_url(redis.url)
    try:
        async with asyncio.timeout(TIMEOUT):
            while True:
                info = await client.info("persistence")
                fsync_running = no_fsync_running and info["aof_pending_bio_fsync"]
                if info["aof_buffer_length"] == 0 and not fsync_running:
                    if then is not None:
                        then()
                    return
                await asyncio.sleep(0.01)  # poll: Redis writes it within 2 s
    finally:
        await client.aclose()


async def copy_aof(redis: EmbeddedRedis, to: Path) -> None:
    """Copy the append-only file once every acknowledged write is in it."""
    await aof_written(redis)
    source = _aof(redis)
    if source.is_dir():
        shutil.copytree(source, to)
    else:
        shutil.copyfile(source, to)


async def rewind_redis(redis: EmbeddedRedis, copy: Path) -> None:
    """Crash ``redis`` and bring it back from an older copy of its append-only file."""
    redis.kill()
    current = _aof(redis)
    if current.is_dir():
        shutil.rmtree(current)
        shutil.copytree(copy, current)
    else:
        shutil.copyfile(copy, current)
    await restart(redis)


async def eventually(check: Callable[[], object], what: str) -> None:
    """Poll ``check`` until it holds; fail after the test timeout."""
    async with asyncio.timeout(TIMEOUT):
        while not check():
            await asyncio.sleep(0.02)
    assert check(), what


def told(session: ClientSession, kind: type[ServerMessage]) -> list[Any]:
    """The pushed messages of ``kind`` a session received and no one took yet."""
    return [message for message in session.received if isinstance(message, kind)]


async def start_race(host: ClientSession, *guests: ClientSession, deal: int = 3) -> str:
    """A started gavotte race of the host and ``guests``; returns its id."""
    created = await host.request(
        CreateRace(
            variant="gavotte",
            max_players=1 + len(guests),
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=deal,
        ),
        RaceInfo,
    )
    race = str(created.race.id)
    for guest in guests:
        await guest.request(JoinRace(race=race), RaceInfo)
    await host.request(StartRace(race=race), RaceInfo)
    return race


class Racer:
    """A racer that plays the last legal move and remembers every acknowledged one."""

    def __init__(self, session: ClientSession, race: str) -> None:
        self.session = session
        self.race = race
        self.seq = 0
        self.legal: list[str] = []
        self.acknowledged: list[str] = []

    async def started(self) -> Racer:
        start = await self.session.next(RaceStarted, lambda m: m.race == self.race)
        self.legal = list(start.legal)
        return self

    @property
    def player(self) -> str:
        return self.session.player

    async def move(self, pick: int = -1) -> Moved:
        """One move (``legal[pick]``), sent again with the same seq while storage is away.

        A move whose reply was lost may have been stored: sent again, it is
        answered as the first time, never applied twice.
        """
        text = self.legal[pick]
        async with asyncio.timeout(TIMEOUT):
            while True:
                try:
                    moved = await self.session.request(
                        SubmitMove(race=self.race, seq=self.seq, move=text), Moved
                    )
                    break
                except RequestFailed as exc:
                    if exc.code is not ErrorCode.UNAVAILABLE:
                        raise
                await asyncio.sleep(0.02)  # poll: Redis is on its way back
        assert moved.seq == self.seq
        self.acknowledged.append(moved.move)
        self.seq, self.legal = moved.seq + 1, list(moved.legal)
        return moved

    async def play(self, moves: int, pick: int = -1) -> None:
        for _ in range(moves):
            await self.move(pick)

    def rewound(self, rewound: Rewound) -> None:
        """Go on from the board the server sent with ``rewound``."""
        assert rewound.seq is not None and rewound.legal is not None
        self.seq, self.legal = rewound.seq, list(rewound.legal)
        del self.acknowledged[rewound.seq :]


def assert_snapshot_replays(game: Game, meta: RaceMeta, board: RacerBoard, log: list[str]) -> None:
    """A racer's stored board agrees with their log: the move count, the cards home,
    and the snapshot (when one was taken) is the log replayed up to its move."""
    seed, version = meta.settings.seed, meta.settings.deal_version
    assert stored_board_faults(game, seed, version, board, log) == []


async def assert_logs_replay_to_snapshots(url: str, race: str) -> dict[str, list[str]]:
    """Every racer's stored log, replayed from the deal, gives their stored board."""
    store = await connect(url)
    try:
        meta = await store.races.meta(race)
        assert meta is not None
        game = find_variant(meta.settings.variant)
        boards = await store.boards.racers(race)
        logs = {}
        for player in await store.races.players(race):
            log = await store.boards.log(race, player)
            assert_snapshot_replays(game, meta, boards[player], log)
            logs[player] = log
        return logs
    finally:
        await store.close()

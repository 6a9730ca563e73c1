"""A node whose Redis goes away refuses moves with a retryable error, then recovers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    Moved,
    RaceInfo,
    RaceStarted,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.net.node import running_node
from server.settings import Limits, Settings, Timeouts
from server.storage.embedded import EmbeddedRedis, free_port

pytestmark = pytest.mark.slow


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    """A redis-server this test may stop and start again (same port, same data)."""
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always").start()
    yield server
    server.stop()


async def test_moves_are_refused_while_redis_is_down_and_resume_after(
    own_redis: EmbeddedRedis,
) -> None:
    """No move is acknowledged that could not be stored; the race goes on once Redis is back."""
    port = free_port()
    settings = Settings(
        port=port,
        redis_url=own_redis.url,
        limits=Limits(rate=10_000, burst=10_000),
        timeouts=Timeouts(countdown=0.0),
    )
    async with running_node(settings):
        url = f"ws://127.0.0.1:{port}/"
        alice = await ClientSession.connect(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant="gavotte",
                max_players=1,
                time_limit=600,
                spectate=SpectatePolicy.LIVE,
                deal=3,
            ),
            RaceInfo,
        )
        race = created.race.id
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(SubmitMove(race=race, seq=0, move="deal"), Moved)

        own_redis.stop()
        with pytest.raises(RequestFailed) as refused:
            await alice.request(SubmitMove(race=race, seq=1, move="deal"), Moved)
        assert refused.value.code is ErrorCode.UNAVAILABLE and refused.value.code.retryable

        own_redis.start()  # same port and data directory; AOF fsync always: nothing lost
        moved = await alice.request(SubmitMove(race=race, seq=1, move="deal"), Moved)
        assert moved.seq == 1 and moved.progress.moves == 2
        await alice.close()

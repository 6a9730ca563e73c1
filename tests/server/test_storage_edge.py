"""redis-py's errors stop at the storage edge: the layers above see StoreUnavailable."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

import server.storage
from server.storage.commits import MoveCommit
from server.storage.embedded import free_port
from server.storage.exceptions import StoreUnavailable
from server.storage.store import Store

pytestmark = pytest.mark.slow

#: Classes of storage with public coroutines that only storage itself calls, and that
#: convert (or deliberately pass on) redis-py's errors where they use them.
_INSIDE = {
    "server.storage.resp.Pipe",  # the commit batcher's connection: the batcher converts
    "server.storage.cluster.Topology",  # the batcher's and the feeds' slot map
    "server.storage.scripts.ScriptRegistry",  # run by the stores
    "server.storage.health.StorageHealth",  # probes Redis and says whether it is up
    "server.storage.embedded.EmbeddedRedis",  # processes, not requests
    "server.storage.local_cluster.LocalCluster",
    "server.storage.pool.FairConnectionPool",  # redis-py's own pool
}


def _storage_classes() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(server.storage.__path__):
        module = importlib.import_module(f"server.storage.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                found.append(cls)
    return found


def test_every_store_coroutine_converts_redis_errors() -> None:
    """Each public coroutine of a storage class the layers above call is at the edge
    (a store added without :func:`~server.storage.exceptions.storage_edge` fails here)."""
    unconverted = []
    for cls in _storage_classes():
        private = cls.__name__.startswith("_") or getattr(cls, "_is_protocol", False)
        if private or f"{cls.__module__}.{cls.__qualname__}" in _INSIDE:
            continue
        for name, member in vars(cls).items():
            if name.startswith("_") or not inspect.iscoroutinefunction(member):
                continue
            if not getattr(member, "__storage_edge__", False):
                unconverted.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert unconverted == []


@pytest.fixture
async def unreachable() -> AsyncIterator[Store]:
    """A store whose Redis is not there (nothing listens on its port)."""
    client = aioredis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5)
    store = Store(client)
    yield store
    await store.close()


async def test_a_store_call_raises_store_unavailable(unreachable: Store) -> None:
    """A read or a script of a store raises StoreUnavailable, caused by redis-py's error."""
    with pytest.raises(StoreUnavailable) as raised:
        await unreachable.events.count("nowhere")
    assert isinstance(raised.value.__cause__, Exception)
    with pytest.raises(StoreUnavailable):
        await unreachable.presence.release_seat("nowhere", "p1", "holder")


async def test_a_commit_fails_with_store_unavailable(unreachable: Store) -> None:
    """The move path's own connection fails a commit with StoreUnavailable too."""
    commit = MoveCommit("nowhere", "p1", 0, None, "m0", "playing", 0, time.time(), b"e")
    with pytest.raises(StoreUnavailable):
        await unreachable.batcher.send(commit)

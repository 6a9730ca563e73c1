"""``ballroom serve --loop``: a node on uvloop serves a whole race like one on asyncio."""

from __future__ import annotations

import asyncio
import importlib
import socket
import subprocess
import sys

import pytest

from protocol.messages import RaceFinished
from server.settings import EventLoop, Settings
from server.storage.store import Store
from server.supervisor import Supervisor
from tests.processes import ROOT
from tests.server.conftest import TIMEOUT, ProcessFactory
from tests.server.nodes import check_log, connect, open_race, start

pytestmark = pytest.mark.slow


def _has_uvloop() -> bool:
    try:
        importlib.import_module("uvloop")
    except ImportError:
        return False
    return True


HAS_UVLOOP = _has_uvloop()


def test_the_loop_is_asyncio_unless_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncio by default; ``BALLROOM_LOOP`` picks another, ``--loop`` (an override) wins."""
    monkeypatch.delenv("BALLROOM_LOOP", raising=False)
    assert Settings.from_env().event_loop is EventLoop.ASYNCIO
    monkeypatch.setenv("BALLROOM_LOOP", "uvloop")
    assert Settings.from_env().event_loop is EventLoop.UVLOOP
    assert Settings.from_env(event_loop=EventLoop.ASYNCIO).event_loop is EventLoop.ASYNCIO


def test_workers_run_on_the_supervisors_loop() -> None:
    """``serve --workers N --loop uvloop``: each worker is started with the same loop."""
    settings = Settings(redis_url="redis://127.0.0.1:1/0", event_loop=EventLoop.UVLOOP)
    with socket.socket() as sock:
        line = Supervisor(settings, [sock], lambda: sock).command_line(1)
    assert line[line.index("--loop") + 1] == "uvloop"


@pytest.mark.skipif(not HAS_UVLOOP, reason="uvloop is not installed (the uvloop extra)")
async def test_two_racers_on_uvloop_nodes_play_a_whole_deal(
    node_processes: ProcessFactory, store: Store
) -> None:
    """Two nodes on uvloop (its transports are not asyncio.Transport subclasses, which
    the websocket and Redis protocols must accept): a deal played to its end, each
    move logged once."""
    nodes = await asyncio.to_thread(node_processes, 2, BALLROOM_LOOP="uvloop")
    ann = await connect(nodes[0].url, "Ann")
    bo = await connect(nodes[1].url, "Bo")
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


@pytest.mark.skipif(HAS_UVLOOP, reason="uvloop is installed here")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_uvloop_without_the_package_is_said_in_one_line(workers: str) -> None:
    """Before anything starts: no supervisor restarting workers that cannot run."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--loop", "uvloop", "--workers", workers,
         "--port", "0", "--redis", "redis://127.0.0.1:1/0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "pip install 'ballroom[uvloop]'" in done.stderr and "Traceback" not in done.stderr

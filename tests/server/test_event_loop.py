"""``ballroom serve --loop``: uvloop's loop where it is installed, asyncio's on request;
a node on uvloop serves a whole race like one on asyncio."""

from __future__ import annotations

import asyncio
import importlib
import os
import pathlib
import socket
import subprocess
import sys

import pytest

from protocol.messages import RaceFinished
from server.event_loop import MissingEventLoop, loop_factory
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


def test_the_loop_is_auto_unless_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """``auto`` by default; ``BALLROOM_LOOP`` picks another, ``--loop`` (an override) wins."""
    monkeypatch.delenv("BALLROOM_LOOP", raising=False)
    assert Settings.from_env().event_loop is EventLoop.AUTO
    monkeypatch.setenv("BALLROOM_LOOP", "asyncio")
    assert Settings.from_env().event_loop is EventLoop.ASYNCIO
    assert Settings.from_env(event_loop=EventLoop.UVLOOP).event_loop is EventLoop.UVLOOP


@pytest.mark.skipif(not HAS_UVLOOP, reason="uvloop is not installed")
def test_auto_is_uvloop_where_it_is_installed() -> None:
    """uvloop is a dependency wherever it builds, so a node runs on it unless told not to."""
    import uvloop

    assert loop_factory(EventLoop.AUTO) is uvloop.new_event_loop
    assert loop_factory(EventLoop.UVLOOP) is uvloop.new_event_loop
    assert loop_factory(EventLoop.ASYNCIO) is None


def test_auto_without_uvloop_is_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where uvloop is missing (Windows), ``auto`` quietly runs asyncio's loop; only an
    explicit ``uvloop`` is refused."""
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it raises ImportError
    assert loop_factory(EventLoop.AUTO) is None
    with pytest.raises(MissingEventLoop, match="--loop asyncio runs without it"):
        loop_factory(EventLoop.UVLOOP)


def test_workers_run_on_the_supervisors_loop() -> None:
    """``serve --workers N --loop uvloop``: each worker is started with the same loop."""
    settings = Settings(redis_url="redis://127.0.0.1:1/0", event_loop=EventLoop.UVLOOP)
    with socket.socket() as sock:
        line = Supervisor(settings, [sock], lambda: sock).command_line(1)
    assert line[line.index("--loop") + 1] == "uvloop"


@pytest.mark.parametrize(
    "loop",
    [
        "asyncio",
        pytest.param("uvloop", marks=pytest.mark.skipif(not HAS_UVLOOP, reason="no uvloop")),
    ],
)
async def test_two_racers_play_a_whole_deal_on_either_loop(
    node_processes: ProcessFactory, store: Store, loop: str
) -> None:
    """Two nodes on each loop (uvloop's transports are not asyncio.Transport subclasses,
    which the websocket and Redis protocols must accept; asyncio's is no longer the
    default): a deal played to its end, each move logged once."""
    nodes = await asyncio.to_thread(node_processes, 2, BALLROOM_LOOP=loop)
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


@pytest.mark.parametrize("workers", ["1", "2"])
def test_uvloop_without_the_package_is_said_in_one_line(
    workers: str, tmp_path: pathlib.Path
) -> None:
    """Before anything starts: no supervisor restarting workers that cannot run. The
    package is hidden from the node by a module of its name that fails to import."""
    (tmp_path / "uvloop.py").write_text("raise ImportError('hidden by the test')\n")
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--loop", "uvloop", "--workers", workers,
         "--port", "0", "--redis", "redis://127.0.0.1:1/0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 1
    assert "--loop asyncio runs without it" in done.stderr and "Traceback" not in done.stderr

"""``ballroom play``'s launcher: a real background server, and nothing left behind.

The client here is a stand-in that connects, creates a race and returns (or
fails), so these tests cover the launcher alone. Processes are found through
``/proc`` (Linux), since psutil is not a dependency.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from client.launcher import LocalServer, default_name, play
from client.session import ClientSession
from protocol.lobby import RaceSummary
from protocol.messages import CreateRace, RaceInfo, SpectatePolicy
from tests.processes import alive, children, descendants, kill_left, wait_gone
from tests.server.conftest import TIMEOUT

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
    pytest.mark.slow,
]


def _local_servers() -> dict[int, list[str]]:
    return {
        pid: command
        for pid, command in children(os.getpid()).items()
        if "server.cli" in command and "serve" in command
    }


class FakeClient:
    """Stands in for the terminal client: finds the server, creates a race, then ends."""

    def __init__(self, ending: Callable[[], BaseException] | None = None) -> None:
        self.ending = ending
        self.calls: list[tuple[str, str]] = []
        self.pids: list[int] = []
        self.data_dir: Path | None = None
        self.race: RaceSummary | None = None

    def __call__(self, url: str, name: str) -> None:
        self.calls.append((url, name))
        servers = _local_servers()
        assert len(servers) == 1
        [(server, command)] = servers.items()
        self.data_dir = Path(command[command.index("--data-dir") + 1])
        redis = [pid for pid, command in children(server).items() if "redis-server" in command[0]]
        assert len(redis) == 1  # the server listens only once its Redis answers
        self.pids = [server, *redis]
        self.race = asyncio.run(self._create_race(url, name))
        if self.ending is not None:
            raise self.ending()

    async def _create_race(self, url: str, name: str) -> RaceSummary:
        session = await ClientSession.connect(url, name)
        created = await session.request(
            CreateRace(
                variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
            ),
            RaceInfo,
        )
        await session.close()
        return created.race


def test_play_runs_the_client_against_a_local_server_and_stops_it() -> None:
    """With no server given, play starts one with embedded Redis, runs the client, cleans up."""
    client = FakeClient()
    assert play(None, "Ann", run_app=client, start_timeout=3 * TIMEOUT) == 0
    [(url, name)] = client.calls
    assert url.startswith("ws://127.0.0.1:") and name == "Ann"
    assert client.race is not None and client.race.phase == "open"
    assert len(client.pids) == 2
    assert not [pid for pid in client.pids if alive(pid)]
    assert client.data_dir is not None and not client.data_dir.exists()  # temporary, removed
    assert not _local_servers()


class Interrupted(Exception):
    """A client that crashes."""


def _terminate_self() -> BaseException:
    """What the client does when the terminal goes away: SIGTERM reaches the launcher."""
    os.kill(os.getpid(), signal.SIGTERM)
    return AssertionError("SIGTERM did not stop the client")


@pytest.mark.parametrize(
    ("ending", "raised"),
    [
        (lambda: Interrupted("the client crashed"), Interrupted),
        (KeyboardInterrupt, KeyboardInterrupt),
        (_terminate_self, SystemExit),
    ],
    ids=["exception", "ctrl-c", "sigterm"],
)
def test_play_stops_the_server_however_the_client_ends(
    tmp_path: Path, ending: Callable[[], BaseException], raised: type[BaseException]
) -> None:
    """A crash, Ctrl-C or SIGTERM in the client still stops the server and its Redis."""
    client = FakeClient(ending)
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(raised):
        play(None, "Ann", run_app=client, data_dir=tmp_path / "play", start_timeout=3 * TIMEOUT)
    assert signal.getsignal(signal.SIGTERM) == previous
    assert len(client.pids) == 2
    assert not [pid for pid in client.pids if alive(pid)]
    assert (tmp_path / "play" / "redis").is_dir()  # the embedded Redis kept its data here
    assert not _local_servers()


def test_play_with_a_server_url_starts_no_server() -> None:
    """Given --server, play runs the client against it and starts nothing."""
    calls: list[tuple[str, str]] = []

    def client(url: str, name: str) -> None:
        assert not _local_servers()
        calls.append((url, name))

    assert play("ws://example.org:8765/", "Bo", run_app=client) == 0
    assert calls == [("ws://example.org:8765/", "Bo")]


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    """If the server dies while starting, the error carries its log (the server's own
    one-line reason) and nothing is left."""
    (tmp_path / "redis").write_text("a file where Redis wants its directory")
    server = LocalServer(tmp_path, start_timeout=3 * TIMEOUT)
    with pytest.raises(RuntimeError, match="exited with") as failed:
        server.start()
    said = str(failed.value)
    assert f"ballroom serve: cannot use data dir {tmp_path / 'redis'}: not a directory" in said
    assert "Traceback" not in said
    assert server.process is None and not _local_servers()


def test_a_server_that_does_not_listen_in_time_is_stopped(tmp_path: Path) -> None:
    """A start that runs out of time says what it waited for and stops the server: no
    server process is left."""
    server = LocalServer(tmp_path, start_timeout=0.0, stop_timeout=TIMEOUT)
    with pytest.raises(RuntimeError, match="waiting for the local server to listen"):
        server.start()
    assert server.process is None and not _local_servers()


def test_default_name_is_a_valid_display_name() -> None:
    """The default player name is 1..24 printable characters with no outer spaces."""
    name = default_name()
    assert 1 <= len(name) <= 24 and name.isprintable() and name.strip() == name


def test_local_server_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    """SIGTERM is enough: the server exits 0 in time, without the SIGKILL fallback."""
    server = LocalServer(tmp_path, start_timeout=3 * TIMEOUT, stop_timeout=TIMEOUT).start()
    assert server.process is not None
    pid = server.process.pid
    assert server.stop() == 0
    assert not alive(pid) and not _local_servers()


#: A launcher whose client prints the local server's URL and then waits forever.
_WAITING_PLAY = """
import sys, threading
from client.launcher import play

def client(url, name):
    print(url, flush=True)
    threading.Event().wait()

sys.exit(play(None, "Ann", run_app=client, start_timeout=float(sys.argv[1])))
"""


def test_a_killed_launcher_leaves_no_server_redis_or_directory() -> None:
    """``kill -9`` of ``ballroom play`` (no clean-up runs in it): its local server, that
    server's redis-server and the /tmp/ballroom-play-* directory all go anyway."""
    launcher = subprocess.Popen(
        [sys.executable, "-c", _WAITING_PLAY, str(3 * TIMEOUT)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    started: dict[int, list[str]] = {}
    try:
        assert launcher.stdout is not None
        ready, _, _ = select.select([launcher.stdout], [], [], 4 * TIMEOUT)
        assert ready and launcher.stdout.readline().startswith("ws://127.0.0.1:")
        started = descendants(launcher.pid)
        [server] = [c for c in started.values() if "server.cli" in c]
        assert any("redis-server" in c[0] for c in started.values())
        directory = Path(server[server.index("--temporary-dir") + 1])
        assert directory.name.startswith("ballroom-play-") and directory.is_dir()
        launcher.kill()
        launcher.wait(TIMEOUT)
        assert not wait_gone(started, 2 * TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        while directory.exists():
            assert time.monotonic() < deadline, f"{directory} was left behind"
            time.sleep(0.02)
    finally:
        launcher.kill()
        launcher.wait(TIMEOUT)
        kill_left(started)

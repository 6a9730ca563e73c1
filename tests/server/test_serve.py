"""``ballroom serve`` with no Redis URL: its own redis-server, durable across restarts.

And the clean-process promises: a port or data dir in use is said in one
line; a killed server takes its redis-server with it; a Ctrl-C stops
everything in order, quietly.
"""

from __future__ import annotations

import asyncio
import base64
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.session import ClientSession
from protocol.messages import CreateRace, JoinRace, ListRaces, RaceInfo, Races, SpectatePolicy
from server.serve import ServeError, run_server
from server.settings import Settings
from server.storage import store
from server.storage.embedded import free_port
from tests.processes import ROOT, children, descendants, kill_left, servers, wait_gone
from tests.server.conftest import TIMEOUT, ServerProcess

pytestmark = pytest.mark.slow


def _redis_children(pid: int) -> list[int]:
    """The redis-server processes whose parent is ``pid``."""
    return [child for child, command in children(pid).items() if "redis-server" in command[0]]


async def _stop(server: ServerProcess) -> None:
    """SIGTERM: the node exits 0 in time and leaves no redis-server behind."""
    redis_pids = _redis_children(server.pid)
    try:
        started = time.monotonic()
        assert await asyncio.to_thread(server.stop, TIMEOUT) == 0, server.output()
        assert time.monotonic() - started < TIMEOUT
        assert not await asyncio.to_thread(wait_gone, redis_pids, TIMEOUT), "redis outlived it"
    finally:
        kill_left(redis_pids)


async def _serve(tmp_path: Path, data_dir: Path) -> ServerProcess:
    server = ServerProcess(tmp_path, ["--data-dir", str(data_dir)], {})
    try:
        return await asyncio.to_thread(server.wait_ready)
    except BaseException:
        redis_pids = _redis_children(server.pid)
        await asyncio.to_thread(server.stop)
        kill_left(redis_pids)
        raise


async def test_serve_embeds_redis_with_aof_and_survives_restart(tmp_path: Path) -> None:
    """Without --redis or REDIS_URL the node runs its own redis-server with AOF in
    --data-dir, stops it on SIGTERM, and finds its races again after a restart."""
    data_dir = tmp_path / "redis"
    server = await _serve(tmp_path, data_dir)
    try:
        assert len(_redis_children(server.pid)) == 1
        async with asyncio.timeout(TIMEOUT):
            host = await ClientSession.connect(server.url, "Ann")
            created = await host.request(
                CreateRace(
                    variant="gavotte", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
                ),
                RaceInfo,
            )
            await host.close()
        race, code = created.race.id, created.race.code
    finally:
        await _stop(server)

    aof = data_dir / "appendonly.aof"
    assert aof.is_file() and race.encode() in aof.read_bytes()

    again = await _serve(tmp_path, data_dir)
    try:
        async with asyncio.timeout(TIMEOUT):
            guest = await ClientSession.connect(again.url, "Bo")
            listed = await guest.request(ListRaces(), Races)
            assert race in [r.id for r in listed.races]
            joined = await guest.request(JoinRace(code=code), RaceInfo)
            await guest.close()
        assert joined.race.id == race
        assert joined.race.players == (created.race.host, guest.player)
    finally:
        await _stop(again)


def _serve_once(*args: str) -> subprocess.CompletedProcess[str]:
    """``ballroom serve`` with ``args``, expected to refuse at once: its status and output."""
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", *args]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=3 * TIMEOUT, check=False
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_said_in_one_line(tmp_path: Path, workers: str) -> None:
    """Serving on a port something else listens on: one clear line, exit 1, no traceback,
    and nothing started (no Redis, no data dir)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _serve_once(
            "--port", str(port), "--workers", workers, "--data-dir", str(tmp_path / "r")
        )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"ballroom serve: port {port} on 127.0.0.1 is in use: stop what holds it or pass --port"
    ]
    assert not (tmp_path / "r").exists()


def test_a_data_dir_that_cannot_be_one_is_said_in_one_line(tmp_path: Path) -> None:
    """A file where the data dir should be: one clear line, exit 1, no traceback."""
    in_the_way = tmp_path / "redis"
    in_the_way.write_text("not a directory", encoding="utf-8")
    done = _serve_once("--port", str(free_port()), "--data-dir", str(in_the_way))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"ballroom serve: cannot use data dir {in_the_way}: not a directory"
    ]


@pytest.mark.parametrize("url", ["notaurl", "http://127.0.0.1:6379/", "127.0.0.1:6379"])
def test_a_redis_url_that_names_no_redis_is_said_in_one_line(url: str) -> None:
    """--redis with a URL of no Redis scheme is refused before anything starts."""
    done = _serve_once("--port", str(free_port()), "--redis", url)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"ballroom serve: {url!r} is not a Redis URL: give redis://HOST:PORT/, rediss://,"
        " unix://PATH or redis+cluster://HOST:PORT/"
    ]


def test_an_allowed_origin_from_the_environment_that_is_none_is_said_in_one_line(
    tmp_path: Path,
) -> None:
    """$BALLROOM_ALLOWED_ORIGINS is checked as --allowed-origin is (a supervisor passes
    them on to its workers as that option), before anything starts."""
    command = [
        sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
        "--port", str(free_port()), "--data-dir", str(tmp_path / "r"),
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=3 * TIMEOUT, check=False,
        env={**os.environ, "BALLROOM_ALLOWED_ORIGINS": "https://ok.example watch.example.org"},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "ballroom serve: allowed origin: an origin is http(s)://HOST[:PORT], e.g."
        " https://watch.example.org, not 'watch.example.org'"
    ]
    assert not (tmp_path / "r").exists()


def test_workers_past_the_file_descriptors_are_said_in_one_line(tmp_path: Path) -> None:
    """More workers than the process may open sockets for (``ulimit -n``): one line, exit 1,
    nothing started."""
    command = [
        sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
        "--port", str(free_port()), "--workers", "100", "--data-dir", str(tmp_path / "r"),
    ]  # fmt: skip

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (60, 60))

    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=3 * TIMEOUT, check=False,
        preexec_fn=few_files,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "ballroom serve: cannot open 100 workers' sockets: Too many open files"
    ]
    assert not (tmp_path / "r").exists()


def test_a_redis_that_never_answers_ends_serve_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing listens where --redis points: after its tries (two here, forty by default)
    the node stops with a ServeError, which ``ballroom serve`` says in one line."""
    monkeypatch.setattr(store, "CONNECT_ATTEMPTS", 2)
    url = f"redis://127.0.0.1:{free_port()}/"
    settings = Settings(host="127.0.0.1", port=free_port(), redis_url=url)
    sigterm = signal.getsignal(signal.SIGTERM)  # run_server takes SIGTERM over
    try:
        with pytest.raises(ServeError) as refused:
            run_server(settings)
    finally:
        signal.signal(signal.SIGTERM, sigterm)
    assert str(refused.value) == f"redis at {url} did not answer"


async def test_one_data_dir_one_server_and_a_killed_server_takes_its_redis(
    tmp_path: Path,
) -> None:
    """A second serve on a data dir in use is refused in one line; SIGKILL of the first
    ends its redis-server too (nothing left on the AOF), and frees the dir for the next."""
    data_dir = tmp_path / "redis"
    first = await _serve(tmp_path, data_dir)
    redis_pids = _redis_children(first.pid)
    try:
        second = await asyncio.to_thread(
            _serve_once, "--port", str(free_port()), "--data-dir", str(data_dir)
        )
        assert second.returncode == 1
        assert second.stderr.strip().splitlines() == [
            f"ballroom serve: data dir {data_dir} is in use by another ballroom serve "
            f"(pid {first.pid}); stop it or give another --data-dir"
        ]
        assert _redis_children(first.pid) == redis_pids  # and no second redis-server
        await asyncio.to_thread(first.kill)
        assert not await asyncio.to_thread(wait_gone, redis_pids, TIMEOUT), "redis outlived it"
    finally:
        kill_left(redis_pids)
    again = await _serve(tmp_path, data_dir)
    await _stop(again)


@pytest.mark.parametrize("workers", [1, 2])
async def test_ctrl_c_in_a_terminal_stops_everything_in_order(tmp_path: Path, workers: int) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: the node
    stops first and its Redis after it, so no "event feed lost" or "degraded" is logged,
    even while a client that never answers the closing handshake holds the node up."""
    log_path = tmp_path / "serve.log"
    port = free_port()
    command = [
        sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
        "--port", str(port), "--workers", str(workers), "--data-dir", str(tmp_path / "redis"),
    ]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    started = descendants(process.pid)
    try:
        url = f"ws://127.0.0.1:{port}/"
        async with asyncio.timeout(3 * TIMEOUT):
            watchers = [await _until_connected(url, f"W{n}") for n in range(4)]
            for watcher in watchers:  # each node's event feed has a channel to lose
                await watcher.request(
                    CreateRace(
                        variant="gavotte",
                        max_players=2,
                        time_limit=600,
                        spectate=SpectatePolicy.LIVE,
                    ),
                    RaceInfo,
                )
            silent = await asyncio.to_thread(_silent_client, port)
        started = descendants(process.pid)
        assert len(servers(started)) == workers + (
            workers > 1
        )  # workers (if more than one) and Redis
        os.killpg(process.pid, signal.SIGINT)
        assert await asyncio.to_thread(process.wait, 3 * TIMEOUT) == 0
        assert not await asyncio.to_thread(wait_gone, started, TIMEOUT)
        silent.close()
    finally:
        kill_left([process.pid, *started])
    output = log_path.read_text()
    assert "event feed lost" not in output and "degraded" not in output, output


def _silent_client(port: int) -> socket.socket:
    """A websocket client that opens and then never reads: a node closing it waits."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    return sock


async def _until_connected(url: str, name: str) -> ClientSession:
    """A session, once the server accepts (its port is bound before it listens)."""
    while True:
        try:
            return await ClientSession.connect(url, name)
        except OSError:
            await asyncio.sleep(0.05)

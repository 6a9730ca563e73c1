"""``ballroom serve`` with no Redis URL: its own redis-server, durable across restarts."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from client.session import ClientSession
from protocol.messages import CreateRace, JoinRace, ListRaces, RaceInfo, Races
from tests.server.conftest import TIMEOUT, ServerProcess


def _redis_children(pid: int) -> list[int]:
    """The redis-server processes whose parent is ``pid`` (read from /proc)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == pid and b"redis-server" in command:
            children.append(int(stat.parent.name))
    return children


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _stop(server: ServerProcess) -> None:
    """SIGTERM: the node exits 0 in time and leaves no redis-server behind."""
    redis_pids = _redis_children(server.pid)
    try:
        started = time.monotonic()
        assert await asyncio.to_thread(server.stop, TIMEOUT) == 0, server.output()
        assert time.monotonic() - started < TIMEOUT
        deadline = time.monotonic() + TIMEOUT
        while any(_running(pid) for pid in redis_pids):
            assert time.monotonic() < deadline, "redis-server outlived the node"
            await asyncio.sleep(0.02)
    finally:
        _kill_left(redis_pids)


def _kill_left(pids: list[int]) -> None:
    """SIGKILL the embedded redis-servers a test started, if any was left running."""
    for pid in pids:
        if _running(pid):
            os.kill(pid, signal.SIGKILL)


async def _serve(tmp_path: Path, data_dir: Path) -> ServerProcess:
    server = ServerProcess(tmp_path, ["--data-dir", str(data_dir)], {})
    try:
        return await asyncio.to_thread(server.wait_ready)
    except BaseException:
        redis_pids = _redis_children(server.pid)
        await asyncio.to_thread(server.stop)
        _kill_left(redis_pids)
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
                CreateRace(variant="gavotte", max_players=2, time_limit=600, spectate="live"),
                RaceInfo,
            )
            await host.close()
        race, code = created.race["id"], created.race["code"]
    finally:
        await _stop(server)

    aof = data_dir / "appendonly.aof"
    assert aof.is_file() and race.encode() in aof.read_bytes()

    again = await _serve(tmp_path, data_dir)
    try:
        async with asyncio.timeout(TIMEOUT):
            guest = await ClientSession.connect(again.url, "Bo")
            listed = await guest.request(ListRaces(), Races)
            assert race in [r["id"] for r in listed.races]
            joined = await guest.request(JoinRace(code=code), RaceInfo)
            await guest.close()
        assert joined.race["id"] == race
        assert joined.race["players"] == [created.race["host"], guest.player]
    finally:
        await _stop(again)

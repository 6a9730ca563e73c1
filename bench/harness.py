"""What the load benches share: their processes, what those cost, and groups of lean clients.

:mod:`bench.race_load` (one node, measured windows) and :mod:`bench.soak`
(several nodes, a long steady run) start the same kind of server
processes, read the same ``/proc`` figures and drive racers through the
same protocol steps; those live here so the two cannot drift apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import platform
import resource
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from bench.lean_client import LIBRARY, LeanClient, Wire, connect
from protocol.messages import CreateRace, JoinRace, Spectate, StartRace
from protocol.processes import Child
from server.storage import store as storage
from server.storage.embedded import EmbeddedRedis, free_port

#: The repository root: where ``python -m server.cli`` finds the packages.
ROOT = Path(__file__).resolve().parent.parent

__all__ = [
    "ROOT",
    "Child",
    "child",
    "close_all",
    "connect_many",
    "cpu_seconds",
    "cpu_split",
    "fresh_store",
    "gather_limited",
    "gc_pauses",
    "gc_pauses_env",
    "load_average",
    "machine",
    "machine_busy_seconds",
    "open_race",
    "percentile",
    "raise_open_files",
    "rss_mib",
    "saturation_env",
    "server_argv",
    "server_env",
]

T = TypeVar("T")


# ----------------------------------------------------------------------
# Figures.


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method; NaN if empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def machine() -> dict[str, Any]:
    """The machine and the versions that shape every figure."""
    return {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "client": f"{LIBRARY} {metadata.version(LIBRARY)}",
        "websockets": metadata.version("websockets"),
        "redis-py": metadata.version("redis"),
        "hiredis": metadata.version("hiredis"),
    }


# ----------------------------------------------------------------------
# Processes.


def raise_open_files(wanted: int) -> tuple[int, int]:
    """Raise this process's soft RLIMIT_NOFILE toward ``wanted`` (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def rss_mib(pid: int) -> float:
    """Resident memory of a process, from /proc/PID/status (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used, from /proc/PID/stat."""
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU time a process has used, from /proc/PID/stat: the system part
    of a node that writes to thousands of loopback sockets is mostly the sends themselves."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def machine_busy_seconds() -> float:
    """CPU time all processes on this machine have used, from /proc/stat."""
    fields = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    """The one-minute load average: other work on this machine skews every figure."""
    return float(Path("/proc/loadavg").read_text().split()[0])


@contextlib.contextmanager
def child(
    name: str,
    argv: list[str],
    log_dir: Path,
    env: dict[str, str] | None = None,
    *,
    cwd: Path = ROOT,
) -> Iterator[Child]:
    """Start ``argv`` (with ``{port}`` filled in) in ``cwd`` and stop it on exit."""
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    proc = Child(name, argv, port, log_dir, {**os.environ, **(env or {})}, cwd=cwd)
    try:
        proc.wait_listening()
        yield proc
    except BaseException:
        proc.stop()
        tail = proc.log_path.read_text(errors="replace").splitlines()[-30:]
        print(f"--- the last lines of {name}'s log:", *tail, sep="\n", file=sys.stderr)
        raise
    finally:
        proc.stop()


@contextlib.asynccontextmanager
async def fresh_store(prefix: str) -> AsyncIterator[storage.Store]:
    """A store on a redis-server of its own, in a temporary folder named from ``prefix``:
    what a bench that measures Redis itself starts from; stopped and removed after."""
    with tempfile.TemporaryDirectory(prefix=prefix) as data, EmbeddedRedis(Path(data)) as redis:
        store = await storage.connect(redis.url)
        try:
            yield store
        finally:
            await store.close()


def server_argv(redis_url: str | None, profile: Path | None = None) -> list[str]:
    """``ballroom serve`` on port ``{port}``; with ``profile``, under cProfile writing there.

    With ``redis_url`` None the node takes ``REDIS_URL`` from its environment.
    """
    python = [sys.executable] if profile is None else [sys.executable, "-m", "cProfile", "-o"]
    python += [] if profile is None else [str(profile)]
    redis = [] if redis_url is None else ["--redis", redis_url]
    return [*python, "-m", "server.cli", "serve", *redis, "--port", "{port}"]


def server_env(**extra: str) -> dict[str, str]:
    """A node's environment: every load client comes from 127.0.0.1, so no per-address cap
    (on connections, nor on the guest sessions they open)."""
    return {
        "BALLROOM_CONNECTIONS_PER_ADDRESS": "1000000",
        "BALLROOM_GUESTS_PER_ADDRESS": "1000000",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def gc_pauses_env(log: Path) -> dict[str, str]:
    """The environment that has a node time its collector's passes into ``log``
    (:mod:`bench.gc_pauses`, imported at start-up from the ``PYTHONPATH``)."""
    path = [str(ROOT / "bench" / "gc_pauses"), os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(p for p in path if p), "BALLROOM_GC_PAUSES": str(log)}


def gc_pauses(log: Path, start: float, end: float) -> dict[str, dict[str, float]]:
    """Per generation, the collector passes ``log`` holds between Unix times ``start`` and
    ``end``: how many, the longest and their total, in ms (none if the log is missing)."""
    found: dict[int, list[float]] = {}
    if log.exists():
        for line in log.read_text(encoding="ascii").splitlines():
            at, generation, ms = line.split()
            if start <= float(at) <= end:
                found.setdefault(int(generation), []).append(float(ms))
    return {
        str(generation): {
            "count": len(passes),
            "max_ms": round(max(passes), 1),
            "total_ms": round(sum(passes), 1),
        }
        for generation, passes in sorted(found.items())
    }


def saturation_env() -> dict[str, str]:
    """A node's environment under racers moving back to back: no rate limit, no countdown."""
    return server_env(BALLROOM_RATE="1000000", BALLROOM_BURST="1000000", BALLROOM_COUNTDOWN="0")


# ----------------------------------------------------------------------
# Clients.


async def gather_limited(factories: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
    """Run the coroutines ``factories`` make, at most ``limit`` at a time, in order."""
    semaphore = asyncio.Semaphore(limit)

    async def one(factory: Callable[[], Awaitable[T]]) -> T:
        async with semaphore:
            return await factory()

    return await asyncio.gather(*(one(f) for f in factories))


async def connect_many(
    url: str | Sequence[str],
    count: int,
    prefix: str,
    *,
    strict: bool,
    hello: bool = True,
    limit: int = 64,
    headers: Mapping[str, str] | None = None,
) -> list[LeanClient]:
    """``count`` connected clients, named ``prefix``-N, ``limit`` handshakes at a time.

    With several URLs, client N connects to ``url[N % len(url)]``. ``headers``
    go on every handshake.
    """
    urls = [url] if isinstance(url, str) else list(url)

    def factory(i: int) -> Callable[[], Awaitable[LeanClient]]:
        return lambda: connect(
            urls[i % len(urls)],
            name=f"{prefix}{i}" if hello else None,
            strict=strict,
            headers=headers,
        )

    return await gather_limited([factory(i) for i in range(count)], limit)


async def close_all(clients: Sequence[LeanClient], timeout: float = 10) -> None:
    """Close every client and wait for the closing handshakes (the server then stops fast)."""
    for client in clients:
        client.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(c.closed for c in clients)), timeout)


async def open_race(
    racers: Sequence[LeanClient],
    spectators: Sequence[LeanClient],
    *,
    variant: str,
    time_limit: int,
    timeout: float = 60,
) -> list[Wire]:
    """Create a race (``racers[0]`` hosts), fill it, add spectators, start it.

    Returns the racers' ``race_started`` pushes, in the order of ``racers``.
    """
    host = racers[0]
    created = await host.call(
        CreateRace, variant=variant, max_players=len(racers), time_limit=time_limit, spectate="live"
    )
    race: str = created["race"]["id"]
    for guest in racers[1:]:
        await guest.call(JoinRace, race=race)
    for spectator in spectators:
        await spectator.call(Spectate, race=race)
    starts = [racer.expect("race_started", race) for racer in racers]
    await host.call(StartRace, race=race)
    return list(await asyncio.wait_for(asyncio.gather(*starts), timeout))

"""``ballroom serve --workers N``: N node processes on one listening socket.

One ``ballroom serve`` is one process, so it uses one core. The supervisor
binds N sockets to the port with ``SO_REUSEPORT`` (in :mod:`server.serve`)
and hands one to each of N worker processes, each a full node (``ballroom
serve --listen-fd``); the kernel spreads new connections evenly over the
listening ones. (One socket shared by all was tried first: whichever worker
woke first took most of a burst, 71 of 100.) The workers share nothing but
Redis, exactly as nodes on several machines do, so any worker serves any
request and a client needs to know nothing about them.

The supervisor restarts a worker that dies, after a pause that doubles on
each quick death (a worker that fails at start must not spin), and logs why.
A dead worker's socket is closed at once, so that new connections go to the
living ones until its successor listens on a fresh one; clients that were
waiting in its queue are refused and connect again.
On SIGTERM or SIGINT it closes its copies of the sockets, asks every worker to
stop (each stops accepting, closes its clients with "going away" and its
Redis connections), waits, kills any that does not stop in time, and
returns, so that the caller stops an embedded Redis last. Workers run in a
session of their own (a terminal's Ctrl-C reaches only the supervisor) and
get SIGTERM if the supervisor itself is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from server.lifetime import preexec_exit_with_parent
from server.settings import Settings

__all__ = ["Supervisor", "worker_count"]

log = logging.getLogger(__name__)

#: Where ``python -m server.cli`` finds the packages, however this one was installed.
_PACKAGES_ROOT = Path(__file__).resolve().parents[1]


#: The most worker nodes one supervisor runs: more than the cores of any one machine gain
#: nothing, and each holds sockets and pipes of the supervisor's.
MOST_WORKERS = 1024


def worker_count(text: str) -> int:
    """``--workers``: a whole number from 1 to :data:`MOST_WORKERS`, or ``auto`` (the cores
    this process may use)."""
    if text == "auto":
        cores = (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
        return min(cores, MOST_WORKERS)
    try:
        count = int(text)
    except ValueError:
        raise ValueError(f"--workers takes a number or 'auto', not {text!r}") from None
    if not 1 <= count <= MOST_WORKERS:
        raise ValueError(f"--workers must be 1..{MOST_WORKERS}")
    return count


class Supervisor:
    """Keeps one worker node process serving on each of its sockets until told to stop."""

    #: Pause before restarting a worker that died; doubles up to MOST_PAUSE.
    FIRST_PAUSE = 0.2
    MOST_PAUSE = 10.0
    #: A worker that lived this long died of something new: back to FIRST_PAUSE.
    STEADY = 30.0
    #: How long workers get to close their clients before they are killed.
    STOP_TIMEOUT = 15.0

    def __init__(
        self,
        settings: Settings,
        sockets: list[socket.socket],
        rebind: Callable[[], socket.socket],
    ) -> None:
        """One worker per socket in ``sockets``; ``rebind`` makes a successor's socket."""
        if settings.redis_url is None:
            raise ValueError("workers need settings.redis_url")
        self.settings = settings
        self.sockets = dict(enumerate(sockets, start=1))
        self.rebind = rebind
        self.workers = len(sockets)
        self.running: dict[int, asyncio.subprocess.Process] = {}
        self._stop = asyncio.Event()

    def run(self) -> None:
        """Blocking: serve until SIGINT or SIGTERM, then stop every worker."""

        async def until_signalled() -> None:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, self.stop)
            await self.supervise()

        asyncio.run(until_signalled())

    def stop(self) -> None:
        """Begin stopping: :meth:`supervise` then stops every worker and returns."""
        self._stop.set()

    def command_line(self, index: int) -> list[str]:
        """One worker: this node's settings, on the inherited socket, named after us."""
        settings = self.settings
        assert settings.redis_url is not None
        return [
            sys.executable, "-m", "server.cli", "serve",
            "--host", settings.host,
            "--port", str(settings.port),
            "--redis", settings.redis_url,
            "--node", f"{settings.node}.{index}",
            "--loop", settings.event_loop,
            "--listen-fd", str(self.sockets[index].fileno()),
            "--parent", str(os.getpid()),
            *(arg for origin in settings.allowed_origins for arg in ("--allowed-origin", origin)),
        ]  # fmt: skip

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        paths = [str(_PACKAGES_ROOT), *filter(None, [env.get("PYTHONPATH")])]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        return env

    async def supervise(self) -> None:
        """Keep the workers running until :meth:`stop`; then stop them all."""
        loop = asyncio.get_running_loop()
        print(
            f"ballroom serve: {self.workers} workers on ws://{self.settings.host}:"
            f"{self.settings.port}/ (redis {self.settings.redis_url})",
            flush=True,
        )
        keepers = [loop.create_task(self._keep(index)) for index in range(1, self.workers + 1)]
        await self._stop.wait()
        log.info("stopping %d workers", len(self.running))
        for sock in self.sockets.values():
            sock.close()  # new connections wait for no one that is leaving
        await self._stop_workers()
        for keeper in keepers:
            keeper.cancel()
        await asyncio.gather(*keepers, return_exceptions=True)

    async def _keep(self, index: int) -> None:
        """Run worker ``index``, and again after it dies, until the supervisor stops."""
        loop = asyncio.get_running_loop()
        pause = self.FIRST_PAUSE
        while not self._stop.is_set():
            started = loop.time()
            try:
                code, pid = await self._run_worker(index)
            except (OSError, RuntimeError) as exc:  # no socket or no process: try again later
                code, pid = None, None
                log.warning("worker %d could not start: %s", index, exc)
            if self._stop.is_set():
                return
            if (sock := self.sockets.pop(index, None)) is not None:
                sock.close()  # its share of new connections goes to the others
            lived = loop.time() - started
            if lived >= self.STEADY:
                pause = self.FIRST_PAUSE
            if code is not None:
                log.warning(
                    "worker %d (pid %s) exited with %s after %.1f s; restarting it in %.1f s",
                    index, pid, _describe(code), lived, pause,
                )  # fmt: skip
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await self._stop.wait()
            pause = min(2 * pause, self.MOST_PAUSE)

    async def _run_worker(self, index: int) -> tuple[int, int]:
        """Run worker ``index`` on its socket (a fresh one if it has none): (exit status, pid)."""
        if index not in self.sockets:
            self.sockets[index] = self.rebind()
        process = await asyncio.create_subprocess_exec(
            *self.command_line(index),
            stdin=asyncio.subprocess.DEVNULL,
            env=self._environment(),
            pass_fds=(self.sockets[index].fileno(),),
            start_new_session=True,
            preexec_fn=preexec_exit_with_parent(),
        )
        self.running[index] = process
        if self._stop.is_set():  # stopping began while it started: missed by _stop_workers
            process.terminate()
        try:
            return await process.wait(), process.pid
        finally:
            del self.running[index]

    async def _stop_workers(self) -> None:
        """SIGTERM every worker; SIGKILL those still running after STOP_TIMEOUT."""
        processes = list(self.running.values())
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        waits = [asyncio.ensure_future(process.wait()) for process in processes]
        if not waits:
            return
        _, late = await asyncio.wait(waits, timeout=self.STOP_TIMEOUT)
        for process in processes:
            if process.returncode is None:
                log.warning("worker pid %d did not stop in time: killed", process.pid)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        if late:
            await asyncio.gather(*late)


def _describe(code: int) -> str:
    """An exit status in words: ``status 1`` or ``SIGKILL``."""
    if code < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-code).name
    return f"status {code}"

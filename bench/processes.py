"""A child process listening on a loopback port, its output in a log file.

The benches run servers and baselines this way, and the multi-node tests
run real nodes this way (a node must be killable, as in a crash, without
taking the caller's event loop with it). One class serves both.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ROOT", "Child", "children", "stat_fields"]

#: The repository root: where ``python -m server.cli`` finds the packages.
ROOT = Path(__file__).resolve().parent.parent


class Child:
    """``argv`` started in ``cwd`` (the repository root) with exactly ``env``, listening on
    ``port``. ``python -m`` imports the project from its ``cwd``: another checkout's there."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        port: int,
        log_dir: Path,
        env: Mapping[str, str],
        *,
        cwd: Path = ROOT,
    ) -> None:
        self.name, self.port = name, port
        self.log_path = log_dir / f"{name}-{port}.log"
        with self.log_path.open("wb") as log:  # the child keeps its own copy
            self.process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        """The tail of what the process printed, for failure messages."""
        return self.log_path.read_text(errors="replace")[-4000:]

    def wait_listening(self, timeout: float = 30) -> None:
        """Block until the port accepts TCP connections; raise if the process ends first."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}:\n{self.output()}"
                )
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not listen in {timeout}s:\n{self.output()}")
            time.sleep(0.02)

    def kill(self, timeout: float = 10) -> None:
        """SIGKILL, as a crash would: no clean-up runs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=timeout)

    def stop(self, timeout: float = 10) -> int:
        """SIGTERM, wait up to ``timeout``, then SIGKILL; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def stat_fields(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first, then ppid)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> dict[int, list[str]]:
    """The live children of ``pid`` (Linux, from /proc): their pids and command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int(stat_fields(entry.name)[1])
            command = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except (OSError, IndexError):
            continue  # gone meanwhile
        if parent == pid:
            found[int(entry.name)] = command
    return found

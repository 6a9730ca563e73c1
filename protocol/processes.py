"""Starting, awaiting and stopping a child process: the process handling both ends share.

The server runs its embedded redis-server and a test cluster's nodes, the
client's launcher runs a local server; each starts a child (in a process
group of its own when a Ctrl-C in the terminal must reach only the parent),
waits with a deadline until the child answers, and stops it in order: asks
it to end (SHUTDOWN, SIGTERM), waits, and kills it (or its whole group) only
if it did not end in time. It lives in ``protocol/`` because server and
client never import each other; it speaks no protocol, only to the children
it is given and to loopback ports.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "Child",
    "ChildExited",
    "NotReady",
    "children",
    "free_port",
    "kill_child",
    "start_child",
    "stat_fields",
    "stop_child",
    "wait_or_kill",
    "wait_ready",
]

#: Seconds between two looks at whether a child is ready.
POLL = 0.05


class ChildExited(RuntimeError):
    """A child ended while it was awaited: ``str()`` says which program, with what status."""

    def __init__(self, child: subprocess.Popen[Any], what: str, detail: str = "") -> None:
        self.returncode: int = child.returncode
        program = Path(str(child.args[0] if isinstance(child.args, list) else child.args)).name
        message = f"{program} exited with {self.returncode} while waiting for {what}"
        super().__init__(message + (f":\n{detail}" if detail else ""))


class NotReady(RuntimeError):
    """A child was not ready by the deadline."""


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_child(
    command: list[str],
    *,
    own_group: bool = False,
    output: Path | None = None,
    env: Mapping[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``command`` with no standard input.

    Args:
        command: the program and its arguments.
        own_group: run it in a session (process group) of its own, so that a
            Ctrl-C in the terminal reaches only this process, which stops the
            child in order; :func:`stop_child` can then kill its whole group.
        output: a file for its standard output and error (else they are ours).
        env: its environment (else ours).
        preexec_fn: run in the child before the program (e.g. to die with us).
        cwd: the directory it starts in (else ours).
    """
    with contextlib.ExitStack() as stack:
        log = None if output is None else stack.enter_context(output.open("wb"))
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=None if log is None else subprocess.STDOUT,
            env=None if env is None else dict(env),
            start_new_session=own_group,
            preexec_fn=preexec_fn,
            cwd=cwd,
        )


def wait_ready(
    ready: Callable[[], bool],
    *,
    timeout: float,
    what: str,
    children: Iterable[subprocess.Popen[Any]] = (),
    detail: Callable[[], str] | None = None,
    interval: float = POLL,
) -> None:
    """Ask ``ready()`` until it says yes, or until ``timeout`` seconds have passed.

    An ``OSError`` from ``ready`` (nothing listens yet) counts as not yet.
    Raises :class:`ChildExited` as soon as one of ``children`` has ended, and
    :class:`NotReady` at the deadline; both say what was awaited (``what``:
    "the nodes to start", say), then ``detail()`` (e.g. the end of the
    child's log) when it has something. ``interval``: seconds between asks.
    """
    watched = list(children)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except OSError:
            pass  # not listening yet: ask again
        for child in watched:
            if child.poll() is not None:
                raise ChildExited(child, what, "" if detail is None else detail())
        if time.monotonic() > deadline:
            more = "" if detail is None else detail()
            message = f"timed out after {timeout}s waiting for {what}"
            raise NotReady(message + (f":\n{more}" if more else ""))
        time.sleep(interval)


def wait_or_kill(
    process: subprocess.Popen[Any],
    timeout: float,
    kill: Callable[[], None] | None = None,
) -> int:
    """Wait up to ``timeout`` seconds for ``process`` to end, else kill it (SIGKILL, or
    ``kill``: e.g. its whole process group) and reap it; returns its exit status."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        (process.kill if kill is None else kill)()
        return process.wait()


def _kill_group(process: subprocess.Popen[Any]) -> Callable[[], None]:
    def kill() -> None:
        # Not yet reaped, so the group id is still the child's to kill.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    return kill


def stop_child(
    process: subprocess.Popen[Any],
    *,
    timeout: float,
    ask: Callable[[], object] | None = None,
    group: bool = False,
) -> int:
    """Stop ``process`` in order; returns its exit status.

    If it still runs, ``ask`` asks it to end (default: SIGTERM; an ``OSError``
    there, as from a child already gone, is ignored); then it has ``timeout``
    seconds before it is killed, with its whole process group if ``group``
    (a child started with ``own_group``).
    """
    if process.poll() is None:
        with contextlib.suppress(OSError):
            (process.terminate if ask is None else ask)()
        wait_or_kill(process, timeout, _kill_group(process) if group else None)
    return process.wait()


def kill_child(process: subprocess.Popen[Any]) -> None:
    """SIGKILL ``process`` (by its PID, unless it was reaped already), as a crash would,
    and reap it."""
    process.kill()
    process.wait()


class Child:
    """``argv`` started in ``cwd`` with exactly ``env``, listening on loopback ``port``, its
    output in a log file in ``log_dir``.

    The benches run servers and baselines this way, and the multi-node tests run
    real nodes this way: a node must be killable, as in a crash, without taking
    the caller's event loop with it. ``python -m`` imports the project from
    ``cwd``: another checkout's there.
    """

    def __init__(
        self,
        name: str,
        argv: list[str],
        port: int,
        log_dir: Path,
        env: Mapping[str, str],
        *,
        cwd: Path,
    ) -> None:
        self.name, self.port = name, port
        self.log_path = log_dir / f"{name}-{port}.log"
        self.process = start_child(argv, output=self.log_path, env=env, cwd=cwd)

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
        """Block until the port accepts TCP connections: :class:`ChildExited` if the process
        ends first, :class:`NotReady` at the deadline (both with the log's tail)."""
        wait_ready(
            self._listening,
            timeout=timeout,
            what=f"{self.name} to listen on port {self.port}",
            children=[self.process],
            detail=self.output,
            interval=0.02,
        )

    def _listening(self) -> bool:
        socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
        return True

    def kill(self) -> None:
        """SIGKILL, as a crash would: no clean-up runs."""
        kill_child(self.process)

    def stop(self, timeout: float = 10) -> int:
        """SIGTERM, wait up to ``timeout``, then SIGKILL; returns the exit status."""
        return stop_child(self.process, timeout=timeout)


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

"""Child processes that end with their parent, and what one server owns: its data dir, its port.

A ``ballroom serve`` killed with SIGKILL runs no clean-up, so whatever it
started (its embedded redis-server, its workers) must notice on its own. On
Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG)`` asks for a signal when
the parent goes. The signal is SIGTERM, so that the child still shuts down in
order (redis-server flushes its AOF; a node closes its clients). Two caveats
the helpers here handle: the request is made from inside the child, so a
parent that died before it ran is checked for afterwards; and the kernel
counts the *thread* that started the child as its parent, so children must
be started from a thread that lives as long as they should (the main one).

Elsewhere (no ``prctl``) these do nothing, and the data-directory lock still
keeps a second server off the same files.

Workers share a port through ``SO_REUSEPORT``, which any process of the same
user may join: :func:`claim_port` keeps a second ``ballroom serve --workers``
from joining by mistake.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "DataDirInUse",
    "PortClaimed",
    "claim_port",
    "exit_with_parent",
    "lock_data_dir",
    "preexec_exit_with_parent",
]

#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1

#: Loaded once in the parent: a child between fork and exec must not load libraries.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None

#: The lock file's name inside a data directory.
LOCK_NAME = "ballroom-serve.lock"


def exit_with_parent(parent: int, sig: signal.Signals = signal.SIGTERM) -> None:
    """Have the kernel send ``sig`` to this process when ``parent`` (its parent) ends.

    If ``parent`` is already gone (this process was re-parented before the
    request), the signal is sent at once.
    """
    if _LIBC is None:
        return
    if _LIBC.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def preexec_exit_with_parent(sig: signal.Signals = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess``: the child gets ``sig`` when this process ends.

    Start the child from the main thread (see the module's docstring), and
    with ``start_new_session=True`` where a Ctrl-C in the terminal should
    reach only this process, which then stops the child in order.
    """
    parent = os.getpid()

    def in_child() -> None:
        exit_with_parent(parent, sig)

    return in_child


class DataDirInUse(RuntimeError):
    """Another ``ballroom serve`` holds the data directory's lock; ``str()`` says which."""


@contextlib.contextmanager
def lock_data_dir(data_dir: Path) -> Iterator[Path]:
    """Hold ``data_dir``'s lock file for the block; raise :class:`DataDirInUse` if held.

    An ``flock``, which the kernel drops when its holder dies however it
    dies, so a crashed server never leaves a stale lock; the holder's pid is
    written in the file for the message. Children do not inherit it.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise DataDirInUse(
                f"data dir {data_dir} is in use by another ballroom serve (pid {holder}); "
                "stop it or give another --data-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # closing drops the lock


class PortClaimed(RuntimeError):
    """Another ``ballroom serve --workers`` serves this port."""


@contextlib.contextmanager
def claim_port(host: str, port: int) -> Iterator[None]:
    """Hold a machine-wide claim on ``host:port`` for the block; :class:`PortClaimed` if held.

    The claim is a Unix socket bound to an abstract name (Linux): the kernel
    frees the name when its holder dies, however it dies.
    """
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            claim.bind(f"\0ballroom-serve:{host}:{port}")
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            raise PortClaimed(
                f"port {port} on {host} is served by another ballroom serve"
            ) from None
        yield
    finally:
        claim.close()

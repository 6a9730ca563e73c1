"""Ending a child process: the one piece of process handling both ends share.

The server stops its embedded redis-server and a test cluster's nodes, the
client's launcher stops the server it started: each asks the child to end
(SHUTDOWN, SIGTERM), then waits, and kills it only if it did not end in
time. It lives in ``protocol/`` because server and client never import each
other; it touches no socket, only the child it is given.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

__all__ = ["wait_or_kill"]


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

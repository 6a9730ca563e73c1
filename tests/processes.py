"""Processes seen through ``/proc`` (Linux): who is whose child, who still runs.

The tests of ``ballroom serve`` and ``ballroom play`` check that nothing they
start outlives them, by pid; psutil is not a dependency, so ``/proc`` it is.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

from protocol.processes import children, stat_fields

__all__ = [
    "ROOT", "alive", "children", "descendants", "kill_left", "servers", "stat_fields", "wait_gone",
]  # fmt: skip

#: The repository root: where ``python -m server.cli`` finds the packages.
ROOT = Path(__file__).resolve().parent.parent


def descendants(pid: int) -> dict[int, list[str]]:
    """Children, their children and so on: pids and command lines."""
    found: dict[int, list[str]] = {}
    todo = [pid]
    while todo:
        for child, command in children(todo.pop()).items():
            found[child] = command
            todo.append(child)
    return found


def servers(processes: dict[int, list[str]]) -> dict[int, list[str]]:
    """``processes`` less multiprocessing's helpers: a node starts its solver pool
    (and with it a resource tracker) at once, which a count of the server's own
    processes (workers, Redis) must leave out. Every one must still end."""
    return {
        pid: command
        for pid, command in processes.items()
        if not any("multiprocessing" in part for part in command)
    }


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its parent does not count)."""
    try:
        os.kill(pid, 0)
        return stat_fields(pid)[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def wait_gone(pids: Iterable[int], timeout: float) -> list[int]:
    """Poll until none of ``pids`` runs, for at most ``timeout`` s; those still running."""
    pids = list(pids)
    deadline = time.monotonic() + timeout
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def kill_left(pids: Iterable[int]) -> None:
    """SIGKILL whichever of ``pids`` a test started and still runs."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)

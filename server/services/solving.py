"""The solver, kept off the event loop: hints, winnable deals, post-race analysis.

A solve takes up to seconds of CPU, which on the event loop would stall every
race the node serves. So every solve runs in a process pool. Its workers are
fresh interpreters and children of the node, so each ends when the node
does, even a node killed outright (:func:`start_worker`). They never come
before the races' own path (a node that closes races back to back, each
analysed, once lost half its core to it), and how far they stand back depends
on whether somebody waits (:class:`Priority`): a hint or a race's deal runs
niced, a post-race analysis only on CPU that nothing else wants.
Every wait for one is bounded twice: the worker's own search stops at its
time limit, and the node stops waiting a little after that (the pool may be
busy with other solves), falling back to what a race without the solver would do.

The functions a worker runs are plain module-level functions (here
:func:`solve_position`; the winnable-deal choice and the analysis bring
their own to :meth:`SolverPool.run`); they take and return only plain
values, which is what crosses the process boundary.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.moves import Move
from server.engine import Game, State, find_variant
from server.engine.solver import Outcome, first_choice, solve
from server.settings import Solving

__all__ = [
    "NICENESS",
    "LineCache",
    "PositionAnswer",
    "Priority",
    "SolverPool",
    "solve_position",
    "stand_back",
    "start_worker",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds the node waits for a pool's answer beyond the solve's own limit:
#: a first solve starts the workers, and others may be ahead in the queue.
STARTUP_GRACE = 2.0

#: How much nicer than the node its solver workers for a waiting person are
#: (``nice``'s increment).
NICENESS = 10


class Priority(enum.Enum):
    """How a solve stands back from the node's races, by whether somebody waits for it.

    ``WAITED``: a person waits (a hint, the deal of a race being made): the
    worker is niced, so it gets a share of a busy core. ``IDLE``: nobody
    waits (a post-race analysis, which follows the results): the worker runs
    only on CPU nothing else wants (``SCHED_IDLE``). A niced worker still took
    0.10-0.15 of a core pinned for a node playing races back to back, and
    the analyses that run out of time are ``unknown``, which they say.
    """

    WAITED = "waited"
    IDLE = "idle"


#: How often a worker looks whether its node is still there, in seconds.
WATCH_EVERY = 1.0
#: Linux schedules threads: a thread's priority is its own, and a process it starts is
#: born with it. Elsewhere a priority is the whole process's.
PER_THREAD = sys.platform.startswith("linux")


@dataclass(frozen=True, slots=True)
class PositionAnswer:
    """What the solver found from one position: the outcome and a winning line, if any.

    ``suggestion`` is the most promising move when no line was found in time
    (the move the search tries first: :func:`~server.engine.solver.first_choice`),
    else None.
    """

    outcome: Outcome
    line: tuple[str, ...]
    suggestion: str | None = None


# -- what a worker runs ------------------------------------------------------


def solve_position(
    variant: str, data: dict[str, Any], seconds: float
) -> tuple[str, tuple[str, ...], str | None]:
    """Solve the position ``data`` (``State.to_data()``): the outcome's value, the line,
    and for an unknown outcome the most promising move (or None)."""
    game = find_variant(variant)
    state = State.from_data(data)
    solution = solve(game, state, seconds=seconds, clock=time.monotonic)
    suggestion = None
    if solution.outcome is Outcome.UNKNOWN:
        move = first_choice(game, state)
        suggestion = None if move is None else move.text()
    return solution.outcome.value, solution.line, suggestion


def stand_back(priority: Priority) -> None:
    """Lower the calling thread's scheduling priority (on Linux; elsewhere, its
    process's) below the node's, as ``priority`` says."""
    if priority is Priority.IDLE and hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:  # no idle class outside Linux: the nicest niceness instead
        os.nice(NICENESS if priority is Priority.WAITED else 19)


def start_worker(node: int, priority: Priority) -> None:
    """A worker's first act: stand back from the node's event loop (as ``priority``
    says) unless it was born so, and watch the node (``node``, its parent), ending
    when it does.

    A node killed outright (SIGKILL, the OOM killer) closes nothing: its
    workers would go on running, each holding its memory, for as long as the
    machine does (a kill test left forty behind, 3.5 GiB in all).
    """
    if not PER_THREAD:
        stand_back(priority)
    threading.Thread(target=_end_with, args=(node,), name="watch-node", daemon=True).start()


def _end_with(node: int) -> None:
    while os.getppid() == node:
        time.sleep(WATCH_EVERY)
    os._exit(0)  # orphaned: nobody waits for an answer


# -- the pool, from the event loop --------------------------------------------


class SolverPool:
    """A node's process pools for the solver, one per :class:`Priority`, each started
    at its first use."""

    def __init__(self, solving: Solving) -> None:
        self.solving = solving
        self._executors: dict[Priority, ProcessPoolExecutor] = {}
        self._submitters: dict[Priority, ThreadPoolExecutor] = {}

    def start(self) -> None:
        """Make the pool now (its workers still start at the first solve).

        Making it starts multiprocessing's resource tracker, which inherits
        the process's stderr: a node makes it at its start, while stderr is
        still the real one (an app embedding the node may replace it later).
        """
        self._pool(Priority.WAITED)

    def _pool(self, priority: Priority) -> ProcessPoolExecutor:
        executor = self._executors.get(priority)
        if executor is None:
            # Workers start as fresh interpreters (never forked from the node: its
            # threads and sockets stay behind), children of the node itself, so that
            # each can tell when the node is gone (a fork server outlives a killed node,
            # and so do the workers it forked).
            context = multiprocessing.get_context("spawn")
            executor = self._executors[priority] = ProcessPoolExecutor(
                self.solving.workers,
                mp_context=context,
                initializer=start_worker,
                initargs=(os.getpid(), priority),
            )
        return executor

    def _submitter(self, priority: Priority) -> ThreadPoolExecutor:
        """The thread that hands ``priority``'s jobs to its pool, at that priority.

        The first job starts the pool's workers, which then import the engine
        (seconds on a busy machine): in a thread of its own, so that the node's
        event loop goes on serving everyone meanwhile. On Linux the workers are
        born at the thread's priority, imports included: started at the node's
        and lowered only by their first act, they took 0.13 of the peers bench's
        pinned core in its measured window.
        """
        submitter = self._submitters.get(priority)
        if submitter is None:
            submitter = self._submitters[priority] = ThreadPoolExecutor(
                1,
                thread_name_prefix=f"solver-{priority.value}",
                initializer=functools.partial(stand_back, priority) if PER_THREAD else None,
            )
        return submitter

    async def _run(
        self,
        seconds: float,
        work: Callable[..., T],
        *args: Any,
        priority: Priority = Priority.WAITED,
    ) -> T | None:
        """``work(*args)`` in a worker; None if no answer came within ``seconds`` and the grace."""
        try:
            async with asyncio.timeout(seconds + STARTUP_GRACE):
                pool, loop = self._pool(priority), asyncio.get_running_loop()
                submit = functools.partial(pool.submit, work, *args)
                job = await loop.run_in_executor(self._submitter(priority), submit)
                return await asyncio.wrap_future(job)
        except TimeoutError:
            # Said with the pool: an idle one out of time means a node with no CPU to spare.
            log.warning(
                "the solver (%s) gave no answer within %.1f s",
                priority.value,
                seconds + STARTUP_GRACE,
            )
            return None
        except BrokenProcessPool:
            # A worker died (killed, out of memory): answer as if out of time,
            # and make a new pool for the next solve.
            log.warning("a solver worker died; the pool starts again")
            self._executors.pop(priority, None)
            return None

    async def run(
        self,
        seconds: float,
        work: Callable[..., T],
        *args: Any,
        priority: Priority = Priority.WAITED,
    ) -> T | None:
        """``work(*args)`` (a module-level function of plain values) in a worker of the
        ``priority`` pool: None if no answer came within ``seconds`` and the grace (as
        for every solve here)."""
        return await self._run(seconds, work, *args, priority=priority)

    async def solve_from(self, game: Game, state: State) -> PositionAnswer:
        """The solver's answer from ``state`` within the hint's time bound."""
        seconds = self.solving.hint
        found = await self._run(seconds, solve_position, game.id, state.to_data(), seconds)
        if found is None:
            # No worker answered in time (a busy machine, a pool still starting): the
            # hint still offers the move the search would try first, which is cheap.
            move = first_choice(game, state)
            return PositionAnswer(Outcome.UNKNOWN, (), None if move is None else move.text())
        outcome, line, suggestion = found
        return PositionAnswer(Outcome(outcome), line, suggestion)

    async def close(self) -> None:
        """Stop the workers; a solve under way ends at its own time limit first."""
        executors, self._executors = list(self._executors.values()), {}
        for executor in executors:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
        submitters, self._submitters = list(self._submitters.values()), {}
        for submitter in submitters:
            submitter.shutdown(wait=False)


class LineCache:
    """The rest of each racer's last winning line, so that following a hint costs no solve.

    A line found from a board stays good for as long as the racer plays it:
    the next hint is then its next move, checked against the board itself.
    """

    SIZE = 2_000

    def __init__(self) -> None:
        #: (race, player) -> (seq, the board expected at seq, the line from there)
        self._lines: OrderedDict[tuple[str, str], tuple[int, State, tuple[str, ...]]] = (
            OrderedDict()
        )

    def remember(self, race: str, player: str, seq: int, state: State, line: Sequence[str]) -> None:
        key = (race, player)
        self._lines[key] = (seq, state, tuple(line))
        self._lines.move_to_end(key)
        while len(self._lines) > self.SIZE:
            self._lines.popitem(last=False)

    def next_move(self, game: Game, race: str, player: str, seq: int, state: State) -> str | None:
        """The line's next move if the racer's board at ``seq`` is still on it; moves it on."""
        key = (race, player)
        entry = self._lines.get(key)
        if entry is None:
            return None
        at, expected, line = entry
        if at > seq or seq - at >= len(line):
            return None
        # Walk the line from where it was remembered up to the racer's move count.
        for text in line[: seq - at]:
            expected = game.apply(expected, Move.parse(text))
        if expected != state:
            del self._lines[key]
            return None
        rest = line[seq - at :]
        self._lines[key] = (seq, state, rest)
        return rest[0]

"""Handing one event to many watchers a slice at a time, so that nothing waits behind it.

A race watched by thousands on one node costs a socket write per watcher
for each of its events (tens of microseconds each on loopback: the write
is a system call). Done in one go, a move's event would hold the node's
loop for a tenth of a second or more, and every racer's acknowledgement
that came meanwhile would wait behind it. :class:`Spread` hands events
out for :data:`BUDGET` seconds at most per turn of the event loop (looking
at the clock every :data:`SLICE` watchers), so that a commit's reply
waits that long at most per turn, and a fast machine still serves hundreds
a turn. A reply crosses a few turns of the loop on its way (Redis's answer
is read, then the commit's future resolves, then the reply is written), and
each of them may carry a slice: the budget is small for that reason.

An event starts going out a turn of the loop after it came, never in the
call that brings it: the commit whose event it is answers its racer from a
callback that the same call schedules, and that reply goes first.

Order holds per race: while a race's event is still being handed out, its
later events (from pub/sub, from this node's own commits, from a watcher's
catch-up) queue behind it, and each goes out in its turn. A watcher that
stopped following the race while its event waited is skipped. Each event
is unpacked once and its :class:`~server.fanout.client.Shared` frames are
made once, whatever the number of slices.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from server.fanout.client import Shared
from server.rules.events import Event

__all__ = ["BUDGET", "SLICE", "Spread"]

#: Seconds of writes in one turn of the loop: what a commit's reply may wait per turn.
BUDGET = 0.002
#: Watchers handed an event between two looks at the clock (a few tens of µs each).
SLICE = 16


class Receiver(Protocol):
    """What :class:`Spread` needs of a watcher (the hub's ``Watcher``)."""

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None: ...


@dataclass(slots=True)
class _Handing:
    """One event being handed out: to ``watchers[done:]`` still."""

    n: int
    event: Event
    watchers: Sequence[Receiver]
    shared: Shared
    done: int = 0


class Spread:
    """Per race, the events still being handed to this node's watchers, oldest first."""

    def __init__(
        self, follows: Callable[[str, Receiver], bool], size: int = SLICE, budget: float = BUDGET
    ) -> None:
        #: Whether a watcher still follows a race (one that stopped is skipped).
        self._follows = follows
        self._size, self._budget = size, budget
        self._queues: dict[str, deque[_Handing]] = {}

    def deliver(self, race: str, n: int, event: Event, watchers: Sequence[Receiver]) -> None:
        """Hand event ``n`` to ``watchers`` a slice per turn of the loop, behind the race's
        events still going out; the first slice in the turn after the next, so that what
        the caller scheduled for the next turn (a commit's reply) goes before it."""
        handing = _Handing(n, event, watchers, Shared())
        queue = self._queues.get(race)
        if queue is not None:
            queue.append(handing)  # behind the race's events still going out
            return
        self._queues[race] = deque([handing])
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.call_soon, self._next, race)

    def drop(self, race: str) -> None:
        """Forget what waits for ``race`` (a rewind: those events may never have been)."""
        self._queues.pop(race, None)

    def waiting(self, race: str) -> int:
        """How many of ``race``'s events are still being handed out here."""
        return len(self._queues.get(race, ()))

    def _next(self, race: str) -> None:
        """Slices of the race's events still going out, oldest first, for one budget."""
        queue = self._queues.get(race)
        if not queue:
            self._queues.pop(race, None)
            return
        until = time.perf_counter() + self._budget
        while True:
            if self._hand(race, queue[0]):
                queue.popleft()
            if not queue or time.perf_counter() >= until:
                break
        if queue:
            asyncio.get_running_loop().call_soon(self._next, race)
        else:
            del self._queues[race]

    def _hand(self, race: str, handing: _Handing) -> bool:
        """Hand one slice of ``handing`` out; True once every watcher has it.

        The event waited, so a watcher may have stopped following since: it is skipped.
        """
        start, watchers = handing.done, handing.watchers
        end = min(len(watchers), start + self._size)
        n, event, shared, follows = handing.n, handing.event, handing.shared, self._follows
        for watcher in watchers[start:end]:
            if follows(race, watcher):
                watcher.deliver(race, n, event, shared)
        handing.done = end
        return end == len(watchers)

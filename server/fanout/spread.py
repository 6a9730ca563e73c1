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

When a race's events queue up (moves that come while the last one is still
going out: a node behind, or racers moving at once), each watcher handed
the oldest is handed the later ones it is to get at the same time (up to
the first event for only a few watchers, such as a newcomer's catch-up:
looking through many of those for each watcher would cost more than it
saves), and its
client's writes are corked meanwhile (:meth:`~server.fanout.client.Client.cork`):
their frames go out in one system call instead of one each. A node that
falls behind so spends less per frame, and catches up.
"""

from __future__ import annotations

import asyncio
import itertools
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


class Writer(Protocol):
    """A watcher's client, as far as corking its writes goes (:class:`Client`)."""

    def cork(self) -> None: ...

    def uncork(self) -> None: ...


class Receiver(Protocol):
    """What :class:`Spread` needs of a watcher (the hub's ``Watcher``)."""

    @property
    def conn(self) -> Writer: ...

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None: ...


@dataclass(slots=True)
class _Handing:
    """One event being handed out: to ``watchers[done:]`` still, but those in ``ahead``
    (handed it with an earlier event of theirs)."""

    n: int
    event: Event
    watchers: Sequence[Receiver]
    shared: Shared
    done: int = 0
    #: The watchers, as a set: made once the event is handed out ahead of its turn.
    members: set[Receiver] | None = None
    ahead: set[Receiver] | None = None

    def take(self, watcher: Receiver) -> bool:
        """Whether ``watcher`` is to get this event; if so it is counted as handed it."""
        if self.members is None:
            self.members, self.ahead = set(self.watchers), set()
        if watcher not in self.members:
            return False
        assert self.ahead is not None
        self.ahead.add(watcher)
        return True


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
            if self._hand(race, queue):
                queue.popleft()
            if not queue or time.perf_counter() >= until:
                break
        if queue:
            asyncio.get_running_loop().call_soon(self._next, race)
        else:
            del self._queues[race]

    def _later(self, queue: deque[_Handing]) -> list[_Handing]:
        """The events behind the oldest that its watchers may be handed with it: those up
        to the first for a few watchers only (a newcomer's catch-up), which goes in its
        turn, and the events behind it after it (each watcher's events stay in order)."""
        later = []
        for handing in itertools.islice(queue, 1, None):
            if len(handing.watchers) < self._size:
                break
            later.append(handing)
        return later

    def _hand(self, race: str, queue: deque[_Handing]) -> bool:
        """Hand one slice of the oldest event in ``queue`` out, with the later events of
        each of its watchers; True once every watcher has the oldest.

        The event waited, so a watcher may have stopped following since: it is skipped.
        """
        handing = queue[0]
        start, watchers, ahead = handing.done, handing.watchers, handing.ahead
        end = min(len(watchers), start + self._size)
        n, event, shared, follows = handing.n, handing.event, handing.shared, self._follows
        later = self._later(queue)
        for watcher in watchers[start:end]:
            if (ahead is not None and watcher in ahead) or not follows(race, watcher):
                continue
            if not later:
                watcher.deliver(race, n, event, shared)
                continue
            conn = watcher.conn
            conn.cork()  # this event and its later ones, in order, in one write
            try:
                watcher.deliver(race, n, event, shared)
                for other in later:
                    if other.take(watcher):
                        watcher.deliver(race, other.n, other.event, other.shared)
            finally:
                conn.uncork()
        handing.done = end
        return end == len(watchers)

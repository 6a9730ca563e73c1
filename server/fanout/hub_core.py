"""The order of a race's events on one node, without I/O: events in, actions out.

In the manner of :class:`~server.net.core.ConnectionCore`, :class:`HubCore`
owns every rule of :mod:`server.fanout.hub` that needs neither Redis nor an
event loop: who follows which race; which watcher an event numbered ``n``
may reach now (the next one after its ``last_event``) and which must read
the stream first (a gap, or a read already running that may have been too
early); when an event contradicts one passed on here (Redis lost the
race's tail: :class:`~server.fanout.trail.Trail`) so that nothing past the
loss reaches anyone; and which watchers still owe their client a rewind.
It never reads a clock (nothing here depends on time) and never waits: it
answers with :data:`Action` values that the hub carries out.

A catch-up is the one conversation that spans awaits. The hub starts it on
a :class:`CatchUp` and then, in its task::

    read = core.next_read(race, watcher, job)    # which events to ask for
    actions, more = core.read(race, watcher, read, events)   # what came back
    ...
    actions = core.caught_up(race, watcher, job)   # always, at the end

A catch-up replaced meanwhile (a rewind, an unwatch) is recognised by its
``ticket``: what its old task reports afterwards changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from server.fanout.trail import Trail

__all__ = [
    "Action",
    "CatchUp",
    "Deliver",
    "Follower",
    "HubCore",
    "Read",
    "StopCatchUp",
    "Subscribe",
    "TailLost",
    "Unsubscribe",
]


class Follower(Protocol):
    """What the core needs of a watcher: the number of the last event it was given."""

    last_event: int


W = TypeVar("W", bound=Follower)


@dataclass(frozen=True, slots=True)
class Subscribe:
    """Subscribe to the race's channel: its first watcher on this node."""

    race: str


@dataclass(frozen=True, slots=True)
class Unsubscribe:
    """Unsubscribe from the race's channel: its last watcher here is gone."""

    race: str


@dataclass(slots=True)  # not frozen: one per event, and a frozen one costs ~2 µs more to make
class Deliver(Generic[W]):
    """Hand event ``n`` (``payload``) to these watchers, in this order; their
    ``last_event`` is ``n`` already."""

    race: str
    n: int
    payload: bytes
    watchers: tuple[W, ...]


@dataclass(frozen=True, slots=True)
class CatchUp(Generic[W]):
    """Start reading the stream for ``watcher`` (``rewound``: after it tells its client
    of a rewind); the task reports back with ``ticket``."""

    race: str
    watcher: W
    ticket: int
    rewound: bool


@dataclass(frozen=True, slots=True)
class StopCatchUp(Generic[W]):
    """Cancel ``watcher``'s catch-up: it was replaced, or the watcher is gone."""

    watcher: W


@dataclass(frozen=True, slots=True)
class TailLost:
    """Redis lost ``race``'s latest events (``why``): rewind it, nothing was passed on."""

    race: str
    why: str


@dataclass(frozen=True, slots=True)
class Read:
    """Which events a catch-up asks the stream for: those after ``after``.

    ``check``: the first one asked for is ``last``, the event the watcher was
    last given, read again to see that the stream still holds it.
    """

    after: int
    last: int
    check: bool


Action = Subscribe | Unsubscribe | Deliver[W] | CatchUp[W] | StopCatchUp[W] | TailLost


class HubCore(Generic[W]):
    """Which of this node's watchers gets which event of a race, when, and in what order."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[W]] = {}
        #: race -> the events passed on to a watcher here lately.
        self._trails: dict[str, Trail] = {}
        #: Watchers owed a rewind that has not reached them yet.
        self._rewinding: set[W] = set()
        #: Watcher -> the ticket of its catch-up running now.
        self._catching_up: dict[W, int] = {}
        #: Watchers that an event passed by while their catch-up read: they read again.
        self._missed: set[W] = set()
        self._tickets = 0

    # -- who follows what --------------------------------------------------------

    def watch(self, race: str, watcher: W) -> list[Action[W]]:
        """``watcher`` follows ``race`` from now on; :meth:`catch_up` once subscribed."""
        watchers = self._watchers.get(race)
        if watchers is None:
            self._watchers[race] = {watcher}
            return [Subscribe(race)]
        watchers.add(watcher)
        return []

    def unwatch(self, race: str, watcher: W) -> list[Action[W]]:
        """``watcher`` follows ``race`` no more: its catch-up stops, and the channel
        with its last watcher."""
        watchers = self._watchers.get(race)
        if not watchers or watcher not in watchers:
            return []
        watchers.discard(watcher)
        self._missed.discard(watcher)
        self._rewinding.discard(watcher)
        actions: list[Action[W]] = []
        if self._catching_up.pop(watcher, None) is not None:
            actions.append(StopCatchUp(watcher))
        if not watchers:
            del self._watchers[race]
            self._trails.pop(race, None)
            actions.append(Unsubscribe(race))
        return actions

    def watchers_of(self, race: str) -> list[W]:
        return list(self._watchers.get(race, ()))

    def watching(self, race: str) -> int:
        return len(self._watchers.get(race, ()))

    def follows(self, race: str, watcher: W) -> bool:
        return watcher in self._watchers.get(race, ())

    def races(self) -> list[str]:
        """The races someone on this node follows."""
        return list(self._watchers)

    def latest(self, race: str) -> tuple[int, bytes] | None:
        """(number, payload) of the newest event of ``race`` passed on here, if any."""
        trail = self._trails.get(race)
        return None if trail is None else trail.newest

    def catching_up(self, watcher: W) -> bool:
        return watcher in self._catching_up

    def rewinding(self, watcher: W) -> bool:
        return watcher in self._rewinding

    # -- events in ---------------------------------------------------------------

    def heard(self, race: str, n: int, payload: bytes) -> list[Action[W]]:
        """Event ``n`` came by pub/sub: whom it reaches now, who reads the stream first."""
        lost = self._contradicted(race, n, payload)
        if lost is not None:
            return [lost]
        actions: list[Action[W]] = []
        now: list[W] = []
        for watcher in self._watchers.get(race, ()):
            if watcher in self._rewinding:  # its numbers are from before the rewind
                if watcher in self._catching_up:
                    self._missed.add(watcher)
                else:
                    self._catch_up(race, watcher, actions)
            elif n <= watcher.last_event:
                continue
            elif watcher in self._catching_up:
                self._missed.add(watcher)  # the running read may have been too early
            elif n == watcher.last_event + 1:
                watcher.last_event = n
                now.append(watcher)
            else:
                self._catch_up(race, watcher, actions)
        if not now:
            return actions
        self._passed_on(race, n, payload)
        deliver: Action[W] = Deliver(race, n, payload, tuple(now))
        return [deliver, *actions] if actions else [deliver]

    def stored(self, race: str, n: int, payload: bytes) -> list[Action[W]]:
        """Event ``n``, which this node has just stored: the watchers for which it is next
        get it now, before its pub/sub copy; the others are left to pub/sub and the stream."""
        lost = self._contradicted(race, n, payload)
        if lost is not None:
            return [lost]
        now: list[W] = []
        for watcher in self._watchers.get(race, ()):
            if (
                n == watcher.last_event + 1
                and watcher not in self._catching_up
                and watcher not in self._rewinding
            ):
                watcher.last_event = n
                now.append(watcher)
        if not now:
            return []
        self._passed_on(race, n, payload)
        return [Deliver(race, n, payload, tuple(now))]

    def started(self, race: str, watcher: W) -> list[Action[W]]:
        """``watcher`` starts following ``race`` (once subscribed): it reads what it missed
        from the stream, if it may have missed anything.

        One that starts at or after the newest event passed on here (a spectator
        whose snapshot was just read: a hundred join a second) missed nothing: the
        race's channel is subscribed while anyone here follows it, so every later
        event reaches this node by pub/sub or from its own commits, and one lost on
        the way shows as a gap, read then. An outage of the feed has every watcher
        read anyway (:meth:`catch_up_all`). A race with no event passed on here yet
        (its first watcher here) says nothing of what came before, and is read.
        """
        trail = self._trails.get(race)
        newest = None if trail is None else trail.newest
        if newest is not None and newest[0] <= watcher.last_event:
            return []
        return self.catch_up(race, watcher)

    def catch_up(self, race: str, watcher: W) -> list[Action[W]]:
        """Have ``watcher`` read what it missed from the stream (unless it reads already)."""
        actions: list[Action[W]] = []
        self._catch_up(race, watcher, actions)
        return actions

    def catch_up_all(self) -> list[Action[W]]:
        """Have every watcher read what it missed: pub/sub forgot what came during an outage."""
        actions: list[Action[W]] = []
        for race, watchers in self._watchers.items():
            for watcher in watchers:
                self._catch_up(race, watcher, actions)
        return actions

    def rewind(self, race: str) -> list[Action[W]]:
        """Redis lost ``race``'s latest events: each watcher starts again from what it holds,
        once per loss (one whose rewind is still on its way is left to it)."""
        self._trails.pop(race, None)
        actions: list[Action[W]] = []
        for watcher in self._watchers.get(race, ()):
            if watcher in self._rewinding:
                continue
            if self._catching_up.pop(watcher, None) is not None:
                actions.append(StopCatchUp(watcher))
            self._missed.discard(watcher)
            self._rewinding.add(watcher)
            self._catch_up(race, watcher, actions)
        return actions

    # -- a catch-up --------------------------------------------------------------

    def rewound(self, watcher: W, last: int) -> None:
        """``watcher`` told its client of the rewind; it goes on after event ``last``."""
        watcher.last_event = last
        self._rewinding.discard(watcher)

    def next_read(self, race: str, watcher: W, job: CatchUp[W]) -> Read:
        """What the catch-up ``job`` asks the stream for next: the events after the
        watcher's last, and that one too when it is known here (is it still there?)."""
        last, trail = watcher.last_event, self._trails.get(race)
        check = not job.rewound and trail is not None and trail.knows(last)
        return Read(after=last - 1 if check else last, last=last, check=check)

    def read(
        self, race: str, watcher: W, read: Read, events: Iterable[tuple[int, bytes]]
    ) -> tuple[list[Action[W]], bool]:
        """The stream answered ``read`` with ``events``: what to do, and whether to read again."""
        pending = list(events)
        if read.check:
            first = pending.pop(0) if pending and pending[0][0] == read.last else None
            lost = self._contradicted(race, read.last, None if first is None else first[1])
            if lost is not None:
                return [lost], False
        if watcher in self._rewinding or not pending:
            return [], False  # rewound meanwhile: its own catch-up goes on from Redis
        if not self.follows(race, watcher):
            return [], False
        actions: list[Action[W]] = []
        for n, payload in pending:
            watcher.last_event = n
            self._passed_on(race, n, payload)
            actions.append(Deliver(race, n, payload, (watcher,)))
        return actions, True

    def caught_up(self, race: str, watcher: W, job: CatchUp[W]) -> list[Action[W]]:
        """The catch-up ``job`` ended: read again if an event passed meanwhile. A job that
        was replaced (its ticket is not the watcher's now) changes nothing."""
        if self._catching_up.get(watcher) != job.ticket:
            return []
        del self._catching_up[watcher]
        actions: list[Action[W]] = []
        if watcher in self._missed:
            self._missed.discard(watcher)
            if self.follows(race, watcher):
                self._catch_up(race, watcher, actions)
        return actions

    # -- the rules ---------------------------------------------------------------

    def _catch_up(self, race: str, watcher: W, actions: list[Action[W]]) -> None:
        if watcher in self._catching_up or not self.follows(race, watcher):
            return
        self._tickets += 1
        self._catching_up[watcher] = self._tickets
        actions.append(CatchUp(race, watcher, self._tickets, watcher in self._rewinding))

    def _passed_on(self, race: str, n: int, payload: bytes) -> None:
        trail = self._trails.get(race)
        if trail is None:
            trail = self._trails[race] = Trail()
        trail.note(n, payload)

    def _contradicted(self, race: str, n: int, payload: bytes | None) -> TailLost | None:
        """A lost tail, if event ``n`` as offered (None: the stream lacks it) contradicts
        the one passed on here: nothing of it may reach anyone."""
        trail = self._trails.get(race)
        if trail is None or not trail.contradicts(n, payload):
            return None
        return TailLost(race, f"event {n} {'is gone' if payload is None else 'was replaced'}")

"""How many watch a race, told to its spectators as it changes.

At every sweep a node counts the spectators it holds of each race, writes
the counts that changed to Redis (and all of them again every ``refresh``
seconds, so that they stay vouched for while the node lives: see
:mod:`server.storage.spectators`), reads each of those races' totals over
every node, and pushes ``spectators`` to its spectators of each race whose
total changed, and to each spectator new since the last push. So a count
reaches a page within about two sweeps of someone coming or going on any
node, at most once a sweep (to a crowd, at most once per ``calm`` seconds);
a dead node's spectators drop out of the count once its vouching runs out.

The count says how many watch, nothing of the race: it goes out under every
spectating policy, from the first moment, and never to a racer. Told on its
own, a new total is a write per spectator, as an event's board is: it goes
out a few milliseconds of writes per turn of the loop (:data:`~server.fanout.spread.BUDGET`),
so that the racers' replies never wait for a whole crowd to hear it. A
crowd's total is not told on its own: each spectator's is kept to go out in
the same write as the race's next board, and only those no board took along
within :attr:`SpectatorCounts.ASIDE` seconds get it alone. With 10,000
spectators turning over at 100 a second, counts told on their own were one
write in twenty.
:class:`SpectatorTally` makes the decisions, without I/O; :class:`SpectatorCounts`
carries them out.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from operator import methodcaller
from typing import Generic, NamedTuple, Protocol, TypeVar

from protocol.codec import encode
from protocol.messages import Spectators
from server.fanout.spread import BUDGET, SLICE
from server.storage.spectators import SpectatorStore

__all__ = ["Saying", "Spectator", "SpectatorCounts", "SpectatorTally", "Telling"]


class Spectator(Hashable, Protocol):
    """A connection's watch of a race as a spectator, as far as the count needs it."""

    def notice(self, frame: bytes) -> None:
        """Pass on a frame about the race that numbers no event, in line with the rest."""
        ...

    def notice_with_next(self, frame: bytes) -> None:
        """Keep such a frame to go out with the next frame the spectator gets."""
        ...

    def send_aside(self) -> None:
        """Send the frame kept by :meth:`notice_with_next`, if nothing took it along."""
        ...


S = TypeVar("S", bound=Hashable)


class Saying(NamedTuple):
    """Counts to write: race -> spectators here (0: none any more); ``refresh``: all of them."""

    counts: dict[str, int]
    refresh: bool


class Telling(NamedTuple, Generic[S]):
    """A race's total, and the spectators here to tell it to."""

    race: str
    total: int
    spectators: list[S]


class SpectatorTally(Generic[S]):
    """What one node last wrote and last told, and so what it writes and tells next."""

    def __init__(self, refresh: float, *, crowd: int = 100, calm: float = 5.0) -> None:
        #: Seconds between two writes of counts that did not change.
        self.refresh = refresh
        #: A race watched by more spectators than this here hears a new total at most
        #: once per ``calm`` seconds: a count that changes all the time costs a frame
        #: per spectator each time, and a crowd does not need every step of it.
        self.crowd, self.calm = crowd, calm
        self._said: dict[str, int] = {}
        self._said_at = -math.inf
        # Race -> (the total told, the spectators who were told it, when it changed last).
        self._told: dict[str, tuple[int, set[S], float]] = {}

    def to_say(self, here: Mapping[str, int], now: float) -> Saying:
        """The counts to write at ``now``, of the spectators ``here`` per race: those that
        changed since they were written (0 for a race with none here any more), or all
        of them once a refresh is due."""
        refresh = now - self._said_at >= self.refresh
        counts = {race: n for race, n in here.items() if refresh or self._said.get(race) != n}
        counts.update({race: 0 for race in self._said if not here.get(race)})
        return Saying(counts, refresh)

    def said(self, saying: Saying, now: float) -> None:
        """``saying`` was written at ``now``."""
        for race, count in saying.counts.items():
            if count > 0:
                self._said[race] = count
            else:
                self._said.pop(race, None)
        if saying.refresh:
            self._said_at = now

    def to_tell(
        self, totals: Mapping[str, int], here: Mapping[str, Collection[S]], now: float
    ) -> list[Telling[S]]:
        """Who hears which total at ``now``: every spectator here of a race whose total
        changed, and those who came since the last telling of a race whose total did not.
        A crowd hears a change only ``calm`` seconds after the last; its newcomers hear
        the total told last meanwhile. A total is never below the spectators counted here
        (a read that missed this node's write)."""
        tellings: list[Telling[S]] = []
        for race, spectators in here.items():
            if race not in totals:
                continue
            total = max(totals[race], len(spectators))
            told_total, told, told_at = self._told.get(race, (-1, set(), -math.inf))
            calm = len(spectators) > self.crowd and now - told_at < self.calm
            if total == told_total or calm:
                new = [s for s in spectators if s not in told]
                if new:
                    tellings.append(Telling(race, told_total, new))
                self._told[race] = (told_total, set(spectators), told_at)
            else:
                tellings.append(Telling(race, total, list(spectators)))
                self._told[race] = (total, set(spectators), now)
        for race in [race for race in self._told if race not in here]:
            del self._told[race]
        return tellings


class SpectatorCounts:
    """One node's part in counting spectators: write its own, read the totals, tell them."""

    #: Seconds a crowd's new total waits for a board to ride with (racers at a human pace
    #: move every second or two between them), before it goes on its own.
    ASIDE = 2.0

    def __init__(self, store: SpectatorStore, node: str, vouch: float) -> None:
        self.store = store
        self.node = node
        #: Seconds a written count stays counted: a dead node's spectators drop out then.
        self.vouch = vouch
        self.tally: SpectatorTally[Spectator] = SpectatorTally(refresh=vouch / 3)
        #: Race -> when its crowd was told a total it keeps aside for a board.
        self._aside: dict[str, float] = {}

    async def sweep(self, here: Mapping[str, Collection[Spectator]], now: float) -> None:
        """Write this node's counts of the spectators ``here`` (race -> them), then tell
        them the totals that are news to them."""
        saying = self.tally.to_say({race: len(group) for race, group in here.items()}, now)
        if saying.counts:
            await self.store.say(self.node, saying.counts, now + self.vouch, keep=2 * self.vouch)
            self.tally.said(saying, now)
        for race, told_at in list(self._aside.items()):
            if now - told_at >= self.ASIDE:  # to those of its spectators no board reached
                del self._aside[race]
                await _each(list(here.get(race, ())), methodcaller("send_aside"))
        if not here:
            return
        totals = await self.store.totals(list(here), now)
        for telling in self.tally.to_tell(totals, here, now):
            frame = encode(Spectators(race=telling.race, count=telling.total))
            spectators = telling.spectators
            if len(spectators) > self.tally.crowd:
                # A crowd's count rides with the race's next board: no write of its own.
                for spectator in spectators:
                    spectator.notice_with_next(frame)
                self._aside[telling.race] = now
            else:
                await _each(spectators, methodcaller("notice", frame))


async def _each(spectators: Sequence[Spectator], act: Callable[[Spectator], None]) -> None:
    """``act`` on each of ``spectators``, a few milliseconds of it per turn of the loop
    (:data:`~server.fanout.spread.BUDGET`): each may be a write."""
    until = time.perf_counter() + BUDGET
    for start in range(0, len(spectators), SLICE):
        if time.perf_counter() >= until:
            await asyncio.sleep(0)  # a turn of the loop for what waits
            until = time.perf_counter() + BUDGET
        for spectator in spectators[start : start + SLICE]:
            act(spectator)

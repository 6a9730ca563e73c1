"""How often a racer hears of the others' moves: one batch a period at most, newest first.

A racer sees the other racers only as progress, and at most once per
``every`` seconds: a move made sooner after the last progress sent waits,
and the newest progress of each racer stands for the moves before it (as a
game's state patches do). Anything else the racer is told first sends what
waits (:meth:`Throttle.flush`), so that nothing overtakes it. Pure: the
caller says what time it is, and arms its own timer for :attr:`Throttle.due`.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["Throttle"]

T = TypeVar("T")


class Throttle(Generic[T]):
    """Items of event numbers, one per key kept while they wait (the newest)."""

    __slots__ = ("_waiting", "due", "every")

    def __init__(self, every: float) -> None:
        #: The least time between two batches (0: each item goes at once).
        self.every = every
        #: When the next batch may go (on the caller's clock).
        self.due = 0.0
        self._waiting: dict[str, tuple[int, T]] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def take(self, now: float) -> bool:
        """Whether an item may go at ``now``: nothing waits and the period is over. If so,
        the next period starts; if not, :meth:`hold` the item."""
        if self._waiting or now < self.due:
            return False
        self.due = now + self.every
        return True

    def hold(self, key: str, n: int, item: T) -> None:
        """Item ``n`` of ``key`` (a racer's move) waits until :attr:`due`, replacing the
        one of ``key`` that waited: the newest stands for the ones before it."""
        self._waiting[key] = (n, item)

    def flush(self, now: float) -> list[tuple[int, T]]:
        """Everything that waits, oldest event first; the next batch may go a period on."""
        self.due = now + self.every
        waiting, self._waiting = self._waiting, {}
        return sorted(waiting.values(), key=lambda entry: entry[0])

    def clear(self) -> None:
        """Forget what waits (a rewind: those events may never have been)."""
        self._waiting.clear()

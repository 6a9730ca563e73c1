"""How a daily deal's board ranks the day's games, and when its deal stops being secret
(docs/players.md)."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["MOST_HOME", "NOT_WON", "DailyScore", "daily_score", "day_of", "revealed"]

#: A score at or above this less :data:`MOST_HOME` is a game not won: the score is this
#: minus the cards home. A win's score is its time, far below (a daily race lasts minutes).
NOT_WON = 100_000.0
#: More cards than any deal has: the room kept below :data:`NOT_WON` for games not won.
MOST_HOME = 1_000


def daily_score(status: str, seconds: float, home: int) -> float:
    """Lower is better: a win's time, below every game not won, which rank by cards home."""
    return seconds if status == "won" else NOT_WON - home


@dataclass(frozen=True, slots=True)
class DailyScore:
    """A line of a day's board read back from its score: a win's time, or the cards home
    of a game not won (resigned, stuck or out of time)."""

    won: bool
    time: float | None = None
    home: int | None = None

    @classmethod
    def from_score(cls, score: float) -> DailyScore:
        """The line a stored score stands for (the inverse of :func:`daily_score`)."""
        if score > NOT_WON - MOST_HOME:
            return cls(won=False, home=round(NOT_WON - score))
        return cls(won=True, time=score)


def day_of(at: float) -> str:
    """The UTC day (``YYYY-MM-DD``) of Unix time ``at``: a daily deal's day."""
    return time.strftime("%Y-%m-%d", time.gmtime(at))


def revealed(daily: str, now: float) -> bool:
    """Whether the deal of a daily race (its ``day:variant``) is public at ``now``: from the
    next UTC day on, when ``get_daily`` shows its seed as ``yesterday``."""
    day = daily.split(":", 1)[0]
    return day < day_of(now)

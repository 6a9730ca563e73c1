"""How a daily deal's board ranks the day's games, and when its deal stops being secret
(docs/players.md)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "DAY",
    "MOST_HOME",
    "NOT_WON",
    "REVEAL_AFTER",
    "TIME_LIMIT",
    "DailyScore",
    "daily_score",
    "day_end",
    "day_of",
    "reveal_at",
    "revealed",
]

#: Seconds in a (UTC) day.
DAY = 24 * 3600
#: How a day is written: its UTC date.
DAY_FORMAT = "%Y-%m-%d"
#: A daily race's clock, in seconds.
TIME_LIMIT = 900
#: Seconds after a day's end before its deals are revealed: a race started just before
#: midnight is over by then (its countdown, its clock, the sweep that closes it).
REVEAL_AFTER = TIME_LIMIT + 120

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
    """The UTC day (``YYYY-MM-DD``) of Unix time ``at``: a daily deal's day.

    Pure calendar arithmetic (``datetime``, never the clock): the caller says when."""
    return datetime.fromtimestamp(at, UTC).strftime(DAY_FORMAT)


def day_end(day: str) -> float:
    """The Unix time at which UTC day ``day`` (``YYYY-MM-DD``) ends."""
    return calendar.timegm(datetime.strptime(day, DAY_FORMAT).timetuple()) + DAY


def reveal_at(day: str) -> float:
    """When day ``day``'s deals are revealed: once its last race is surely over. A race
    started a moment before midnight runs :data:`TIME_LIMIT` seconds after its countdown;
    :data:`REVEAL_AFTER` leaves room for that, the countdown and the sweeper's closing."""
    return day_end(day) + REVEAL_AFTER


def revealed(day: str, now: float) -> bool:
    """Whether day ``day``'s deals (seeds, results, replays, boards) are public at ``now``."""
    return now >= reveal_at(day)

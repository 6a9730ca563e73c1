"""UTC days in the daily-deal tests: when the next day's deal is revealed."""

from __future__ import annotations

import calendar
import time


def tomorrow(at: float) -> float:
    """A moment of the next UTC day after ``at`` by which that day's deal is revealed."""
    day = time.strftime("%Y-%m-%d", time.gmtime(at))
    return calendar.timegm(time.strptime(day, "%Y-%m-%d")) + 24 * 3600 + 3600


__all__ = ["tomorrow"]

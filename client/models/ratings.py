"""How a rating and its change read in the client (docs/players.md)."""

from __future__ import annotations

from protocol.results import Standing

__all__ = ["rating_change", "rating_text"]


def rating_text(rating: int, provisional: bool) -> str:
    """``1512``, or ``1512?`` while the rating is provisional."""
    return f"{rating}{'?' if provisional else ''}"


def rating_change(standing: Standing) -> str:
    """A racer's rating after a race and its change (``1512? +12``); empty if unrated."""
    if standing.change is None:
        return ""
    change = standing.change
    sign = "+" if change > 0 else "−" if change < 0 else "±"
    after = rating_text(standing.rating or 0, bool(standing.provisional))
    return f"{after} {sign}{abs(change)}"

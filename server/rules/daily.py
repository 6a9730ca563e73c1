"""How a daily deal's board ranks the day's games (docs/players.md)."""

from __future__ import annotations

__all__ = ["NOT_WON", "daily_score"]

#: A score at or above this is a game not won: the score is this minus the cards home.
NOT_WON = 100_000.0


def daily_score(status: str, seconds: float, home: int) -> float:
    """Lower is better: a win's time, below every game not won, which rank by cards home."""
    return seconds if status == "won" else NOT_WON - home

"""A profile and a leaderboard as lines of text (no Textual: the screens show them)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from client.models.catalogue import title_of
from client.models.ratings import rating_text
from protocol.profiles import DailyDeal, LeaderboardEntry, PlayerProfile

__all__ = ["daily_lines", "leaderboard_lines", "profile_lines"]


def _title(scope: str) -> str:
    return "Overall" if scope == "overall" else title_of(scope)


def profile_lines(profile: PlayerProfile, *, picked: int | None = None) -> list[str]:
    """Ratings, races played and won with best times, then the last races, newest first;
    the ``picked`` one marked."""
    lines = [profile.name, ""]
    lines.append(f"{'':<24} {'rating':>8} {'played':>7} {'won':>5} {'best':>8}")
    scopes = set(profile.ratings) | set(profile.races)
    for scope in sorted(scopes, key=lambda s: (s != "overall", s)):
        rating = profile.ratings.get(scope)
        tally = profile.races.get(scope)
        shown = rating_text(rating.rating, rating.provisional) if rating else "—"
        best = "—" if tally is None or tally.best is None else f"{tally.best:.1f}s"
        played, won = (0, 0) if tally is None else (tally.played, tally.won)
        lines.append(f"{_title(scope):<24} {shown:>8} {played:>7} {won:>5} {best:>8}")
    lines += ["", f"Last {len(profile.recent)} races"]
    for index, entry in enumerate(profile.recent):
        day = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.at))
        change = entry.change
        moved = "" if change is None else f" {'+' if change >= 0 else '−'}{abs(change)}"
        mark = "›" if index == picked else " "
        lines.append(
            f"{mark} {day}  {_title(entry.variant):<20} {entry.place}/{entry.of}  "
            f"{entry.status}  {entry.time:.1f}s  {entry.home} home{moved}  [{entry.race}]"
        )
    return lines


def leaderboard_lines(
    scope: str, entries: Sequence[LeaderboardEntry], *, fastest: bool = False
) -> list[str]:
    """One line per place; an empty board says what would fill it."""
    if not entries:
        if fastest:
            return [f"{_title(scope)}: no wins yet."]
        return [f"{_title(scope)}: no settled ratings yet (10 rated races make one)."]
    kind = "fastest wins" if fastest else "top"
    lines = [f"{_title(scope)} · {kind} {len(entries)}", ""]
    for entry in entries:
        value = f"{entry.time or 0:.1f}s" if fastest else str(entry.rating)
        lines.append(f"{entry.place:>4}. {entry.name:<24} {value:>8}")
    return lines


def daily_lines(daily: DailyDeal) -> list[str]:
    """Today's deal: its commitment and board; yesterday's revealed seed."""
    lines = [
        f"Daily deal · {_title(daily.variant)} · {daily.day} (UTC)",
        "One try per account. Results and replays open tomorrow, when the seed is revealed.",
        f"Commitment: {daily.commitment}",
        "",
    ]
    if not daily.board:
        lines.append("Nobody has finished today's deal yet.")
    for entry in daily.board:
        score = f"{entry.time or 0:.1f}s" if entry.won else f"{entry.home} home"
        lines.append(f"{entry.place:>4}. {entry.name:<24} {score:>10}")
    yesterday = daily.yesterday
    if yesterday is not None:
        lines += ["", f"Yesterday ({yesterday.day}): seed {yesterday.seed}",
                  f"  committed as {yesterday.commitment}"]  # fmt: skip
    return lines

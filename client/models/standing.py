"""A profile and a leaderboard as lines of text (no Textual: the screens show them)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from client.models.catalogue import title_of
from client.models.ratings import rating_text

__all__ = ["daily_lines", "leaderboard_lines", "profile_lines"]


def _title(scope: str) -> str:
    return "Overall" if scope == "overall" else title_of(scope)


def profile_lines(profile: Mapping[str, Any], *, picked: int | None = None) -> list[str]:
    """Ratings, races played and won with best times, then the last races, newest first;
    the ``picked`` one marked."""
    lines = [f"{profile.get('name', '?')}", ""]
    ratings: Mapping[str, Any] = profile.get("ratings") or {}
    races: Mapping[str, Any] = profile.get("races") or {}
    lines.append(f"{'':<24} {'rating':>8} {'played':>7} {'won':>5} {'best':>8}")
    for scope in sorted(set(ratings) | set(races), key=lambda s: (s != "overall", s)):
        rating = ratings.get(scope)
        count = races.get(scope) or {}
        shown = rating_text(rating["rating"], rating["provisional"]) if rating else "—"
        best = f"{count['best']:.1f}s" if "best" in count else "—"
        lines.append(
            f"{_title(scope):<24} {shown:>8} {count.get('played', 0):>7} "
            f"{count.get('won', 0):>5} {best:>8}"
        )
    recent: Sequence[Mapping[str, Any]] = profile.get("recent") or []
    lines += ["", f"Last {len(recent)} races"]
    for index, entry in enumerate(recent):
        day = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(entry.get("at", 0))))
        change = entry.get("change")
        moved = "" if change is None else f" {'+' if change >= 0 else '−'}{abs(change)}"
        mark = "›" if index == picked else " "
        lines.append(
            f"{mark} {day}  {_title(str(entry.get('variant'))):<20} {entry.get('place')}/"
            f"{entry.get('of')}  {entry.get('status')}  {float(entry.get('time', 0)):.1f}s  "
            f"{entry.get('home')} home{moved}  [{entry.get('race')}]"
        )
    return lines


def leaderboard_lines(
    scope: str, entries: Sequence[Mapping[str, Any]], *, fastest: bool = False
) -> list[str]:
    """One line per place; an empty board says what would fill it."""
    if not entries:
        if fastest:
            return [f"{_title(scope)}: no wins yet."]
        return [f"{_title(scope)}: no settled ratings yet (10 rated races make one)."]
    kind = "fastest wins" if fastest else "top"
    lines = [f"{_title(scope)} · {kind} {len(entries)}", ""]
    for entry in entries:
        value = f"{entry['time']:.1f}s" if fastest else str(entry["rating"])
        lines.append(f"{entry['place']:>4}. {entry['name']:<24} {value:>8}")
    return lines


def daily_lines(daily: Mapping[str, Any]) -> list[str]:
    """Today's deal: its commitment and board; yesterday's revealed seed."""
    lines = [
        f"Daily deal · {_title(str(daily.get('variant')))} · {daily.get('day')} (UTC)",
        "One try per account. Results and replays open tomorrow, when the seed is revealed.",
        f"Commitment: {daily.get('commitment')}",
        "",
    ]
    board: Sequence[Mapping[str, Any]] = daily.get("board") or []
    if not board:
        lines.append("Nobody has finished today's deal yet.")
    for entry in board:
        score = f"{entry['time']:.1f}s" if entry.get("won") else f"{entry.get('home')} home"
        lines.append(f"{entry['place']:>4}. {entry['name']:<24} {score:>10}")
    yesterday = daily.get("yesterday")
    if yesterday:
        lines += ["", f"Yesterday ({yesterday['day']}): seed {yesterday['seed']}",
                  f"  committed as {yesterday['commitment']}"]  # fmt: skip
    return lines

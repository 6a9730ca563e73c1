"""Who won a finished tournament, in words: every entrant of a shared first place.

The server ranks (``standings``, ties sharing a place); the client only reads
its places. A rounds tournament whose entrants tie on points, cards home and
time has several first places, and each of them won: naming the first row
alone would crown whoever joined first.
"""

from __future__ import annotations

from protocol.tournaments import Tournament, TournamentStanding

__all__ = ["final_standings_lines", "names_text", "points_text", "winners", "winners_text"]


def winners(doc: Tournament) -> tuple[TournamentStanding, ...]:
    """The entrants placed first (not removed), in the server's order; none before
    there are standings."""
    return tuple(s for s in doc.standings if s.place == 1 and not s.removed)


def names_text(names: list[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def points_text(points: float) -> str:
    """Points as the server counts them: a share such as 2.5 where racers tied."""
    return f"{points:g} point" + ("" if points == 1 else "s")


def winners_text(doc: Tournament) -> str:
    """``★ winner Ann (7 points)``, or every winner of a shared first place:
    ``★ winners Ann and Bob (6.5 points each)``."""
    first = winners(doc)
    if not first:
        return "no results"
    points = points_text(first[0].points)
    if len(first) == 1:
        return f"★ winner {first[0].name} ({points})"
    return f"★ winners {names_text([s.name for s in first])} ({points} each)"


def final_standings_lines(doc: Tournament) -> list[str]:
    """The standings as ``ballroom bot --tournament`` prints them: a line per entrant in
    the server's order, each winner of first place (shared or not) marked; an arena's
    lines count races and wins instead of cards home, and mark a streak (🔥n)."""
    first = {s.player for s in winners(doc)}
    return [
        f"{row.place:>2}. {row.name:<24} {row.points:>4g} pts "
        + (_arena_counts(row) if doc.arena else f"{row.home:>5} home")
        + ("  ★ winner" if row.player in first else "")
        for row in doc.standings
    ]


def _arena_counts(row: TournamentStanding) -> str:
    streak = f" 🔥{row.streak}" if row.streak >= 2 else ""
    return f"{row.races:>3} races {row.wins:>3} won{streak}"

"""An arena's document as text: its clock, standings with streaks, races and entrants.

An arena (docs/tournaments.md, *Arena*) runs many races at once, each a stage
of one table, and groups its entrants again as soon as their race ends. These
functions read the pushed document only; :mod:`client.widgets.tournament`
hands an arena's drawing to them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from rich.table import Table

from protocol.tournaments import RankedBy, StageStatus, Tournament, TournamentStatus

__all__ = [
    "STREAK_MARK",
    "arena_entrant_state",
    "arena_my_line",
    "arena_race_rows",
    "arena_standings_table",
    "arena_status_line",
    "clock",
    "streak_mark",
]

#: Marks an entrant on a streak (two or more races won in a row: their races score double).
STREAK_MARK = "🔥"
#: Races placed first in a row that put an entrant on a streak.
STREAK = 2
#: Races over that the races pane still lists below those under way.
RECENT = 6


def clock(seconds: float) -> str:
    """``12:05`` (minutes and seconds), rounded up, never below 0:00."""
    left = max(0, math.ceil(seconds))
    return f"{left // 60}:{left % 60:02d}"


def streak_mark(streak: int) -> str:
    """``🔥3`` for three wins in a row (on a streak), else ""."""
    return f"{STREAK_MARK}{streak}" if streak >= STREAK else ""


def arena_status_line(doc: Tournament, now: float) -> str:
    """The arena's clock and what it is doing, in one line."""
    status = doc.status
    racing = len(doc.running_stages)
    if status is TournamentStatus.OPEN:
        entrants = sum(1 for _ in doc.active_entrants())
        return f"arena · {clock(doc.duration)} · {entrants} entered · the host starts it"
    if status is TournamentStatus.CANCELLED:
        return "arena cancelled"
    if status is TournamentStatus.FINISHED:
        top = doc.standings[0] if doc.standings else None
        winner = f" · ★ winner {top.name} ({top.points:g} points)" if top else ""
        return f"arena finished{winner}"
    ends = doc.ends_at if doc.ends_at is not None else now
    left = ends - now
    races = f"{racing} race{'' if racing == 1 else 's'} under way"
    if left <= 0:
        return f"arena · time is up · {races}: the last ones finish"
    if status is TournamentStatus.PAUSED:
        return f"arena · ⏱ {clock(left)} left · paused by the host: no new races · {races}"
    if left <= doc.cutoff:
        return f"arena · ⏱ {clock(left)} left · no new races now · {races}"
    return f"arena · ⏱ {clock(left)} left · {races}"


def _my_race(doc: Tournament, me: str) -> int | None:
    for stage in doc.running_stages:
        if stage.seat_of(me) is not None:
            return stage.n
    return None


def arena_my_line(doc: Tournament, me: str | None, now: float, *, game_over: bool) -> str:
    """What the arena means for this client's player right now."""
    entrant = doc.entrant(me)
    status = doc.status
    if entrant is None or me is None:
        host = me is not None and doc.host == me
        enter = " e enters you." if not status.over else ""
        return ("You host it." if host else "You are watching.") + enter
    if entrant.removed:
        return "You were taken out of the arena."
    mine = next((s for s in doc.standings if s.player == me), None)
    points = f" You have {mine.points:g} points{_streak_words(mine.streak)}." if mine else ""
    if status is TournamentStatus.OPEN:
        return "You are entered; the host starts the arena."
    if status.over:
        place = f"You placed {mine.place} of {len(doc.standings)}" if mine else "It is over"
        return f"{place}{'' if mine is None else f' with {mine.points:g} points'}."
    race = _my_race(doc, me)
    if race is not None:
        if game_over:
            return f"Your game in race {race} is over: its results come when all finish.{points}"
        return f"You race in race {race}.{points}"
    if entrant.paused:
        return f"You are paused: no new race for you. a comes back.{points}"
    ends = doc.ends_at if doc.ends_at is not None else now
    if ends - now <= doc.cutoff or status is TournamentStatus.PAUSED:
        return f"No new races now.{points}"
    return f"Waiting to be grouped into your next race (a: pause).{points}"


def _streak_words(streak: int) -> str:
    return f", {streak} wins in a row: your races score double" if streak >= STREAK else ""


class ArenaRace(NamedTuple):
    race: str
    table: str
    players: str
    state: str


def arena_race_rows(doc: Tournament) -> list[ArenaRace]:
    """The races under way, newest first, then the last few over."""
    names = doc.names
    running = [s for s in reversed(doc.stages) if s.status is StageStatus.RUNNING]
    over = [s for s in reversed(doc.stages) if s.status is not StageStatus.RUNNING][:RECENT]
    rows = []
    for stage in running + over:
        table = stage.races[0]
        players = ", ".join(names.get(p, p) for p in table.players)
        if stage.status is StageStatus.RUNNING:
            state = "racing"
        elif stage.results:
            first = min(stage.results, key=lambda p: stage.results[p].place)
            state = f"1st {names.get(first, first)}"
        else:
            state = str(stage.status)
        rows.append(ArenaRace(table.race, f"R{stage.n}", players, state))
    return rows


def arena_entrant_state(doc: Tournament, player: str) -> str:
    """``R7`` (racing in race 7), ``paused``, ``waiting`` or ``removed``."""
    entrant = doc.entrant(player)
    if entrant is None or entrant.removed:
        return "removed"
    race = _my_race(doc, player)
    if race is not None:
        return f"R{race}"
    if entrant.paused:
        return "paused"
    return "waiting" if doc.status.active else ""


def _marks(streak: int, paused: bool) -> str:
    """The streak cell: ``🔥3`` on a streak, and ⏸ for an entrant who paused."""
    return " ".join(mark for mark in (streak_mark(streak), "⏸" if paused else "") if mark)


#: The arena's tie-breaks, in the table's words.
TIE_BREAKS = {
    RankedBy.RACES_WON: "wins",
    RankedBy.AVERAGE_PLACE: "avg place",
    RankedBy.ENTRY: "entry",
}


def arena_standings_table(doc: Tournament, me: str | None) -> Table:
    """Points, races, wins and streaks, best first (entrants in order before any result)."""
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    table.add_column("#", justify="right", no_wrap=True, min_width=1)
    table.add_column("Entrant", no_wrap=True, overflow="ellipsis", max_width=18)
    table.add_column("Pts", justify="right", no_wrap=True, min_width=3)
    table.add_column("Races", justify="right", no_wrap=True, min_width=5)
    table.add_column("Won", justify="right", no_wrap=True, min_width=3)
    table.add_column("Streak", no_wrap=True, min_width=6)
    by = any(TIE_BREAKS.get(s.by) for s in doc.standings if s.by is not None)
    if by:
        table.add_column("By", no_wrap=True)
    paused = {e.player for e in doc.entrants if e.paused}
    if not doc.standings:
        for entrant in doc.entrants:
            you = " (you)" if entrant.player == me else ""
            table.add_row("–", entrant.name + you, "–", "–", "–", _marks(0, entrant.paused))
        return table
    for line in doc.standings:
        name = line.name + (" (you)" if line.player == me else "")
        cells = [
            str(line.place), name, f"{line.points:g}", str(line.races), str(line.wins),
            _marks(line.streak, line.player in paused),
        ]  # fmt: skip
        if by:
            cells.append("" if line.by is None else TIE_BREAKS.get(line.by, ""))
        style = "dim strike" if line.removed else "bold" if line.player == me else ""
        table.add_row(*cells, style=style)
    return table

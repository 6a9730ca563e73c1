"""A tournament document as text: its status, standings, bracket, races and entrants.

The server pushes the whole document at every change (docs/protocol.md,
"The tournament document"); these functions only read it, so the screens
stay thin and the drawing can be pinned by golden text. Nothing here knows
the scoring rules: places, points and bracket winners come from the server.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from rich.table import Table
from rich.text import Text

from client.models.catalogue import title_of
from client.models.winners import winners_text
from client.widgets.arena import (
    arena_entrant_state,
    arena_my_line,
    arena_race_rows,
    arena_standings_table,
    arena_status_line,
)
from protocol.tournaments import (
    Match,
    RankedBy,
    Stage,
    StageStatus,
    Tournament,
    TournamentStanding,
    TournamentStatus,
)

__all__ = [
    "EntrantRow",
    "RaceRow",
    "bracket_rounds",
    "bracket_text",
    "eliminated_by",
    "entrant_rows",
    "my_line",
    "race_rows",
    "round_name",
    "stage_title",
    "standings_table",
    "status_line",
    "tie_break",
]

NAME = 10  # a name's width in the bracket


class RaceRow(NamedTuple):
    """One race of the latest stage, for the table of races."""

    race: str
    table: str  # "T1"
    players: str
    state: str


class EntrantRow(NamedTuple):
    """One entrant, in seeding order."""

    player: str
    seed: str
    name: str
    state: str


def round_name(matches: int, *, short: bool = False) -> str:
    """A knockout round by its number of matches: final, semi-finals… (``short``: semi…)."""
    names = {1: "final", 2: "semi", 4: "quarter"} if short else _ROUND_NAMES
    return names.get(matches, f"last {2 * matches}")


_ROUND_NAMES = {1: "final", 2: "semi-finals", 4: "quarter-finals"}


def _entered(doc: Tournament) -> int:
    return sum(1 for _ in doc.active_entrants())


def bracket_rounds(doc: Tournament) -> int:
    """How many bracket rounds a knockout plays: the bracket's, or its entrants' if not drawn."""
    if doc.bracket:
        slots = 2 * len(doc.bracket[0])
    else:
        slots = 2 ** math.ceil(math.log2(max(2, _entered(doc))))
    return max(1, slots.bit_length() - 1)


def stage_title(doc: Tournament, stage: Stage) -> str:
    """``round 2 of 3``, or for a knockout ``round 2 of 3 (final), game 1``; an arena's
    ``race 7``."""
    number = stage.round
    if doc.arena:
        return f"race {stage.n}"
    if not doc.knockout:
        return f"round {number} of {doc.rounds}"
    matches = len(doc.bracket[number - 1]) if 0 < number <= len(doc.bracket) else 0
    name = f" ({round_name(matches)})" if matches else ""
    game = f", game {stage.game}" if doc.best_of > 1 else ""
    return f"round {number} of {bracket_rounds(doc)}{name}{game}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _winner(doc: Tournament) -> str:
    if doc.knockout:
        champion = doc.champion
        return f"★ champion {doc.name_of(champion)}" if champion else "no champion"
    return winners_text(doc)


def _seconds_to(next_at: float, now: float) -> int:
    return max(0, math.ceil(next_at - now))


def status_line(doc: Tournament, now: float) -> str:
    """Where the tournament stands, in one line."""
    if doc.arena:
        return arena_status_line(doc, now)
    status = doc.status
    last = doc.last_stage
    if status is TournamentStatus.OPEN:
        return f"open · {_count(_entered(doc), 'entrant')} · the host starts it"
    if status is TournamentStatus.FINISHED:
        return f"finished · {_winner(doc)}"
    if status is TournamentStatus.CANCELLED:
        return "cancelled" + (f" during {stage_title(doc, last)}" if last else "")
    running = doc.running_stage
    if status is TournamentStatus.PAUSED:
        if running is not None:
            return f"paused · {stage_title(doc, running)} finishes, then it waits for the host"
        done = f" after {stage_title(doc, last)}" if last else ""
        return f"paused{done} · it waits for the host to resume"
    if running is not None:
        return f"running · {stage_title(doc, running)} · {title_of(running.variant)}"
    if doc.next_at is not None:
        seconds = _seconds_to(doc.next_at, now)
        if not doc.stages:
            return f"starting · the first round in {seconds} s"
        return f"break · the next round starts in {seconds} s"
    return f"{status} · between rounds"


def eliminated_by(doc: Tournament, player: str) -> tuple[str, int] | None:
    """Who knocked ``player`` out, and in which bracket round, if anyone did."""
    for number, matches in enumerate(doc.bracket, 1):
        for match in matches:
            if player in match.players and match.winner not in (None, player):
                return str(match.winner), number
    return None


def my_line(doc: Tournament, me: str | None, now: float, *, game_over: bool = False) -> str:
    """What the tournament means for this client's player right now.

    ``game_over``: the player's game in their current race has ended (the
    document does not say so until every table of the stage is done).
    """
    if doc.arena:
        return arena_my_line(doc, me, now, game_over=game_over)
    entrant = doc.entrant(me)
    status = doc.status
    is_open = status is TournamentStatus.OPEN
    if entrant is None:
        if me is not None and doc.host == me:
            return "You host it." + (" e enters you too." if is_open else "")
        return "You are watching." + (" e enters you." if is_open else "")
    if entrant.removed:
        return "You were taken out of the tournament."
    if is_open:
        return "You are entered; the host starts the tournament."
    if status is TournamentStatus.FINISHED:
        place = next((s.place for s in doc.standings if s.player == me), None)
        return f"You placed {place} of {len(doc.standings)}." if place else ""
    if status is TournamentStatus.CANCELLED:
        return "The host cancelled the tournament."
    if doc.knockout:
        beaten = eliminated_by(doc, entrant.player)
        if beaten is not None:
            winner, number = beaten
            matches = len(doc.bracket[number - 1])
            return f"You are out: {doc.name_of(winner)} won in the {round_name(matches)}."
    stage = doc.running_stage
    if stage is not None:
        table = stage.seat_of(entrant.player)
        if table is None:
            return "You sit this one out (a bye): waiting for the next round."
        if game_over:
            return f"Your game at table {table.table} is over: waiting for the other racers."
        return f"You race at table {table.table}."
    if doc.next_at is not None:
        seconds = _seconds_to(doc.next_at, now)
        return f"Waiting for the next round: it starts in {seconds} s."
    return "Waiting for the next round."


def race_rows(doc: Tournament) -> list[RaceRow]:
    """The races of the latest stage: who sits where and how it went (an arena's: those
    under way, then the last ones over)."""
    if doc.arena:
        return [RaceRow(r.race, r.table, r.players, r.state) for r in arena_race_rows(doc)]
    stage = doc.last_stage
    if stage is None:
        return []
    names = doc.names
    results = stage.results
    rows = []
    for race in stage.races:
        shown = [names.get(p, p) for p in race.players]
        if stage.status is StageStatus.RUNNING:
            state = "racing"
        elif stage.status is StageStatus.DONE:
            first = min(
                (p for p in race.players if p in results),
                key=lambda p: results[p].place,
                default=None,
            )
            if first is None:
                state = "done"
            else:
                name = names.get(first, first)
                state = f"{name} won" if doc.knockout else f"1st {name}"
        else:
            state = str(stage.status)
        players = (" v " if doc.knockout else ", ").join(shown)
        rows.append(RaceRow(race.race, f"T{race.table}", players, state))
    return rows


def entrant_rows(doc: Tournament, me: str | None) -> list[EntrantRow]:
    """Every entrant in seeding order, with their seat or why they are out."""
    stage = doc.running_stage
    seats = {p: f"T{race.table}" for race in (stage.races if stage else ()) for p in race.players}
    rows = []
    for seed, entrant in enumerate(doc.entrants, 1):
        player = entrant.player
        tags = [t for t, on in (("you", player == me), ("host", player == doc.host)) if on]
        name = entrant.name + (f" ({', '.join(tags)})" if tags else "")
        if doc.arena:
            state = arena_entrant_state(doc, player)
        elif entrant.removed:
            state = "removed"
        elif player == doc.champion:
            state = "★ champion"
        elif doc.knockout and eliminated_by(doc, player) is not None:
            state = "out"
        else:
            state = seats.get(player, "")
        rows.append(EntrantRow(player, str(seed), name, state))
    return rows


class _Line(NamedTuple):
    """One line of the standings table: a standing, or an entrant before any result."""

    place: str
    player: str
    name: str
    removed: bool
    points: str = "–"
    home: str = "–"
    time: str = "–"
    reached: int = 0
    by: RankedBy | None = None


def _lines(doc: Tournament) -> list[_Line]:
    if not doc.standings:
        return [_Line("–", e.player, e.name, e.removed) for e in doc.entrants]
    return [_line(standing) for standing in doc.standings]


def _line(standing: TournamentStanding) -> _Line:
    return _Line(
        place=str(standing.place),
        player=standing.player,
        name=standing.name,
        removed=standing.removed,
        points=f"{standing.points:g}",
        home=str(standing.home),
        time=f"{standing.time:.1f}s",
        reached=standing.round,
        by=standing.by,
    )


def standings_table(doc: Tournament, me: str | None) -> Table:
    """The standings, best first (entrants in seeding order before any result)."""
    if doc.arena:
        return arena_standings_table(doc, me)
    knockout = doc.knockout
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    table.add_column("#", justify="right", no_wrap=True, min_width=1)
    table.add_column("Entrant", no_wrap=True, overflow="ellipsis", max_width=18)
    if knockout:
        table.add_column("Reached", no_wrap=True, min_width=7)
        table.add_column("Won", justify="right", no_wrap=True, min_width=3)
    else:
        table.add_column("Pts", justify="right", no_wrap=True, min_width=3)
    table.add_column("Home", justify="right", no_wrap=True, min_width=4)
    table.add_column("Time", justify="right", no_wrap=True, min_width=6)
    lines = _lines(doc)
    # Where equal points left it to a tie-break, say which one did (a knockout's
    # table has no room for it). A shared place shows as the same number twice.
    split = not knockout and any(tie_break(line.by) for line in lines)
    if split:
        table.add_column("By", no_wrap=True)
    bracket = doc.bracket
    for line in lines:
        player = line.player
        cells = [line.place, line.name + (" (you)" if player == me else "")]
        if knockout:
            if player == doc.champion:
                where = "★"
            elif 0 < line.reached <= len(bracket):
                where = round_name(len(bracket[line.reached - 1]), short=True)
            else:
                where = "–"
            cells.append(where)
        cells += [line.points, line.home, line.time]
        if split:
            cells.append(tie_break(line.by))
        style = "dim strike" if line.removed else "bold" if player == me else ""
        table.add_row(*cells, style=style)
    return table


#: The tie-breaks a standing may name (``by``), in the table's words.
TIE_BREAKS = {RankedBy.CARDS_HOME: "home", RankedBy.TIME: "time"}


def tie_break(by: RankedBy | None) -> str:
    """What decided a place, when a tie-break did (else "")."""
    return "" if by is None else TIE_BREAKS.get(by, "")


def _fit(name: str, width: int = NAME) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _side(names: Mapping[str, str], match: Match, player: str | None) -> Text:
    if player is None:
        return Text(" " * (NAME + 2))
    mark, style = "  ", ""
    if match.winner == player:
        mark, style = "✓ ", "bold"
    elif match.winner is not None:
        mark, style = ("✗ ", "dim") if match.forfeit == player else ("  ", "dim")
    return Text.assemble(mark, (_fit(names.get(player, player)).ljust(NAME), style))


def _trimmed(text: Text) -> Text:
    text.rstrip()
    return text


def _match_line(names: Mapping[str, str], match: Match, playing: bool) -> Text:
    line = Text("  ")
    if match.bye:
        line.append_text(_side(names, match, match.a if match.a is not None else match.b))
        return line.append(" bye", "dim")
    wins = match.wins
    started = playing or match.winner is not None or any(wins)
    score = f"{wins[0]}–{wins[1]}" if started else "–"
    line.append_text(_side(names, match, match.a))
    line.append(f" {score:^3} ")
    line.append_text(_trimmed(_side(names, match, match.b)))
    if match.forfeit is not None:
        line.append(" forfeit", "dim")
    elif playing:
        line.append(" playing", "italic")
    line.rstrip()
    return line


def bracket_text(doc: Tournament, me: str | None = None) -> Text:
    """The knockout bracket round by round: "✓ Ann  2–1  Bob", byes, forfeits, the champion."""
    names = doc.names
    if me is not None and me in names:
        names[me] = f"{names[me]} (you)"
    bracket = doc.bracket
    out = Text()
    if not bracket:
        out.append(
            f"The bracket is drawn at the start: {_count(_entered(doc), 'entrant')} in seeding"
            " order, byes to the top seeds.",
            "dim",
        )
        return out
    stage = doc.running_stage
    playing: set[int] = set()
    if stage is not None and stage.round == len(bracket):
        playing = {race.match for race in stage.races if race.match is not None}
    for number in range(1, bracket_rounds(doc) + 1):
        if number > 1:
            out.append("\n")
        variant = title_of(doc.variant_of_round(number))
        if number > len(bracket):
            matches = len(bracket[0]) >> (number - 1)
            out.append(f"Round {number} · {round_name(max(1, matches))} · {variant}", "dim")
            continue
        played = bracket[number - 1]
        out.append(f"Round {number} · {round_name(len(played))} · {variant}", "bold")
        current = number == len(bracket)
        for index, match in enumerate(played):
            out.append("\n")
            out.append_text(_match_line(names, match, current and index in playing))
    if doc.champion is not None:
        out.append(f"\n\n★ Champion: {names.get(doc.champion, doc.champion)}", "bold")
    return out

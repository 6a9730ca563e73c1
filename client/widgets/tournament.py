"""A tournament document as text: its status, standings, bracket, races and entrants.

The server pushes the whole document at every change (docs/protocol.md,
"The tournament document"); these functions only read it, so the screens
stay thin and the drawing can be pinned by golden text. Nothing here knows
the scoring rules: places, points and bracket winners come from the server.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from rich.table import Table
from rich.text import Text

from client.models.catalogue import title_of

__all__ = [
    "OVER",
    "EntrantRow",
    "RaceRow",
    "bracket_rounds",
    "bracket_text",
    "eliminated_by",
    "entrant_rows",
    "my_line",
    "names_of",
    "race_rows",
    "round_name",
    "running_stage",
    "stage_title",
    "standings_table",
    "status_line",
    "tie_break",
]

Doc = Mapping[str, Any]

#: The statuses after which nothing changes any more.
OVER = frozenset({"finished", "cancelled"})

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


def names_of(doc: Doc) -> dict[str, str]:
    return {str(e["player"]): str(e["name"]) for e in doc.get("entrants") or []}


def running_stage(doc: Doc) -> Mapping[str, Any] | None:
    """The stage under way, if one is."""
    stages = doc.get("stages") or []
    if stages and stages[-1].get("status") == "running":
        return stages[-1]  # type: ignore[no-any-return]
    return None


def round_name(matches: int, *, short: bool = False) -> str:
    """A knockout round by its number of matches: final, semi-finals… (``short``: semi…)."""
    names = {1: "final", 2: "semi", 4: "quarter"} if short else _ROUND_NAMES
    return names.get(matches, f"last {2 * matches}")


_ROUND_NAMES = {1: "final", 2: "semi-finals", 4: "quarter-finals"}


def bracket_rounds(doc: Doc) -> int:
    """How many bracket rounds a knockout plays: the bracket's, or its entrants' if not drawn."""
    bracket = doc.get("bracket") or []
    if bracket:
        slots = 2 * len(bracket[0])
    else:
        entrants = sum(not e.get("removed") for e in doc.get("entrants") or [])
        slots = 2 ** math.ceil(math.log2(max(2, entrants)))
    return max(1, slots.bit_length() - 1)


def stage_title(doc: Doc, stage: Mapping[str, Any]) -> str:
    """``round 2 of 3``, or for a knockout ``round 2 of 3 (final), game 1``."""
    number = int(stage.get("round", 0))
    if doc.get("format") != "knockout":
        return f"round {number} of {doc.get('rounds')}"
    bracket = doc.get("bracket") or []
    matches = len(bracket[number - 1]) if 0 < number <= len(bracket) else 0
    name = f" ({round_name(matches)})" if matches else ""
    game = f", game {stage.get('game', 1)}" if int(doc.get("best_of", 1)) > 1 else ""
    return f"round {number} of {bracket_rounds(doc)}{name}{game}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _winner(doc: Doc) -> str:
    standings = doc.get("standings") or []
    names = names_of(doc)
    if doc.get("format") == "knockout":
        champion = doc.get("champion")
        return f"★ champion {names.get(champion, champion)}" if champion else "no champion"
    if not standings:
        return "no results"
    best = standings[0]
    return f"★ winner {best.get('name')} ({_count(int(best.get('points', 0)), 'point')})"


def status_line(doc: Doc, now: float) -> str:
    """Where the tournament stands, in one line."""
    status = str(doc.get("status", "?"))
    stages = doc.get("stages") or []
    last = stages[-1] if stages else None
    entrants = sum(not e.get("removed") for e in doc.get("entrants") or [])
    if status == "open":
        return f"open · {_count(entrants, 'entrant')} · the host starts it"
    if status == "finished":
        return f"finished · {_winner(doc)}"
    if status == "cancelled":
        return "cancelled" + (f" during {stage_title(doc, last)}" if last else "")
    running = running_stage(doc)
    if status == "paused":
        if running is not None:
            return f"paused · {stage_title(doc, running)} finishes, then it waits for the host"
        done = f" after {stage_title(doc, last)}" if last else ""
        return f"paused{done} · it waits for the host to resume"
    if running is not None:
        variant = title_of(str(running.get("variant", "?")))
        return f"running · {stage_title(doc, running)} · {variant}"
    next_at = doc.get("next_at")
    if next_at is not None:
        seconds = max(0, math.ceil(float(next_at) - now))
        if not stages:
            return f"starting · the first round in {seconds} s"
        return f"break · the next round starts in {seconds} s"
    return f"{status} · between rounds"


def eliminated_by(doc: Doc, player: str) -> tuple[str, int] | None:
    """Who knocked ``player`` out, and in which bracket round, if anyone did."""
    for number, matches in enumerate(doc.get("bracket") or [], 1):
        for match in matches:
            if player in (match.get("a"), match.get("b")) and match.get("winner") not in (
                None,
                player,
            ):
                return str(match["winner"]), number
    return None


def my_line(doc: Doc, me: str | None, now: float, *, game_over: bool = False) -> str:
    """What the tournament means for this client's player right now.

    ``game_over``: the player's game in their current race has ended (the
    document does not say so until every table of the stage is done).
    """
    entrant = next((e for e in doc.get("entrants") or [] if e.get("player") == me), None)
    status = doc.get("status")
    host = me is not None and doc.get("host") == me
    if entrant is None:
        if host:
            return "You host it." + (" e enters you too." if status == "open" else "")
        return "You are watching." + (" e enters you." if status == "open" else "")
    if entrant.get("removed"):
        return "You were taken out of the tournament."
    if status == "open":
        return "You are entered; the host starts the tournament."
    if status == "finished":
        place = next(
            (s.get("place") for s in doc.get("standings") or [] if s.get("player") == me), None
        )
        return f"You placed {place} of {len(doc.get('standings') or [])}." if place else ""
    if status == "cancelled":
        return "The host cancelled the tournament."
    if doc.get("format") == "knockout":
        beaten = eliminated_by(doc, me or "")
        if beaten is not None:
            winner, number = beaten
            matches = len(doc["bracket"][number - 1])
            name = names_of(doc).get(winner, winner)
            return f"You are out: {name} won in the {round_name(matches)}."
    stage = running_stage(doc)
    if stage is not None:
        table = next((r for r in stage.get("races") or [] if me in r.get("players", [])), None)
        if table is None:
            return "You sit this one out (a bye): waiting for the next round."
        if game_over:
            return f"Your game at table {table.get('table')} is over: waiting for the other racers."
        return f"You race at table {table.get('table')}."
    next_at = doc.get("next_at")
    if next_at is not None:
        seconds = max(0, math.ceil(float(next_at) - now))
        return f"Waiting for the next round: it starts in {seconds} s."
    return "Waiting for the next round."


def race_rows(doc: Doc) -> list[RaceRow]:
    """The races of the latest stage: who sits where and how it went."""
    stages = doc.get("stages") or []
    if not stages:
        return []
    stage = stages[-1]
    names = names_of(doc)
    results: Mapping[str, Any] = stage.get("results") or {}
    knockout = doc.get("format") == "knockout"
    rows = []
    for race in stage.get("races") or []:
        players = [str(p) for p in race.get("players", [])]
        shown = [names.get(p, p) for p in players]
        if stage.get("status") == "running":
            state = "racing"
        elif stage.get("status") == "done":
            first = min(
                (p for p in players if p in results),
                key=lambda p: int(results[p].get("place", 99)),
                default=None,
            )
            state = f"{names.get(first, first)} won" if first and knockout else "done"
            if not knockout and first:
                state = f"1st {names.get(first, first)}"
        else:
            state = str(stage.get("status"))
        rows.append(
            RaceRow(
                str(race["race"]),
                f"T{race.get('table')}",
                (" v " if knockout else ", ").join(shown),
                state,
            )
        )
    return rows


def entrant_rows(doc: Doc, me: str | None) -> list[EntrantRow]:
    """Every entrant in seeding order, with their seat or why they are out."""
    stage = running_stage(doc)
    seats = {
        str(p): f"T{race.get('table')}"
        for race in (stage.get("races") or [] if stage else [])
        for p in race.get("players", [])
    }
    knockout = doc.get("format") == "knockout"
    rows = []
    for seed, entrant in enumerate(doc.get("entrants") or [], 1):
        player = str(entrant["player"])
        tags = [t for t, on in (("you", player == me), ("host", player == doc.get("host"))) if on]
        name = str(entrant["name"]) + (f" ({', '.join(tags)})" if tags else "")
        if entrant.get("removed"):
            state = "removed"
        elif player == doc.get("champion"):
            state = "★ champion"
        elif knockout and eliminated_by(doc, player) is not None:
            state = "out"
        else:
            state = seats.get(player, "")
        rows.append(EntrantRow(player, str(seed), name, state))
    return rows


def standings_table(doc: Doc, me: str | None) -> Table:
    """The standings, best first (entrants in seeding order before any result)."""
    knockout = doc.get("format") == "knockout"
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
    rows: Sequence[Mapping[str, Any]] = doc.get("standings") or [
        {"place": "–", "player": e["player"], "name": e["name"], "removed": e.get("removed")}
        for e in doc.get("entrants") or []
    ]
    # Where equal points left it to a tie-break, say which one did (a knockout's
    # table has no room for it). A shared place shows as the same number twice.
    split = not knockout and any(tie_break(row.get("by")) for row in rows)
    if split:
        table.add_column("By", no_wrap=True)
    bracket = doc.get("bracket") or []
    for row in rows:
        player = row.get("player")
        name = str(row.get("name", player)) + (" (you)" if player == me else "")
        cells = [str(row.get("place", "")), name]  # a shared place shows twice
        if knockout:
            reached = int(row.get("round", 0) or 0)
            if player is not None and player == doc.get("champion"):
                where = "★"
            elif 0 < reached <= len(bracket):
                where = round_name(len(bracket[reached - 1]), short=True)
            else:
                where = "–"
            cells += [where, str(row.get("points", "–"))]
        else:
            cells.append(str(row.get("points", "–")))
        time = row.get("time")
        cells += [str(row.get("home", "–")), "–" if time is None else f"{float(time):.1f}s"]
        if split:
            cells.append(tie_break(row.get("by")))
        style = "dim strike" if row.get("removed") else "bold" if player == me else ""
        table.add_row(*cells, style=style)
    return table


#: The tie-breaks a standing may name (``by``), in the table's words.
TIE_BREAKS = {"cards home": "home", "time": "time"}


def tie_break(by: object) -> str:
    """What decided a place, when a tie-break did (else "")."""
    return TIE_BREAKS.get(str(by), "")


def _fit(name: str, width: int = NAME) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _side(names: Mapping[str, str], match: Mapping[str, Any], side: str) -> Text:
    player = match.get(side)
    if player is None:
        return Text(" " * (NAME + 2))
    mark, style = "  ", ""
    if match.get("winner") == player:
        mark, style = "✓ ", "bold"
    elif match.get("winner") is not None:
        mark, style = ("✗ ", "dim") if match.get("forfeit") == player else ("  ", "dim")
    return Text.assemble(mark, (_fit(names.get(player, player)).ljust(NAME), style))


def _trimmed(text: Text) -> Text:
    text.rstrip()
    return text


def _match_line(
    doc: Doc, names: Mapping[str, str], match: Mapping[str, Any], playing: bool
) -> Text:
    a, b = match.get("a"), match.get("b")
    line = Text("  ")
    if a is None or b is None:
        line.append_text(_side(names, match, "a" if a is not None else "b"))
        return line.append(" bye", "dim")
    wins = match.get("wins") or [0, 0]
    started = playing or match.get("winner") is not None or any(wins)
    score = f"{wins[0]}–{wins[1]}" if started else "–"
    line.append_text(_side(names, match, "a"))
    line.append(f" {score:^3} ")
    line.append_text(_trimmed(_side(names, match, "b")))
    if match.get("forfeit") is not None:
        line.append(" forfeit", "dim")
    elif playing:
        line.append(" playing", "italic")
    line.rstrip()
    return line


def bracket_text(doc: Doc, me: str | None = None) -> Text:
    """The knockout bracket round by round: "✓ Ann  2–1  Bob", byes, forfeits, the champion."""
    names = dict(names_of(doc))
    if me is not None and me in names:
        names[me] = f"{names[me]} (you)"
    bracket = doc.get("bracket") or []
    out = Text()
    if not bracket:
        entrants = sum(not e.get("removed") for e in doc.get("entrants") or [])
        out.append(
            f"The bracket is drawn at the start: {_count(entrants, 'entrant')} in seeding order,"
            " byes to the top seeds.",
            "dim",
        )
        return out
    stage = running_stage(doc)
    playing: set[int] = set()
    if stage is not None and int(stage.get("round", 0)) == len(bracket):
        playing = {int(race["match"]) for race in stage.get("races") or []}
    total = bracket_rounds(doc)
    variants = doc.get("variants") or ["?"]
    for number in range(1, total + 1):
        if number > 1:
            out.append("\n")
        variant = title_of(str(variants[(number - 1) % len(variants)]))
        if number > len(bracket):
            matches = len(bracket[0]) >> (number - 1)
            out.append(f"Round {number} · {round_name(max(1, matches))} · {variant}", "dim")
            continue
        matches = bracket[number - 1]
        out.append(f"Round {number} · {round_name(len(matches))} · {variant}", "bold")
        current = number == len(bracket)
        for index, match in enumerate(matches):
            out.append("\n")
            out.append_text(_match_line(doc, names, match, current and index in playing))
    champion = doc.get("champion")
    if champion is not None:
        out.append(f"\n\n★ Champion: {names.get(champion, champion)}", "bold")
    return out

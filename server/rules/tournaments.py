"""A tournament's rules that need no I/O: seating, pairing, scoring, standings.

A tournament is one plain map (msgpack-ready), the *document*, which the
director keeps in Redis and pushes to every watcher whenever it changes. It
holds nothing secret: seeds appear in it only once their race has revealed
them. Everything here reads or changes a document and nothing else, so the
director (``server/services/tournaments.py``) is left with locking, Redis and races.

A tournament is played in *stages*: one stage is a set of races started
together on one deal. In the rounds format a stage is a round, its entrants
seated at tables of at most ``table_size``. In a knockout a stage is one
game of every undecided match of a bracket round: game 1 of round 1, then
game 2 of the matches still undecided, and so on until every match of the
round has a winner; the winners meet in the next round.

Scoring, as docs/tournaments.md states it for players:

- Rounds: all tables of a round share the deal, so the round ranks everyone
  together, the way a race ranks its racers: winners first by time to win,
  then the rest by cards home (a racer who did not win counts the round's
  whole time limit). Place ``p`` of ``n`` seated earns ``n - p + 1`` points;
  times count in tenths of a second, and racers tied share the place and
  split its points. Standings: points, then total cards home, then total
  time; each place says which of these decided it (or that it is shared).
- Knockout: a race's winner is its first placed racer; the first to win
  ``best_of // 2 + 1`` races wins the match. Standings: the champion, the
  runner-up, then by the round reached, then by races won, then cards home,
  then time.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import NotRequired, TypedDict

from protocol.results import Standing
from server.rules.ranking import rank, shared_points, tenths

__all__ = [
    "ACTIVE",
    "Document",
    "Entrant",
    "Match",
    "Plan",
    "Stage",
    "StageRace",
    "StageResult",
    "Status",
    "Table",
    "Totals",
    "TournamentSettings",
    "TournamentStanding",
    "active_entrants",
    "bracket_order",
    "entrant_names",
    "first_bracket",
    "forfeit",
    "knockout_tables",
    "needed_wins",
    "new_document",
    "plan_stage",
    "record_knockout_stage",
    "record_rounds_stage",
    "rounds_tables",
    "seat",
    "standings",
]


class TournamentSettings(TypedDict):
    """What the host chose (``create_tournament``); ``password``: whether one is asked."""

    name: str
    format: str
    variants: list[str]
    rounds: int
    best_of: int
    table_size: int
    time_limit: int
    spectate: str
    delay: int
    break_seconds: int
    grace: int
    winnable: bool
    password: bool


class Entrant(TypedDict):
    player: str
    name: str
    removed: bool


class Match(TypedDict):
    """A knockout match: its two sides (None: a bye), games won by each, the winner."""

    a: str | None
    b: str | None
    wins: list[int]
    winner: str | None
    #: The side that forfeited (away past the grace, or removed), if one did.
    forfeit: str | None


class Table(TypedDict):
    """The players seated at one table of a stage; ``match``: its index in the bracket round."""

    players: list[str]
    match: int | None


class Plan(TypedDict):
    """The stage to play next: its number, round, game of the round, variant and tables."""

    n: int
    round: int
    game: int
    variant: str
    tables: list[Table]


class StageRace(TypedDict):
    """The race of one table; its ``seed`` is filled in once the stage is over."""

    race: str
    table: int
    players: list[str]
    match: int | None
    commitment: str
    seed: int | None


class StageResult(TypedDict):
    """How a racer did in a stage, and the points it earned them."""

    place: int
    points: float
    status: str
    home: int
    time: float
    by: NotRequired[str | None]


class Stage(TypedDict):
    n: int
    round: int
    game: int
    variant: str
    status: str  # "running", then "done"
    started: float
    races: list[StageRace]
    results: dict[str, StageResult]


class Totals(TypedDict):
    """An entrant's sums over the stages: points, cards home, time, games won, and the
    last bracket round they reached."""

    player: str
    name: str
    points: float
    home: int
    time: float
    wins: int
    round: int


class TournamentStanding(Totals):
    """A line of the tournament's table, best first (``by``: what decided the place)."""

    place: int
    removed: bool
    by: str | None


class Document(TournamentSettings):
    """The tournament's one document, as stored and as every watcher is sent it."""

    id: str
    code: str
    host: str
    host_name: str
    status: str
    created: float
    next_at: float | None
    entrants: list[Entrant]
    stages: list[Stage]
    bracket: list[list[Match]]
    standings: list[TournamentStanding]
    champion: str | None


Doc = Document


class Status(enum.StrEnum):
    OPEN = "open"  # entrants join
    RUNNING = "running"
    PAUSED = "paused"  # the stage under way ends; no new one starts
    FINISHED = "finished"
    CANCELLED = "cancelled"


ACTIVE = frozenset({Status.RUNNING, Status.PAUSED})


def new_document(
    tournament: str,
    code: str,
    host: str,
    host_name: str,
    settings: TournamentSettings,
    now: float,
) -> Doc:
    """An open tournament with no entrants yet: a host who wants to race joins too."""
    return {
        "id": tournament,
        "code": code,
        "host": host,
        "host_name": host_name,
        **settings,
        "status": Status.OPEN.value,
        "created": now,
        "next_at": None,
        "entrants": [],
        "stages": [],
        "bracket": [],
        "standings": [],
        "champion": None,
    }


def entrant_names(doc: Doc) -> dict[str, str]:
    return {e["player"]: e["name"] for e in doc["entrants"]}


def active_entrants(doc: Doc) -> list[str]:
    """Entrants in seeding order (the order they joined), less those removed."""
    return [e["player"] for e in doc["entrants"] if not e["removed"]]


def variant_of_round(doc: Doc, round_number: int) -> str:
    variants: list[str] = doc["variants"]
    return variants[(round_number - 1) % len(variants)]


# -- rounds ----------------------------------------------------------------


def rounds_tables(players: list[str], table_size: int) -> list[Table]:
    """Players split into as few tables as the size allows, as even as can be.

    Seats are dealt round-robin in seeding order, so 10 players at tables of
    8 race as 5 and 5 rather than 8 and 2.
    """
    count = max(1, math.ceil(len(players) / table_size))
    tables: list[list[str]] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        tables[i % count].append(player)
    return [{"players": table, "match": None} for table in tables if table]


#: What decides a round's places, in order: the parts of ``_round_key``.
ROUND_CRITERIA = ("won", "time", "cards home")


def _round_key(result: Standing) -> tuple[bool, int, int]:
    won = result.won
    return (not won, tenths(result.time) if won else 0, -result.home)


def record_rounds_stage(doc: Doc, results: Iterable[Standing]) -> None:
    """Score a finished round from its races' standings rows (all tables together).

    Racers tied (the same cards home, and for winners the same time in
    tenths) share the place and split evenly the points of the places they fill.
    """
    stage = doc["stages"][-1]
    limit = float(doc["time_limit"])
    placed = rank(results, _round_key, ROUND_CRITERIA)
    points = shared_points(placed, lambda position: len(placed) - position + 1)
    scored: dict[str, StageResult] = {}
    for entry, share in zip(placed, points, strict=True):
        row = entry.item
        scored[row.player] = {
            "place": entry.place,
            "points": share,
            "status": row.status.value,
            "home": row.home,
            "time": row.time if row.won else limit,
            "by": entry.decided_by,
        }
    stage["results"] = scored
    stage["status"] = "done"
    doc["standings"] = standings(doc)


# -- knockout --------------------------------------------------------------


def needed_wins(best_of: int) -> int:
    return best_of // 2 + 1


def bracket_order(size: int) -> list[int]:
    """Seed numbers (from 1) in bracket position order, for a power-of-two ``size``.

    Seeds 1 and 2 can meet only in the final, 1-4 only in the semi-finals,
    and so on: each round pairs the seeds that sum to one more than its size.
    """
    order = [1]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for top in order for seed in (top, width + 1 - top)]
    return order


def _match(a: str | None, b: str | None) -> Match:
    match: Match = {"a": a, "b": b, "wins": [0, 0], "winner": None, "forfeit": None}
    if a is None or b is None:
        match["winner"] = a if b is None else b  # a bye
    return match


def first_bracket(players: list[str]) -> list[Match]:
    """Round one of a knockout: seeds in bracket order, byes to the top seeds."""
    size = 1
    while size < len(players):
        size *= 2
    size = max(size, 2)
    slots = [players[seed - 1] if seed <= len(players) else None for seed in bracket_order(size)]
    return [_match(slots[i], slots[i + 1]) for i in range(0, size, 2)]


def knockout_tables(doc: Doc) -> list[Table]:
    """One two-player table per undecided match of the bracket round under way."""
    matches = doc["bracket"][-1]
    # An undecided match has both its sides: a bye is decided when it is made.
    return [
        {"players": [p for p in (m["a"], m["b"]) if p is not None], "match": i}
        for i, m in enumerate(matches)
        if m["winner"] is None
    ]


def forfeit(doc: Doc, match_index: int, loser: str) -> None:
    """Decide a match of the current bracket round against ``loser``."""
    match = doc["bracket"][-1][match_index]
    if match["winner"] is None:
        match["winner"] = match["b"] if loser == match["a"] else match["a"]
        match["forfeit"] = loser


def record_knockout_stage(doc: Doc, races: Mapping[int, Sequence[Standing]]) -> None:
    """Count a finished game of each match, then open the next bracket round once
    every match of this one has a winner.

    ``races`` maps a match's index to its race's standings rows, best first;
    the first placed racer wins the game and scores a point.
    """
    stage = doc["stages"][-1]
    matches = doc["bracket"][-1]
    need = needed_wins(int(doc["best_of"]))
    for index, rows in races.items():
        for place, row in enumerate(rows, 1):
            stage["results"][row.player] = {
                "place": place,
                "points": int(place == 1),
                "status": row.status.value,
                "home": row.home,
                "time": row.time,
            }
        match = matches[index]
        if match["winner"] is not None or not rows:
            continue  # decided by a forfeit while the race ran
        winner = rows[0].player
        side = 0 if winner == match["a"] else 1
        match["wins"][side] += 1
        if match["wins"][side] >= need:
            match["winner"] = winner
    stage["status"] = "done"
    _advance_bracket(doc)
    doc["standings"] = standings(doc)


def _advance_bracket(doc: Doc) -> None:
    """Open the next bracket round (or crown the champion) once this one is decided."""
    while doc["bracket"] and doc["champion"] is None:
        matches = doc["bracket"][-1]
        if any(m["winner"] is None for m in matches):
            return
        winners = [m["winner"] for m in matches if m["winner"] is not None]
        if len(winners) == 1:
            doc["champion"] = winners[0]
            return
        doc["bracket"].append(
            [_match(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
        )


# -- both ------------------------------------------------------------------


def plan_stage(doc: Doc, absent: Iterable[str]) -> Plan | None:
    """The stage to play next (number, round, game, variant, tables), or None at the end.

    Entrants ``absent`` past their grace period forfeit their knockout match
    at once; in the rounds format they keep their seat and the director
    resigns them, which scores the round as resigned.
    """
    absent = set(absent)
    number = len(doc["stages"]) + 1
    if doc["format"] == "rounds":
        if number > int(doc["rounds"]):
            return None
        round_number, game = number, 1
        tables = rounds_tables(active_entrants(doc), int(doc["table_size"]))
    else:
        if not doc["bracket"]:
            doc["bracket"].append(first_bracket(active_entrants(doc)))
        gone = absent | {e["player"] for e in doc["entrants"] if e["removed"]}
        while True:
            _advance_bracket(doc)
            if doc["champion"] is not None:
                doc["standings"] = standings(doc)
                return None
            tables = knockout_tables(doc)
            missing = [
                (index, p)
                for t in tables
                if (index := t["match"]) is not None
                for p in t["players"]
                if p in gone
            ]
            if not missing:
                break
            # The second of a pair goes first: if both are gone, the first advances.
            for index, player in reversed(missing):
                forfeit(doc, index, player)
        round_number = len(doc["bracket"])
        last = doc["stages"][-1] if doc["stages"] else None
        game = last["game"] + 1 if last and last["round"] == round_number else 1
    return {
        "n": number,
        "round": round_number,
        "game": game,
        "variant": variant_of_round(doc, round_number),
        "tables": tables,
    }


def seat(doc: Doc, plan: Plan, races: list[StageRace], now: float) -> None:
    """Record a started stage: its plan and the race made for each table."""
    doc["stages"].append(
        {
            "n": plan["n"],
            "round": plan["round"],
            "game": plan["game"],
            "variant": plan["variant"],
            "status": "running",
            "started": now,
            "races": races,
            "results": {},
        }
    )
    doc["next_at"] = None


def standings(doc: Doc) -> list[TournamentStanding]:
    """The table everyone sees, best first; removed entrants last."""
    names = entrant_names(doc)
    removed = {e["player"] for e in doc["entrants"] if e["removed"]}
    totals: dict[str, Totals] = {
        p: {"player": p, "name": n, "points": 0, "home": 0, "time": 0.0, "wins": 0, "round": 0}
        for p, n in names.items()
    }
    for stage in doc["stages"]:
        for player, result in stage["results"].items():
            total = totals[player]
            total["points"] += result["points"]
            total["home"] += result["home"]
            total["time"] += result["time"]
            total["wins"] += result["status"] == "won"  # games solved
    for round_number, matches in enumerate(doc["bracket"], 1):
        for match in matches:
            for side in (match["a"], match["b"]):
                if side is not None:
                    totals[side]["round"] = round_number

    def key(t: Totals) -> tuple[bool | float, ...]:
        gone = t["player"] in removed
        if doc["format"] == "rounds":
            return (gone, -t["points"], -t["home"], tenths(t["time"]))
        champion = t["player"] == doc["champion"]
        return (gone, not champion, -t["round"], -t["points"], -t["home"], tenths(t["time"]))

    criteria = ROUNDS_STANDING if doc["format"] == "rounds" else KNOCKOUT_STANDING
    return [
        {"place": p.place, **p.item, "removed": p.item["player"] in removed, "by": p.decided_by}
        for p in rank(totals.values(), key, criteria)
    ]


#: What decides the standings' places, in order, by format.
ROUNDS_STANDING = ("removed", "points", "cards home", "time")
KNOCKOUT_STANDING = ("removed", "champion", "round reached", "races won", "cards home", "time")

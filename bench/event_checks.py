"""Each entrant's results against the tournament's record and against what the entrant did.

``ballroom tournament verify`` proves every race from its seed and logs;
these checks close the loop on the tournament itself: every seat the
document gave was raced by its entrant, every racer's log in the record is
as long as the moves that entrant had acknowledged, and each entrant's
totals in the standings add up from their races (rounds: points, cards
home, games solved; knockout: games won, which are its points, and every
match's winner is its race's first placed racer and plays the next round;
arena: points are the sum over their races).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

__all__ = ["check_entrants"]

Wire = dict[str, Any]


def check_entrants(record: Wire, entrants: list[Wire]) -> dict[str, Any]:
    """Every inconsistency found (at most 20 listed), counted by kind, with a summary line."""
    doc, races = record["tournament"], record["races"]
    by_player = {e["player"]: {seat["race"]: seat for seat in e["seats"]} for e in entrants}
    problems: list[str] = []
    kinds: Counter[str] = Counter()

    def problem(kind: str, text: str) -> None:
        kinds[kind] += 1
        if len(problems) < 20:
            problems.append(text)

    tables = [table for stage in doc["stages"] for table in stage["races"]]
    for table in tables:
        race = table["race"]
        closed = races.get(race)
        if closed is None:
            problem("race not in the record", f"{race}: not in the record")
            continue
        rows = {row["player"]: row for row in closed["standings"]}
        for player in table["players"]:
            seat = by_player.get(player, {}).get(race)
            if seat is None:
                problem("seat never raced", f"{race}: {player} never saw their seat")
                continue
            row = rows.get(player)
            if row is None:
                problem("racer missing from results", f"{race}: no line for {player}")
            elif row["moves"] != seat["moves"]:
                problem(
                    "log differs from acknowledged moves",
                    f"{race}: {player} had {seat['moves']} moves acknowledged; "
                    f"the record has {row['moves']}",
                )
    fmt = doc["format"]
    if fmt == "rounds":
        _rounds(doc, races, problem)
    elif fmt == "knockout":
        _knockout(doc, races, problem)
    elif fmt == "arena":
        _arena(doc, races, problem)
    checked = len(tables)
    summary = f"{checked} races, {len(doc['standings'])} standings checked: " + (
        "all consistent" if not kinds else ", ".join(f"{n} {k}" for k, n in kinds.items())
    )
    return {"summary": summary, "problems": problems, "kinds": dict(kinds)}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def _rounds(doc: Wire, races: Wire, problem: Any) -> None:
    points: defaultdict[str, float] = defaultdict(float)
    home: defaultdict[str, int] = defaultdict(int)
    solved: Counter[str] = Counter()
    for stage in doc["stages"]:
        lines = {}
        for table in stage["races"]:
            closed = races.get(table["race"])
            if closed is not None:
                lines.update({row["player"]: row for row in closed["standings"]})
        for player, result in stage["results"].items():
            points[player] += result["points"]
            home[player] += result["home"]
            solved[player] += result["status"] == "won"
            line = lines.get(player)
            if line is not None and line["home"] != result["home"]:
                problem("round result differs from race", f"round {stage['n']}: {player}")
    for standing in doc["standings"]:
        player = standing["player"]
        if not _close(standing["points"], points[player]):
            problem(
                "points are not the sum of rounds",
                f"{player}: {standing['points']} points; the rounds give {points[player]}",
            )
        if standing["home"] != home[player]:
            problem("cards home are not the sum of rounds", f"{player}: {standing['home']}")
        if standing["wins"] != solved[player]:
            problem("games solved are not the sum of rounds", f"{player}: {standing['wins']}")


def _knockout(doc: Wire, races: Wire, problem: Any) -> None:
    wins: Counter[str] = Counter()
    winners: dict[tuple[int, int], str] = {}
    for stage in doc["stages"]:
        for table in stage["races"]:
            closed = races.get(table["race"])
            if closed is None or not closed["standings"]:
                continue
            first = min(closed["standings"], key=lambda row: row["place"])["player"]
            wins[first] += 1
            if table["match"] is not None:
                winners[(int(stage["round"]), int(table["match"]))] = first
    bracket = doc["bracket"]
    for number, matches in enumerate(bracket, 1):
        for index, match in enumerate(matches):
            if match["a"] is None or match["b"] is None:
                continue  # a bye
            raced = winners.get((number, index))
            if match["forfeit"] is None and raced is not None and match["winner"] != raced:
                problem(
                    "match winner is not the race's winner",
                    f"round {number} match {index}: {match['winner']} against {raced}",
                )
            if number < len(bracket):
                players = {p for m in bracket[number] for p in (m["a"], m["b"])}
                if match["winner"] not in players:
                    problem("winner missing from next round", f"round {number}: {match['winner']}")
    final = bracket[-1][0] if bracket and bracket[-1] else None
    if final is not None and doc["champion"] != final["winner"]:
        problem("champion is not the final's winner", f"{doc['champion']}")
    for standing in doc["standings"]:
        if standing["points"] != wins[standing["player"]]:
            problem(
                "games won differ from races",
                f"{standing['player']}: {standing['points']} games won; the races give "
                f"{wins[standing['player']]}",
            )


def _arena(doc: Wire, races: Wire, problem: Any) -> None:
    """Points are the sum over an entrant's races of the points each race's result gave."""
    points: defaultdict[str, float] = defaultdict(float)
    for stage in doc["stages"]:
        for player, result in stage.get("results", {}).items():
            points[player] += result["points"]
    for standing in doc["standings"]:
        if not _close(standing["points"], points[standing["player"]]):
            problem(
                "points are not the sum of races",
                f"{standing['player']}: {standing['points']}; races give "
                f"{points[standing['player']]}",
            )

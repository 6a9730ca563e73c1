"""A tournament's whole record, checked by anyone.

The record is what ``get_tournament_record`` returns: the tournament's
document and, for every race that has closed, its results (standings,
revealed seed, commitment, deal version, every racer's move log).
:func:`verify` checks it without trusting the server: each seed must hash to
the commitment published at the race's start, and each racer's log must
replay on that deal to the cards home and move count the standings claim.
"""

from __future__ import annotations

from typing import Any

from protocol.messages import deal_commitment
from protocol.moves import Move, MoveSyntaxError
from server.engine import IllegalMoveError, find_variant
from server.engine.exceptions import UnknownVariantError

__all__ = ["verify"]


def verify(record: dict[str, Any]) -> list[str]:
    """Every way the record fails to prove itself; empty when it all checks out."""
    problems: list[str] = []
    doc = record["tournament"]
    for stage in doc["stages"]:
        for race in stage["races"]:
            results = record["races"].get(race["race"])
            if results is None:
                continue
            problems.extend(_verify_race(race, results))
    return problems


def _verify_race(race: dict[str, Any], results: dict[str, Any]) -> list[str]:
    name = race["race"]
    variant, version, seed = results["variant"], results["deal_version"], results["seed"]
    proof = deal_commitment(variant, version, seed, name)
    if proof != results["commitment"] or proof != race["commitment"]:
        return [f"{name}: seed {seed} does not match the commitment published at the start"]
    try:
        game = find_variant(variant)
    except UnknownVariantError:
        return [f"{name}: unknown variant {variant!r}"]
    problems = []
    for row in results["standings"]:
        log = results["logs"].get(row["player"], [])
        try:
            state = game.deal(seed, version)
            for text in log:
                state = game.apply(state, Move.parse(text))
        except (IllegalMoveError, MoveSyntaxError) as exc:
            problems.append(f"{name}: {row['name']}'s log does not replay: {exc}")
            continue
        if game.home(state) != row["home"] or len(log) != row["moves"]:
            problems.append(
                f"{name}: {row['name']} claims {row['home']} home in {row['moves']} moves; "
                f"the log gives {game.home(state)} in {len(log)}"
            )
        if (row["status"] == "won") != game.is_won(state):
            problems.append(f"{name}: {row['name']}'s status {row['status']!r} is wrong")
    return problems

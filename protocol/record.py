"""A tournament's whole record, written out as JSON or CSV.

The record is what ``get_tournament_record`` returns: the tournament's
document and, for every race that has closed, its results (standings,
revealed seed, commitment, deal version, every racer's move log). Writing it
out needs no rules, so both ends share it here; checking it replays the
logs with the engine and lives in :mod:`server.rules.record`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping

from protocol.tournaments import Record

__all__ = ["CSV_COLUMNS", "to_csv", "to_json"]


CSV_COLUMNS = (
    "tournament", "stage", "round", "game", "race", "table", "match", "variant",
    "deal_version", "seed", "commitment", "place", "player", "name", "status", "home",
    "moves", "time", "points", "log",
)  # fmt: skip


def to_json(record: Mapping[str, object]) -> str:
    """The record's map as the server sent it, keys sorted: nothing added, nothing lost."""
    return json.dumps(record, indent=2, sort_keys=True)


def to_csv(record: Record) -> str:
    """One row per racer per closed race; the log is the moves separated by spaces."""
    doc = record.tournament
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for stage in doc.stages:
        for race in stage.races:
            results = record.races.get(race.race)
            if results is None:
                continue
            for row in results.standings:
                scored = stage.results.get(row.player)
                writer.writerow(
                    {
                        "tournament": doc.id,
                        "stage": stage.n,
                        "round": stage.round,
                        "game": stage.game,
                        "race": race.race,
                        "table": race.table,
                        "match": "" if race.match is None else race.match,
                        "variant": results.variant,
                        "deal_version": results.deal_version,
                        "seed": results.seed,
                        "commitment": results.commitment,
                        "place": row.place,
                        "player": row.player,
                        "name": row.name,
                        "status": row.status.value,
                        "home": row.home,
                        "moves": row.moves,
                        "time": f"{row.time:.3f}",
                        "points": "" if scored is None else scored.points,
                        "log": " ".join(results.logs.get(row.player, ())),
                    }
                )
    return out.getvalue()

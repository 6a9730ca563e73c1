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
from collections.abc import Awaitable, Callable, Mapping

from protocol.exceptions import InvalidField
from protocol.tournaments import Record

__all__ = ["CSV_COLUMNS", "RecordPage", "joined_record", "to_csv", "to_json"]

#: One page of a record, as ``tournament_record`` carries it: its map and where the
#: next page starts (None: the last).
RecordPage = tuple[Mapping[str, object], int | None]


async def joined_record(
    fetch: Callable[[int | None], Awaitable[RecordPage]], *, most: int = 10_000
) -> dict[str, object]:
    """The whole record, asked for page by page: ``fetch(from_stage)`` asks for one.

    The pages' stages and races are put together in order, and the document is
    the last page's (its standings the newest). A page must start past the one
    before it, and a record of ``most`` pages or more is refused: a client is
    never kept asking for ever.

    Raises:
        InvalidField: a page is not a record's map, or the pages do not move on.
    """
    stages: list[object] = []
    races: dict[str, object] = {}
    start: int | None = None
    for _ in range(most):
        asked = start
        page, start = await fetch(asked)
        if start is not None and asked is not None and start <= asked:
            raise InvalidField("tournament_record.next_stage", f"must be past {asked}")
        tournament = dict(_map(page, "tournament"))
        stages += list(_list(tournament, "stages"))
        races.update(_map(page, "races"))
        if start is None:
            tournament["stages"] = stages
            return {"tournament": tournament, "races": races}
    raise InvalidField("record", f"goes on past {most} pages")


def _map(data: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise InvalidField(f"record.{key}", "must be a map")
    return value


def _list(data: Mapping[str, object], key: str) -> list[object]:
    value = data.get(key)
    if not isinstance(value, list):
        raise InvalidField(f"record.{key}", "must be an array")
    return value


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

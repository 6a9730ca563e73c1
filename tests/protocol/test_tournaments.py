"""The tournament document as typed values: the same maps back, bad shapes refused.

The documents here are built by the server's own rules (server/rules/tournaments.py),
stage by stage, so the types are checked against the maps the server really pushes.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest

from protocol.codec import pack_value
from protocol.exceptions import InvalidField
from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.record import CSV_COLUMNS, to_csv
from protocol.results import DecidedBy, RacerStatus, Standing
from protocol.tournaments import (
    Entrant,
    Record,
    StageStatus,
    Tournament,
    TournamentStatus,
    TournamentSummary,
    TournamentTable,
)
from server.rules import tournaments as rules

PLAYERS = ["p1", "p2", "p3", "p4", "p5"]


def document(fmt: str, *, best_of: int = 1, rounds: int = 2) -> Tournament:
    """A running tournament of five, with the settings the create_tournament handler stores."""
    return Tournament(
        id="T1", code="K7QH2M", host="p1", host_name="Ann", name="Friday dance",
        format=TournamentFormat(fmt), variants=("gavotte", "quadrille"), rounds=rounds,
        best_of=best_of, table_size=2, time_limit=300, spectate=SpectatePolicy.DELAYED,
        delay=30, break_seconds=20, grace=60, status=TournamentStatus.RUNNING,
        created=1700000000.0, entrants=tuple(Entrant(p, p.upper()) for p in PLAYERS),
    )  # fmt: skip


def start_stage(doc: Tournament) -> Tournament:
    doc, plan = rules.plan_stage(doc, ())
    assert plan is not None
    races = [
        TournamentTable(f"r{plan.n}-{i}", i, table.players, "ab" * 32, table.match)
        for i, table in enumerate(plan.tables, 1)
    ]
    return rules.seat(doc, plan, races, 1700000100.0)


def rows(players: list[str]) -> list[Standing]:
    """Standings rows: the first solves it, the rest are stuck, the last two tied."""
    out: list[Standing] = []
    for i, player in enumerate(players):
        won = i == 0
        home = 104 if won else max(10, 40 - 10 * i)
        status = RacerStatus.WON if won else RacerStatus.STUCK
        out.append(Standing(0, player, player.upper(), status, home, 0, 80.25 if won else 300.0))
    return out


def rounds_document() -> dict[str, Any]:
    doc = document("rounds")
    for _ in range(2):
        doc = start_stage(doc)
        races = doc.stages[-1].races
        doc = rules.record_rounds_stage(doc, rows([p for race in races for p in race.players]))
        doc = rules.reveal_seeds(doc, dict.fromkeys((race.race for race in races), 12345))
    return doc.to_data()


def knockout_document() -> dict[str, Any]:
    doc = document("knockout", best_of=3, rounds=1)
    while True:
        if rules.plan_stage(doc, ())[1] is None:
            break
        doc = start_stage(doc)
        played = [(race.match, list(race.players)) for race in doc.stages[-1].races]
        doc = rules.record_knockout_stage(
            doc, {match: rows(players) for match, players in played if match is not None}
        )
    return replace(doc, status=TournamentStatus.FINISHED).to_data()


def test_a_rounds_document_round_trips_to_the_same_bytes() -> None:
    """A scored rounds tournament becomes a Tournament and the very same map again."""
    data = rounds_document()
    doc = Tournament.from_data(data)
    assert pack_value(doc.to_data()) == pack_value(data)
    assert doc.format is TournamentFormat.ROUNDS
    assert [stage.status for stage in doc.stages] == [StageStatus.DONE, StageStatus.DONE]
    first = doc.stages[0].results["p1"]
    assert first.status is RacerStatus.WON and first.by is None
    assert {r.by for p, r in doc.stages[0].results.items() if p != "p1"} >= {DecidedBy.CARDS_HOME}
    assert doc.standings[0].points == 10 and doc.standings[0].player == "p1"


def test_a_knockout_document_round_trips_to_the_same_bytes() -> None:
    """A finished knockout (byes, best of three, a champion) keeps every key, and no `by`."""
    data = knockout_document()
    doc = Tournament.from_data(data)
    assert pack_value(doc.to_data()) == pack_value(data)
    assert doc.status is TournamentStatus.FINISHED and doc.status.over
    assert doc.champion == "p1" and doc.bracket[0][0].bye
    assert all("by" not in result for s in data["stages"] for result in s["results"].values())


def test_the_running_stage_seats_players() -> None:
    """seat_of finds a player's table in the stage under way, also once read back from its map."""
    doc = Tournament.from_data(start_stage(document("rounds")).to_data())
    table = doc.seat_of("p2")
    assert table is not None and table.race == doc.stages[0].races[1].race and table.table == 2
    assert doc.seat_of("nobody") is None


#: sha256 of the packed documents, as the server's map-based rules made them on 6add19d
#: (before the rules took typed values), with the settings in create_tournament's order.
GOLDEN_SHA256 = {
    "rounds": "758da10c9ea4f4e2946323de3ed14b97f40d32e9404a0616d41306ca9478a32a",
    "knockout": "c01f213d611c582a84d1bf4e3f305293651365ee28e0c607c96db9951d2788cd",
}


@pytest.mark.parametrize("fmt", sorted(GOLDEN_SHA256))
def test_the_stored_and_pushed_bytes_are_those_of_the_map_based_rules(fmt: str) -> None:
    """Scored stage by stage with the typed rules, a tournament packs to the very bytes
    the old map-based rules stored and pushed: the wire format did not move."""
    data = rounds_document() if fmt == "rounds" else knockout_document()
    assert hashlib.sha256(pack_value(data)).hexdigest() == GOLDEN_SHA256[fmt]


def test_the_map_keeps_the_order_the_server_has_always_stored() -> None:
    """The keys come in the order of the maps stored before the server held typed values
    (settings as create_tournament listed them, ``winnable`` before ``password``), so a
    stored document and a pushed frame are the same bytes as before."""
    data = document("rounds").to_data()
    keys = list(data)
    assert keys[:17] == ["id", "code", "host", "host_name", "name", "format", "variants",
                         "rounds", "best_of", "table_size", "time_limit", "spectate", "delay",
                         "break_seconds", "grace", "winnable", "password"]  # fmt: skip
    assert keys[17:] == ["status", "created", "next_at", "entrants", "stages", "bracket",
                         "standings", "champion"]  # fmt: skip


def test_the_summary_counts_entrants_not_removed_and_stages_played() -> None:
    """A tournament's lobby line: its summary says how many still play and how far it is."""
    doc = start_stage(rules.remove_entrant(document("rounds"), "p5"))
    summary = doc.summary()
    assert summary.entrants == 4 and summary.stage == 1
    assert TournamentSummary.from_data(summary.to_data()) == summary


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"status": "sleeping"}, "tournament.status"),
        ({"variants": []}, "tournament.variants"),
        ({"entrants": [{"player": 3, "name": "x"}]}, "tournament.entrants[0].player"),
        ({"bracket": [[{"a": "p1", "b": None, "wins": [0], "winner": None, "forfeit": None}]]},
         "tournament.bracket[0][0].wins"),
    ],
)  # fmt: skip
def test_a_bad_document_is_refused_naming_the_key(change: dict[str, Any], where: str) -> None:
    """A document of the wrong shape raises InvalidField with the path of the bad key."""
    with pytest.raises(InvalidField) as caught:
        Tournament.from_data({**document("knockout").to_data(), **change})
    assert caught.value.field == where


def test_a_stage_seed_that_is_not_a_number_is_refused() -> None:
    """A nested bad value names its stage and race."""
    data = rounds_document()
    data["stages"][0]["races"][0]["seed"] = "12345"
    with pytest.raises(InvalidField) as caught:
        Tournament.from_data(data)
    assert caught.value.field == "tournament.stages[0].races[0].seed"


def test_a_summary_round_trips() -> None:
    """The lobby's summary map becomes a TournamentSummary and the same map again."""
    data = {key: rounds_document()[key] for key in ("id", "code", "name", "host", "format",
            "variants", "status", "rounds", "best_of")}  # fmt: skip
    data |= {"entrants": 5, "stage": 2}
    summary = TournamentSummary.from_data(data)
    assert pack_value(summary.to_data()) == pack_value(data)
    assert summary.status is TournamentStatus.RUNNING and summary.status.active


def test_a_record_reads_its_closed_races() -> None:
    """The record holds the document and each closed race's standings, seed and logs."""
    standing = {"place": 1, "player": "p1", "name": "P1", "status": "won", "home": 104,
                "moves": 3, "time": 80.25, "by": None}  # fmt: skip
    closed = {"standings": [standing], "seed": 12345, "commitment": "ab" * 32, "deal_version": 1,
              "variant": "gavotte", "logs": {"p1": ["w>f1", "t2>f1"]}}  # fmt: skip
    record = Record.from_data({"tournament": rounds_document(), "races": {"r1-1": closed}})
    race = record.races["r1-1"]
    assert race.seed == 12345 and race.logs["p1"] == ("w>f1", "t2>f1") and race.line is None
    assert race.standings[0].won


def test_the_csv_export_reads_the_typed_record() -> None:
    """One row per racer per closed race, with the stage's points and the log."""
    data = rounds_document()
    stage = data["stages"][0]
    race = stage["races"][0]
    standings = [
        {"place": i, "player": p, "name": p.upper(), "status": "stuck", "home": 20, "moves": 2,
         "time": 300.0, "by": None}
        for i, p in enumerate(race["players"], 1)
    ]  # fmt: skip
    logs = {p: ["w>f1", "t2>f1"] for p in race["players"]}
    closed = {"standings": standings, "seed": 12345, "commitment": "ab" * 32, "deal_version": 1,
              "variant": "gavotte", "logs": logs}  # fmt: skip
    lines = to_csv(Record.from_data({"tournament": data, "races": {race["race"]: closed}}))
    header, first, *rest = lines.splitlines()
    assert header.split(",") == list(CSV_COLUMNS) and len(rest) == len(race["players"]) - 1
    player = race["players"][0]
    points = stage["results"][player]["points"]
    assert first.startswith(f"T1,1,1,1,{race['race']},1,,gavotte,1,12345,")
    assert first.endswith(f",{player},{player.upper()},stuck,20,2,300.000,{points},w>f1 t2>f1")

"""A long arena's document stays small, and its record still holds every race.

An arena of a thousand entrants races thousands of times; its document is
pushed at every change and once outgrew a frame (bench/events.py). So the
document keeps its races under way and its newest scored ones, the rest go
to an archive beside it, and the record comes in pages. Here the document
keeps two scored races and a page holds one race, so a short arena of bots
on two nodes archives most of its races and pages its record.
"""

from __future__ import annotations

import asyncio

import pytest

from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    GetTournamentRecord,
    ManageTournament,
    TournamentAction,
    TournamentInfo,
    TournamentRecord,
)
from protocol.record import RecordPage, joined_record
from protocol.tournaments import StageStatus, Tournament
from server.rules import arena
from server.rules.record import verify
from server.services import tournaments
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK, host_tournament

pytestmark = pytest.mark.slow

KEEP = 2


def small(doc: Tournament) -> None:
    """The document holds its races under way and at most ``KEEP`` scored ones."""
    scored = [s for s in doc.stages if s.status is not StageStatus.RUNNING]
    assert len(scored) <= KEEP, [s.n for s in scored]


async def whole_record(session: ClientSession, tournament: str) -> tuple[dict[str, object], int]:
    """The record joined from its pages, and how many pages it took."""
    pages = 0

    async def page(start: int | None) -> RecordPage:
        nonlocal pages
        pages += 1
        asked = GetTournamentRecord(tournament=tournament, from_stage=start)
        reply = await session.request(asked, TournamentRecord)
        return reply.record, reply.next_stage

    return await joined_record(page), pages


async def test_an_arena_archives_its_scored_races_and_pages_its_record(
    make_node: NodeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena, "KEEP", KEEP)
    monkeypatch.setattr(tournaments, "RECORD_PAGE_BYTES", 1)  # a race a page
    settings = {"format": "arena", "variants": ["quadrille"], "duration": 10, "cutoff": 1}
    async with make_node(timeouts=FAST) as a, make_node(timeouts=FAST) as b:
        host, doc = await host_tournament(a, table_size=2, time_limit=30, **settings)
        bots = [
            TournamentBot((a, b)[i % 2], name=f"Bot {i}", speed=0, seed=i, patience=QUICK)
            for i in range(4)
        ]
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(bot.joined.wait() for bot in bots))
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        final = None
        async with asyncio.timeout(6 * TIMEOUT):
            while final is None or not final.status.over:
                final = (await host.next(TournamentInfo, timeout=TIMEOUT)).tournament
                small(final)
            await asyncio.gather(*tasks)
        record, pages = await whole_record(host, doc.id)
        await host.close()

    races = final.archived + len(final.stages)
    assert final.archived > 0 and races > KEEP
    assert pages == races  # one race a page
    stages = record["tournament"]["stages"]  # type: ignore[index]
    assert [s["n"] for s in stages] == sorted({s["n"] for s in stages})
    assert len(stages) == races and len(record["races"]) == races  # type: ignore[arg-type]
    assert verify(record) == []  # each race replays; every entrant's points add up
    played = {line.player: line.races for line in final.standings}
    seats = [p for s in stages for p in s["races"][0]["players"]]
    assert played == {e.player: seats.count(e.player) for e in final.entrants}

"""How soon the director moves a tournament on: a round's end and the next round's start."""

from __future__ import annotations

import time

from protocol.messages import CreateTournament, TournamentAction, TournamentFormat
from protocol.tournaments import StageStatus
from server.settings import Timeouts
from tests.server.conftest import NODES, NodeFactory


async def test_with_no_break_the_next_round_starts_in_the_tick_that_scores_the_last(
    make_node: NodeFactory,
) -> None:
    """A round scored with no break due is followed by the next round's start in the same
    tick, not a sweep later (bench/events.py: a round gap of 2.3-3.2 s at 1,000 entrants)."""
    async with make_node(timeouts=Timeouts(countdown=0.0, sweep=3600.0)) as url:
        director = NODES[url].director  # its sweeper waits an hour: only this test ticks
        request = CreateTournament(
            name="Quick", format=TournamentFormat.ROUNDS, variants=["quadrille"],
            time_limit=60, rounds=2, break_seconds=0,
        )  # fmt: skip
        doc = await director.create("host", "Host", request)
        for player in ("ann", "bob"):
            await director.join(player, player.title(), doc.id, None)
        await director.manage("host", doc.id, TournamentAction.START, None)
        stage = (await director.info(doc.id)).running_stage
        assert stage is not None
        (table,) = stage.races
        for player in table.players:
            await director.races.moves.resign(player, table.race)
        await director.advance(doc.id, time.time())
        stages = (await director.info(doc.id)).stages
        assert [s.status for s in stages] == [StageStatus.DONE, StageStatus.RUNNING]

"""One seat, one live connection: a second connection of a racer takes the seat over,
the first is told (``seat_taken``) and its moves are refused, on one node and across two."""

from __future__ import annotations

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    Moved,
    RaceInfo,
    RaceStarted,
    Resume,
    SeatTaken,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from tests.server.conftest import NodeFactory


async def _solo_race(ann: ClientSession) -> tuple[str, RaceStarted]:
    info = await ann.request(
        CreateRace(variant="quadrille", max_players=1, time_limit=600,
                   spectate=SpectatePolicy.AFTER, deal=7),
        RaceInfo,
    )  # fmt: skip
    race = str(info.race["id"])
    await ann.request(StartRace(race=race), RaceInfo)
    return race, await ann.next(RaceStarted)


@pytest.mark.parametrize("nodes", [1, 2], ids=["one node", "two nodes"])
async def test_a_second_connection_takes_the_seat_and_the_first_is_told(
    make_node: NodeFactory, nodes: int
) -> None:
    """B resumes Ann's race with her token: A gets seat_taken and its moves are refused with
    seat_taken (never answered as a resend); B plays on from the board as stored; A's resume
    takes the seat back."""
    async with make_node() as first, make_node() as second:
        other = second if nodes == 2 else first
        a = await ClientSession.connect(first, "Ann")
        b = None
        try:
            race, started = await _solo_race(a)
            legal = list(started.legal)
            moved = await a.request(SubmitMove(race=race, seq=0, move=legal[0]), Moved)
            b = await ClientSession.connect(
                other, "Ann", token=a.welcome.token if a.welcome else None
            )
            mine = await b.request(Resume(race=race, since=0), RaceStarted)
            taken = await a.next(SeatTaken, lambda m: m.race == race)
            assert taken.event > 0
            # A still thinks it is at move 1; as at move 0 it would have been a "resend".
            for seq, move in ((1, moved.legal[0]), (0, legal[0])):
                with pytest.raises(RequestFailed) as refused:
                    await a.request(SubmitMove(race=race, seq=seq, move=move), Moved)
                assert refused.value.code is ErrorCode.SEAT_TAKEN
                assert "another window" in refused.value.message
            assert mine.view["moves"] == 1
            await b.request(SubmitMove(race=race, seq=1, move=mine.legal[0]), Moved)
            back = await a.request(Resume(race=race, since=0), RaceStarted)
            assert back.view["moves"] == 2
            await b.next(SeatTaken, lambda m: m.race == race)
            await a.request(SubmitMove(race=race, seq=2, move=back.legal[0]), Moved)
        finally:
            await a.close()
            if b is not None:
                await b.close()

"""One seat, one live connection: a second connection of a racer takes the seat over,
the first is told (``seat_taken``) and its moves are refused, on one node and across two."""

from __future__ import annotations

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    Presence,
    RaceInfo,
    RaceStarted,
    Resume,
    SeatTaken,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.rules.events import SeatClaimed
from server.storage.event_codec import decode_event
from server.storage.store import Store
from tests.server.conftest import NodeFactory

pytestmark = pytest.mark.slow


async def _solo_race(ann: ClientSession) -> tuple[str, RaceStarted]:
    info = await ann.request(
        CreateRace(variant="quadrille", max_players=1, time_limit=600,
                   spectate=SpectatePolicy.AFTER, deal=7),
        RaceInfo,
    )  # fmt: skip
    race = str(info.race.id)
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
            assert mine.view.moves == 1
            await b.request(SubmitMove(race=race, seq=1, move=mine.legal[0]), Moved)
            back = await a.request(Resume(race=race, since=0), RaceStarted)
            assert back.view.moves == 2
            await b.next(SeatTaken, lambda m: m.race == race)
            await a.request(SubmitMove(race=race, seq=2, move=back.legal[0]), Moved)
        finally:
            await a.close()
            if b is not None:
                await b.close()


async def _claims(store: Store, race: str) -> list[tuple[int, SeatClaimed]]:
    """The race's stored ``SeatClaimed`` events, with their numbers."""
    events = [(n, decode_event(payload)) for n, payload in await store.events.since(race, 0)]
    return [(n, event) for n, event in events if isinstance(event, SeatClaimed)]


async def test_a_seat_is_taken_with_an_event_only_from_a_connection_that_holds_it(
    make_node: NodeFactory, store: Store
) -> None:
    """Creating and joining take a seat with no event (the join is event 1); a resume
    while another connection holds the seat is one event, which tells that one; a resume
    after the holder closed (it gave the seat up) is none."""
    async with make_node() as first, make_node() as second:
        ann = await ClientSession.connect(first, "Ann")
        bo = await ClientSession.connect(second, "Bo")
        sessions = [ann, bo]
        try:
            info = await ann.request(
                CreateRace(variant="quadrille", max_players=2, time_limit=600,
                           spectate=SpectatePolicy.AFTER, deal=7),
                RaceInfo,
            )  # fmt: skip
            race = str(info.race.id)
            assert await store.events.count(race) == 0  # creating is no event
            await bo.request(JoinRace(code=str(info.race.code)), RaceInfo)
            assert await store.events.count(race) == 1  # the join, and no claim
            assert bo.welcome is not None
            bo_player = bo.welcome.player
            other = await ClientSession.connect(first, "Bo", token=bo.welcome.token)
            sessions.append(other)
            await other.request(Resume(race=race, since=1), RaceInfo)
            taken = await bo.next(SeatTaken, lambda m: m.race == race)
            assert [n for n, _ in await _claims(store, race)] == [taken.event]
            await other.close()  # cleanly: the seat is nobody's
            await ann.next(Presence, lambda m: m.player == bo_player and m.away is not None)
            await bo.request(Resume(race=race, since=taken.event), RaceInfo)
            assert [n for n, _ in await _claims(store, race)] == [taken.event]
        finally:
            for session in sessions:
                await session.close()

"""A whole race over real websockets against a real Redis."""

from __future__ import annotations

import dataclasses

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.lobby import RaceSummary
from protocol.messages import (
    CreateRace,
    GetReplay,
    JoinRace,
    ListRaces,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    RaceState,
    Replay,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from server.engine import find_variant
from server.rules.races import commitment
from server.services.lobby import Lobby
from server.settings import Limits
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import NodeFactory

pytestmark = pytest.mark.slow


async def test_two_players_race_and_results_verify(node: str) -> None:
    """Two racers play the same public deal; results reveal a seed that replays both logs."""
    alice = await ClientSession.connect(node, "Alice")
    bob = await ClientSession.connect(node, "Bob")
    created = await alice.request(
        CreateRace(
            variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    race = created.race.id
    await bob.request(JoinRace(code=created.race.code), RaceInfo)
    await alice.request(StartRace(race=race), RaceInfo)
    started = [await s.next(RaceStarted) for s in (alice, bob)]
    assert started[0].view == started[1].view
    assert started[0].commitment == created.race.commitment

    # Alice plays her game to the end; Bob resigns after one move.
    legal, seq = started[0].legal, 0
    while legal:
        moved = await alice.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)
        legal, seq = moved.legal, seq + 1
    await bob.next(Progress, lambda p: p.player == alice.player)
    first = await bob.request(SubmitMove(race=race, seq=0, move=started[1].legal[-1]), Moved)

    await bob.request(Resign(race=race), RaceInfo)
    results = [await s.next(RaceFinished) for s in (alice, bob)]
    result = results[0]
    assert result == results[1]
    assert commitment("quadrille", result.deal_version, result.seed, race) == result.commitment
    game = find_variant("quadrille")
    alice_state = game.replay(result.seed, result.logs[alice.player])
    assert alice_state.moves == seq
    assert game.replay(result.seed, result.logs[bob.player]).moves == 1
    assert first.seq == 0
    assert result.standings[0].player in (alice.player, bob.player)
    await alice.close()
    await bob.close()


async def test_messages_before_hello_are_refused(node: str) -> None:
    """A session token is needed for everything but hello."""
    alice = await ClientSession.connect(node, "Alice")
    try:
        await alice.request(JoinRace(code="NOPE"), RaceInfo)
    except RequestFailed as exc:
        assert exc.code is ErrorCode.NOT_FOUND
    await alice.close()


async def test_time_limit_ends_the_race_for_everyone(node: str, store: Store) -> None:
    """When the clock runs out, racers still playing are ranked as timed out and get results."""
    from server.services.races import RaceServices
    from server.settings import Settings

    alice = await ClientSession.connect(node, "Alice")
    created = await alice.request(
        CreateRace(variant="gavotte", max_players=1, time_limit=30, spectate=SpectatePolicy.LIVE),
        RaceInfo,
    )
    race = created.race.id
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    await alice.request(SubmitMove(race=race, seq=0, move=started.legal[-1]), Moved)
    # Any node's sweeper closes a race whose clock ran out; run one as if 31 s had passed.
    sweeper = RaceServices.build(store, Settings()).results
    await sweeper.sweep(now=started.ends_at + 1)
    result = await alice.next(RaceFinished)
    assert [(s.player, s.status, s.moves) for s in result.standings] == [
        (alice.player, "timeout", 1)
    ]
    with pytest.raises(RequestFailed) as refused:
        await alice.request(SubmitMove(race=race, seq=1, move="deal"), Moved)
    assert refused.value.code is ErrorCode.RACE_OVER
    await alice.close()


async def test_a_player_hosts_a_bounded_number_of_open_races(make_node: NodeFactory) -> None:
    """Creating more open races than the limit is refused; starting one frees a place."""
    async with make_node(limits=Limits(rate=10_000, burst=10_000, open_races_per_player=2)) as url:
        host = await ClientSession.connect(url, "Hana")
        request = CreateRace(
            variant="quadrille", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE
        )
        first = await host.request(request, RaceInfo)
        await host.request(request, RaceInfo)
        with pytest.raises(RequestFailed) as refused:
            await host.request(request, RaceInfo)
        assert refused.value.code is ErrorCode.NOT_ALLOWED
        await host.request(StartRace(race=first.race.id), RaceInfo)
        await host.request(request, RaceInfo)
        await host.close()


async def test_an_older_resent_move_gets_its_original_reply(node: str) -> None:
    """Resending move n after later moves answers with the board after move n, applied once."""
    alice = await ClientSession.connect(node, "Alice")
    created = await alice.request(
        CreateRace(
            variant="gavotte", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE, deal=9
        ),
        RaceInfo,
    )
    race = created.race.id
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    first = await alice.request(SubmitMove(race=race, seq=0, move="deal"), Moved)
    await alice.request(SubmitMove(race=race, seq=1, move="deal"), Moved)
    again = await alice.request(SubmitMove(race=race, seq=0, move="deal"), Moved)
    assert again == dataclasses.replace(first, id=again.id)
    assert started.view != again.view
    await alice.close()


async def test_a_racer_who_resigns_at_once_keeps_the_cards_laid_out_home(node: str) -> None:
    """Cards that start on the foundations count for a racer who never moved."""
    alice = await ClientSession.connect(node, "Alice")
    created = await alice.request(
        CreateRace(
            variant="royal-cotillion", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    await alice.request(StartRace(race=created.race.id), RaceInfo)
    await alice.request(Resign(race=created.race.id), RaceInfo)
    result = await alice.next(RaceFinished)
    assert result.standings[0].home == 8
    await alice.close()


async def test_replay_opens_once_the_race_is_over(node: str) -> None:
    """A racer's every position is served after the race, never while it runs."""
    alice = await ClientSession.connect(node, "Alice")
    bob = await ClientSession.connect(node, "Bob")
    created = await alice.request(
        CreateRace(
            variant="gavotte", max_players=2, time_limit=600, spectate=SpectatePolicy.LIVE, deal=5
        ),
        RaceInfo,
    )
    race = created.race.id
    await bob.request(JoinRace(race=race), RaceInfo)
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    replies = [await alice.request(SubmitMove(race=race, seq=0, move="deal"), Moved)]
    replies.append(await alice.request(SubmitMove(race=race, seq=1, move="deal"), Moved))
    with pytest.raises(RequestFailed) as refused:
        await bob.request(GetReplay(race=race, player=alice.player), Replay)
    assert refused.value.code is ErrorCode.NOT_ALLOWED
    for racer in (alice, bob):
        await racer.request(Resign(race=race), RaceInfo)
    await bob.next(RaceFinished)
    replay = await bob.request(GetReplay(race=race, player=alice.player), Replay)
    assert list(replay.moves) == ["deal", "deal"]
    assert list(replay.views) == [started.view, *(reply.view for reply in replies)]
    with pytest.raises(RequestFailed) as stranger:
        await bob.request(GetReplay(race=race, player="nobody"), Replay)
    assert stranger.value.code is ErrorCode.NOT_A_RACER


def test_every_view_carries_the_progress_the_engine_reports() -> None:
    """The move service reads the mover's progress out of their view: it must be there."""
    from protocol.views import Progress

    game = find_variant("royal-parade")
    state = game.deal(1)
    assert Progress.from_data(game.view(state)) == game.progress(state)


async def test_the_lobby_lists_open_then_live_races_and_skips_one_gone(
    node: str, store: Store
) -> None:
    """Open races come first, then races under way; a race whose hash vanished between
    the index read and the hash reads is left out, not an error."""
    host = await ClientSession.connect(node, "Host")
    ids = []
    for _ in range(3):
        created = await host.request(
            CreateRace(
                variant="gavotte", max_players=2, time_limit=60, spectate=SpectatePolicy.LIVE
            ),
            RaceInfo,
        )
        ids.append(created.race.id)
    live, open_race, gone = ids
    await host.request(StartRace(race=live), RaceInfo)
    await store.redis.delete(keys.race_meta(gone))
    listed = await host.request(ListRaces(), Races)
    mine = [race for race in listed.races if race.id in ids]
    assert [(race.id, race.phase) for race in mine] == [
        (open_race, "open"),
        (live, "running"),
    ]
    assert mine[0].players == (host.player,) and mine[0].names == {host.player: "Host"}
    await host.close()


async def test_a_lobby_event_is_read_once_for_all_its_watchers_on_a_node(
    node: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everyone in the lobby gets the new race state, from one read of the race per node."""
    sessions = [await ClientSession.connect(node, name) for name in ("Ann", "Bo", "Cy", "Di")]
    host, *guests = sessions
    created = await host.request(
        CreateRace(variant="gavotte", max_players=4, time_limit=60, spectate=SpectatePolicy.LIVE),
        RaceInfo,
    )
    race = created.race.id
    for guest in guests[:2]:
        await guest.request(JoinRace(race=race), RaceInfo)
    for session in sessions[:3]:
        await session.next(RaceState, lambda m: len(m.race.players) == 3)
    reads: list[str] = []
    real_info = Lobby.info

    async def counting_info(self: Lobby, race: str) -> RaceSummary:
        reads.append(race)
        return await real_info(self, race)

    monkeypatch.setattr(Lobby, "info", counting_info)
    await guests[2].request(JoinRace(race=race), RaceInfo)
    for session in sessions[:3]:
        await session.next(RaceState, lambda m: len(m.race.players) == 4)
    # The join's reply; the joined event, once for the three watching already (it was
    # one read per watcher); and once for the joiner, whose watch reads it from the stream.
    assert reads == [race, race, race]
    for session in sessions:
        await session.close()

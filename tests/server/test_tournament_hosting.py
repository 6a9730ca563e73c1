"""What a host may do to a tournament, who else may not, and what absence costs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from client.session import ClientSession, RequestFailed
from client.tournament_bot import TournamentBot
from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateTournament,
    GetReplay,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Replay,
    Resign,
    Resume,
    Spectate,
    SpectatePolicy,
    Spectating,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
    Tournaments,
)
from protocol.tournaments import Tournament
from server.storage.store import Store
from tests.server.conftest import NODES, TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK, host_tournament, host_tournament_as

pytestmark = pytest.mark.slow


@pytest.fixture
async def url(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as served:
        yield served


async def pushed_until(session: ClientSession, done: Callable[[Tournament], bool]) -> Tournament:
    """The first pushed tournament document for which ``done`` holds."""
    while True:
        message = await session.next(TournamentInfo, timeout=TIMEOUT)
        if done(message.tournament):
            return message.tournament


async def refused(session: ClientSession, message: Any) -> ErrorCode:
    with pytest.raises(RequestFailed) as failure:
        await session.request(message, TournamentInfo)
    return failure.value.code


def bot(url: str, i: int) -> TournamentBot:
    return TournamentBot(url, name=f"Bot {i}", speed=0, seed=i, patience=QUICK)


async def test_entry_rules_password_and_host_only_controls(url: str, store: Store) -> None:
    """Wrong passwords, late entries and non-hosts are refused, and change nothing."""
    host, doc = await host_tournament(
        url, format="rounds", variants=["gavotte"], rounds=1, password="waltz"
    )
    ann = await ClientSession.connect(url, "Ann")
    bo = await ClientSession.connect(url, "Bo")
    tournament = doc.id
    assert await refused(ann, JoinTournament(code=doc.code)) is ErrorCode.NOT_ALLOWED
    assert await refused(ann, JoinTournament(code=doc.code, password="tango")) is (
        ErrorCode.NOT_ALLOWED
    )
    assert await refused(ann, JoinTournament(code="NOSUCH")) is ErrorCode.NOT_FOUND
    joined = await ann.request(
        JoinTournament(code=doc.code.lower(), password="waltz"), TournamentInfo
    )
    assert [e.name for e in joined.tournament.entrants] == ["Ann"]
    listed = await bo.request(ListTournaments(), Tournaments)
    assert [(t.id, t.entrants) for t in listed.tournaments] == [(tournament, 1)]
    meta = await store.redis.hgetall(f"tourn:{{{tournament}}}:meta")
    assert joined.tournament.password is True
    assert not any(b"waltz" in value for value in meta.values())  # hashed, never kept plain

    start = ManageTournament(tournament=tournament, action=TournamentAction.START)
    assert await refused(ann, start) is ErrorCode.NOT_HOST
    assert await refused(host, start) is ErrorCode.NOT_ALLOWED  # one entrant is no tournament
    await bo.request(JoinTournament(tournament=tournament, password="waltz"), TournamentInfo)
    await bo.request(LeaveTournament(tournament=tournament), TournamentInfo)
    await bo.request(JoinTournament(tournament=tournament, password="waltz"), TournamentInfo)
    before = await store.redis.hget(f"tourn:{{{tournament}}}:meta", "doc")
    for action in ("pause", "resume", "cancel"):
        assert await refused(
            bo, ManageTournament(tournament=tournament, action=TournamentAction(action))
        ) is (ErrorCode.NOT_HOST)
    assert await store.redis.hget(f"tourn:{{{tournament}}}:meta", "doc") == before

    started = await host.request(start, TournamentInfo)
    assert started.tournament.status == "running"
    late = await ClientSession.connect(url, "Late")
    assert await refused(late, JoinTournament(tournament=tournament, password="waltz")) is (
        ErrorCode.RACE_NOT_OPEN
    )
    assert await refused(ann, LeaveTournament(tournament=tournament)) is ErrorCode.RACE_NOT_OPEN
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.CANCEL), TournamentInfo
    )
    for session in (host, ann, bo, late):
        await session.close()


async def test_pause_holds_the_next_round_until_resumed(url: str) -> None:
    """Paused after round one: round two starts only once the host resumes."""
    host, doc = await host_tournament(url, format="rounds", variants=["gavotte"], rounds=2)
    bots = [bot(url, i) for i in range(3)]
    tasks = [asyncio.create_task(b.run(code=doc.code)) for b in bots]
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*(b.joined.wait() for b in bots))
    tournament = doc.id
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.START), TournamentInfo
    )
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.PAUSE), TournamentInfo
    )
    paused = await pushed_until(host, lambda d: bool(d.stages) and d.stages[0].status == "done")
    assert paused.status == "paused" and len(paused.stages) == 1
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.RESUME), TournamentInfo
    )
    final = await pushed_until(host, lambda d: d.status == "finished")
    assert [s.status for s in final.stages] == ["done", "done"]
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*tasks)
    await host.close()


async def test_removed_entrant_and_cancel(url: str) -> None:
    """A removed entrant is resigned and ranked last; cancel resigns the rest and ends it."""
    host, doc = await host_tournament(
        url, format="rounds", variants=["gavotte"], rounds=3, time_limit=600
    )
    tournament = doc.id
    ann = await ClientSession.connect(url, "Ann")
    bo = await ClientSession.connect(url, "Bo")
    for session in (ann, bo):
        await session.request(JoinTournament(tournament=tournament), TournamentInfo)
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.START), TournamentInfo
    )
    running = await pushed_until(ann, lambda d: bool(d.stages))
    race = running.stages[0].races[0].race
    await ann.request(Resume(race=race, since=0), RaceStarted)

    removed = await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.REMOVE, player=bo.player),
        TournamentInfo,
    )
    standings = removed.tournament.standings
    assert standings[-1].player == bo.player and standings[-1].removed
    cancelled = await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.CANCEL), TournamentInfo
    )
    assert cancelled.tournament.status == "cancelled"
    assert cancelled.tournament.stages[0].status == "cancelled"
    assert await refused(
        host, ManageTournament(tournament=tournament, action=TournamentAction.CANCEL)
    ) is (ErrorCode.RACE_OVER)
    # Both seats were resigned, so the race closes at once rather than at its time limit.
    finished = await ann.next(RaceFinished, timeout=TIMEOUT)
    assert {s.status for s in finished.standings} == {"resigned"}
    for session in (host, ann, bo):
        await session.close()


async def test_entrant_away_past_grace_scores_resigned(url: str) -> None:
    """Gone mid-tournament: resigned in the round under way, and in every later one."""
    host, doc = await host_tournament(
        url, format="rounds", variants=["gavotte"], rounds=2, grace=1, time_limit=600
    )
    bots = [bot(url, i) for i in range(2)]
    tasks = [asyncio.create_task(b.run(code=doc.code)) for b in bots]
    zed = await ClientSession.connect(url, "Zed")
    await zed.request(JoinTournament(code=doc.code), TournamentInfo)
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*(b.joined.wait() for b in bots))
    await host.request(
        ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
    )
    await pushed_until(zed, lambda d: bool(d.stages))
    await zed.close()  # and never comes back

    final = await pushed_until(host, lambda d: d.status == "finished")
    for stage in final.stages:
        assert stage.results[zed.player].status == "resigned"
        assert stage.results[zed.player].place == 3
    assert final.standings[-1].player == zed.player
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*tasks)
    await host.close()


async def test_knockout_match_forfeited_by_an_absent_entrant(url: str) -> None:
    """A knockout entrant away past the grace period forfeits the match."""
    host, doc = await host_tournament(
        url, format="knockout", variants=["gavotte"], best_of=3, grace=1, time_limit=600
    )
    zed = await ClientSession.connect(url, "Zed")
    await zed.request(JoinTournament(code=doc.code), TournamentInfo)
    ann = bot(url, 0)
    task = asyncio.create_task(ann.run(code=doc.code))
    async with asyncio.timeout(TIMEOUT):
        await ann.joined.wait()
    await zed.close()
    await host.request(
        ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
    )
    async with asyncio.timeout(2 * TIMEOUT):
        final = await task
    assert final.status == "finished"
    (match,) = final.bracket[-1]
    assert match.forfeit == zed.player and match.winner == ann.player
    assert final.champion == ann.player
    await host.close()


async def test_open_tournaments_per_host_are_bounded(url: str) -> None:
    """A host may keep three tournaments waiting to start; a fourth is refused until one starts."""
    host, first = await host_tournament(url, format="rounds", variants=["gavotte"])
    for _ in range(2):
        await host_tournament_as(host, format="rounds", variants=["gavotte"])
    request = CreateTournament(
        name="One more", format=TournamentFormat.ROUNDS, variants=["gavotte"], time_limit=60,
        spectate=SpectatePolicy.LIVE, delay=0,
    )  # fmt: skip
    assert await refused(host, request) is ErrorCode.NOT_ALLOWED
    await host.request(
        ManageTournament(tournament=first.id, action=TournamentAction.CANCEL), TournamentInfo
    )
    await host.request(request, TournamentInfo)
    await host.close()


async def test_a_tables_results_wait_for_the_other_tables_on_its_deal(url: str) -> None:
    """Two tables race one deal: the first to finish learns the seed (and may be replayed)
    only once the other table has finished too."""
    host, doc = await host_tournament(
        url, format="rounds", variants=["gavotte"], rounds=1, table_size=2, time_limit=600
    )
    fast = [bot(url, i) for i in range(2)]
    tasks = []
    slow: list[ClientSession] = []
    for i in range(2):  # seats go round-robin in joining order: fast ones share table 1
        tasks.append(asyncio.create_task(fast[i].run(code=doc.code)))
        async with asyncio.timeout(TIMEOUT):
            await fast[i].joined.wait()
        slow.append(await ClientSession.connect(url, f"Slow {i}"))
        await slow[i].request(JoinTournament(code=doc.code), TournamentInfo)
    await host.request(
        ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
    )
    running = await pushed_until(slow[0], lambda d: bool(d.stages))
    first, second = running.stages[0].races
    assert set(first.players) == {b.player for b in fast}

    wendy = await ClientSession.connect(url, "Wendy")
    await wendy.request(Spectate(race=first.race), Spectating)
    fast_player = fast[0].player
    assert fast_player is not None
    store = NODES[url].store
    async with asyncio.timeout(2 * TIMEOUT):  # table one plays on to its end: no event says so
        while not await store.results.held(first.race):
            await asyncio.sleep(0.05)
    with pytest.raises(RequestFailed) as early:
        await wendy.request(GetReplay(race=first.race, player=fast_player), Replay)
    assert early.value.code is ErrorCode.NOT_ALLOWED
    assert not [m for m in wendy.received if isinstance(m, RaceFinished)]

    for session in slow:
        await session.request(Resign(race=second.race), RaceInfo)
    finished = await wendy.next(RaceFinished, timeout=2 * TIMEOUT)
    final = await pushed_until(host, lambda d: d.status == "finished")
    assert finished.seed == final.stages[0].races[0].seed
    await wendy.request(GetReplay(race=first.race, player=fast_player), Replay)
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*tasks)
    for session in (host, wendy, *slow):
        await session.close()

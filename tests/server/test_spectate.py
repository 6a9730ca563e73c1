"""Spectating policies, and what every client may and may not see."""

from __future__ import annotations

import functools
import time

import pytest

from client.session import ClientSession
from protocol.messages import (
    Board,
    CreateRace,
    JoinRace,
    ListRaces,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    Resign,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import GreedyPolicy
from server.engine import find_variant
from server.settings import Timeouts
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.secrecy import as_received, face_down, positions, shown

pytestmark = pytest.mark.slow

DEAL = 4711


async def _race(
    url: str, spectate: str = "live", delay: int = 0, variant: str = "royal-cotillion"
) -> tuple[ClientSession, ClientSession, str]:
    alice = await ClientSession.connect(url, "Alice")
    bob = await ClientSession.connect(url, "Bob")
    created = await alice.request(
        CreateRace(
            variant=variant,
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy(spectate),
            delay=delay,
            deal=DEAL,
        ),
        RaceInfo,
    )
    await bob.request(JoinRace(race=created.race.id), RaceInfo)
    return alice, bob, created.race.id


async def _play(session: ClientSession, race: str, started: RaceStarted, moves: int) -> list[Moved]:
    """Play up to ``moves`` greedy moves; returns the replies."""
    policy = GreedyPolicy(started.layout)
    view, legal, replies = started.view, started.legal, []
    for seq in range(moves):
        if not legal:
            break
        move = policy.choose(view, [Move.parse(text) for text in legal])
        reply = await session.request(SubmitMove(race=race, seq=seq, move=move.text()), Moved)
        replies.append(reply)
        view, legal = reply.view, reply.legal
    return replies


async def test_live_spectator_sees_every_board(node: str) -> None:
    """A live spectator gets the opening boards, then each move's board as it happens."""
    alice, bob, race = await _race(node)
    watcher = await ClientSession.connect(node, "Wendy")
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    snapshot = await watcher.request(Spectate(race=race), Spectating)
    assert set(snapshot.boards) == {alice.player, bob.player}
    assert snapshot.boards[alice.player] == started.view
    replies = await _play(alice, race, started, 5)
    for reply in replies:
        board = await watcher.next(Board, functools.partial(_is_move, reply.seq))
        assert board.player == alice.player and board.view == reply.view


async def test_delayed_spectator_sees_boards_late(node: str) -> None:
    """With a delay of N seconds, a board reaches spectators no sooner than N seconds on."""
    alice, _, race = await _race(node, spectate="delayed", delay=1)
    watcher = await ClientSession.connect(node, "Wendy")
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    await watcher.request(Spectate(race=race), Spectating)
    sent = time.monotonic()
    await _play(alice, race, started, 1)
    board = await watcher.next(Board)
    assert time.monotonic() - sent >= 0.95
    assert board.seq == 0


async def test_after_race_spectator_sees_nothing_until_the_end(node: str) -> None:
    """Under the 'after' policy spectators get no board while the race runs."""
    alice, bob, race = await _race(node, spectate="after")
    watcher = await ClientSession.connect(node, "Wendy")
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    snapshot = await watcher.request(Spectate(race=race), Spectating)
    assert snapshot.boards == {}
    await _play(alice, race, started, 3)
    for racer in (alice, bob):
        await racer.request(Resign(race=race), RaceInfo)
    await watcher.next(RaceFinished)
    assert not [m for m in watcher.received if isinstance(m, Board)]
    final = await watcher.request(Spectate(race=race), Spectating)
    assert set(final.boards) == {alice.player, bob.player}


async def test_open_races_are_listed(node: str) -> None:
    """list_races shows races that can be joined, and no seed."""
    alice, _, race = await _race(node)
    listed = await alice.request(ListRaces(), Races)
    assert [r.id for r in listed.races] == [race]
    assert "seed" not in listed.races[0].to_data()


async def test_no_client_ever_sees_a_hidden_card_or_the_seed_early(node: str) -> None:
    """Every frame of a full race, to racers and a spectator, checked against the real deal.

    No view holds a face-down card; racers never get another racer's board;
    nothing carries the seed before the results.
    """
    variant = "grand-duchess"  # a face-down reserve as well as a stock
    alice, bob, race = await _race(node, variant=variant)
    watcher = await ClientSession.connect(node, "Wendy")
    await watcher.request(Spectate(race=race), Spectating)
    await alice.request(StartRace(race=race), RaceInfo)
    started = {s.player: await s.next(RaceStarted) for s in (alice, bob)}
    replies = {s.player: await _play(s, race, started[s.player], 60) for s in (alice, bob)}
    for racer in (alice, bob):
        await racer.request(Resign(race=race), RaceInfo)
    results = await alice.next(RaceFinished)
    await watcher.next(RaceFinished)

    game = find_variant(variant)
    states = {player: positions(game, results.seed, log) for player, log in results.logs.items()}
    # Views a racer got: their own, and exactly the engine's view of their position.
    for player, moved in replies.items():
        assert started[player].view == as_received(game.view(states[player][0]))
        for reply in moved:
            state = states[player][reply.seq + 1]
            assert reply.view == as_received(game.view(state))
            assert not shown(reply.view) & face_down(game, state)
    # Boards the spectator got.
    boards = [m for m in watcher.received if isinstance(m, Board)]
    assert boards
    for board in boards:
        state = states[board.player][board.seq + 1]
        assert not shown(board.view) & face_down(game, state)
    # What racers were pushed about each other: progress only, never a view.
    for racer in (alice, bob):
        pushed: list[ServerMessage] = [m for m in racer.received if not isinstance(m, RaceFinished)]
        assert all(not isinstance(m, Board | Spectating) for m in pushed)
        assert all("view" not in m.to_wire() for m in pushed if isinstance(m, Progress))
        assert all("seed" not in str(m.to_wire().keys()) for m in pushed)


async def test_races_under_way_are_listed_for_spectators(node: str) -> None:
    """list_races also lists started races, with their phase, so they can be watched."""
    alice, _, race = await _race(node)
    await alice.request(StartRace(race=race), RaceInfo)
    watcher = await ClientSession.connect(node, "Wendy")
    listed = await watcher.request(ListRaces(), Races)
    assert [(r.id, r.phase) for r in listed.races] == [(race, "running")]


async def test_a_spectator_who_comes_after_the_end_gets_the_results(node: str) -> None:
    """Spectating a finished race: the boards, then race_finished with the seed, as at the end."""
    alice, bob, race = await _race(node)
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted)
    await _play(alice, race, started, 3)
    for racer in (alice, bob):
        await racer.request(Resign(race=race), RaceInfo)
    at_the_end = await alice.next(RaceFinished)
    late = await ClientSession.connect(node, "Lou")
    snapshot = await late.request(Spectate(race=race), Spectating)
    assert set(snapshot.boards) == {alice.player, bob.player}
    results = await late.next(RaceFinished)
    assert results == at_the_end


def _is_move(seq: int, board: Board) -> bool:
    return board.seq == seq


@pytest.mark.parametrize(("spectate", "delay"), [("live", 0), ("delayed", 1), ("after", 0)])
async def test_a_spectator_in_the_countdown_gets_no_board_before_the_policy_allows(
    make_node: NodeFactory, spectate: str, delay: int
) -> None:
    """Spectating during the countdown answers the race's info and no boards; the opening
    boards come no sooner than the start (live) or the start plus the delay (delayed),
    and under 'after' not while the race runs."""
    async with make_node(timeouts=Timeouts(countdown=0.6)) as url:
        alice, bob, race = await _race(url, spectate=spectate, delay=delay)
        watcher = await ClientSession.connect(url, "Wendy")
        await alice.request(StartRace(race=race), RaceInfo)
        snapshot = await watcher.request(Spectate(race=race), Spectating)
        assert snapshot.race.phase == "countdown"
        assert snapshot.boards == {}
        started = await alice.next(RaceStarted, timeout=TIMEOUT)
        if spectate == "after":
            await _play(alice, race, started, 2)
            for racer in (alice, bob):
                await racer.request(Resign(race=race), RaceInfo)
            await watcher.next(RaceFinished, timeout=TIMEOUT)
            assert not [m for m in watcher.received if isinstance(m, Board | Spectating)]
            return
        opening = await watcher.next(Spectating, timeout=TIMEOUT)
        assert time.time() >= started.started_at + delay
        assert opening.boards[alice.player] == started.view
        assert opening.event > snapshot.event
        await alice.close()
        await bob.close()
        await watcher.close()


async def test_a_delayed_spectator_arriving_within_the_delay_gets_no_opening_early(
    node: str,
) -> None:
    """Under 'delayed', a spectator arriving after the start but within the delay gets no
    boards in its reply, and the opening boards only once the delay has passed."""
    alice, bob, race = await _race(node, spectate="delayed", delay=1)
    await alice.request(StartRace(race=race), RaceInfo)
    started = await alice.next(RaceStarted, timeout=TIMEOUT)
    watcher = await ClientSession.connect(node, "Wendy")
    snapshot = await watcher.request(Spectate(race=race), Spectating)
    assert snapshot.boards == {}
    opening = await watcher.next(Spectating, timeout=TIMEOUT)
    assert time.time() >= started.started_at + 1
    assert opening.boards[bob.player] == started.view


async def test_a_spectator_joining_mid_race_on_another_node_gets_every_later_board(
    make_node: NodeFactory,
) -> None:
    """A spectator who joins on a node that already passes the race's events on (its
    snapshot as new as them: no read of the stream) gets each later board once, in order,
    numbered after its snapshot, and none that its snapshot showed."""
    async with make_node() as first, make_node() as second:
        alice, _, race = await _race(first)
        early = await ClientSession.connect(second, "Early")
        await alice.request(StartRace(race=race), RaceInfo)
        started = await alice.next(RaceStarted)
        await early.request(Spectate(race=race), Spectating)
        policy = GreedyPolicy(started.layout)
        view, legal = started.view, started.legal

        async def move(seq: int) -> Moved:
            nonlocal view, legal
            choice = policy.choose(view, [Move.parse(text) for text in legal])
            reply = await alice.request(SubmitMove(race=race, seq=seq, move=choice.text()), Moved)
            view, legal = reply.view, reply.legal
            return reply

        for seq in range(2):
            await move(seq)
            await early.next(Board, functools.partial(_is_move, seq))
        late = await ClientSession.connect(second, "Late")
        snapshot = await late.request(Spectate(race=race), Spectating)
        assert snapshot.boards[alice.player] == view
        last = snapshot.event
        for seq in range(2, 5):
            reply = await move(seq)
            board = await late.next(Board)  # the first board it got that is still unread
            assert (board.seq, board.view) == (seq, reply.view) and board.event > last
            last = board.event
        assert not [m for m in late.received if isinstance(m, Board)]

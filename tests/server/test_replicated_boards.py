"""Move events carry moves, not boards: every node draws spectators' boards itself.

Nodes replicate a race's boards by applying each move event with the engine
(docs/architecture.md). These tests hold every board a spectator receives,
on any node, to an independent replay of the move log from the revealed seed.
"""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import Board, RaceFinished, Resume, Spectate, Spectating
from protocol.moves import Move
from protocol.views import View
from server.engine import find_variant
from server.rules.events import MoveMade
from server.storage.event_codec import decode_event
from server.storage.packing import pack, unpack
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, ProcessFactory
from tests.server.nodes import VARIANT, connect, open_race, start

pytestmark = pytest.mark.slow


def _views_by_move(
    seed: int, deal_version: int, logs: dict[str, list[str]]
) -> dict[tuple[str, int], View]:
    """(player, seq) -> the view after that move, by replaying each log from the deal."""
    game = find_variant(VARIANT)
    views: dict[tuple[str, int], View] = {}
    for player, log in logs.items():
        state = game.deal(seed, deal_version)
        for seq, text in enumerate(log):
            state = game.apply(state, Move.parse(text))
            views[(player, seq)] = View.from_data(unpack(pack(game.view(state))))  # as sent
    return views


async def test_every_spectator_board_on_every_node_is_a_replay_of_the_log(
    node_processes: ProcessFactory, store: Store
) -> None:
    """Spectators on three nodes (one from the start, one joining mid-race, one that
    drops and resumes on another node) get boards equal to a replay of the logs; no
    move event in Redis carries a board."""
    nodes = await asyncio.to_thread(node_processes, 3)
    ann = await connect(nodes[0].url, "Ann")
    bo = await connect(nodes[1].url, "Bo")
    early = await connect(nodes[2].url, "Early")
    race = await open_race(ann, [bo], players=2)
    await early.request(Spectate(race=race), Spectating)
    racers = await start(ann, [ann, bo], race)

    async with asyncio.timeout(4 * TIMEOUT):
        await asyncio.gather(*(racer.play(40) for racer in racers))
        late = await connect(nodes[0].url, "Late")
        await late.request(Spectate(race=race), Spectating)
        mover = await connect(nodes[1].url, "Mover")
        seen = await mover.request(Spectate(race=race), Spectating)
        await mover.close()
        await asyncio.gather(*(racer.play(20) for racer in racers))
        assert mover.welcome is not None
        mover = await connect(nodes[2].url, "Mover", mover.welcome.token)
        await mover.request(Resume(race=race, since=seen.event), Spectating)
        await asyncio.gather(*(racer.play() for racer in racers))
    results = [await s.next(RaceFinished, timeout=TIMEOUT) for s in (early, late, mover)]

    finished = results[0]
    logs = {player: list(log) for player, log in finished.logs.items()}
    replayed = _views_by_move(finished.seed, finished.deal_version, logs)
    for spectator in (early, late, mover):
        boards = [m for m in spectator.received if isinstance(m, Board) and m.move]
        assert boards, "the spectator got boards"
        for board in boards:
            assert board.view == replayed[(board.player, board.seq)]
    early_boards = {(m.player, m.seq) for m in early.received if isinstance(m, Board) and m.move}
    assert early_boards == set(replayed), "a spectator from the start sees every move"
    for _, payload in await store.events.since(race, 0):
        event = decode_event(payload)
        if isinstance(event, MoveMade):
            assert len(payload) < 64, "a move event is the move and a few numbers"
    for session in (ann, bo, early, late, mover):
        await session.close()

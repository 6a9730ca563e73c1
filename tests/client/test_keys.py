"""Every key counts: keys pressed while a move is in flight are played after it, in order.

The app's requests are held at a gate until the whole burst is pressed, so
each test knows the keys arrived while a move was pending (a real player's
burst only sometimes does); then the gate opens and every key must land.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.widgets import Input

from client.app import BallroomApp
from client.net import ServerLink
from client.screens.game import GameScreen
from protocol.messages import ClientMessage, ServerMessage
from tests.client.play import solo_race
from tests.client.screen import on_screen, until

pytestmark = pytest.mark.slow


def hold_requests(link: ServerLink) -> asyncio.Event:
    """Make ``link`` wait for the returned event before sending each request."""
    gate = asyncio.Event()
    send = link.request

    async def held(message: ClientMessage, expect: type[Any]) -> ServerMessage:
        await gate.wait()
        return await send(message, expect)

    link.request = held  # type: ignore[method-assign,assignment]
    return gate


async def _burst(pilot: Any, game: GameScreen, keys: list[str]) -> asyncio.Event:
    gate = hold_requests(game.link)
    await pilot.press(*keys)
    assert game.pending
    return gate


async def test_a_burst_of_deals_makes_as_many_deals(node: str) -> None:
    """Twenty ``d`` pressed during one move in flight: twenty deals, in order."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        gate = await _burst(pilot, game, ["d"] * 20)
        assert len(game.queued) == 19
        gate.set()
        await until(pilot, lambda: game.seq == 20, "twenty deals are played")
        assert not game.queued
        assert game.record.log(app.link.player or "") == ["deal"] * 20


async def test_a_burst_of_tab_enter_pairs_makes_as_many_moves(node: str) -> None:
    """Tab then Enter, fifteen times in a burst: fifteen moves, each on the position before it."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        gate = await _burst(pilot, game, ["tab", "enter"] * 15)
        gate.set()
        await until(pilot, lambda: game.seq == 15, "fifteen moves are played")
        assert not game.queued and not game.notice.startswith("✗")


async def test_a_refusal_drops_the_keys_behind_it_and_says_why(node: str) -> None:
    """An illegal move with keys queued behind it: the server's reason shows, the keys go."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await solo_race(pilot)
        gate = hold_requests(game.link)
        await pilot.press("colon")
        game.query_one("#typed", Input).value = "f1>f2"
        await pilot.press("enter", "d", "d", "d")
        assert game.pending and len(game.queued) == 3
        gate.set()
        shown = await on_screen(pilot, "✗ f1>f2: ", "(3 queued keys dropped)")
        assert "cannot" in shown or "empty" in shown  # the server's own reason
        assert game.seq == 0 and not game.queued
        await pilot.press("d")
        await until(pilot, lambda: game.seq == 1, "play goes on after the refusal")

"""The board drawing: every variant pinned by golden text, fitting its terminal.

The views come from the engine, in the tests only (the client never imports
it). ``python -m tests.client.make_golden`` rewrites the golden files after
a deliberate change to the drawing.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from client.app import BallroomApp
from client.models.record import RaceRecord
from client.screens.game import GameScreen, fit_table
from client.widgets.board import (
    STYLE_CHOSEN,
    STYLE_PICKED,
    STYLE_PICKED_RED,
    STYLE_TARGET,
    BoardView,
    Marks,
    draw_board,
    fit_header,
)
from protocol.messages import RaceStarted
from protocol.views import Progress, View
from server.engine import VARIANTS, find_variant
from tests.client.make_golden import GOLDEN_DIR, TERMINALS, golden_text, positions
from tests.client.screen import on_screen
from tests.client.values import race_summary

pytestmark = pytest.mark.slow

#: A URL nothing listens on: these tests need no server.
NOWHERE = "ws://127.0.0.1:9/"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_board_matches_golden_text(variant: str) -> None:
    """Each variant's opening and busiest boards draw exactly as pinned."""
    game = find_variant(variant)
    expected = (GOLDEN_DIR / f"{variant}.txt").read_text(encoding="utf-8")
    assert golden_text(game) == expected


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_fits_80_by_24_and_120_by_40(variant: str) -> None:
    """Each board fits both terminals whole, beside the racers panel or under a summary line."""
    game = find_variant(variant)
    for width, height in TERMINALS:
        for _, view in positions(game):
            fit = fit_table(game.layout, view, width, height)
            assert fit.fits, (width, height, fit)
            drawing = draw_board(game.layout, view, *fit.board)
            assert drawing.height <= fit.board[1]
            assert max(len(line.plain.rstrip()) for line in drawing.lines) <= fit.board[0]
            if width >= 120:
                assert fit.sidebar  # a roomy terminal keeps the racers panel


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_card_is_drawn_on_a_header_line(variant: str) -> None:
    """A column fanned down never runs beside another pile's header: Royal Cotillion's
    tableau printed its second row on the ``f2`` label line (issue 24 item 16)."""
    game = find_variant(variant)
    for width, height in TERMINALS:
        for title, view in positions(game):
            fit = fit_table(game.layout, view, width, height)
            drawing = draw_board(game.layout, view, *fit.board)
            piles = {spot.pile for spot in drawing.spots}
            # A pile's header is its first line.
            headers = {min(s.y for s in drawing.spots if s.pile == pile) for pile in piles}
            cards = {spot.y for spot in drawing.spots if spot.index is not None}
            clash = sorted(headers & cards)
            lines = [drawing.lines[y].plain.rstrip() for y in clash]
            assert not clash, (width, height, title, lines)


def test_headers_lose_whole_words_never_half_a_card() -> None:
    """A label that does not fit drops its spaces, then its step, then itself: no cut card."""
    assert fit_header("f1", "A♣ +2", 9) == "f1 A♣ +2"
    assert fit_header("f1", "A♣ +2", 7) == "f1 A♣+2"
    assert fit_header("f10", "6♦ +1", 7) == "f10 6♦"
    assert fit_header("f10", "6♦ +1", 5) == "f10"
    for variant in VARIANTS.values():
        for width in (56, 70, 80, 92):
            drawing = draw_board(variant.layout, positions(variant)[0][1], width)
            assert " +\n" not in drawing.plain() and not drawing.plain().endswith(" +")


def test_long_columns_are_squeezed_to_fit() -> None:
    """A column too long for the height shows its top cards and how many are covered."""
    game = find_variant("grand-duchess")
    _, busy = positions(game)[1]
    tall = draw_board(game.layout, busy, 92)
    short = draw_board(game.layout, busy, 92, height=tall.height - 6)
    assert short.height <= tall.height - 6
    assert "⋮ +" in short.plain()
    assert "⋮" not in tall.plain()


def _style_at(drawing: Any, pile: str, index: int | None) -> Any:
    spot = next(s for s in drawing.spots if s.pile == pile and s.index == index)
    return drawing.lines[spot.y].get_style_at_offset(Console(), spot.x0)


def test_marks_light_up_the_picked_card_and_its_destinations() -> None:
    """The picked card, every legal destination and the chosen one each have their style."""
    game = find_variant("royal-cotillion")
    view = View.from_data(game.view(game.deal(7)))  # legal: r6>f7 r15>f6 deal
    marks = Marks(cursor="f7", source="r6", targets=frozenset({"f7", "f6"}), target="f7")
    drawing = draw_board(game.layout, view, 92, 37, marks)
    picked = _style_at(drawing, "r6", 0)
    assert picked.bgcolor == STYLE_PICKED.bgcolor or picked.bgcolor == STYLE_PICKED_RED.bgcolor
    headers: dict[str, Any] = {}
    for spot in drawing.spots:  # a pile's first spot without a card is its header
        if spot.index is None:
            headers.setdefault(spot.pile, spot)
    for pile, style in (("f7", STYLE_CHOSEN), ("f6", STYLE_TARGET)):
        spot = headers[pile]
        line = drawing.lines[spot.y]
        assert line.get_style_at_offset(Console(), spot.x0).bgcolor == style.bgcolor


def test_clicks_find_the_pile_and_the_card() -> None:
    """A click on a spread pile's card names that card's index; on a header, the pile."""
    game = find_variant("grand-duchess")
    _, busy = positions(game)[1]
    drawing = draw_board(game.layout, busy, 92, 37)
    reserve = busy.piles["r"]
    spot = next(s for s in drawing.spots if s.pile == "r" and s.index == 5)
    assert drawing.pile_at(spot.x0 + 1, spot.y) == ("r", 5)
    assert drawing.lines[spot.y].plain[spot.x0 : spot.x1].strip() == _card(reserve[5])
    header = next(s for s in drawing.spots if s.pile == "t2" and s.index is None)
    assert drawing.pile_at(header.x0, header.y) == ("t2", None)
    assert drawing.pile_at(0, drawing.height + 3) is None


def _card(card: int) -> str:
    from protocol.cards import card_text

    return card_text(card)


def _started(variant: str, seed: int = 7) -> RaceStarted:
    game = find_variant(variant)
    state = game.deal(seed)
    now = time.time()
    return RaceStarted(
        race="r1",
        layout=game.layout,
        view=View.from_data(game.view(state)),
        legal=game.legal_moves(state).texts(),
        commitment="0" * 64,
        deal_version=1,
        started_at=now,
        ends_at=now + 600,
    )


async def _show_game(pilot: Pilot[Any], variant: str) -> GameScreen:
    app = pilot.app
    record = RaceRecord("r1", race_summary(), me="me")
    screen = GameScreen(record, _started(variant))
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def test_game_screen_shows_the_board_it_is_given() -> None:
    """The game screen's board area shows exactly what the drawing holds, with the HUD."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _show_game(pilot, "quadrille")
        board = screen.query_one(BoardView)
        drawing = board.drawing()
        assert drawing is not None
        shown = (await on_screen(pilot, "⟳ reconnecting · home 0/52", "Racers")).splitlines()
        for y, line in enumerate(drawing.lines):
            assert shown[board.region.y + y].startswith(line.plain.rstrip())
        assert "⟳ reconnecting · home 0/52" in shown[0]  # no server: no clock to trust
        await pilot.resize_terminal(200, 24)  # room for every part of the HUD
        await on_screen(pilot, "Quadrille · race TEST · ⟳ reconnecting · home 0/52 · moves 0")


async def test_too_small_terminal_says_what_it_needs_and_keeps_the_hud() -> None:
    """Below the size a variant needs, the screen says so under the clock and the progress."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(60, 20)) as pilot:
        await _show_game(pilot, "royal-cotillion")
        await on_screen(pilot, "Terminal too small", "need 70×", "home 8/104", "me* 8/104")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        shown = await on_screen(pilot, "f1 A♣+2", "me* 8/104")
        assert "Terminal too small" not in shown and "Racers" not in shown
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert "me* 8/104" not in await on_screen(pilot, "f1 A♣ +2", "Racers")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_every_variant_is_whole_on_an_80_by_24_screen(variant: str) -> None:
    """The game screen at 80×24 shows the HUD, everyone's progress and the whole board."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _show_game(pilot, variant)
        shown = (await on_screen(pilot, "⟳ reconnecting · home ")).splitlines()
        assert "Terminal too small" not in "\n".join(shown)
        board = screen.query_one(BoardView)
        drawing = board.drawing()
        assert drawing is not None and drawing.height <= board.region.height
        for y, line in enumerate(drawing.lines):
            assert shown[board.region.y + y].startswith(line.plain.rstrip())


async def test_keys_highlight_legal_moves_offline() -> None:
    """Tab walks the legal moves, Space picks a pile and lights up where it may go."""
    app = BallroomApp(NOWHERE, "Ann")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _show_game(pilot, "royal-cotillion")  # legal: r6>f7 r15>f6 deal
        board = screen.query_one(BoardView)
        await pilot.press("tab")
        assert screen.highlight == "r6>f7"
        assert board.marks.source == "r6" and board.marks.target == "f7"
        await pilot.press("tab", "tab")
        assert screen.highlight == "deal"
        assert board.marks.source == "s"
        await pilot.press("escape")
        screen.cursor = "r15"
        await pilot.press("space")
        assert screen.picked == ("r15", None)
        assert board.marks.targets == frozenset({"f6"})
        screen.cursor = "f6"
        await pilot.pause()
        assert board.marks.target == "f6"
        await pilot.press("enter")
        assert screen.picked is None
        await pilot.pause()
        assert "not connected" in str(screen.notice)  # the move went to the (absent) server


def test_a_racer_who_rejoined_mid_race_knows_the_target() -> None:
    """A record that never saw the opening (rejoined after move 5) still knows how many
    cards make a win, so the results say 7/104, not 7."""
    record = RaceRecord("r1", race_summary(), me="me")
    assert record.target == 0
    rejoined = View("royal-cotillion", {}, {}, 0, Progress(7, 104, 5, won=False, over=False))
    record.remember("me", rejoined)
    assert record.opening is None and record.target == 104


def test_a_race_is_called_by_its_code_and_a_quick_race_as_such() -> None:
    """The HUD names a race by the code players join with; a race the server made (a quick
    race, a rematch) has none, and its long id would push the variant off an 80-column bar."""
    assert RaceRecord("r1", race_summary(code="K3N826")).called == "race K3N826"
    assert RaceRecord("r1", race_summary(code="")).called == "quick race"
    assert RaceRecord("r1").called == "race r1"
    assert RaceRecord("r1", race_summary(code=""), label="Final · table 1").called == (
        "Final · table 1"
    )

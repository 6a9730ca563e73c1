"""The game's top bar at 80 columns keeps the variant's title (issue 24 item 16): a
tournament's long race name is cut before the title goes, the clock and the cards home
stay, and "online" is never pushed off."""

from __future__ import annotations

import pytest

from client import net
from client.app import BallroomApp
from client.models.record import RaceRecord
from client.screens.game import GameScreen, hud_text
from tests.client.scenes import NOW, NOWHERE, frozen, race_started
from tests.client.screen import on_screen
from tests.client.values import race_summary

pytestmark = pytest.mark.slow

LABEL = "Friday night grand dance · round 2 of 3, table 1"


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(net, "clock", lambda: NOW)


def test_the_race_name_is_cut_before_the_title_goes() -> None:
    parts = [(2, "Grand Duchess"), (3, LABEL), (0, "⏱ 9:00"), (1, "home 0/104"), (4, "moves 0")]
    text = hud_text(parts, 71, cut_first=3)
    assert text.startswith("Grand Duchess · Friday night") and "…" in text, text
    assert text.endswith("⏱ 9:00 · home 0/104") and len(text) <= 71, text
    assert hud_text(parts, 40, cut_first=3) == "Grand Duchess · ⏱ 9:00 · home 0/104"
    assert hud_text(parts, 20, cut_first=3) == "⏱ 9:00 · home 0/104"


@pytest.mark.parametrize("variant", ["grand-duchess", "royal-cotillion"])
async def test_a_tournament_race_keeps_the_variant_in_the_top_bar(variant: str) -> None:
    app = BallroomApp(NOWHERE, "🃏Queen👑王后مريم")
    async with app.run_test(size=(80, 24)) as pilot:
        frozen(app)
        info = race_summary(
            id="r1", code="", variant=variant, host="t1", players=["me"], names={"me": "Ann"},
            tournament="t1", tournament_code="K7QH2M",
        )  # fmt: skip
        record = RaceRecord("r1", info, me="me", label=LABEL)
        await app.push_screen(GameScreen(record, race_started(variant)))
        shown = await on_screen(pilot, "● online", "⏱ 9:00", "Friday")
        top = shown.splitlines()[0]
        title = "Grand Duchess" if variant == "grand-duchess" else "Royal Cotillion"
        assert top.startswith(f"{title} · Friday"), top
        assert top.rstrip().endswith("● online"), top


#: The issue's own name: emoji, CJK and right-to-left in one.
EVERY_SCRIPT = "🃏Queen👑王后مريم"


async def test_a_name_of_every_script_keeps_online_and_the_bars_in_line() -> None:
    """The lobby's top bar keeps "● online" at its end; in a race, each racer's score and
    bar end in the same column whatever the name's script (widths in cells, not chars)."""
    from rich.cells import cell_len

    from protocol.views import Progress

    app = BallroomApp(NOWHERE, EVERY_SCRIPT)
    async with app.run_test(size=(80, 24)) as pilot:
        frozen(app)
        shown = await on_screen(pilot, "● online")
        assert shown.splitlines()[0].rstrip().endswith("● online"), shown
        names = {"me": EVERY_SCRIPT, "b": "Bob", "c": "王后王后王后王后王后王后"}
        info = race_summary(id="r1", code="K7QH2M", variant="quadrille", host="me",
                            players=list(names), names=names)  # fmt: skip
        record = RaceRecord("r1", info, me="me")
        for n, player in enumerate(names):
            record.update_progress(player, Progress(5 * n, 52, 7 * n, False, False))
        await app.push_screen(GameScreen(record, race_started("quadrille")))
        shown = await on_screen(pilot, "Racers", "Bob")
        panel = [line.rstrip() for line in shown.splitlines() if "▏ " in line]
        rows = [line for line in panel if line.endswith("/52") or line.endswith(" mv")]
        assert len(rows) == 6, shown
        assert len({cell_len(row) for row in rows}) == 1, rows
        assert shown.splitlines()[0].rstrip().endswith("● online"), shown

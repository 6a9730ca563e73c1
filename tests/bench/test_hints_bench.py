"""bench/hints.py: the racers' positions it asks about, and a tiny real run."""

from __future__ import annotations

import pytest

from bench.hints import main, measure, racers_positions
from server.engine import find_variant


def test_the_positions_are_the_greedy_bots_after_so_many_moves() -> None:
    """After 0 moves the deal itself; after 3, a position three moves on."""
    game = find_variant("royal-cotillion")
    first, later = racers_positions(game, 1, [0, 3])
    assert first == game.deal(1)
    assert later.moves == 3


def test_every_position_gets_one_answer(capsys: pytest.CaptureFixture[str]) -> None:
    """Quadrille's hints are decided at once: each is a line or lost, none unknown."""
    figures = measure(find_variant("quadrille"), 2, [0, 5], 0.8, 2_000)
    assert figures.positions == 4
    assert figures.lines + figures.lost == 4 and figures.unknown == 0
    main(["--deals", "1", "--nodes", "500", "quadrille"])
    assert "| quadrille | 3 |" in capsys.readouterr().out  # after 0, 20 and 40 moves

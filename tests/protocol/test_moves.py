"""Move text: parse and format in pairs, malformed text refused."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.moves import DISCARD_PILE, Move, MoveKind, MoveSyntaxError

CANONICAL = [
    ("w>f3", Move.card("w", "f3")),
    ("r:4>f2", Move.card("r", "f2", 4)),
    ("p5>x", Move.discard("p5")),
    ("r:12>x", Move.discard("r", 12)),
    ("deal", Move.deal()),
    ("deal-reversed", Move.deal_reversed()),
    ("redeal", Move.redeal()),
    ("swap p3 p9", Move.swap("p3", "p9")),
    ("swap p3 p10 p17", Move.swap("p3", "p10", "p17")),
    ("t12>f16", Move.card("t12", "f16")),
]


@pytest.mark.parametrize(("text", "move"), CANONICAL, ids=[text for text, _ in CANONICAL])
def test_canonical_text_round_trips(text: str, move: Move) -> None:
    """Move.parse(text) builds the move and move.text() gives the same text back."""
    assert Move.parse(text) == move
    assert move.text() == text == str(move)
    assert Move.parse(move.text()) == move


@pytest.mark.parametrize(("text", "move"), CANONICAL, ids=[text for text, _ in CANONICAL])
def test_repr_rebuilds_the_move(text: str, move: Move) -> None:
    """repr is the parse call that makes the move again."""
    assert repr(move) == f"Move.parse({text!r})"
    assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("discard p5", "p5>x"),
        ("discard r:3", "r:3>x"),
        ("  w>f3\n", "w>f3"),
        ("W>F3", "w>f3"),
        ("DEAL", "deal"),
        ("swap   p3\tp9", "swap p3 p9"),
        ("r:04>f2", "r:4>f2"),
    ],
)
def test_other_spellings_read_as_the_canonical_move(text: str, canonical: str) -> None:
    """``discard p5``, case, spacing and leading zeros are accepted and normalised."""
    assert Move.parse(text).text() == canonical


def test_move_kinds_and_fields() -> None:
    """Card moves carry source, destination and optional index; actions carry none."""
    move = Move.parse("r:4>f2")
    assert (move.kind, move.src, move.dst, move.index) == (MoveKind.MOVE, "r", "f2", 4)
    assert Move.parse("discard p5").is_discard and Move.parse("p5>x").dst == DISCARD_PILE
    assert not Move.parse("w>f3").is_discard
    swap = Move.parse("swap p3 p9")
    assert (swap.kind, swap.src, swap.dst, swap.index) == (MoveKind.SWAP, "p3", "p9", None)
    for text, kind in (
        ("deal", MoveKind.DEAL),
        ("deal-reversed", MoveKind.DEAL_REVERSED),
        ("redeal", MoveKind.REDEAL),
    ):
        assert Move.parse(text) == Move(kind)


def test_moves_are_hashable_values() -> None:
    """Equal moves hash alike, so legal-move lookups by value work."""
    assert len({Move.parse("w>f3"), Move.card("w", "f3"), Move.parse(" w>f3 ")}) == 1
    assert Move.card("r", "f2", 4) != Move.card("r", "f2")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "garbage",
        "w",
        "w>",
        ">f3",
        "w>>f3",
        "w->f3",
        "w > f3",
        "w>f3>f4",
        "1>f3",
        "f3a>w",
        "_>f1",
        "w>f-3",
        "w>f3!",
        "r:>f2",
        "r:-1>f2",
        "r:1234>f2",
        "r:4",
        "swap p3",
        "swap p3 p9 p10 p11",
        "swap p3>p9",
        "discard",
        "discard p5 p6",
        "deal now",
        "deal reversed",
        "redeal!",
        "undo",
        "r:٣>f2",
        "é>f1",
        "w>f3" + " " * 37,
        "swap " + "p" * 18 + " " + "q" * 18,
    ],
)
def test_malformed_text_raises_move_syntax_error(text: str) -> None:
    """Text that is not a move, bad pile ids and text over 40 characters raise MoveSyntaxError."""
    with pytest.raises(MoveSyntaxError):
        Move.parse(text)


@pytest.mark.parametrize("value", [None, 5, b"deal", ["deal"], Move.deal()])
def test_non_text_raises_move_syntax_error(value: Any) -> None:
    """Only str is parsed; anything else raises MoveSyntaxError, not TypeError."""
    with pytest.raises(MoveSyntaxError):
        Move.parse(value)


def test_move_syntax_error_is_a_value_error() -> None:
    """Malformed text is a ValueError, distinct from the engine's illegal-move error."""
    assert issubclass(MoveSyntaxError, ValueError)

"""The one validation module: the field checks, a Shape reading keys through them, Typed."""

from __future__ import annotations

import pytest

from protocol.exceptions import InvalidField, LocalProtocolError
from protocol.messages import Board, ServerMessage, server_from_wire
from protocol.validation import Int, ListOf, MapOf, Shape, Str, Typed
from protocol.views import View
from tests.protocol.samples import VIEW


def test_a_shape_refuses_a_key_with_the_words_of_the_field_checks() -> None:
    """A Shape names the shape and key, and says what is wrong as a message field would."""
    shape = Shape({"home": True, "piles": {"w": [1, "x"]}}, "view")
    with pytest.raises(InvalidField) as integer:
        shape.integer("home")
    assert (integer.value.field, integer.value.reason) == (
        "view.home",
        "must be an integer, not a boolean",
    )
    with pytest.raises(InvalidField) as piles:
        shape.of_integer_arrays("piles")
    assert piles.value.field == "view.piles"
    assert piles.value.reason == "entry 'w': item 1: must be an integer, not a string"
    with pytest.raises(InvalidField) as missing:
        shape.text("variant")
    assert (missing.value.field, missing.value.reason) == ("view.variant", "missing")


def test_a_shape_keeps_numbers_as_sent_so_they_encode_to_the_same_bytes() -> None:
    """An integer read as a number stays an integer: msgpack packs 5 and 5.0 differently."""
    shape = Shape({"time": 5, "best": 5.5}, "tally")
    assert type(shape.number("time")) is int and shape.number("best") == 5.5


def test_unbounded_checks_and_bounded_ones_share_their_code() -> None:
    """Int and Str without bounds accept any size; with bounds they say the range."""
    assert Int()(10**30) == 10**30 and Str()("x" * 5000) == "x" * 5000
    with pytest.raises(ValueError, match=r"must be in 0\.\.3, not 4"):
        Int(0, 3)(4)
    assert ListOf(Int())([1, 2]) == (1, 2) and MapOf(Str(), Int())({"a": 1}) == {"a": 1}


def test_typed_reads_a_map_into_its_value_and_passes_a_value_through() -> None:
    """Typed turns a map into the value (refusing with the inner key) and keeps a value as it is."""
    check = Typed(View)
    view = check(VIEW)
    assert isinstance(view, View) and check(view) is view
    with pytest.raises(ValueError, match=r"^view\.variant: missing$"):
        check({k: v for k, v in VIEW.items() if k != "variant"})
    with pytest.raises(ValueError, match="must be a map, not an array"):
        check([1])


def test_a_typed_field_is_refused_as_the_peers_fault_or_ours() -> None:
    """From the wire a bad board map is InvalidField naming the message field; built by us,
    LocalProtocolError."""
    wire = {"t": "board", "race": "r7", "player": "p1", "seq": 0, "event": 1, "view": {}}
    with pytest.raises(InvalidField) as remote:
        server_from_wire(wire)
    assert remote.value.field == "view" and remote.value.reason.startswith("view.variant")
    with pytest.raises(LocalProtocolError):
        Board(race="r7", player="p1", seq=0, event=1, view={"piles": {}})  # type: ignore[arg-type]
    board: ServerMessage = server_from_wire({**wire, "view": VIEW})
    assert isinstance(board, Board) and board.view == View.from_data(VIEW)


def test_an_array_checked_in_one_sweep_still_names_the_item_that_fails() -> None:
    """The sweep for plain integers and texts falls back to item by item on any doubt."""
    assert ListOf(Int(0, 3))([0, 3]) == (0, 3) and ListOf(Str())(["a", ""]) == ("a", "")
    with pytest.raises(ValueError, match=r"^item 1: must be in 0\.\.3, not 5$"):
        ListOf(Int(0, 3))([1, 5])
    with pytest.raises(ValueError, match=r"^item 1: must be an integer, not a boolean$"):
        ListOf(Int())([1, True])
    with pytest.raises(ValueError, match=r"^item 0: must be 1\.\.2 characters long, not 0$"):
        ListOf(Str(1, 2))([""])

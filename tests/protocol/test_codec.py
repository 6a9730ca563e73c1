"""The codec: bytes to messages and back, and every way a frame can be bad."""

from __future__ import annotations

import contextlib
import tracemalloc
from dataclasses import replace
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    CLIENT_LIMITS,
    MAX_DEPTH,
    MAX_FRAME,
    MAX_SERVER_FRAME,
    ErrorCode,
    ErrorMessage,
    FrameTooLarge,
    InvalidField,
    Limits,
    LocalProtocolError,
    MalformedFrame,
    Moved,
    NotAMap,
    Ping,
    RaceFinished,
    RemoteProtocolError,
    Spectating,
    SubmitMove,
    TournamentRecord,
    UnknownType,
    UnsupportedVersion,
    decode_client,
    decode_server,
    encode,
    error_frame,
)
from protocol.views import View
from tests.protocol.samples import LAYOUT, PROGRESS, RACE, VIEW


def pack(value: Any) -> bytes:
    frame: bytes = msgpack.packb(value, use_bin_type=True)
    return frame


def refused(frame: Any) -> RemoteProtocolError:
    """The error decode_client raises for ``frame``."""
    with pytest.raises(RemoteProtocolError) as info:
        decode_client(frame)
    return info.value


def nested(depth: int) -> Any:
    """A value of ``depth`` nested arrays."""
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def test_encode_writes_one_msgpack_map_with_the_type() -> None:
    """A frame is a msgpack map whose ``t`` is the message type; strings are str, not bin."""
    frame = encode(SubmitMove(race="r7", seq=4, move="w>f3", id=9))
    assert msgpack.unpackb(frame, raw=False) == {
        "t": "move",
        "race": "r7",
        "seq": 4,
        "move": "w>f3",
        "id": 9,
    }
    assert frame[0] == 0x85  # a fixmap of five entries
    assert decode_client(frame) == SubmitMove(race="r7", seq=4, move="w>f3", id=9)


def test_frames_from_another_encoder_decode() -> None:
    """Key order, bytearray frames and str8/str16 headers do not matter."""
    frame = pack({"move": "deal", "seq": 0, "id": 1, "race": "r7", "t": "move"})
    assert decode_client(bytearray(frame)) == SubmitMove(race="r7", seq=0, move="deal", id=1)
    long_name = b"\x83\xa1t\xa5hello\xa1v\x04\xa4name\xd9\x03Ann"  # name as str8
    assert decode_client(long_name) == decode_client(pack({"t": "hello", "v": 4, "name": "Ann"}))


def test_error_frame_reads_back_as_an_error_message() -> None:
    """error_frame builds the documented error map; long text is shortened, not refused."""
    frame = error_frame(ErrorCode.BAD_SEQUENCE, "expected move 4, got 6", id=3)
    assert msgpack.unpackb(frame) == {
        "t": "error",
        "code": "bad_sequence",
        "message": "expected move 4, got 6",
        "id": 3,
    }
    message = decode_server(frame)
    assert isinstance(message, ErrorMessage) and message.code is ErrorCode.BAD_SEQUENCE
    long = decode_server(error_frame(ErrorCode.INTERNAL, "x" * 5000))
    assert isinstance(long, ErrorMessage) and len(long.message) == 1000 and long.id is None


def test_a_remote_error_becomes_an_error_frame() -> None:
    """The server's whole error path: exception → code, message and request id → frame."""
    exc = refused(pack({"t": "move", "race": "r7", "seq": True, "move": "deal", "id": 12}))
    reply = decode_server(error_frame(exc.code, exc.message, exc.request_id))
    assert reply == ErrorMessage(
        code=ErrorCode.INVALID_FIELD, message="move.seq: must be an integer, not a boolean", id=12
    )


# ----------------------------------------------------------------------
# Bad frames, each with its exception class and code.


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"\xc1",  # the one byte msgpack never uses
        b"\x85\xa1t",  # truncated map
        b"\xa4pi",  # truncated string
        b"\x81\xa1t\xa2\xff\xfe",  # string that is not UTF-8
        b"\x81\xa1t\xd4\x05\x00",  # extension type
        b"\x81\xa1t\xc7\x00\x05",  # empty extension
        b"\x81\xa1t\xd6\xff\x00\x00\x00\x00",  # timestamp extension
        b"\x81\xa1t\xc4\x04ping",  # binary value
        b"\x81\x01\xa4ping",  # integer key
        b"\x81\xc4\x01t\xa4ping",  # binary key
        b"\x82\xa1t\xa4ping\xa1x\x81\xc0\x01",  # nil key inside
    ],
)
def test_malformed_frames(frame: bytes) -> None:
    """Bytes that are not one msgpack map of string keys are malformed_frame."""
    exc = refused(frame)
    assert type(exc) is MalformedFrame
    assert exc.code is ErrorCode.MALFORMED_FRAME
    assert exc.request_id is None


def test_trailing_bytes_are_malformed() -> None:
    """Two maps, or a map and garbage, in one frame are refused."""
    ping = encode(Ping())
    for frame in (ping + ping, ping + b"\x00", ping + b"\xc1"):
        exc = refused(frame)
        assert type(exc) is MalformedFrame and "trailing" in exc.message


def test_text_frames_are_malformed() -> None:
    """A text websocket frame (a str) is not part of the protocol."""
    exc = refused('{"t": "ping"}')
    assert type(exc) is MalformedFrame and "binary" in exc.message
    assert type(refused(None)) is MalformedFrame


@pytest.mark.parametrize("value", [[1, 2], "ping", 7, None, True, 1.5])
def test_non_map_frames(value: Any) -> None:
    """Valid msgpack that is not a map is NotAMap, a malformed_frame."""
    exc = refused(pack(value))
    assert isinstance(exc, NotAMap) and exc.code is ErrorCode.MALFORMED_FRAME


INVALID, UNKNOWN = ErrorCode.INVALID_FIELD, ErrorCode.UNKNOWN_TYPE


@pytest.mark.parametrize(
    ("wire", "error", "code"),
    [
        ({"race": "r7"}, InvalidField, INVALID),
        ({"t": 1}, InvalidField, INVALID),
        ({"t": "warp"}, UnknownType, UNKNOWN),
        ({"t": "pong"}, UnknownType, UNKNOWN),
        ({"t": "move", "race": "r7", "seq": 0}, InvalidField, INVALID),
        ({"t": "ping", "debug": True}, InvalidField, INVALID),
        ({"t": "move", "race": 7, "seq": 0, "move": "deal"}, InvalidField, INVALID),
        ({"t": "resume", "race": "r7", "since": True}, InvalidField, INVALID),
        ({"t": "resume", "race": "r7", "since": -1}, InvalidField, INVALID),
        ({"t": "hello", "v": 4, "name": "n" * 25}, InvalidField, INVALID),
        ({"t": "hello", "v": 4, "name": "n", "token": "t" * 65}, InvalidField, INVALID),
        ({"t": "hello", "v": 99, "name": "n"}, UnsupportedVersion, ErrorCode.UNSUPPORTED_VERSION),
    ],
)
def test_bad_messages(
    wire: dict[str, Any], error: type[RemoteProtocolError], code: ErrorCode
) -> None:
    """Well-formed maps that are not valid client messages get the right class and code."""
    exc = refused(pack(wire))
    assert isinstance(exc, error) and exc.code is code


def test_oversized_frames_are_refused_before_decoding() -> None:
    """A client frame over MAX_FRAME is frame_too_large, even if it is valid msgpack."""
    frame = pack({"t": "ping", "pad": "x" * MAX_FRAME})
    exc = refused(frame)
    assert isinstance(exc, FrameTooLarge) and exc.code is ErrorCode.FRAME_TOO_LARGE
    assert exc.size == len(frame) and exc.limit == MAX_FRAME
    assert type(refused(b"\xc1" * (MAX_FRAME + 1))) is FrameTooLarge


def test_overlong_strings() -> None:
    """A string past a field's length is invalid_field; past the decoder's limit, malformed."""
    exc = refused(pack({"t": "join_race", "code": "C" * 13}))
    assert isinstance(exc, InvalidField) and exc.field == "code"
    exc = refused(pack({"t": "join_race", "code": "C" * (CLIENT_LIMITS.max_str_len + 1)}))
    assert type(exc) is MalformedFrame and "max_str_len" in exc.message


def test_deep_nesting_is_refused() -> None:
    """Nesting past MAX_DEPTH levels is malformed, however it is built."""
    assert isinstance(refused(pack({"t": "ping", "x": nested(MAX_DEPTH - 2)})), InvalidField)
    for value in (
        {"t": "ping", "x": nested(MAX_DEPTH)},
        {"t": "ping", "x": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {}}}}}}}}},
        nested(MAX_DEPTH + 1),
    ):
        exc = refused(pack(value))
        assert type(exc) is MalformedFrame and "nesting" in exc.message
    # Far past msgpack's own stack, in well under MAX_FRAME bytes.
    exc = refused(b"\x91" * 60_000 + b"\xc0")
    assert type(exc) is MalformedFrame


def test_long_arrays_and_maps_are_refused() -> None:
    """msgpack's array and map limits apply inside a frame that is small enough."""
    exc = refused(pack({"t": "ping", "x": [0] * (CLIENT_LIMITS.max_array_len + 1)}))
    assert type(exc) is MalformedFrame and "max_array_len" in exc.message
    exc = refused(pack({"t": "ping", **{f"k{i}": 0 for i in range(CLIENT_LIMITS.max_map_len)}}))
    assert type(exc) is MalformedFrame and "max_map_len" in exc.message


@pytest.mark.parametrize(
    "header",
    [
        b"\xdd\xff\xff\xff\xff",  # array32 of 4 294 967 295 items
        b"\xdf\xff\xff\xff\xff",  # map32
        b"\xdb\xff\xff\xff\xff",  # str32
        b"\xc6\xff\xff\xff\xff",  # bin32
        b"\xc9\xff\xff\xff\xff\x05",  # ext32
        b"\xdc\xff\xff",  # array16
        b"\xde\xff\xff",  # map16
        b"\x81\xa1t\xdd\xff\xff\xff\xff",  # nested in a map
    ],
)
def test_huge_length_headers_are_refused_without_allocating(header: bytes) -> None:
    """A tiny frame announcing billions of items is refused at once, allocating almost nothing."""
    tracemalloc.start()
    try:
        exc = refused(header + b"\x00" * 16)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert type(exc) is MalformedFrame
    assert peak < 64 * 1024


def test_server_frames_may_be_larger_than_client_frames() -> None:
    """Results with long move logs pass 64 KiB: fine from a server, too large from a client."""
    logs = {f"p{i}": ["r:12>f4", "deal"] * 1500 for i in range(8)}
    results = RaceFinished(
        race="r7", standings=[], seed=42, commitment="ab" * 32, deal_version=1, logs=logs
    )
    frame = encode(results)
    assert MAX_FRAME < len(frame) < MAX_SERVER_FRAME
    assert decode_server(frame) == results
    assert type(refused(frame)) is FrameTooLarge


def test_a_full_spectator_snapshot_fits_a_client_sized_frame() -> None:
    """Eight boards of 20 piles of 104 cards stay well under 64 KiB: card ids are small ints."""
    view = View.from_data(VIEW | {"piles": {f"t{j}": list(range(104)) for j in range(20)}})
    snapshot = Spectating(
        race=RACE, layout=LAYOUT, boards={f"p{i}": view for i in range(8)}, event=5
    )
    frame = encode(snapshot)
    assert len(frame) < MAX_FRAME
    assert decode_server(frame) == snapshot


def test_decode_takes_its_limits_as_a_parameter() -> None:
    """A caller can tighten or loosen the limits of either decoder."""
    frame = encode(Moved(race="r7", seq=0, move="deal", view=VIEW, legal=[], progress=PROGRESS))
    tight = Limits(
        max_frame=len(frame) - 1,
        max_str_len=64,
        max_bin_len=0,
        max_array_len=8,
        max_map_len=16,
        max_depth=3,  # moved > view > piles > one pile is four levels
    )
    with pytest.raises(FrameTooLarge):
        decode_server(frame, limits=tight)
    with pytest.raises(MalformedFrame):
        decode_server(frame, limits=replace(tight, max_frame=len(frame)))
    loose = replace(CLIENT_LIMITS, max_frame=2 * MAX_FRAME, max_str_len=2 * MAX_FRAME)
    padded = pack({"t": "ping", "id": 1, "pad": "x" * MAX_FRAME})
    with pytest.raises(InvalidField):  # past the frame limit only with the loose limits
        decode_client(padded, limits=loose)


# ----------------------------------------------------------------------
# Encoding our own bad messages is our bug.


def test_encoding_unpackable_values_is_a_local_error() -> None:
    """A value msgpack cannot pack, inside a map field, is our bug: LocalProtocolError."""
    message = TournamentRecord(record={"x": {1, 2}})
    with pytest.raises(LocalProtocolError):
        encode(message)


def test_a_failed_encoding_leaves_nothing_behind_for_the_next_frame() -> None:
    """After a value that cannot be packed, the next frame is exactly msgpack's bytes."""
    half_packed = {"a": "y" * 1000, "b": {1, 2}}
    good = Moved(race="r7", seq=1, move="deal", view=VIEW, legal=["deal"], progress=PROGRESS)
    for _ in range(3):
        with pytest.raises(LocalProtocolError):
            encode(TournamentRecord(record=half_packed))
        assert encode(good) == msgpack.packb(good.to_wire(), use_bin_type=True)


def test_encoding_an_oversized_frame_is_a_local_error() -> None:
    """A server frame the client would refuse as too large is refused when encoded."""
    message = TournamentRecord(record={"x": "y" * MAX_SERVER_FRAME})
    with pytest.raises(LocalProtocolError):
        encode(message)


# ----------------------------------------------------------------------
# Properties: nothing but RemoteProtocolError, whatever arrives.

msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=50)
    | st.binary(max_size=20),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=8) | st.integers(-(2**63), 2**63), children, max_size=5)
    ),
    max_leaves=30,
)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_remote_errors(frame: bytes) -> None:
    """decode_client either returns a client message or raises RemoteProtocolError."""
    with contextlib.suppress(RemoteProtocolError):
        decode_client(frame)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["move", "hello", "create_race", "join_race", "ping", "welcome", "x"]),
    st.dictionaries(
        st.sampled_from(["race", "seq", "move", "v", "name", "token", "id", "deal", "code"]),
        msgpack_values,
        max_size=6,
    ),
)
def test_arbitrary_maps_raise_only_remote_errors(t: str, fields: dict[str, Any]) -> None:
    """Any map with plausible keys and arbitrary values decodes or raises RemoteProtocolError."""
    with contextlib.suppress(RemoteProtocolError):
        decode_client(pack({"t": t, **fields}))


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.data())
def test_corrupted_valid_frames_raise_only_remote_errors(noise: bytes, data: st.DataObject) -> None:
    """A valid frame with bytes overwritten, cut or appended never escapes RemoteProtocolError."""
    frame = bytearray(encode(SubmitMove(race="r7", seq=12, move="w>f3", id=5)))
    at = data.draw(st.integers(min_value=0, max_value=len(frame)))
    frame[at : at + len(noise)] = noise
    with contextlib.suppress(RemoteProtocolError):
        decode_client(bytes(frame))

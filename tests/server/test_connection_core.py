"""The rules of one connection, checked without sockets: frames and times in, actions out.

:class:`server.net.core.ConnectionCore` decides everything the asyncio
driver does with a client's messages; these tests feed it frames and clock
readings and read what it answers.
"""

from __future__ import annotations

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import decode_client, decode_server, encode
from protocol.exceptions import ErrorCode
from protocol.messages import ClientMessage, ErrorMessage, Hello, Ping
from protocol.version import PROTOCOL_VERSION
from server.net.core import (
    CLOSE_POLICY,
    Action,
    Close,
    ConnectionCore,
    Handle,
    Hold,
    Send,
    TokenBucket,
)
from server.settings import Limits, Timeouts

HELLO = encode(Hello(id=1, v=PROTOCOL_VERSION, name="Ann"))


def _core(limits: Limits | None = None, timeouts: Timeouts | None = None) -> ConnectionCore:
    return ConnectionCore(limits=limits or Limits(), timeouts=timeouts or Timeouts(), now=0.0)


def _greeted(limits: Limits | None = None) -> ConnectionCore:
    """A core whose hello was handled and accepted."""
    core = _core(limits)
    (handle,) = core.receive(HELLO, 0.0)
    assert isinstance(handle, Handle)
    core.player = "p1"
    assert core.handled(0.0) == []
    return core


def _ping(request_id: int) -> bytes:
    return encode(Ping(id=request_id))


def _refusal(action: Action) -> ErrorMessage:
    assert isinstance(action, Send)
    message = decode_server(action.frame)
    assert isinstance(message, ErrorMessage)
    return message


def _handled(actions: list[Action]) -> list[ClientMessage]:
    return [a.message for a in actions if isinstance(a, Handle)]


def test_a_message_before_hello_is_refused_with_its_id() -> None:
    """Anything but hello first is refused as not authenticated, naming the request."""
    core = _core()
    (action,) = core.receive(_ping(7), 0.0)
    refusal = _refusal(action)
    assert (refusal.code, refusal.id) == (ErrorCode.NOT_AUTHENTICATED, 7)
    assert _handled(core.receive(HELLO, 0.0)) == [Hello(id=1, v=PROTOCOL_VERSION, name="Ann")]


def test_a_refused_hello_leaves_the_connection_unauthenticated() -> None:
    """Until the driver says who the player is, the core lets only hellos through."""
    core = _core()
    core.receive(HELLO, 0.0)
    core.handled(0.0)  # the hello's handler refused it: no player set
    (action,) = core.receive(_ping(2), 0.0)
    assert _refusal(action).code is ErrorCode.NOT_AUTHENTICATED


def test_messages_are_handled_one_at_a_time_in_order() -> None:
    """While a message is in hand the next ones wait; each ``handled`` lets one more through."""
    core = _greeted()
    assert _handled(core.receive(_ping(1), 0.0)) == [Ping(id=1)]
    assert core.receive(_ping(2), 0.0) == []
    assert core.receive(_ping(3), 0.0) == []
    assert _handled(core.handled(0.0)) == [Ping(id=2)]
    assert _handled(core.handled(0.0)) == [Ping(id=3)]
    assert core.handled(0.0) == []


def test_refusals_behind_a_message_in_hand_keep_their_place() -> None:
    """A malformed frame waiting behind a message is refused only when its turn comes."""
    core = _greeted()
    core.receive(_ping(1), 0.0)
    assert core.receive(b"\xc1", 0.0) == []  # msgpack's never-used byte
    actions = core.handled(0.0)
    assert len(actions) == 1 and _refusal(actions[0]).code is ErrorCode.MALFORMED_FRAME


def test_a_bad_frame_is_refused_with_the_id_it_carried() -> None:
    """A readable id in a frame the protocol refuses goes back with the refusal."""
    core = _greeted()
    frame = msgpack.packb({"t": "ping", "id": 9, "extra": 1})
    (action,) = core.receive(frame, 0.0)
    refusal = _refusal(action)
    assert refusal.id == 9 and refusal.code is not ErrorCode.NOT_AUTHENTICATED


def test_frames_above_the_limit_are_refused() -> None:
    core = _greeted(Limits(max_frame=len(HELLO)))
    (action,) = core.receive(encode(Hello(id=3, v=PROTOCOL_VERSION, name="A" * 20)), 0.0)
    assert _refusal(action).code is ErrorCode.FRAME_TOO_LARGE


def test_past_the_burst_messages_are_rate_limited_then_the_flood_is_closed() -> None:
    """Each message past the bucket is refused with its id; ``flood_strikes`` in a row close."""
    core = _greeted(Limits(rate=1, burst=3, flood_strikes=3))  # the hello takes one
    for request_id in (1, 2):
        assert _handled(core.receive(_ping(request_id), 0.0)) == [Ping(id=request_id)]
        core.handled(0.0)
    for request_id in (3, 4):
        (action,) = core.receive(_ping(request_id), 0.0)
        refusal = _refusal(action)
        assert (refusal.code, refusal.id) == (ErrorCode.RATE_LIMITED, request_id)
    assert core.receive(_ping(5), 0.0) == [Close(CLOSE_POLICY, "flooding")]
    assert core.closing and core.receive(_ping(6), 10.0) == []


def test_a_message_let_through_forgives_the_strikes() -> None:
    core = _greeted(Limits(rate=1, burst=2, flood_strikes=2))  # the hello takes one
    core.receive(_ping(1), 0.0)
    core.handled(0.0)
    assert _refusal(core.receive(_ping(2), 0.0)[0]).code is ErrorCode.RATE_LIMITED
    assert _handled(core.receive(_ping(3), 1.0)) == [Ping(id=3)]  # a token came back
    core.handled(1.0)
    assert _refusal(core.receive(_ping(4), 1.0)[0]).code is ErrorCode.RATE_LIMITED


def test_the_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    bucket = TokenBucket(rate=2, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert [bucket.take(0.5) for _ in range(2)] == [True, False]
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]


def test_reading_is_held_while_messages_pile_up_and_released_once_drained() -> None:
    """Past ``INBOX_HIGH`` waiting messages the socket is held; it is released when none wait."""
    core = _greeted()
    core.receive(_ping(0), 0.0)  # in hand
    holds: list[Action] = []
    for request_id in range(1, ConnectionCore.INBOX_HIGH + 3):
        holds += [a for a in core.receive(_ping(request_id), 0.0) if isinstance(a, Hold)]
    assert holds == [Hold(True)]
    released: list[Action] = []
    handled: list[ClientMessage] = []
    while True:
        actions = core.handled(0.0)
        if not actions:
            break
        released += [a for a in actions if isinstance(a, Hold)]
        handled += _handled(actions)
    assert released == [Hold(False)]
    assert [m.id for m in handled] == list(range(1, ConnectionCore.INBOX_HIGH + 3))


def test_silence_closes_before_hello_sooner_than_after() -> None:
    """Before hello ``timeouts.hello`` applies, after it ``timeouts.idle``; a frame resets it."""
    timeouts = Timeouts(hello=2.0, idle=10.0)
    core = _core(timeouts=timeouts)
    assert core.silence(0.5) == 1.5
    assert core.silence(2.0) == Close(CLOSE_POLICY, "idle for too long")
    assert core.closing

    core = _core(timeouts=timeouts)
    core.receive(HELLO, 1.0)
    core.player = "p1"
    core.handled(1.0)
    assert core.silence(3.0) == 8.0
    core.receive(_ping(2), 5.0)
    assert core.silence(14.0) == 1.0
    assert isinstance(core.silence(15.0), Close)


def test_a_reader_too_slow_is_closed_once() -> None:
    core = _greeted(Limits(outbox=100))
    assert core.unsent(100) is None
    assert core.unsent(101) == Close(CLOSE_POLICY, "too slow: read your messages")
    assert core.unsent(1000) is None  # already closing


def test_after_close_nothing_waiting_is_handled() -> None:
    """Once the connection closes, messages still waiting are dropped, not handled."""
    core = _greeted()
    core.receive(_ping(1), 0.0)
    core.receive(_ping(2), 0.0)
    core.closed()
    assert core.handled(0.0) == []


# A frame the core must answer: a ping it lets through, or bytes it refuses.
_FRAMES = st.one_of(
    st.integers(min_value=1, max_value=10**6).map(_ping),
    st.sampled_from([b"\xc1", b"\x90", "text", msgpack.packb({"t": "nope", "id": 3})]),
)
# Steps: a frame arrives, or the message in hand is answered.
_STEPS = st.lists(st.one_of(_FRAMES, st.just(None)), max_size=80)


@given(steps=_STEPS)
@settings(max_examples=200, deadline=None)
def test_every_frame_is_answered_once_in_order_one_at_a_time(
    steps: list[bytes | str | None],
) -> None:
    """Whatever arrives, each frame gets exactly one Handle or refusal, in arrival order;
    no Handle comes while one is in hand; holds and releases alternate."""
    core = _greeted(Limits(rate=1e9, burst=10**9, flood_strikes=10**9))
    arrived: list[bytes | str] = []
    answered: list[bytes | str] = []
    holds: list[bool] = []
    in_hand = False

    def take(actions: list[Action]) -> None:
        nonlocal in_hand
        for action in actions:
            if isinstance(action, Hold):
                holds.append(action.held)
                continue
            assert not in_hand, "a Handle while another message is in hand"
            frame = arrived[len(answered)]
            answered.append(frame)
            if isinstance(action, Handle):
                in_hand = True
                assert action is actions[-1], "a Handle is the last action of its batch"
                assert action.message == decode_client(frame)
            else:
                assert isinstance(action, Send) and _refusal(action).id in (None, 3)

    for step in [*steps, *[None] * (len(steps) + 1)]:  # then answer whatever is left
        if step is None:
            if in_hand:
                in_hand = False
                take(core.handled(0.0))
        else:
            arrived.append(step)
            take(core.receive(step, 0.0))
    assert answered == arrived and not in_hand
    assert holds == [i % 2 == 0 for i in range(len(holds))]

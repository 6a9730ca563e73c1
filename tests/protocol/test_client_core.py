"""The client's protocol core, checked without sockets: ids, replies, pushes."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from protocol.client_core import ClientCore, Pushed, Reply
from protocol.codec import decode_client, decode_server, encode
from protocol.exceptions import MalformedFrame
from protocol.messages import Hello, Ping, Pong, ServerMessage, Service, ServiceState
from protocol.version import PROTOCOL_VERSION

Typed = ClientCore[ServerMessage, str]


def _typed() -> Typed:
    return ClientCore(decode_server, lambda message: message.id)


def test_requests_get_fresh_ids_and_their_replies_reach_their_waiters() -> None:
    """Each request is numbered anew; a reply of that number goes to that request's waiter."""
    core = _typed()
    first = decode_client(core.request(Ping(), "first"))
    second = decode_client(core.request(Ping(), "second"))
    assert (first.id, second.id) == (1, 2)
    assert core.waiting == 2
    assert core.receive(encode(Pong(id=2))) == Reply(Pong(id=2), "second")
    assert core.receive(encode(Pong(id=1))) == Reply(Pong(id=1), "first")
    assert core.waiting == 0


def test_the_hello_carries_the_protocol_version_and_a_request_id() -> None:
    core = _typed()
    hello = decode_client(core.hello("Ann", "tok", "welcome"))
    assert hello == Hello(id=1, v=PROTOCOL_VERSION, name="Ann", token="tok")
    assert core.waiting == 1


def test_messages_without_an_awaited_id_are_pushes() -> None:
    """Events carry no id; a reply that nobody waits for (answered already) is a push too."""
    core = _typed()
    event = Service(state=ServiceState.DEGRADED, message="storage away")
    assert core.receive(encode(event)) == Pushed(event)
    assert core.receive(encode(Pong(id=5))) == Pushed(Pong(id=5))
    core.request(Ping(), "waiter")
    core.receive(encode(Pong(id=1)))
    assert core.receive(encode(Pong(id=1))) == Pushed(Pong(id=1))


def test_a_lost_connection_hands_back_every_waiter_once() -> None:
    core = _typed()
    core.request(Ping(), "a")
    core.hello("Ann", None, "b")
    assert sorted(core.lost()) == ["a", "b"]
    assert core.lost() == [] and core.waiting == 0


def test_a_frame_the_reader_refuses_raises_and_changes_nothing() -> None:
    core = _typed()
    core.request(Ping(), "a")
    with pytest.raises(MalformedFrame):
        core.receive(b"\xc1")
    assert core.receive(encode(Pong(id=1))) == Reply(Pong(id=1), "a")


def test_any_reading_of_a_frame_fits_for_example_bare_maps() -> None:
    """The lean client reads msgpack maps; the same bookkeeping applies."""
    core: ClientCore[dict[str, Any], str] = ClientCore(
        lambda frame: msgpack.unpackb(frame, raw=False), lambda message: message.get("id")
    )
    request_id = core.expect("waiter")
    assert core.receive(encode(Pong(id=request_id))) == Reply({"t": "pong", "id": 1}, "waiter")
    assert core.receive(encode(Pong(id=9))) == Pushed({"t": "pong", "id": 9})

"""A connection's messages reach the server straight from the socket, and are handled in order.

The node reads messages in its protocol's ``data_received`` (:mod:`server.net.websocket`)
and handles them one at a time (:class:`server.net.connection.Connection`): a
message that must wait (for Redis, say) holds back the ones behind it,
however quickly the client sends them, and a usual move needs no task.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import BINARY, CONT, TEXT, Frame
from websockets.protocol import CLOSING, OPEN

from protocol.codec import decode_server, encode
from protocol.exceptions import ErrorCode
from protocol.messages import (
    ClientMessage,
    CreateRace,
    ErrorMessage,
    Hello,
    Moved,
    Ping,
    Pong,
    RaceInfo,
    RaceStarted,
    ServerMessage,
    SpectatePolicy,
    StartRace,
    SubmitMove,
    Welcome,
)
from protocol.version import PROTOCOL_VERSION
from server.net.websocket import PushConnection, WebSocketServer, framed
from server.services.moves import Moves
from server.settings import Timeouts
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.faults import eventually, start_race

CLOSE_INVALID_DATA = 1007

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]


@pytest.fixture
async def ws(node: str) -> AsyncIterator[ClientConnection]:
    """A bare websocket to the node that has said hello: frames are read in arrival order."""
    async with connect(node, compression=None) as websocket:
        await websocket.send(encode(Hello(id=1, v=PROTOCOL_VERSION, name="Ann")))
        assert isinstance(await _read(websocket), Welcome)
        yield websocket


async def _read(websocket: ClientConnection) -> ServerMessage:
    async with asyncio.timeout(TIMEOUT):
        return decode_server(await websocket.recv())


async def _answers(websocket: ClientConnection, count: int) -> list[ServerMessage]:
    """The next ``count`` replies (messages with an id), in the order they arrived."""
    answers: list[ServerMessage] = []
    while len(answers) < count:
        message = await _read(websocket)
        if message.id is not None:
            answers.append(message)
    return answers


async def _send_all(websocket: ClientConnection, *messages: ClientMessage) -> None:
    for message in messages:
        await websocket.send(encode(message))


async def _solo_race(websocket: ClientConnection) -> tuple[str, RaceStarted]:
    await _send_all(
        websocket,
        CreateRace(
            id=2, variant="contradance", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
    )
    (created,) = await _answers(websocket, 1)
    assert isinstance(created, RaceInfo)
    race = created.race.id
    await _send_all(websocket, StartRace(id=3, race=race))
    answered, started = False, None
    while not answered or started is None:  # the reply and the start, in either order
        message = await _read(websocket)
        answered = answered or message.id == 3
        started = message if isinstance(message, RaceStarted) else started
    return race, started


async def test_messages_sent_together_are_answered_in_the_order_sent(
    ws: ClientConnection,
) -> None:
    """Pings sent right behind a move are answered after it: its commit holds them back."""
    race, started = await _solo_race(ws)
    first = started.legal[0]
    await _send_all(
        ws,
        SubmitMove(id=10, race=race, seq=0, move=first),
        Ping(id=11),
        SubmitMove(id=12, race=race, seq=0, move=first),  # a resend: answered alike
        Ping(id=13),
        SubmitMove(id=14, race=race, seq=5, move=first),  # a gap: refused
    )
    answers = await _answers(ws, 5)
    assert [(m.id, type(m)) for m in answers] == [
        (10, Moved), (11, Pong), (12, Moved), (13, Pong), (14, ErrorMessage),
    ]  # fmt: skip
    moved, again = answers[0], answers[2]
    assert isinstance(moved, Moved) and isinstance(again, Moved)
    assert (again.seq, again.move, again.view, again.legal) == (
        moved.seq, moved.move, moved.view, moved.legal,
    )  # fmt: skip
    refused = answers[4]
    assert isinstance(refused, ErrorMessage) and refused.code is ErrorCode.BAD_SEQUENCE


async def test_a_flood_of_messages_pauses_reading_and_loses_nothing(
    ws: ClientConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More messages than the connection keeps waiting: the socket is paused, then every
    one is answered, in order."""
    held: list[bool] = []
    real_hold = PushConnection.hold

    def recording_hold(self: PushConnection, hold: bool) -> None:
        if hold != self._held:
            held.append(hold)
        real_hold(self, hold)

    monkeypatch.setattr(PushConnection, "hold", recording_hold)
    count = 200
    await _send_all(ws, *(Ping(id=100 + i) for i in range(count)))
    answers = await _answers(ws, count)
    assert [m.id for m in answers] == [100 + i for i in range(count)]
    assert held[:1] == [True] and held[-1] is False


async def test_a_fragmented_message_is_one_message(ws: ClientConnection) -> None:
    frame = encode(Ping(id=7))
    await ws.send([frame[:2], frame[2:4], frame[4:]])
    assert await _answers(ws, 1) == [Pong(id=7)]


async def test_a_text_message_is_refused_and_invalid_utf8_closes(ws: ClientConnection) -> None:
    await ws.send("hello")
    refused = await _read(ws)
    assert isinstance(refused, ErrorMessage) and refused.code is ErrorCode.MALFORMED_FRAME
    await ws.send(b"\xff\xfe", text=True)
    with pytest.raises(ConnectionClosed) as closed:
        await _read(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_INVALID_DATA


async def test_a_usual_move_takes_no_task(
    ws: ClientConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a racer's board is cached, moves go down ``move_now``, not ``move``."""
    careful: list[int] = []
    real_move = Moves.move

    async def counting_move(self: Moves, *args: object, **kwargs: object) -> object:
        careful.append(1)
        return await real_move(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Moves, "move", counting_move)
    race, started = await _solo_race(ws)
    legal, seq = started.legal, 0
    while legal and seq < 20:
        await _send_all(ws, SubmitMove(id=20 + seq, race=race, seq=seq, move=legal[0]))
        (moved,) = await _answers(ws, 1)
        assert isinstance(moved, Moved)
        legal, seq = moved.legal, seq + 1
    assert seq > 2
    assert len(careful) <= 1  # at most the first, which reads the board from Redis


async def test_a_move_on_a_node_behind_is_answered_as_the_resend_it_is(
    make_node: NodeFactory, clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node B's cached board is a move behind (the racer moved through node A): B's quick
    commit finds the sequence taken, and the careful path answers the move as a resend."""
    quick: list[object] = []
    real_move_now = Moves.move_now

    def recording_move_now(self: Moves, *args: Any, **kwargs: Any) -> Any:
        pending = real_move_now(self, *args, **kwargs)
        if pending is not None:
            pending.add_done_callback(lambda done: quick.append(done.result()))
        return pending

    monkeypatch.setattr(Moves, "move_now", recording_move_now)
    async with make_node() as a, make_node() as b:
        on_a = await clients.hello(a, "Ann")
        assert on_a.welcome is not None
        on_b = await clients.hello(b, "Ann", token=on_a.welcome.token)
        race = await start_race(on_a)
        started = await on_a.next(RaceStarted)
        first = await on_b.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
        second = await on_a.request(SubmitMove(race=race, seq=1, move=first.legal[0]), Moved)
        quick.clear()
        again = await on_b.request(SubmitMove(race=race, seq=1, move=first.legal[0]), Moved)
    assert quick == [None]  # B tried the quick way and found the sequence taken
    assert (again.seq, again.move, again.view, again.legal) == (
        second.seq, second.move, second.view, second.legal,
    )  # fmt: skip


async def test_keepalive_pongs_still_reach_websockets_and_a_silent_peer_is_dropped(
    make_node: NodeFactory,
) -> None:
    """Pongs go past the message callback to websockets' keepalive, which drops a peer
    that stops answering pings."""
    quick = Timeouts(countdown=0.0, ping_interval=0.05, ping_timeout=0.2)
    async with make_node(timeouts=quick) as url:
        node = NODES[url]
        async with (
            connect(url, compression=None) as answering,
            connect(url, compression=None) as mute,
        ):
            for websocket, name in ((answering, "Ann"), (mute, "Mo")):
                await websocket.send(encode(Hello(id=1, v=PROTOCOL_VERSION, name=name)))
                assert isinstance(await _read(websocket), Welcome)
            (server_side,) = [c for c in node.connections if c.name == "Ann"]
            await eventually(lambda: server_side.ws.latency > 0, "a pong acknowledged a ping")
            mute.transport.pause_reading()  # it no longer sees pings, so it answers none
            await eventually(
                lambda: [c.name for c in node.connections] == ["Ann"], "the mute peer dropped"
            )
            mute.transport.resume_reading()  # it learns it was dropped
            await _send_all(answering, Ping(id=2))
            assert await _answers(answering, 1) == [Pong(id=2)]


async def test_messages_parsed_before_the_handler_attaches_are_handed_over_in_order() -> None:
    """A message can be parsed between the handshake and the handler's start: it is kept."""
    server = WebSocketServer(
        _never_called, "127.0.0.1", 0, max_size=1024, ping_interval=None, ping_timeout=None,
        close_timeout=1,
    )  # fmt: skip
    conn = PushConnection(server)
    conn.frame_received(Frame(BINARY, b"early"))
    conn.frame_received(Frame(TEXT, b"fra", fin=False))
    conn.frame_received(Frame(CONT, b"gmented"))
    got: list[bytes | str] = []
    conn.attach(got.append)
    assert got == [b"early", "fragmented"]
    conn.frame_received(Frame(BINARY, b"late"))
    assert got == [b"early", "fragmented", b"late"]


class _Transport:
    """A transport that keeps each write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)


async def test_corked_messages_go_out_in_one_write_and_never_after_a_close() -> None:
    """Messages written while corked are one write at uncork, framed in order; uncorked,
    each is its own write; what was corked when the connection began closing is dropped."""
    server = WebSocketServer(
        _never_called, "127.0.0.1", 0, max_size=1024, ping_interval=None, ping_timeout=None,
        close_timeout=1,
    )  # fmt: skip
    conn = PushConnection(server)
    transport = _Transport()
    conn.transport = cast(Any, transport)
    conn.protocol.state = OPEN
    conn.cork()
    conn.write(b"one")
    conn.write(b"two")
    assert transport.writes == []
    assert conn.uncork()
    assert transport.writes == [framed(b"one") + framed(b"two")]
    conn.write(b"three")
    assert transport.writes[1:] == [framed(b"three")]
    conn.cork()
    conn.write(b"four")
    conn.protocol.state = CLOSING
    assert not conn.uncork() and len(transport.writes) == 2


async def _never_called(_: PushConnection) -> None:
    raise AssertionError("no connection is served")

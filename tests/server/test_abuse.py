"""Bad input and abuse: every refusal is a typed error, and none changes anything.

Each case checks what the issue asks of it: the ``error`` frame has the right
code (and the request's ``id`` whenever the request carried one that could be
read), the connection still works afterwards where that is sensible, and
Redis holds exactly what it held before, compared key by key.
A module-wide fixture also fails any test during which the server logged an
error: a refusal is routine, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed

from client.session import ClientSession
from protocol.exceptions import ErrorCode
from protocol.messages import (
    MAX_SEQ,
    Countdown,
    CreateRace,
    ErrorMessage,
    Hello,
    JoinRace,
    LeaveRace,
    ListRaces,
    Moved,
    Ping,
    Progress,
    RaceAnalysed,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    Ready,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
    Welcome,
)
from protocol.moves import Move
from protocol.version import PROTOCOL_VERSION
from server.engine import find_variant
from server.net.connection import CLOSE_POLICY, CLOSE_TRY_AGAIN
from server.settings import Limits, Timeouts
from server.storage.store import Store
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.refusals import DEAL, VARIANT, Race, alive, close_code, lobby, refused, unchanged

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

CLOSE_TOO_BIG = 1009


# -- helpers -------------------------------------------------------------


async def running(clients: Clients, url: str) -> Race:
    """A race that has started (the test node has no countdown)."""
    race = await lobby(clients, url)
    await race.alice.request(StartRace(race=race.id), RaceInfo)
    for racer in (race.alice, race.bob):
        await racer.next(RaceStarted, timeout=TIMEOUT)
    return race


async def error_for(session: ClientSession, request_id: int | None) -> ErrorMessage:
    """The next error pushed with ``request_id`` (None: one that could not read an id)."""
    return await session.next(ErrorMessage, lambda e: e.id == request_id, timeout=TIMEOUT)


def packed(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


# -- fixtures ------------------------------------------------------------


@pytest.fixture
async def race(node: str, clients: Clients) -> Race:
    return await running(clients, node)


# -- frames that are not messages ------------------------------------------

RawFrame = Callable[[str], bytes | str]
MALFORMED, INVALID = ErrorCode.MALFORMED_FRAME, ErrorCode.INVALID_FIELD
_PING = packed({"t": "ping", "id": 3})
_DEEP_LIST: Any = 1
for _ in range(8):
    _DEEP_LIST = [_DEEP_LIST]  # with the message map, 9 levels: one too many
_DEEP_MAP: Any = 1
for _ in range(200):
    _DEEP_MAP = {"a": _DEEP_MAP}
#: {t: "ping", x: [[[… nil …]]]} nested 5000 deep, past msgpack's own stack.
_NESTED_5000 = b"\x82\xa1t\xa4ping\xa1x" + b"\x91" * 5000 + b"\xc0"


def _ping(**fields: Any) -> RawFrame:
    return lambda race_id: packed({"t": "ping", "id": 3, **fields})


def _move(**fields: Any) -> RawFrame:
    """A move frame with ``fields`` changed; a field given as ``...`` is left out."""

    def frame(race_id: str) -> bytes:
        message = {"t": "move", "race": race_id, "seq": 0, "move": "deal", "id": 3, **fields}
        return packed({k: v for k, v in message.items() if v is not ...})

    return frame


def _create(**fields: Any) -> RawFrame:
    base = {"variant": VARIANT, "max_players": 2, "time_limit": 600, "spectate": "live"}
    return lambda race_id: packed({"t": "create_race", "id": 3, **base, **fields})


def _ready(**fields: Any) -> RawFrame:
    return lambda race_id: packed({"t": "ready", "race": race_id, "ready": True, "id": 3, **fields})


def _hello(**fields: Any) -> RawFrame:
    return lambda race_id: packed(
        {"t": "hello", "v": PROTOCOL_VERSION, "name": "Ann", "id": 3, **fields}
    )


def _frame(value: Any) -> RawFrame:
    return lambda race_id: value if isinstance(value, bytes | str) else packed(value)


def _case(name: str, frame: RawFrame, code: ErrorCode, request_id: int | None, words: str) -> Any:
    return pytest.param(frame, code, request_id, words, id=name)


BAD_FRAMES = [
    # name, frame (given the race id), code, the id the error carries, words in its message
    _case("not-msgpack", _frame(b"\xc1"), MALFORMED, None, "msgpack"),
    _case("empty", _frame(b""), MALFORMED, None, "msgpack"),
    _case("truncated", _frame(_PING[:-1]), MALFORMED, None, "msgpack"),
    _case("trailing-bytes", _frame(_PING + b"\xc0"), MALFORMED, None, "trailing"),
    _case("text-frame", _frame('{"t": "ping", "id": 3}'), MALFORMED, None, "text"),
    _case("array", _frame(["ping", 3]), MALFORMED, None, "map"),
    _case("int", _frame(7), MALFORMED, None, "map"),
    _case("nil", _frame(None), MALFORMED, None, "map"),
    _case("str", _frame(packed("ping")), MALFORMED, None, "map"),
    _case("int-key", _frame({"t": "ping", 3: 3}), MALFORMED, None, ""),
    _case("binary", _frame({"t": b"ping", "id": 3}), MALFORMED, None, ""),
    _case("extension", _ping(x=msgpack.ExtType(1, b"x")), MALFORMED, None, ""),
    _case("huge-array-header", _frame(b"\xdd\xff\xff\xff\xff"), MALFORMED, None, ""),
    _case("long-string", _ping(x="y" * 2000), MALFORMED, None, ""),
    _case("long-array", _ping(x=[0] * 65), MALFORMED, None, ""),
    _case("big-map", _ping(**{f"k{i}": i for i in range(40)}), MALFORMED, None, ""),
    _case("nested-9", _ping(x=_DEEP_LIST), MALFORMED, None, "nesting"),
    _case("nested-maps-200", _ping(x=_DEEP_MAP), MALFORMED, None, "nesting"),
    _case("nested-5000", _frame(_NESTED_5000), MALFORMED, None, "nesting"),
    # A map, but not a message.
    _case("unknown-t", _frame({"t": "teleport", "id": 3}), ErrorCode.UNKNOWN_TYPE, 3, "teleport"),
    _case("missing-t", _frame({"id": 3}), INVALID, 3, "t: missing"),
    _case("int-t", _frame({"t": 5, "id": 3}), INVALID, 3, "t: "),
    _case("missing-field", _move(seq=...), INVALID, 3, "move.seq: missing"),
    _case("nil-for-int", _move(seq=None), INVALID, 3, "move.seq"),
    _case("extra-field", _move(admin=True), INVALID, 3, "move.admin: unknown field"),
    _case("str-for-int", _move(seq="0"), INVALID, 3, "move.seq"),
    _case("bool-for-int", _move(seq=True), INVALID, 3, "move.seq"),
    _case("float-for-int", _move(seq=0.0), INVALID, 3, "move.seq"),
    _case("negative-seq", _move(seq=-1), INVALID, 3, "move.seq"),
    _case("huge-seq", _move(seq=MAX_SEQ + 1), INVALID, 3, "move.seq"),
    _case("int-for-str", _move(race=12345), INVALID, 3, "move.race"),
    _case("empty-race", _move(race=""), INVALID, 3, "move.race"),
    _case("long-move", _move(move="x" * 41), INVALID, 3, "move.move"),
    _case("int-for-bool", _ready(ready=1), INVALID, 3, "ready.ready"),
    _case("str-id", _ping(id="3"), INVALID, None, "ping.id"),
    _case("bool-id", _ping(id=True), INVALID, None, "ping.id"),
    _case("huge-id", _ping(id=2**31), INVALID, None, "ping.id"),
    _case("too-many-players", _create(max_players=9), INVALID, 3, "create_race.max_players"),
    _case("short-time-limit", _create(time_limit=29), INVALID, 3, "create_race.time_limit"),
    _case("unknown-policy", _create(spectate="sometimes"), INVALID, 3, "create_race.spectate"),
    _case("bool-for-deal", _create(deal=True), INVALID, 3, "create_race.deal"),
    _case("unprintable-name", _hello(name="a\nb"), INVALID, 3, "hello.name"),
    _case("hello-int-token", _hello(token=5), INVALID, 3, "hello.token"),
    _case("version", _hello(v=3), ErrorCode.UNSUPPORTED_VERSION, 3, "supported versions: 4"),
]


@pytest.mark.parametrize(("make_frame", "code", "request_id", "words"), BAD_FRAMES)
async def test_bad_frame_is_refused_and_changes_nothing(
    race: Race,
    store: Store,
    make_frame: RawFrame,
    code: ErrorCode,
    request_id: int | None,
    words: str,
) -> None:
    """A frame that is no valid message gets its error code; the connection goes on."""
    async with unchanged(store):
        await race.alice.send_raw(make_frame(race.id))
        error = await error_for(race.alice, request_id)
        assert error.code == code
        assert words in error.message
        await alive(race.alice)


async def test_unknown_variant_is_invalid(node: str, clients: Clients, store: Store) -> None:
    """A variant the server does not know is an invalid field, and creates no race."""
    alice = await clients.hello(node, "Alice")
    async with unchanged(store):
        message = await refused(
            alice,
            CreateRace(
                variant="no-such-dance", max_players=2, time_limit=60, spectate=SpectatePolicy.LIVE
            ),
            ErrorCode.INVALID_FIELD,
        )
    assert "no-such-dance" in message
    await alive(alice)


# -- frame size ------------------------------------------------------------


async def test_oversized_frame_is_refused_and_connection_survives(race: Race, store: Store) -> None:
    """A frame over the frame limit but under the websocket cap is a typed error."""
    limit = Limits().max_frame
    frame = packed({"t": "ping", "id": 3, "pad": "x" * (limit + 100)})
    assert limit < len(frame) < 4 * limit
    async with unchanged(store):
        await race.alice.send_raw(frame)
        error = await error_for(race.alice, None)
        assert error.code == ErrorCode.FRAME_TOO_LARGE
        assert str(limit) in error.message
        await alive(race.alice)


async def test_frame_over_websocket_cap_closes_connection(race: Race, store: Store) -> None:
    """A frame over four times the limit is cut off by the websocket layer with 1009."""
    limit = Limits().max_frame
    async with unchanged(store):
        await race.alice.send_raw(b"\x00" * (4 * limit + 1))
        assert await close_code(race.alice) == CLOSE_TOO_BIG
    await alive(race.bob)


# -- moves -----------------------------------------------------------------


async def test_illegal_move_is_refused_with_its_reason(race: Race, store: Store) -> None:
    """A well-formed move the rules refuse is illegal_move, saying why."""
    game = find_variant(VARIANT)
    opening = game.deal(DEAL)
    async with unchanged(store):
        for text in ("redeal", "w>f1", "zz>f1", "s>f3"):
            reason = game.explain(opening, Move.parse(text))
            message = await refused(
                race.alice, SubmitMove(race=race.id, seq=0, move=text), ErrorCode.ILLEGAL_MOVE
            )
            assert reason in message
    moved = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    assert moved.seq == 0


async def test_malformed_move_text_is_illegal(race: Race, store: Store) -> None:
    """Move text that names no move is illegal_move, and the racer can go on."""
    async with unchanged(store):
        for text in ("??", "w>>f3", "r:x>f2", "deal now"):
            message = await refused(
                race.alice, SubmitMove(race=race.id, seq=0, move=text), ErrorCode.ILLEGAL_MOVE
            )
            assert "not a move" in message
    await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)


async def test_stale_and_resent_sequence_numbers(race: Race, store: Store) -> None:
    """A resent move is answered as before and applied once; a different one is refused."""
    first = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    async with unchanged(store):
        again = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
        message = await refused(
            race.alice, SubmitMove(race=race.id, seq=0, move="redeal"), ErrorCode.BAD_SEQUENCE
        )
        assert "already" in message
    assert dataclasses.replace(again, id=first.id) == first
    assert await store.boards.log(race.id, race.alice.player) == ["deal"]
    # Bob hears of the move once, not twice.
    await race.bob.next(Progress, lambda p: p.player == race.alice.player, timeout=TIMEOUT)
    await alive(race.bob)
    assert not [m for m in race.bob.received if isinstance(m, Progress)]


async def test_future_sequence_number_names_the_expected_one(race: Race, store: Store) -> None:
    """A seq ahead of the server's count is bad_sequence naming the expected seq."""
    await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    async with unchanged(store):
        for seq in (2, 5, MAX_SEQ):
            message = await refused(
                race.alice, SubmitMove(race=race.id, seq=seq, move="deal"), ErrorCode.BAD_SEQUENCE
            )
            assert "expected move 1" in message
    assert await store.boards.log(race.id, race.alice.player) == ["deal"]


async def test_outsiders_cannot_move(race: Race, clients: Clients, store: Store) -> None:
    """Someone not racing cannot move or resign in another player's race."""
    carol = await clients.hello(race.url, "Carol")
    async with unchanged(store):
        await refused(carol, SubmitMove(race=race.id, seq=0, move="deal"), ErrorCode.NOT_A_RACER)
        await refused(carol, Resign(race=race.id), ErrorCode.NOT_A_RACER)
        await refused(carol, SubmitMove(race="nosuchrace", seq=0, move="deal"), ErrorCode.NOT_FOUND)
        await refused(carol, Resign(race="nosuchrace"), ErrorCode.NOT_FOUND)
    await alive(carol)


async def test_spectator_cannot_move(race: Race, clients: Clients, store: Store) -> None:
    """A spectator's move is not_allowed."""
    carol = await clients.hello(race.url, "Carol")
    await carol.request(Spectate(race=race.id), Spectating)
    async with unchanged(store):
        await refused(carol, SubmitMove(race=race.id, seq=0, move="deal"), ErrorCode.NOT_ALLOWED)
    await alive(carol)


async def test_racer_cannot_spectate_own_running_race(race: Race, store: Store) -> None:
    """A racer asking to spectate their own race is refused and still races."""
    async with unchanged(store):
        await refused(race.alice, Spectate(race=race.id), ErrorCode.NOT_ALLOWED)
    await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    await race.bob.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    # Alice still follows the race as a racer: she hears Bob's progress.
    await race.alice.next(Progress, lambda p: p.player == race.bob.player, timeout=TIMEOUT)


async def test_racer_cannot_spectate_own_open_race(node: str, clients: Clients) -> None:
    """Spectating one's own race is refused in the lobby too, and the racer still races."""
    race = await lobby(clients, node)
    await refused(race.bob, Spectate(race=race.id), ErrorCode.NOT_ALLOWED)
    await race.alice.request(StartRace(race=race.id), RaceInfo)
    started = await race.bob.next(RaceStarted, timeout=TIMEOUT)
    await race.bob.request(SubmitMove(race=race.id, seq=0, move=started.legal[0]), Moved)


async def test_moves_after_the_race_are_refused(race: Race, store: Store) -> None:
    """Once a racer's game or the race is over, moves and resignations are race_over."""
    await race.bob.request(Resign(race=race.id), RaceInfo)
    async with unchanged(store):
        await refused(race.bob, SubmitMove(race=race.id, seq=0, move="deal"), ErrorCode.RACE_OVER)
        await refused(race.bob, Resign(race=race.id), ErrorCode.RACE_OVER)
    await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    await race.alice.request(Resign(race=race.id), RaceInfo)
    for racer in (race.alice, race.bob):
        await racer.next(RaceFinished, timeout=TIMEOUT)
    # The post-race analysis is stored and announced after the results: let it land first.
    await race.alice.next(RaceAnalysed, timeout=TIMEOUT)
    async with unchanged(store):
        for racer, seq in ((race.alice, 1), (race.bob, 0)):
            await refused(
                racer, SubmitMove(race=race.id, seq=seq, move="deal"), ErrorCode.RACE_OVER
            )
            await refused(racer, Resign(race=race.id), ErrorCode.RACE_OVER)
    await alive(race.alice)


async def test_moves_during_the_countdown_are_refused(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Before the clock starts, moves are race_not_open, and so is the lobby."""
    async with make_node(timeouts=Timeouts(countdown=30)) as url:
        race = await lobby(clients, url)
        await race.alice.request(StartRace(race=race.id), RaceInfo)
        countdown = await race.bob.next(Countdown, timeout=TIMEOUT)
        assert countdown.seconds > 0
        carol = await clients.hello(url, "Carol")
        async with unchanged(store):
            for racer in (race.alice, race.bob):
                await refused(
                    racer, SubmitMove(race=race.id, seq=0, move="deal"), ErrorCode.RACE_NOT_OPEN
                )
            await refused(race.alice, StartRace(race=race.id), ErrorCode.RACE_NOT_OPEN)
            await refused(race.bob, Ready(race=race.id, ready=True), ErrorCode.RACE_NOT_OPEN)
            await refused(race.bob, LeaveRace(race=race.id), ErrorCode.RACE_NOT_OPEN)
            await refused(carol, JoinRace(code=race.code), ErrorCode.RACE_NOT_OPEN)
        await alive(race.alice)


# -- the lobby -------------------------------------------------------------


async def test_lobby_refusals(node: str, clients: Clients, store: Store) -> None:
    """Non-hosts cannot start, full races cannot be joined, unknown races are not_found."""
    race = await lobby(clients, node)
    carol = await clients.hello(node, "Carol")
    async with unchanged(store):
        await refused(race.bob, StartRace(race=race.id), ErrorCode.NOT_HOST)
        await refused(carol, StartRace(race=race.id), ErrorCode.NOT_HOST)
        await refused(carol, JoinRace(code=race.code), ErrorCode.RACE_FULL)
        await refused(carol, JoinRace(race=race.id), ErrorCode.RACE_FULL)
        await refused(carol, JoinRace(code="NOSUCH"), ErrorCode.NOT_FOUND)
        await refused(carol, JoinRace(race="nosuchrace"), ErrorCode.NOT_FOUND)
        await refused(carol, StartRace(race="nosuchrace"), ErrorCode.NOT_FOUND)
        await refused(carol, Spectate(race="nosuchrace"), ErrorCode.NOT_FOUND)
        await refused(carol, Resume(race="nosuchrace", since=0), ErrorCode.NOT_FOUND)
        await refused(carol, Ready(race=race.id, ready=True), ErrorCode.NOT_A_RACER)
        await refused(carol, LeaveRace(race=race.id), ErrorCode.NOT_A_RACER)
        await refused(
            race.alice, SubmitMove(race=race.id, seq=0, move="deal"), ErrorCode.RACE_NOT_OPEN
        )
        await refused(race.alice, Resign(race=race.id), ErrorCode.RACE_NOT_OPEN)
    for session in (race.alice, race.bob, carol):
        await alive(session)


# -- sessions --------------------------------------------------------------


async def test_messages_before_hello_are_not_authenticated(
    node: str, clients: Clients, store: Store
) -> None:
    """Anything but hello first is not_authenticated with its id; hello then works."""
    race = await lobby(clients, node)
    stranger = await clients.raw(node)
    async with unchanged(store):
        await refused(stranger, Ping(), ErrorCode.NOT_AUTHENTICATED)
        await refused(stranger, ListRaces(), ErrorCode.NOT_AUTHENTICATED)
        await refused(stranger, JoinRace(code=race.code), ErrorCode.NOT_AUTHENTICATED)
        await refused(
            stranger,
            CreateRace(variant=VARIANT, max_players=2, time_limit=60, spectate=SpectatePolicy.LIVE),
            ErrorCode.NOT_AUTHENTICATED,
        )
    await stranger.request(Hello(v=PROTOCOL_VERSION, name="Dora"), Welcome)
    await stranger.request(ListRaces(), Races)


async def test_second_hello_is_not_allowed(node: str, clients: Clients, store: Store) -> None:
    """A connection says hello once; a second one changes nothing."""
    alice = await clients.hello(node, "Alice")
    assert alice.welcome is not None
    async with unchanged(store):
        await refused(alice, Hello(v=PROTOCOL_VERSION, name="Eve"), ErrorCode.NOT_ALLOWED)
        await refused(
            alice,
            Hello(v=PROTOCOL_VERSION, name="Eve", token=alice.welcome.token),
            ErrorCode.NOT_ALLOWED,
        )
    await alive(alice)


async def test_unknown_token_is_bad_token(node: str, clients: Clients, store: Store) -> None:
    """A hello with a token that names no session is bad_token; a plain hello then works."""
    await clients.hello(node, "Alice")  # so there is a session that must not change
    stranger = await clients.raw(node)
    async with unchanged(store):
        await refused(
            stranger, Hello(v=PROTOCOL_VERSION, name="Eve", token="x" * 32), ErrorCode.BAD_TOKEN
        )
        await refused(stranger, Ping(), ErrorCode.NOT_AUTHENTICATED)
    await stranger.request(Hello(v=PROTOCOL_VERSION, name="Eve"), Welcome)
    await alive(stranger)


# -- floods and limits -------------------------------------------------------


async def test_flood_is_rate_limited_then_disconnected(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Past the burst each message is rate_limited with its id; too many strikes close."""
    limits = Limits(rate=5, burst=5, flood_strikes=20)
    async with make_node(limits=limits) as url:
        flooder = await clients.hello(url, "Flo")
        async with unchanged(store):
            for i in range(1, 11):
                await flooder.send_raw(packed({"t": "list_races" if i % 2 else "ping", "id": i}))
            replies = [
                await flooder.next(ServerMessage, functools.partial(_answers, i), TIMEOUT)
                for i in range(1, 11)
            ]
            limited = [m for m in replies if isinstance(m, ErrorMessage)]
            assert limited, "the burst was never exceeded"
            assert all(m.code == ErrorCode.RATE_LIMITED for m in limited)
            assert not isinstance(replies[0], ErrorMessage), "the burst let nothing through"
            # Still connected after fewer strikes than the limit; keep flooding.
            with contextlib.suppress(ConnectionClosed):
                for i in range(11, 11 + 2 * limits.flood_strikes):
                    await flooder.send_raw(packed({"t": "ping", "id": i}))
            assert await close_code(flooder) == CLOSE_POLICY


async def test_connections_per_address_are_capped(make_node: NodeFactory, clients: Clients) -> None:
    """The connection past the per-address cap is closed with 1013; closing one frees a slot."""
    async with make_node(limits=Limits(connections_per_address=2)) as url:
        first = await clients.hello(url, "One")
        await clients.hello(url, "Two")
        third = await clients.raw(url)
        assert await close_code(third) == CLOSE_TRY_AGAIN
        await first.close()
        # The server frees the slot as soon as it has noticed the close.
        for _ in range(100):
            with contextlib.suppress(ConnectionError, ConnectionClosed):
                await clients.hello(url, "Four")
                break
        else:
            pytest.fail("the closed connection's slot was never freed")


async def test_idle_connections_are_closed(make_node: NodeFactory, clients: Clients) -> None:
    """A connection silent too long, before or after hello, is closed by the server."""
    async with make_node(timeouts=Timeouts(idle=0.5, hello=0.5, countdown=0)) as url:
        mute = await clients.raw(url)
        quiet = await clients.hello(url, "Quiet")
        codes = await asyncio.gather(close_code(mute), close_code(quiet))
        assert list(codes) == [CLOSE_POLICY, CLOSE_POLICY]


# -- a client that vanishes ------------------------------------------------


async def test_vanished_racer_resumes_and_others_play_on(
    race: Race, clients: Clients, store: Store
) -> None:
    """A racer whose socket dies is no error; the other plays on; the token resumes."""
    node = NODES[race.url]
    bob_first = await race.bob.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    seen = await race.alice.next(Progress, lambda p: p.player == race.bob.player, TIMEOUT)
    last = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
    (server_side,) = [c for c in node.connections if c.player == race.alice.player]
    assert race.alice.welcome is not None
    token = race.alice.welcome.token

    race.alice.ws.transport.abort()  # no close frame, no FIN: the client is just gone
    await asyncio.wait_for(server_side.ws.wait_closed(), TIMEOUT)

    bob_next = await race.bob.request(
        SubmitMove(race=race.id, seq=1, move=bob_first.legal[0]), Moved
    )
    alice = await clients.hello(race.url, "Alice", token=token)
    assert alice.player == race.alice.player
    resumed = await alice.request(Resume(race=race.id, since=seen.event), RaceStarted)
    assert (resumed.view, resumed.legal) == (last.view, last.legal)
    caught_up = await alice.next(Progress, lambda p: p.player == race.bob.player, TIMEOUT)
    assert caught_up.progress == bob_next.progress
    moved = await alice.request(SubmitMove(race=race.id, seq=1, move=last.legal[0]), Moved)
    assert moved.seq == 1
    assert server_side not in node.connections
    assert await store.boards.log(race.id, race.alice.player) == ["deal", last.legal[0]]


def _answers(request: int, message: ServerMessage) -> bool:
    return message.id == request

"""A protocol fuzzer against a live node: over 100,000 hostile frames, and nothing breaks.

The corpus is made up front and deterministically (hypothesis with
``derandomize=True`` for the messages, ``random.Random`` with a fixed seed
for the bytes): client messages valid and mutated (wrong types, fields
missing or added, unknown ``t``), arbitrary msgpack values, truncated and
bit-flipped frames, random bytes and text frames. It goes out pipelined over
a few connections, one of them a racer in a running race, two of them before
hello, while a reader per connection decodes and counts every reply.

What must hold afterwards: every frame got exactly the replies its request
id calls for, every reply decodes, no error is ``internal`` or quotes a
traceback, nothing was logged as an error, a fresh connection is answered,
the race under way can still be played, and every racer's board in Redis is
what replaying their log from the race's seed gives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import decode_client, decode_server, encode
from protocol.exceptions import ErrorCode, RemoteProtocolError
from protocol.messages import (
    MAX_ID,
    ErrorMessage,
    Hello,
    JoinRace,
    Moved,
    Ping,
    RaceInfo,
    RaceStarted,
    ServerMessage,
    StartRace,
    SubmitMove,
)
from protocol.version import PROTOCOL_VERSION
from server.engine import State, find_variant
from server.settings import Limits
from server.store import Store
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.test_abuse import Clients, alive, lobby

SENTINEL = MAX_ID  # the id of the ping that closes each connection's stream
EXAMPLES, PER_EXAMPLE = 200, 50  # hypothesis-made frames: 10,000
MUTANTS, RAW = 70_000, 21_000  # truncated / bit-flipped frames; random bytes and text
LEAKS = ("Traceback", 'File "')

# -- the corpus ------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=50),
    st.binary(max_size=20),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=6,
)


def _fields(race: str, code: str, moves: list[str]) -> dict[str, dict[str, st.SearchStrategy[Any]]]:
    """Valid-looking values for each client message's fields, aimed at the live race."""
    race_ids = st.sampled_from([race, race, "nosuchrace", "x"]) | st.text(min_size=1, max_size=40)
    move_texts = st.sampled_from([*moves, "deal", "redeal", "w>f1", "p5>x"]) | st.text(
        min_size=1, max_size=40
    )
    seqs = st.integers(0, 6) | st.integers(0, 100_000)
    return {
        "hello": {"v": st.integers(0, 3), "name": st.sampled_from(["Fuzz", " x", "Ann"]),
                  "token": st.none() | st.text(min_size=1, max_size=64)},
        "list_races": {},
        "create_race": {
            "variant": st.sampled_from(["quadrille", "royal-cotillion", "nope"]),
            "max_players": st.integers(0, 9), "time_limit": st.integers(29, 7201),
            "spectate": st.sampled_from(["live", "delayed", "after", "LIVE"]),
            "delay": st.integers(0, 601), "deal": st.none() | st.integers(0, 2**64 - 1),
        },
        "join_race": {"race": st.none() | race_ids,
                      "code": st.none() | st.sampled_from([code, "NOSUCH"])},
        "leave_race": {"race": race_ids},
        "ready": {"race": race_ids, "ready": st.booleans()},
        "start_race": {"race": race_ids},
        "move": {"race": race_ids, "seq": seqs, "move": move_texts},
        "resign": {"race": st.sampled_from(["nosuchrace", race + "x"])},  # keep the racer racing
        "spectate": {"race": race_ids},
        "resume": {"race": race_ids, "since": st.integers(0, 2**63 - 1)},
        "replay": {"race": race_ids, "player": st.text(min_size=1, max_size=40)},
        "ping": {},
    }  # fmt: skip


@st.composite
def _message(draw: st.DrawFn, fields: dict[str, dict[str, st.SearchStrategy[Any]]]) -> Any:
    """A client message map, valid or mutated, or any msgpack value at all."""
    t = draw(st.sampled_from(sorted(fields)))
    message: dict[str, Any] = {"t": t}
    for name, strategy in fields[t].items():
        value = draw(strategy)
        if value is not None:
            message[name] = value
    if draw(st.booleans()):
        message["id"] = draw(st.integers(0, SENTINEL - 1))
    mutation = draw(st.sampled_from(["none", "none", "type", "drop", "extra", "t", "value"]))
    if mutation == "type" and len(message) > 1:
        message[draw(st.sampled_from(sorted(message)))] = draw(_values)
    elif mutation == "drop":
        message.pop(draw(st.sampled_from(sorted(message))))
    elif mutation == "extra":
        message[draw(st.text(max_size=10))] = draw(_values)
    elif mutation == "t":
        message["t"] = draw(st.text(max_size=12) | _scalars)
    elif mutation == "value":
        return draw(_values)
    return message


def _pack(value: Any) -> bytes:
    try:
        frame: bytes = msgpack.packb(value, use_bin_type=True)
    except (TypeError, ValueError, OverflowError):
        frame = b"\xc1"  # msgpack's one never-used byte
    return frame


def hypothesis_frames(race: str, code: str, moves: list[str]) -> tuple[list[bytes], list[bytes]]:
    """Frames drawn by hypothesis, the same on every run: any message, and the racer's moves.

    The racer's are plausible moves in the live race with small ``seq``
    values, so that some of them are applied and the final replay checks them.
    """
    frames: list[bytes] = []
    racer: list[bytes] = []
    strategy = st.lists(
        _message(_fields(race, code, moves)), min_size=PER_EXAMPLE, max_size=PER_EXAMPLE
    )
    racer_moves = st.lists(
        st.fixed_dictionaries(
            {"t": st.just("move"), "race": st.just(race), "seq": st.integers(0, 30),
             "move": st.sampled_from(moves)},
            optional={"id": st.integers(0, SENTINEL - 1)},
        ),
        min_size=10,
        max_size=10,
    )  # fmt: skip

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy, racer_moves)
    def collect(messages: list[Any], racing: list[dict[str, Any]]) -> None:
        frames.extend(_pack(message) for message in messages)
        racer.extend(_pack(message) for message in racing)

    collect()
    return frames, racer


def raw_frames(structured: list[bytes], seed: int = 6) -> list[bytes | str]:
    """Truncated and bit-flipped copies of real frames, random bytes, text frames."""
    rng = random.Random(seed)
    frames: list[bytes | str] = []
    for _ in range(MUTANTS):
        frame = bytearray(rng.choice(structured))
        if rng.random() < 0.5 and len(frame) > 1:
            frames.append(bytes(frame[: rng.randrange(len(frame))]))
        else:
            for _ in range(rng.randint(1, 3)):
                frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
            frames.append(bytes(frame))
    for i in range(RAW):
        if i % 50 == 0:
            frames.append("".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(20))))
        else:
            frames.append(rng.randbytes(rng.randrange(0, 80)))
    return frames


def expected_id(frame: bytes | str) -> int | None:
    """The id the server's reply to this frame must carry (decoded as the server does)."""
    try:
        return decode_client(frame).id
    except RemoteProtocolError as exc:
        return exc.request_id


# -- the connections ---------------------------------------------------------


class FuzzConnection:
    """One connection: frames go out without waiting; a reader checks every reply."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids: Counter[int | None] = Counter()
        self.expected: Counter[int | None] = Counter()
        self.frames = 0
        self.problems: list[str] = []
        self.done = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            self.frames += 1
            try:
                message = decode_server(frame)
            except RemoteProtocolError as exc:
                self.problems.append(f"undecodable reply {frame[:80]!r}: {exc}")
                continue
            self._check(message)
            if message.id is not None:
                self.ids[message.id] += 1
                if message.id == SENTINEL and self.ids[SENTINEL] >= self.expected[SENTINEL]:
                    self.done.set()

    def _check(self, message: ServerMessage) -> None:
        if isinstance(message, ErrorMessage):
            if message.code is ErrorCode.INTERNAL:
                self.problems.append(f"internal error: {message.message}")
            if any(leak in message.message for leak in LEAKS):
                self.problems.append(f"traceback leaked: {message.message}")

    async def fuzz(self, frames: list[bytes | str]) -> None:
        """Send every frame, then the sentinel ping; wait until its reply is in."""
        for frame in [*frames, encode(Ping(id=SENTINEL))]:
            if isinstance(frame, bytes):
                self.expected[expected_id(frame)] += 1
            else:
                self.expected[None] += 1
            await self.ws.send(frame)
        await asyncio.wait_for(self.done.wait(), 6 * TIMEOUT)

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(Exception):
            await self.reader


async def open_connection(
    url: str, *, hello: bool = True, token: str | None = None
) -> FuzzConnection:
    """A connection, signed in (as the session of ``token``, if given) unless ``hello`` is off."""
    ws = await connect(url, compression=None, max_size=2**20)
    if hello:
        await ws.send(encode(Hello(v=PROTOCOL_VERSION, name="Fuzz", token=token, id=0)))
        welcome = decode_server(await ws.recv())
        assert welcome.t == "welcome", welcome
    return FuzzConnection(ws)


# -- checks ------------------------------------------------------------------


async def verify_every_race(store: Store) -> int:
    """Replay every racer's log from its race's seed; the stored board must match."""
    boards_checked = 0
    async for key in store.redis.scan_iter(match="race:{*}:boards"):
        race = key.decode()[len("race:{") : -len("}:boards")]
        meta = await store.meta(race)
        game = find_variant(meta["variant"])
        boards = await store.boards(race)
        players = [name[len("seq:") :] for name in boards if name.startswith("seq:")]
        for player in players:
            log = await store.log(race, player)
            assert len(log) == int(boards[f"seq:{player}"])
            replayed = game.replay(int(meta["seed"]), log, int(meta["deal_version"]))
            stored = State.from_data(msgpack.unpackb(boards[f"state:{player}"], raw=False))
            assert replayed == stored, (race, player, log)
            boards_checked += 1
    return boards_checked


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """No frame, however hostile, may look like a server failure in the logs."""
    yield
    errors = [
        record
        for record in caplog.get_records("call")
        if record.levelno >= logging.ERROR
        and record.name.split(".")[0] in ("server", "websockets", "asyncio")
    ]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]


async def test_fuzzed_frames_break_nothing(make_node: NodeFactory, store: Store) -> None:
    """100,000+ hostile frames: every one answered, no leak, no crash, every race replays."""
    limits = Limits(rate=1e9, burst=10**9, flood_strikes=10**9, outbox=2**28)
    clients = Clients()
    connections: list[FuzzConnection] = []
    async with make_node(limits=limits) as url:
        try:
            race = await lobby(clients, url, max_players=3)
            # A third racer whose token a fuzzing connection uses: its fuzzed moves count.
            mallory = await clients.hello(url, "Mallory")
            await mallory.request(JoinRace(code=race.code), RaceInfo)
            await race.alice.request(StartRace(race=race.id), RaceInfo)
            for racer in (race.alice, race.bob, mallory):
                await racer.next(RaceStarted, timeout=TIMEOUT)
            assert mallory.welcome is not None
            started = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
            moves = sorted({*started.legal, "deal"})
            structured, racer_moves = hypothesis_frames(race.id, race.code, moves)
            frames: list[bytes | str] = [*structured, *raw_frames(structured)]
            assert len(frames) >= 100_000
            random.Random(7).shuffle(frames)
            connections.append(await open_connection(url, token=mallory.welcome.token))
            connections += [await open_connection(url) for _ in range(3)]
            connections += [await open_connection(url, hello=False) for _ in range(2)]
            share = len(frames) // len(connections)
            shares = [frames[i * share : (i + 1) * share] for i in range(len(connections))]
            shares[0] += racer_moves  # connections[0] is Mallory's
            random.Random(8).shuffle(shares[0])
            pairs = zip(connections, shares, strict=True)
            await asyncio.gather(*(conn.fuzz(part) for conn, part in pairs))
            for conn in connections:
                assert not conn.problems, conn.problems[:5]
                assert conn.ids == +Counter(
                    {k: v for k, v in conn.expected.items() if k is not None}
                )
            total = sum(conn.frames for conn in connections)
            # Fuzzed moves reached the racer's game, so the replay below checks them.
            assert await store.log(race.id, mallory.player)
            assert total >= len(frames)

            # The node still serves: a newcomer, and the race under way.
            newcomer = await clients.hello(url, "Newcomer")
            await alive(newcomer)
            moved = await race.alice.request(
                SubmitMove(race=race.id, seq=1, move=started.legal[0]), Moved
            )
            await race.bob.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
            assert moved.seq == 1
        finally:
            for conn in connections:
                await conn.close()
            await clients.close()
    assert await verify_every_race(store) >= 3

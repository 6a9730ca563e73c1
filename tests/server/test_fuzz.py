"""A protocol fuzzer against a live node: over 100,000 hostile frames, and nothing breaks.

The corpus is made up front and deterministically (hypothesis with
``derandomize=True`` for the messages, ``random.Random`` with a fixed seed
for the bytes): client messages valid and mutated (wrong types, fields
missing or added, unknown ``t``), arbitrary msgpack values, truncated and
bit-flipped frames, random bytes and text frames. The messages aim at a live
race and at a live tournament: one running, its first stage's race under way,
and one open with an entry password. They go out pipelined over a few
connections, one of them a racer in the race and an entrant seated in the
tournament's race, one the tournament's host (pausing and resuming it), two
of them before hello, while a reader per connection decodes and counts every
reply.

What must hold afterwards: every frame got exactly the replies its request
id calls for, every reply decodes, no error is ``internal`` or quotes a
traceback, nothing was logged as an error, a fresh connection is answered,
both races under way can still be played, every racer's board in Redis is
what replaying their log from the race's seed gives, and each tournament's
document is well-formed, its record verifying once the host has cancelled it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
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

from client.session import ClientSession
from protocol.codec import decode_client, decode_server, encode
from protocol.exceptions import ErrorCode, RemoteProtocolError
from protocol.messages import (
    MAX_ID,
    Account,
    CreateTournament,
    ErrorMessage,
    Hello,
    JoinRace,
    JoinTournament,
    ManageTournament,
    Moved,
    Ping,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Register,
    Resume,
    ServerMessage,
    SpectatePolicy,
    StartRace,
    SubmitMove,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
)
from protocol.tournaments import TournamentStatus
from protocol.version import PROTOCOL_VERSION
from server.engine import find_variant
from server.rules.record import verify
from server.settings import Limits
from server.storage.races import RaceMeta
from server.storage.store import Store
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.faults import assert_snapshot_replays
from tests.server.refusals import VARIANT, alive, lobby

pytestmark = pytest.mark.slow

SENTINEL = MAX_ID  # the id of the ping that closes each connection's stream
EXAMPLES, PER_EXAMPLE = 200, 50  # hypothesis-made frames: 10,000
PASSWORD = "waltz"  # the open tournament's
ANN_PASSWORD = "the one account's password"  # never among the fuzzed ones
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


@dataclasses.dataclass(frozen=True)
class Targets:
    """What the fuzzed messages aim at: the live race, and the tournaments with their race."""

    race: str
    code: str
    moves: list[str]  # plausible moves in the race
    cup: str  # the running tournament
    cup_code: str
    table: str  # the race of its first stage
    table_moves: list[str]
    open_cup: str  # the open one, with an entry password
    open_code: str
    entrants: list[str]


def _fields(aim: Targets) -> dict[str, dict[str, st.SearchStrategy[Any]]]:
    """Valid-looking values for each client message's fields, aimed at the live targets."""
    race, code = aim.race, aim.code
    race_ids = st.sampled_from([race, race, aim.table, "nosuchrace", "x"]) | st.text(
        min_size=1, max_size=40
    )
    move_texts = st.sampled_from(
        [*aim.moves, *aim.table_moves, "deal", "redeal", "w>f1", "p5>x"]
    ) | st.text(min_size=1, max_size=40)
    seqs = st.integers(0, 6) | st.integers(0, 100_000)
    cups = st.sampled_from([aim.cup, aim.cup, aim.open_cup, "Tnosuch", "x"]) | st.text(
        min_size=1, max_size=40
    )
    cup_codes = st.sampled_from([aim.cup_code, aim.open_code.lower(), "NOSUCH"]) | st.text(
        min_size=1, max_size=12
    )
    maybe = st.none
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
        "create_tournament": {
            "name": st.sampled_from(["Cup", " x", ""]) | st.text(max_size=41),
            "format": st.sampled_from(["rounds", "knockout", "swiss"]),
            "variants": st.lists(st.sampled_from(["quadrille", "gavotte", "nope"]), max_size=3),
            "time_limit": st.integers(29, 7201), "rounds": maybe() | st.integers(0, 51),
            "best_of": maybe() | st.integers(0, 10), "table_size": maybe() | st.integers(1, 9),
            "spectate": maybe() | st.sampled_from(["live", "delayed", "after", "LIVE"]),
            "delay": maybe() | st.integers(0, 601), "break_seconds": maybe() | st.integers(0, 601),
            "grace": maybe() | st.integers(0, 3601),
            "password": maybe() | st.text(min_size=1, max_size=65),
        },
        "list_tournaments": {},
        "join_tournament": {"tournament": maybe() | cups, "code": maybe() | cup_codes,
                            "password": maybe() | st.sampled_from([PASSWORD, "tango"])},
        "leave_tournament": {"tournament": cups},
        "watch_tournament": {"tournament": maybe() | cups, "code": maybe() | cup_codes},
        "manage_tournament": {
            "tournament": cups,
            "action": st.sampled_from(["start", "pause", "resume", "cancel", "remove", "stop"]),
            "player": maybe() | st.sampled_from(aim.entrants) | st.text(min_size=1, max_size=40),
        },
        "get_tournament_record": {"tournament": maybe() | cups, "code": maybe() | cup_codes},
        # Ann's account exists and its password is never drawn: no connection changes identity.
        "register": {"name": st.sampled_from(["Ann", "ann", "ＡＮＮ", "\u0410nn", " x", ""]),
                     "password": st.text(max_size=130)},
        "login": {"name": st.sampled_from(["Ann", "Nobody", " x"]) | st.text(max_size=25),
                  "password": st.text(max_size=130)},
        "logout": {"everywhere": maybe() | st.booleans()},
        "quick_race": {"variant": st.sampled_from(["quadrille", "gavotte", "nope"]),
                       "size": maybe() | st.integers(0, 9)},
        "leave_queue": {},
        "get_profile": {"player": maybe() | st.sampled_from(aim.entrants) | st.text(max_size=41)},
        "get_leaderboard": {"variant": st.sampled_from(["quadrille", "overall", "nope"])},
        "rematch": {"race": race_ids},
        "get_daily": {"variant": st.sampled_from(["quadrille", "gavotte", "nope"])},
        "play_daily": {"variant": st.sampled_from(["quadrille", "nope"])},
        "get_results": {"race": race_ids},
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


def hypothesis_frames(aim: Targets) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Frames drawn by hypothesis, the same on every run: any message, the racer's moves,
    and the tournament host's controls.

    The racer's are plausible moves in the live race and in the tournament's
    race with small ``seq`` values, so that some of them are applied and the
    final replay checks them. The host pauses, resumes, starts again, and
    removes someone who never entered; never cancels, nor removes an entrant.
    """
    frames: list[bytes] = []
    racer: list[bytes] = []
    host: list[bytes] = []
    strategy = st.lists(_message(_fields(aim)), min_size=PER_EXAMPLE, max_size=PER_EXAMPLE)
    ids = {"id": st.integers(0, SENTINEL - 1)}
    racer_moves = st.lists(
        st.fixed_dictionaries(
            {"t": st.just("move"), "race": st.just(aim.race), "seq": st.integers(0, 30),
             "move": st.sampled_from(aim.moves)}, optional=ids,
        )
        | st.fixed_dictionaries(
            {"t": st.just("move"), "race": st.just(aim.table), "seq": st.integers(0, 30),
             "move": st.sampled_from(aim.table_moves)}, optional=ids,
        ),
        min_size=10,
        max_size=10,
    )  # fmt: skip
    host_controls = st.lists(
        st.fixed_dictionaries(
            {"t": st.just("manage_tournament"), "tournament": st.just(aim.cup),
             "action": st.sampled_from(["pause", "resume", "start"])}, optional=ids,
        )
        | st.fixed_dictionaries(
            {"t": st.just("manage_tournament"), "tournament": st.just(aim.cup),
             "action": st.just("remove"), "player": st.text(min_size=1, max_size=40)},
            optional=ids,
        ),
        min_size=1,
        max_size=1,
    )  # fmt: skip

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy, racer_moves, host_controls)
    def collect(
        messages: list[Any], racing: list[dict[str, Any]], controls: list[dict[str, Any]]
    ) -> None:
        frames.extend(_pack(message) for message in messages)
        racer.extend(_pack(message) for message in racing)
        host.extend(_pack(message) for message in controls)

    collect()
    return frames, racer, host


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
        self.kinds: Counter[str] = Counter()  # replies by type, errors by code
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
            code = message.code if isinstance(message, ErrorMessage) else None
            self.kinds[message.t if code is None else f"error:{code}"] += 1
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
        meta = await store.races.meta(race)
        assert meta is not None
        game = find_variant(meta.settings.variant)
        boards = await store.boards.racers(race)
        for player, board in boards.items():
            log = await store.boards.log(race, player)
            assert_snapshot_replays(game, meta, board, log)
            boards_checked += 1
    return boards_checked


def check_tournament(record: dict[str, Any], metas: dict[str, RaceMeta | None]) -> int:
    """A tournament's document holds together, and its record verifies; returns the
    number of races it has. ``metas`` holds each of its races' meta from Redis."""
    doc = record["tournament"]
    assert TournamentStatus(doc["status"])
    entrants = [e["player"] for e in doc["entrants"]]
    assert len(entrants) == len(set(entrants))
    if doc["standings"]:
        assert sorted(s["player"] for s in doc["standings"]) == sorted(entrants)
    races = 0
    for n, stage in enumerate(doc["stages"], 1):
        assert stage["n"] == n and stage["status"] in ("running", "done", "cancelled")
        for race in stage["races"]:
            meta = metas[race["race"]]
            assert meta and meta.settings.tournament == doc["id"], race["race"]
            assert set(race["players"]) <= set(entrants)
            if stage["status"] != "running":
                assert race["race"] in record["races"], race["race"]
            races += 1
    assert verify(record) == []
    return races


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


async def tournaments(
    clients: Clients, url: str, mallory: ClientSession
) -> tuple[Targets, ClientSession]:
    """A running tournament with Mallory seated (one move made), and an open one; their host."""
    host = await clients.hello(url, "Hana")
    zed = await clients.hello(url, "Zed")
    settings: dict[str, Any] = {
        "format": TournamentFormat.ROUNDS, "variants": [VARIANT], "time_limit": 600,
        "spectate": SpectatePolicy.LIVE, "delay": 0, "break_seconds": 0, "grace": 3600,
    }  # fmt: skip
    cup = (await host.request(CreateTournament(name="Cup", **settings), TournamentInfo)).tournament
    opened = CreateTournament(name="Open", password=PASSWORD, **settings)
    open_cup = (await host.request(opened, TournamentInfo)).tournament
    for entrant in (mallory, zed):
        await entrant.request(JoinTournament(code=cup.code), TournamentInfo)
    start = ManageTournament(tournament=cup.id, action=TournamentAction.START)
    running = (await host.request(start, TournamentInfo)).tournament
    (table,) = [race.race for race in running.stages[0].races]
    started = await mallory.request(Resume(race=table, since=0), RaceStarted)
    moved = await mallory.request(SubmitMove(race=table, seq=0, move=started.legal[0]), Moved)
    aim = Targets(
        race="", code="", moves=[], cup=cup.id, cup_code=cup.code, table=table,
        table_moves=sorted({*started.legal, *moved.legal}), open_cup=open_cup.id,
        open_code=open_cup.code, entrants=[mallory.player, zed.player],
    )  # fmt: skip
    return aim, host


async def test_fuzzed_frames_break_nothing(make_node: NodeFactory, store: Store) -> None:
    """100,000+ hostile frames: every one answered, no leak, no crash, every race replays,
    every tournament holds together."""
    limits = Limits(rate=1e9, burst=10**9, flood_strikes=10**9, outbox=2**28)
    clients = Clients()
    connections: list[FuzzConnection] = []
    async with make_node(limits=limits) as url:
        try:
            race = await lobby(clients, url, max_players=3)
            ann = await clients.hello(url, "Ann")
            await ann.request(Register(name="Ann", password=ANN_PASSWORD), Account)
            # A third racer whose token a fuzzing connection uses: its fuzzed moves count.
            mallory = await clients.hello(url, "Mallory")
            await mallory.request(JoinRace(code=race.code), RaceInfo)
            await race.alice.request(StartRace(race=race.id), RaceInfo)
            for racer in (race.alice, race.bob, mallory):
                await racer.next(RaceStarted, timeout=TIMEOUT)
            assert mallory.welcome is not None
            started = await race.alice.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
            # Mallory is seated in a running tournament's race too; Hana hosts it.
            cups, host = await tournaments(clients, url, mallory)
            moves = sorted({*started.legal, "deal"})
            aim = dataclasses.replace(cups, race=race.id, code=race.code, moves=moves)
            structured, racer_moves, host_controls = hypothesis_frames(aim)
            frames: list[bytes | str] = [*structured, *raw_frames(structured)]
            assert len(frames) >= 100_000
            random.Random(7).shuffle(frames)
            assert host.welcome is not None
            connections.append(await open_connection(url, token=mallory.welcome.token))
            connections += [await open_connection(url) for _ in range(3)]
            connections += [await open_connection(url, hello=False) for _ in range(2)]
            share = len(frames) // len(connections)
            shares = [frames[i * share : (i + 1) * share] for i in range(len(connections))]
            shares[0] += racer_moves  # connections[0] is Mallory's
            random.Random(8).shuffle(shares[0])
            connections.append(await open_connection(url, token=host.welcome.token))
            shares.append(list(host_controls))
            pairs = zip(connections, shares, strict=True)
            await asyncio.gather(*(conn.fuzz(part) for conn, part in pairs))
            for conn in connections:
                assert not conn.problems, conn.problems[:5]
                assert conn.ids == +Counter(
                    {k: v for k, v in conn.expected.items() if k is not None}
                )
            total = sum(conn.frames for conn in connections)
            kinds = sum((conn.kinds for conn in connections), Counter[str]())
            # Messages reached the handlers, tournaments' as well as races'.
            reached = {"moved", "tournament", "tournaments", "tournament_record", "error:not_host"}
            assert reached <= set(kinds), kinds
            # Fuzzed moves reached the racer's games, so the replay below checks them.
            assert await store.boards.log(race.id, mallory.player)
            assert len(await store.boards.log(aim.table, mallory.player)) > 1
            assert total >= len(frames)

            # The node still serves: a newcomer, and the races under way.
            newcomer = await clients.hello(url, "Newcomer")
            await alive(newcomer)
            moved = await race.alice.request(
                SubmitMove(race=race.id, seq=1, move=started.legal[0]), Moved
            )
            await race.bob.request(SubmitMove(race=race.id, seq=0, move="deal"), Moved)
            assert moved.seq == 1
            board = await mallory.request(Resume(race=aim.table, since=0), RaceStarted)
            if board.legal:
                seq = len(await store.boards.log(aim.table, mallory.player))
                move = SubmitMove(race=aim.table, seq=seq, move=board.legal[0])
                assert (await mallory.request(move, Moved)).seq == seq

            # Cancelled, the tournament closes its race: then the record has it all.
            cancel = ManageTournament(tournament=aim.cup, action=TournamentAction.CANCEL)
            await host.request(cancel, TournamentInfo)
            await mallory.next(RaceFinished, lambda m: m.race == aim.table, timeout=TIMEOUT)
            director = NODES[url].director
            records = [await director.record(cup) for cup in (aim.cup, aim.open_cup)]
        finally:
            for conn in connections:
                await conn.close()
            await clients.close()
    assert await verify_every_race(store) >= 5
    for record in records:
        doc = record.tournament
        races = [r.race for stage in doc.stages for r in stage.races]
        metas = {r: await store.races.meta(r) for r in races}
        check_tournament(record.to_data(), metas)
    assert [r.tournament.status for r in records] == ["cancelled", "open"]
    assert len(records[0].races) == 1

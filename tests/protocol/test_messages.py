"""Message classes: construction checks, wire maps, registries and the docs."""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol import (
    CLIENT_MESSAGES,
    MAX_SEED,
    MAX_SEQ,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    SUPPORTED_VERSIONS,
    Board,
    ClientMessage,
    Countdown,
    CreateRace,
    CreateTournament,
    ErrorCode,
    ErrorMessage,
    GetHint,
    GetReplay,
    GetTournamentRecord,
    Hello,
    Hinted,
    HintOutcome,
    InvalidField,
    JoinRace,
    JoinTournament,
    LeaveRace,
    LeaveTournament,
    ListRaces,
    ListTournaments,
    LocalProtocolError,
    ManageTournament,
    Message,
    Moved,
    NotAMap,
    PauseArena,
    Ping,
    Pong,
    Presence,
    Progress,
    RaceAnalysed,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    RaceState,
    Ready,
    RemoteProtocolError,
    Replay,
    Resign,
    Resume,
    Rewound,
    SeatTaken,
    ServerMessage,
    Service,
    ServiceState,
    Spectate,
    SpectatePolicy,
    Spectating,
    Spectators,
    StartRace,
    SubmitMove,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
    TournamentRecord,
    Tournaments,
    UnknownType,
    UnsupportedVersion,
    WatchTournament,
    Welcome,
    client_from_wire,
    deal_commitment,
    decode_client,
    decode_server,
    encode,
    encode_trusted,
    server_from_wire,
)
from protocol.lobby import RaceSummary
from protocol.messages import (
    Account,
    Daily,
    Featured,
    FeaturedRace,
    GetDaily,
    GetLeaderboard,
    GetProfile,
    GetResults,
    Leaderboard,
    LeaveQueue,
    Login,
    Logout,
    Matched,
    PlayDaily,
    Profile,
    Queued,
    QuickRace,
    Register,
    Rematch,
    RematchOffer,
    RematchState,
)
from protocol.profiles import DailyDeal, DailyEntry, LeaderboardEntry, PlayerProfile, Rating, Tally
from protocol.results import RaceAnalysis, RacerAnalysis, Standing, Winnability
from protocol.tournaments import Entrant, Tournament, TournamentStatus, TournamentSummary
from protocol.views import View
from tests.protocol.samples import LAYOUT, PROGRESS, RACE, VIEW

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

STANDING = {
    "place": 1,
    "player": "p1",
    "name": "Ann",
    "status": "won",
    "home": 104,
    "moves": 230,
    "time": 301.5,
    "by": None,
}
DIGEST = "ab" * 32
TOURNAMENT = Tournament(
    id="Tab12",
    code="TQ7H2K",
    host="p1",
    name="Friday dance",
    format=TournamentFormat.ROUNDS,
    variants=("gavotte",),
    time_limit=300,
    status=TournamentStatus.OPEN,
    created=1_700_000_000.0,
    entrants=(Entrant("p1", "Ann"),),
)
TOURNAMENT_SUMMARY = TournamentSummary(
    id="Tab12",
    code="TQ7H2K",
    name="Friday dance",
    host="p1",
    format=TournamentFormat.ROUNDS,
    variants=("gavotte",),
    status=TournamentStatus.OPEN,
    rounds=3,
    best_of=1,
    entrants=1,
    stage=0,
)
PROFILE = PlayerProfile(
    player="u0123456789ab",
    name="Ann",
    ratings={"overall": Rating(1600, False, 12)},
    races={"overall": Tally(12, 5, 80.5)},
    recent=(),
)
DAILY = DailyDeal(
    variant="quadrille",
    day="2026-11-23",
    commitment=DIGEST,
    board=(DailyEntry(place=1, player="u0123456789ab", name="Ann", won=True, time=80.5),),
)

#: One valid message of every type, the optional fields filled in where possible.
SAMPLES: list[Message] = [
    Hello(v=4, name="Ann", token="tok-123", id=1),
    ListRaces(id=2),
    CreateRace(
        variant="royal-cotillion",
        max_players=4,
        time_limit=600,
        spectate=SpectatePolicy.DELAYED,
        delay=30,
        deal=MAX_SEED,
        id=3,
    ),
    JoinRace(code="KQ7H", id=4),
    LeaveRace(race="r7"),
    Ready(race="r7", ready=True),
    StartRace(race="r7", id=5),
    SubmitMove(race="r7", seq=MAX_SEQ, move="w>f3", id=2**31 - 1),
    Resign(race="r7"),
    Spectate(race="r7"),
    Resume(race="r7", since=0),
    GetReplay(race="r7", player="p1", id=9),
    GetHint(race="r7", id=10),
    Hinted(race="r7", seq=3, outcome=HintOutcome.WINNABLE, move="w>f1", id=10),
    Replay(race="r7", player="p1", moves=["deal"], views=[View.from_data(VIEW)] * 2, id=9),
    Ping(id=0),
    Welcome(v=4, token="tok-123", player="p1", name="Ann", node="node-a", id=1),
    Races(races=[RaceSummary.from_data(RACE)] * 2, id=2),
    RaceInfo(race=RACE, id=3),
    RaceState(race=RACE),
    Countdown(race="r7", seconds=3),
    RaceStarted(
        race="r7",
        layout=LAYOUT,
        view=VIEW,
        legal=["w>f3", "deal"],
        commitment=DIGEST,
        deal_version=1,
        started_at=1_700_000_000.25,
        ends_at=1_700_000_600.25,
    ),
    Moved(race="r7", seq=3, move="w>f3", view=VIEW, legal=[], progress=PROGRESS, id=9),
    Progress(race="r7", player="p2", progress=PROGRESS, event=12),
    Presence(race="r7", player="p2", event=13, away=1767312012.5),
    Presence(race="r7", player="p2", event=14),
    SeatTaken(race="r7", event=15),
    Spectators(race="r7", count=12),
    Board(race="r7", player="p2", seq=3, move="w>f3", view=VIEW, event=13),
    Spectating(race=RACE, layout=LAYOUT, boards={"p1": VIEW, "p2": VIEW}, event=13),
    RaceFinished(
        race="r7",
        standings=[
            Standing.from_data(STANDING | {"place": 1}),
            Standing.from_data(STANDING | {"place": 2, "player": "p2"}),
        ],
        seed=2**64 - 1,
        commitment=DIGEST,
        deal_version=1,
        logs={"p1": ["w>f3", "deal"], "p2": []},
    ),
    RaceAnalysed(
        race="r7",
        analysis=RaceAnalysis(
            61,
            (
                RacerAnalysis("p1", Winnability.LOST, 23, "p3>p7"),
                RacerAnalysis("p2", Winnability.UNKNOWN),
            ),
        ),
        event=14,
    ),
    Pong(id=0),
    ErrorMessage(code=ErrorCode.BAD_SEQUENCE, message="expected move 4, got 6", id=8),
    CreateTournament(
        name="Friday dance",
        format=TournamentFormat.KNOCKOUT,
        variants=["gavotte", "quadrille"],
        time_limit=300,
        best_of=3,
        password="waltz",
        id=10,
    ),
    ListTournaments(id=11),
    JoinTournament(code="TQ7H2K", password="waltz", id=12),
    LeaveTournament(tournament="Tab12"),
    WatchTournament(tournament="Tab12"),
    ManageTournament(tournament="Tab12", action=TournamentAction.REMOVE, player="p2", id=13),
    PauseArena(tournament="Tab12", paused=True, id=14),
    GetTournamentRecord(code="TQ7H2K"),
    TournamentInfo(tournament=TOURNAMENT, id=10),
    Tournaments(tournaments=[TOURNAMENT_SUMMARY], id=11),
    TournamentRecord(record={"tournament": {"id": "Tab12"}, "races": {}}),
    Service(state=ServiceState.DEGRADED, message="storage unreachable"),
    Rewound(
        race="r7",
        event=40,
        lost=3,
        seq=7,
        view=VIEW,
        legal=["deal"],
        progress={"p1": PROGRESS, "p2": PROGRESS},
    ),
    # Players (docs/players.md).
    Register(name="Ann", password="a long password", id=20),
    Login(name="Ann", password="a long password", id=21),
    Logout(everywhere=True, id=22),
    Account(token="u0123456789ab.secret", player="u0123456789ab", name="Ann", guest=False),
    QuickRace(variant="quadrille", size=3, id=23),
    LeaveQueue(id=24),
    Queued(queued=True, variant="quadrille", size=3, rating=1500, id=23),
    Matched(race="r7", variant="royal-cotillion", info=RACE),
    Rematch(race="r7", id=25),
    RematchState(race="r7", accepted=1, racers=2, id=25),
    RematchOffer(race="r7", player="u0a1b2c3d4e5f", name="Ann", accepted=1, racers=2, event=9),
    GetProfile(player="u0123456789ab", id=26),
    Profile(profile=PROFILE, id=26),
    GetLeaderboard(variant="overall", id=27),
    Leaderboard(
        variant="overall",
        entries=[LeaderboardEntry(place=1, player="u0123456789ab", name="Ann", rating=1600)],
    ),
    GetDaily(variant="quadrille", id=28),
    PlayDaily(variant="quadrille", id=29),
    Daily(daily=DAILY, id=28),
    GetResults(race="r7", id=30),
    FeaturedRace(id=31),
    Featured(race="r7", id=31),
    Featured(id=32),
]


def sample_id(message: Message) -> str:
    return message.t


def all_message_classes() -> list[type[Message]]:
    return [*CLIENT_MESSAGES.values(), *SERVER_MESSAGES.values()]


def test_registries_hold_every_message_class_under_its_type() -> None:
    """Each concrete message class is registered once, under its own ``t``, on its side."""
    for registry, base in ((CLIENT_MESSAGES, ClientMessage), (SERVER_MESSAGES, ServerMessage)):
        for t, cls in registry.items():
            assert cls.t == t and issubclass(cls, base)
    assert not set(CLIENT_MESSAGES) & set(SERVER_MESSAGES)
    assert {type(m) for m in SAMPLES} == set(all_message_classes())


def test_messages_are_frozen_and_slotted() -> None:
    """Like h11's events, a message is an immutable value without a ``__dict__``."""
    message = SubmitMove(race="r7", seq=0, move="deal")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.seq = 1  # type: ignore[misc]
    assert not hasattr(message, "__dict__")


@pytest.mark.parametrize("message", SAMPLES, ids=sample_id)
def test_wire_map_round_trip(message: Message) -> None:
    """``from_wire(to_wire(m))`` gives back an equal message, of the same class."""
    wire = message.to_wire()
    assert wire["t"] == message.t
    assert type(message).from_wire(wire) == message
    from_wire = client_from_wire if isinstance(message, ClientMessage) else server_from_wire
    assert from_wire(wire) == message


@pytest.mark.parametrize("message", SAMPLES, ids=sample_id)
def test_frame_round_trip(message: Message) -> None:
    """Encoding to bytes and decoding on the receiving side gives back an equal message."""
    decode = decode_client if isinstance(message, ClientMessage) else decode_server
    assert decode(encode(message)) == message


def test_to_wire_leaves_out_none_and_writes_enums_as_strings() -> None:
    """Nil optionals are absent on the wire; enum fields travel as their plain values."""
    assert Hello(v=4, name="Ann").to_wire() == {"t": "hello", "v": 4, "name": "Ann"}
    wire = CreateRace(
        variant="gavotte", max_players=2, time_limit=300, spectate=SpectatePolicy.LIVE
    ).to_wire()
    assert wire == {
        "t": "create_race",
        "variant": "gavotte",
        "max_players": 2,
        "time_limit": 300,
        "spectate": "live",
    }
    assert type(wire["spectate"]) is str
    error = ErrorMessage(code=ErrorCode.NOT_HOST, message="only the host may start").to_wire()
    assert type(error["code"]) is str and error["code"] == "not_host"


def test_spectating_an_open_race_has_no_layout() -> None:
    """Before the start a spectator gets the race with no layout and no boards."""
    message = Spectating(race=RACE, boards={}, event=0)
    assert "layout" not in message.to_wire()
    assert decode_server(encode(message)) == message


def test_explicit_nil_means_absent() -> None:
    """A peer may send an optional field as nil; it reads the same as leaving it out."""
    wire = {"t": "hello", "v": 4, "name": "Ann", "token": None, "id": None}
    assert client_from_wire(wire) == Hello(v=4, name="Ann")


def test_values_are_normalised() -> None:
    """Arrays become tuples, choices become enum members, integers in float fields floats."""
    started = RaceStarted.from_wire(
        {
            "race": "r7",
            "layout": LAYOUT,
            "view": VIEW,
            "legal": ["deal"],
            "commitment": DIGEST,
            "deal_version": 1,
            "started_at": 1_700_000_000,
            "ends_at": 1_700_000_600,
        }
    )
    assert started.legal == ("deal",)
    assert type(started.started_at) is float
    race = CreateRace.from_wire(
        {"variant": "gavotte", "max_players": 2, "time_limit": 300, "spectate": "after"}
    )
    assert race.spectate is SpectatePolicy.AFTER
    error = ErrorMessage.from_wire({"code": "race_full", "message": ""})
    assert error.code is ErrorCode.RACE_FULL


# ----------------------------------------------------------------------
# Construction refuses bad values as our own bug.


def create(**changes: Any) -> CreateRace:
    fields = {"variant": "g", "max_players": 2, "time_limit": 300, "spectate": "live"}
    return CreateRace(**(fields | changes))


def started(**changes: Any) -> RaceStarted:
    fields = {
        "race": "r7",
        "layout": LAYOUT,
        "view": VIEW,
        "legal": [],
        "commitment": DIGEST,
        "deal_version": 1,
        "started_at": 0,
        "ends_at": 1,
    }
    return RaceStarted(**(fields | changes))


def finished(**changes: Any) -> RaceFinished:
    fields = {
        "race": "r7",
        "standings": [],
        "seed": 0,
        "commitment": DIGEST,
        "deal_version": 1,
        "logs": {},
    }
    return RaceFinished(**(fields | changes))


def move(**changes: Any) -> SubmitMove:
    return SubmitMove(**({"race": "r7", "seq": 0, "move": "deal"} | changes))


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: move(seq=-1), "seq"),
        (lambda: move(seq=MAX_SEQ + 1), "seq"),
        (lambda: move(seq=True), "seq"),
        (lambda: move(seq=1.0), "seq"),
        (lambda: move(move=""), "move"),
        (lambda: move(move="x" * 41), "move"),
        (lambda: move(race=""), "race"),
        (lambda: move(race="r\x07"), "race"),
        (lambda: move(id=2**31), "id"),
        (lambda: move(id=-1), "id"),
        (lambda: Ready(race="r7", ready=1), "ready"),
        (lambda: Hello(v=4, name=""), "name"),
        (lambda: Hello(v=4, name="x" * 25), "name"),
        (lambda: Hello(v=4, name="Ann\n"), "name"),
        (lambda: Hello(v=4, name="Ann\x00"), "name"),
        (lambda: Hello(v=4, name=" Ann"), "name"),
        (lambda: Hello(v=4, name="Ann", token="t" * 65), "token"),
        (lambda: Hello(v=True, name="Ann"), "v"),
        (lambda: create(max_players=0), "max_players"),
        (lambda: create(max_players=9), "max_players"),
        (lambda: create(time_limit=29), "time_limit"),
        (lambda: create(time_limit=7201), "time_limit"),
        (lambda: create(spectate="never"), "spectate"),
        (lambda: create(deal=-1), "deal"),
        (lambda: create(deal=2**64), "deal"),
        (lambda: create(spectate="delayed", delay=0), "delay"),
        (lambda: create(delay=5), "delay"),
        (lambda: create(spectate="delayed", delay=601), "delay"),
        (lambda: JoinRace(), "race"),
        (lambda: JoinRace(race="r7", code="KQ7H"), "race"),
        (lambda: JoinRace(code="K" * 13), "code"),
        (lambda: Resume(race="r7", since=-1), "since"),
        (lambda: started(commitment="AB" * 32), "commitment"),
        (lambda: started(commitment="ab" * 31), "commitment"),
        (lambda: started(deal_version=0), "deal_version"),
        (lambda: started(started_at=math.nan), "started_at"),
        (lambda: started(ends_at=math.inf), "ends_at"),
        (lambda: started(ends_at="soon"), "ends_at"),
        (lambda: started(legal=[1]), "legal"),
        (lambda: started(legal="deal"), "legal"),
        (lambda: started(layout=[]), "layout"),
        (lambda: RaceInfo(race={1: "x"}), "race"),
        (lambda: Races(races=[RaceSummary.from_data(RACE)] * 1001), "races"),
        (lambda: Spectating(race=RACE, layout=LAYOUT, boards={"p1": [1]}, event=0), "boards"),
        (
            lambda: Spectating(
                race=RACE,
                layout=LAYOUT,
                boards={f"p{i}": View.from_data(VIEW) for i in range(9)},
                event=0,
            ),
            "boards",
        ),
        (lambda: finished(seed=-1), "seed"),
        (lambda: finished(logs={"p1": "w>f3"}), "logs"),
        (lambda: finished(logs={"p1": ["w>f3", None]}), "logs"),
        (lambda: ErrorMessage(code="no_such_code", message="x"), "code"),
        (lambda: ErrorMessage(code=ErrorCode.INTERNAL, message="x" * 1001), "message"),
    ],
)
def test_construction_refuses_bad_values_as_a_local_error(build: Any, field: str) -> None:
    """Building an invalid message is our bug: LocalProtocolError naming the field."""
    with pytest.raises(LocalProtocolError) as info:
        build()
    assert info.value.field == field
    assert not isinstance(info.value, RemoteProtocolError)


def test_bounds_are_inclusive() -> None:
    """The documented ranges include both ends."""
    Hello(v=0, name="A")
    Hello(v=4, name="x" * 24, token="t" * 64)
    Hello(v=4, name="Zoë ♠ 名前")  # printable beyond ASCII, inner spaces allowed
    CreateRace(variant="g", max_players=1, time_limit=30, spectate=SpectatePolicy.AFTER, deal=0)
    CreateRace(
        variant="g", max_players=8, time_limit=7200, spectate=SpectatePolicy.DELAYED, delay=600
    )
    SubmitMove(race="r" * 40, seq=0, move="m" * 40, id=0)
    Resume(race="r7", since=2**63 - 1)


# ----------------------------------------------------------------------
# from_wire refuses a peer's bad map as the peer's fault.


@pytest.mark.parametrize(
    ("wire", "field"),
    [
        ({"t": "move", "seq": 0, "move": "deal"}, "race"),
        ({"t": "move", "race": "r7", "seq": 0, "move": "deal", "extra": 1}, "extra"),
        ({"t": "move", "race": "r7", "seq": "0", "move": "deal"}, "seq"),
        ({"t": "move", "race": "r7", "seq": False, "move": "deal"}, "seq"),
        ({"t": "move", "race": "r7", "seq": 100_001, "move": "deal"}, "seq"),
        ({"t": "move", "race": "r7", "seq": 0, "move": "d" * 41}, "move"),
        ({"t": "move", "race": "r7", "seq": 0, "move": "deal", "id": 1.5}, "id"),
        ({"t": "ready", "race": "r7", "ready": 1}, "ready"),
        ({"t": "ping", "id": "7"}, "id"),
        ({"t": "join_race"}, "race"),
        ({"t": "hello", "v": "1", "name": "Ann"}, "v"),
        ({"t": "hello", "v": 4}, "name"),
    ],
)
def test_from_wire_names_the_bad_field(wire: dict[str, Any], field: str) -> None:
    """Missing, unknown, mistyped and out-of-range fields are InvalidField naming the field."""
    with pytest.raises(InvalidField) as info:
        client_from_wire(wire)
    assert info.value.field == field
    assert info.value.code is ErrorCode.INVALID_FIELD
    assert info.value.t == wire["t"]
    assert f"{wire['t']}.{field}" in info.value.message


def test_type_key_must_be_present_and_a_string() -> None:
    """A map without ``t``, or with a non-string ``t``, is InvalidField on ``t``."""
    for wire in ({"race": "r7"}, {"t": 5}, {"t": None}, {"t": b"ping"}):
        with pytest.raises(InvalidField) as info:
            client_from_wire(wire)
        assert info.value.field == "t"


def test_unknown_and_wrong_side_types_are_unknown_type() -> None:
    """``t`` naming no message, or a message of the other direction, is UnknownType."""
    for wire, decode in (
        ({"t": "teleport"}, client_from_wire),
        ({"t": "welcome"}, client_from_wire),
        ({"t": "move"}, server_from_wire),
    ):
        with pytest.raises(UnknownType) as info:
            decode(wire)
        assert info.value.code is ErrorCode.UNKNOWN_TYPE


def test_from_wire_of_a_class_checks_its_type() -> None:
    """A class reading a map that says it is another type refuses it."""
    with pytest.raises(InvalidField) as info:
        Ping.from_wire({"t": "pong"})
    assert info.value.field == "t"
    assert Ping.from_wire({}) == Ping()


def test_non_maps_are_refused() -> None:
    """Only a map can be a message."""
    values: list[object] = [[], "ping", 5, None, True]
    for value in values:
        with pytest.raises(NotAMap):
            client_from_wire(value)


def test_errors_carry_the_request_id_when_readable() -> None:
    """The error reply to a bad request can name the request's id, if the id itself is valid."""
    with pytest.raises(InvalidField) as info:
        client_from_wire({"t": "move", "race": "r7", "seq": -4, "move": "deal", "id": 77})
    assert info.value.request_id == 77
    with pytest.raises(UnknownType) as unknown:
        client_from_wire({"t": "fly", "id": 5})
    assert unknown.value.request_id == 5
    with pytest.raises(InvalidField) as bad_id:
        client_from_wire({"t": "ping", "id": -1})
    assert bad_id.value.request_id is None


def test_hello_with_an_unsupported_version_names_the_supported_ones() -> None:
    """A hello of another version gets unsupported_version, even with fields v4 lacks."""
    wire = {"t": "hello", "v": 3, "name": "Ann", "colour": "blue", "id": 1}
    with pytest.raises(UnsupportedVersion) as info:
        client_from_wire(wire)
    assert info.value.code is ErrorCode.UNSUPPORTED_VERSION
    assert info.value.supported == SUPPORTED_VERSIONS
    assert info.value.request_id == 1
    assert "supported versions: 4" in info.value.message
    assert PROTOCOL_VERSION in SUPPORTED_VERSIONS


# ----------------------------------------------------------------------
# Server messages built from the server's own values, unchecked.

SERVER_SAMPLES = [m for m in SAMPLES if isinstance(m, ServerMessage)]


def as_decoded(message: Message) -> dict[str, Any]:
    """A message's fields as plain data off the wire: lists, strings for choices."""
    wire = msgpack.unpackb(encode(message), raw=False)
    del wire["t"]
    return dict(wire)


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=sample_id)
def test_a_trusted_frame_is_the_checked_message_s_frame(message: ServerMessage) -> None:
    """encode_trusted(cls, **fields) is byte for byte encode(cls(**fields)), fields in order,
    given as the wire has them (typed values as their maps); it decodes to the same message."""
    cls = type(message)
    as_built = {field.name: getattr(message, field.name) for field in dataclasses.fields(cls)}
    fields = as_decoded(message)
    frame = encode_trusted(cls, **fields)
    assert frame == encode(cls(**fields)) == encode(cls(**as_built)) == encode(message)
    assert decode_server(frame) == message


def test_a_trusted_frame_leaves_out_none_and_packs_choices_as_text() -> None:
    board = encode_trusted(Board, race="r7", player="p2", seq=0, move=None, view=VIEW, event=1)
    assert "move" not in msgpack.unpackb(board)
    assert board == encode(Board(race="r7", player="p2", seq=0, view=VIEW, event=1))
    error = encode_trusted(ErrorMessage, code=ErrorCode.RACE_FULL, message="full")
    assert msgpack.unpackb(error)["code"] == "race_full"
    assert decode_server(error) == ErrorMessage(code=ErrorCode.RACE_FULL, message="full")


def test_a_trusted_frame_refuses_missing_and_unknown_fields() -> None:
    """encode_trusted still insists on every required field and no other, as a constructor does."""
    with pytest.raises(TypeError, match="'event'"):
        encode_trusted(Progress, race="r7", player="p2", progress=PROGRESS)
    with pytest.raises(TypeError, match="'colour'"):
        encode_trusted(Progress, race="r7", player="p2", progress=PROGRESS, event=1, colour="red")


def test_trusted_frames_are_for_server_messages_only_and_decoding_always_checks() -> None:
    """No client message can be encoded unchecked, and both decoders check every field."""
    assert not hasattr(SubmitMove, "trusted_wire") and not hasattr(ClientMessage, "trusted_wire")
    unchecked = encode_trusted(Progress, race="r7", player="p2", progress=PROGRESS, event=-1)
    assert msgpack.unpackb(unchecked)["event"] == -1  # the caller vouches; nothing is checked
    with pytest.raises(InvalidField) as info:
        decode_server(unchecked)
    assert info.value.field == "event"
    move = msgpack.packb({"t": "move", "race": "r7", "seq": -1, "move": "deal"})
    with pytest.raises(InvalidField) as info:
        decode_client(move)
    assert info.value.field == "seq"


# ----------------------------------------------------------------------
# Error codes, the commitment and the documentation.


def test_error_codes_are_stable_snake_case_words() -> None:
    """Codes are lowercase snake_case, the member name spelled in lower case."""
    for code in ErrorCode:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code.value)
        assert code.value == code.name.lower()
    assert {code for code in ErrorCode if code.retryable} == {
        ErrorCode.RATE_LIMITED,
        ErrorCode.UNAVAILABLE,
    }


def test_deal_commitment_is_the_documented_hash() -> None:
    """The commitment is SHA-256 over the documented string, pinned by a golden value."""
    expected = hashlib.sha256(b"ballroom-commit/v1/royal-cotillion/1/42/abc").hexdigest()
    assert deal_commitment("royal-cotillion", 1, 42, "abc") == expected
    assert expected == "4d6e849a086faab42cb34325f4aee53ca2fae9e4b0f50cbcf7e32cb5dea5cc99"
    assert deal_commitment("royal-cotillion", 1, 43, "abc") != expected


def test_docs_describe_every_message_field_and_error_code() -> None:
    """docs/protocol.md mentions every message type, every field and every error code."""
    text = DOCS.read_text(encoding="utf-8")
    for cls in all_message_classes():
        assert f"`{cls.t}`" in text, cls.t
        section = text.split(f"### `{cls.t}`", 1)[1].split("\n### ", 1)[0]
        for field in dataclasses.fields(cls):
            if field.name != "id":
                assert f"`{field.name}`" in section, (cls.t, field.name)
    for code in ErrorCode:
        assert f"`{code.value}`" in text, code.value
    assert "ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race_id}" in text


@pytest.mark.parametrize(
    "message", [m for m in SAMPLES if isinstance(m, ServerMessage)], ids=sample_id
)
def test_a_server_frame_decoded_and_encoded_again_is_the_same_bytes(
    message: ServerMessage,
) -> None:
    """Typed fields (views, race summaries, tournaments, profiles) write back the maps they
    were read from, key for key and in order: the wire does not change."""
    frame = encode_trusted(type(message), **as_decoded(message))
    assert encode(decode_server(frame)) == frame

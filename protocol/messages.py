"""Every message of the protocol as a frozen dataclass that validates itself.

As in h11's events, a message that exists is a valid message: construction
checks each field (type, range, length, choice) and refuses with
:class:`~protocol.exceptions.LocalProtocolError`, because a message *we* build
wrongly is our bug. :meth:`Message.from_wire` builds one from a peer's map and
turns the same refusals into :class:`~protocol.exceptions.InvalidField`,
because then the peer is at fault. Each field's rule sits next to it, as the
``Annotated`` metadata of its type, so a class reads as its own spec.

One deliberate exception: :func:`protocol.codec.encode_trusted` packs a
server message straight from values the server computed itself (the engine's
views and legal moves, progress, event numbers) without checking them again,
because on the path of every move those checks cost more than the rest of
building the frame. It gives the same bytes as encoding the checked message;
a peer's map always goes through :meth:`Message.from_wire`, which checks
everything.

Client to server (``t`` → class)::

    hello        Hello          list_races   ListRaces      create_race  CreateRace
    join_race    JoinRace       leave_race   LeaveRace      ready        Ready
    start_race   StartRace      move         SubmitMove     resign       Resign
    spectate     Spectate       resume       Resume         ping         Ping
    replay       GetReplay      hint         GetHint
    create_tournament  CreateTournament      list_tournaments       ListTournaments
    join_tournament    JoinTournament        leave_tournament       LeaveTournament
    watch_tournament   WatchTournament       manage_tournament      ManageTournament
    get_tournament_record  GetTournamentRecord
    register     Register       login        Login          logout       Logout
    quick_race   QuickRace      leave_queue  LeaveQueue
    get_profile  GetProfile     get_leaderboard  GetLeaderboard
    rematch      Rematch        get_daily    GetDaily       play_daily   PlayDaily
    get_results  GetResults

Server to client::

    welcome      Welcome        races        Races          race         RaceInfo
    race_state   RaceState      countdown    Countdown      race_started RaceStarted
    moved        Moved          progress     Progress       board        Board
    spectating   Spectating     race_finished RaceFinished  pong         Pong
    replay_views Replay         error        ErrorMessage   hinted       Hinted
    tournament   TournamentInfo tournaments  Tournaments    tournament_record TournamentRecord
    account      Account        queue        Queued         matched      Matched
    profile      Profile        leaderboard  Leaderboard
    rematch_state RematchState  rematch_offer RematchOffer  daily  Daily

Optional fields default to ``None`` (``spectate`` to ``delayed``); a missing optional
field and an explicit nil mean the same, and :meth:`Message.to_wire` leaves
``None`` out. Lists arrive as tuples. ``docs/protocol.md`` describes each
message in words; the classes here are the authority.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Self, TypeGuard, TypeVar, get_type_hints

from protocol.exceptions import (
    ErrorCode,
    InvalidField,
    LocalProtocolError,
    NotAMap,
    RemoteProtocolError,
    UnknownType,
    UnsupportedVersion,
)
from protocol.version import SUPPORTED_VERSIONS

__all__ = [
    "CLIENT_MESSAGES",
    "DEFAULT_DELAY",
    "MAX_EVENT",
    "MAX_ID",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MAX_SEED",
    "MAX_SEQ",
    "SERVER_MESSAGES",
    "Account",
    "Board",
    "ClientMessage",
    "Countdown",
    "CreateRace",
    "CreateTournament",
    "Daily",
    "ErrorMessage",
    "GetDaily",
    "GetHint",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "GetResults",
    "GetTournamentRecord",
    "Hello",
    "HintOutcome",
    "Hinted",
    "JoinRace",
    "JoinTournament",
    "Leaderboard",
    "LeaveQueue",
    "LeaveRace",
    "LeaveTournament",
    "ListRaces",
    "ListTournaments",
    "Login",
    "Logout",
    "ManageTournament",
    "Matched",
    "Message",
    "Moved",
    "Ping",
    "PlayDaily",
    "Pong",
    "Profile",
    "Progress",
    "Queued",
    "QuickRace",
    "RaceFinished",
    "RaceInfo",
    "RaceStarted",
    "RaceState",
    "Races",
    "Ready",
    "Register",
    "Rematch",
    "RematchOffer",
    "RematchState",
    "Replay",
    "Resign",
    "Resume",
    "Rewound",
    "SeatTaken",
    "ServerMessage",
    "Service",
    "ServiceState",
    "Spectate",
    "SpectatePolicy",
    "Spectating",
    "StartRace",
    "SubmitMove",
    "TournamentAction",
    "TournamentFormat",
    "TournamentInfo",
    "TournamentRecord",
    "Tournaments",
    "WatchTournament",
    "Welcome",
    "check_player_name",
    "client_from_wire",
    "deal_commitment",
    "server_from_wire",
    "spectate_delay",
]

MAX_ID = 2**31 - 1  # request ids, versions, deal versions
MAX_SEQ = 100_000  # a player's move index
MAX_EVENT = 2**63 - 1  # a race's event numbers
MAX_SEED = 2**64 - 1  # deal numbers and seeds
MAX_PLAYERS = 8
MAX_RACES = 1000  # race summaries in one ``races`` reply
MAX_LEGAL = 10_000  # legal moves listed in one message
MAX_ROUNDS = 50  # rounds of one tournament, and variants listed for them


class TournamentFormat(enum.StrEnum):
    """How a tournament pairs its entrants."""

    ROUNDS = "rounds"  # everyone races the same deal each round; points by placing
    KNOCKOUT = "knockout"  # a seeded bracket of head-to-head matches


class TournamentAction(enum.StrEnum):
    """What a host may do to a tournament."""

    START = "start"
    PAUSE = "pause"  # finish the round under way, then wait
    RESUME = "resume"
    CANCEL = "cancel"
    REMOVE = "remove"  # an entrant; needs ``player``


class SpectatePolicy(enum.StrEnum):
    """When spectators may see a race's boards."""

    LIVE = "live"
    DELAYED = "delayed"  # ``delay`` seconds behind
    AFTER = "after"  # only once the race has finished


# ----------------------------------------------------------------------
# Field checks: each returns the value (normalised) or raises ValueError.

Check = Callable[[object], object]

_KINDS = {
    type(None): "nil",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    bytes: "binary",
    list: "an array",
    tuple: "an array",
    dict: "a map",
}


def _kind(value: object) -> str:
    """The value's msgpack type in words, for error messages."""
    return _KINDS.get(type(value), type(value).__name__)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Int:
    """An integer in ``lo..hi``; booleans are not integers here."""

    lo: int
    hi: int

    def __call__(self, value: object) -> int:
        if not _is_int(value):
            raise ValueError(f"must be an integer, not {_kind(value)}")
        if not self.lo <= value <= self.hi:
            raise ValueError(f"must be in {self.lo}..{self.hi}, not {value}")
        return int(value)


@dataclass(frozen=True, slots=True)
class Float:
    """A finite number; integers are accepted, since many encoders send 5.0 as 5."""

    def __call__(self, value: object) -> float:
        if not (_is_int(value) or isinstance(value, float)):
            raise ValueError(f"must be a number, not {_kind(value)}")
        if not math.isfinite(value):
            raise ValueError("must be finite")
        return float(value)


@dataclass(frozen=True, slots=True)
class Bool:
    def __call__(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"must be a boolean, not {_kind(value)}")
        return value


@dataclass(frozen=True, slots=True)
class Str:
    """A string of ``lo..hi`` code points, printable unless told otherwise."""

    lo: int
    hi: int
    printable: bool = True
    stripped: bool = False  # no leading or trailing white space

    def __call__(self, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {_kind(value)}")
        if not self.lo <= len(value) <= self.hi:
            raise ValueError(f"must be {self.lo}..{self.hi} characters long, not {len(value)}")
        if self.printable and not value.isprintable():
            raise ValueError("must hold printable characters only")
        if self.stripped and value.strip() != value:
            raise ValueError("must not start or end with white space")
        return str(value)


@dataclass(frozen=True, slots=True)
class Hex:
    """Lowercase hexadecimal of exactly ``digits`` digits (a digest)."""

    digits: int

    def __call__(self, value: object) -> str:
        if not isinstance(value, str) or not re.fullmatch(f"[0-9a-f]{{{self.digits}}}", value):
            raise ValueError(f"must be {self.digits} lowercase hex digits")
        return value


@dataclass(frozen=True, slots=True)
class Choice:
    """One of a string enum's values; becomes the enum member."""

    options: type[enum.StrEnum]

    def __call__(self, value: object) -> enum.StrEnum:
        if isinstance(value, str):
            try:
                return self.options(value)
            except ValueError:
                pass
        names = ", ".join(repr(member.value) for member in self.options)
        raise ValueError(f"must be one of {names}")


@dataclass(frozen=True, slots=True)
class AnyMap:
    """A map with string keys whose values this layer does not inspect.

    Views, layouts, race summaries and progress are built by the engine and
    the race logic, which own their shapes; ``docs/protocol.md`` lists them.
    """

    def __call__(self, value: object) -> dict[str, object]:
        if not isinstance(value, dict):
            raise ValueError(f"must be a map, not {_kind(value)}")
        if not all(isinstance(key, str) for key in value):
            raise ValueError("must have string keys")
        return value


@dataclass(frozen=True, slots=True)
class ListOf:
    """An array of at most ``most`` items, each passing ``item``; becomes a tuple."""

    item: Check
    most: int

    def __call__(self, value: object) -> tuple[object, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError(f"must be an array, not {_kind(value)}")
        if len(value) > self.most:
            raise ValueError(f"must have at most {self.most} items, not {len(value)}")
        checked: list[object] = []
        for i, item in enumerate(value):
            try:
                checked.append(self.item(item))
            except ValueError as exc:
                raise ValueError(f"item {i}: {exc}") from None
        return tuple(checked)


@dataclass(frozen=True, slots=True)
class MapOf:
    """A map of at most ``most`` entries whose keys and values pass their checks."""

    key: Check
    value: Check
    most: int

    def __call__(self, value: object) -> dict[object, object]:
        if not isinstance(value, dict):
            raise ValueError(f"must be a map, not {_kind(value)}")
        if len(value) > self.most:
            raise ValueError(f"must have at most {self.most} entries, not {len(value)}")
        checked: dict[object, object] = {}
        for key, item in value.items():
            try:
                checked[self.key(key)] = self.value(item)
            except ValueError as exc:
                raise ValueError(f"entry {str(key)[:40]!r}: {exc}") from None
        return checked


@dataclass(frozen=True, slots=True)
class Opt:
    """Nil, or a value passing ``inner``."""

    inner: Check

    def __call__(self, value: object) -> object:
        return None if value is None else self.inner(value)


# Field types shared by several messages: the type for mypy, the check for us.
RequestId = Annotated[int | None, Opt(Int(0, MAX_ID))]
Version = Annotated[int, Int(0, MAX_ID)]
RaceId = Annotated[str, Str(1, 40)]
PlayerId = Annotated[str, Str(1, 40)]
#: The rule for a display name, shared by the wire, the dialogs and the command line.
check_player_name = Str(1, 24, stripped=True)
PlayerName = Annotated[str, check_player_name]
Token = Annotated[str, Str(1, 64)]
Seq = Annotated[int, Int(0, MAX_SEQ)]
EventNumber = Annotated[int, Int(0, MAX_EVENT)]
#: The event a push about a race reports; absent from a reply that reports none.
PushedEvent = Annotated[int | None, Opt(Int(0, MAX_EVENT))]
MoveString = Annotated[str, Str(1, 40)]
LegalMoves = Annotated[Sequence[str], ListOf(Str(1, 40), MAX_LEGAL)]
Digest = Annotated[str, Hex(64)]
DealVersion = Annotated[int, Int(1, MAX_ID)]
Timestamp = Annotated[float, Float()]
Data = Annotated[dict[str, Any], AnyMap()]
TournamentId = Annotated[str, Str(1, 40)]
#: A new account's password: long enough to resist guessing, short enough to hash cheaply.
NewPassword = Annotated[str, Str(8, 128)]
#: A password given to log in: any length a password could have had.
GivenPassword = Annotated[str, Str(1, 128)]


# ----------------------------------------------------------------------
# The base classes.


@dataclass(frozen=True, slots=True)
class _Spec:
    """What :class:`Message` needs to know about one class's fields."""

    checks: tuple[tuple[str, Check], ...]
    names: frozenset[str]
    required: tuple[str, ...]  # in field order: the first missing one is named
    required_names: frozenset[str]


_SPECS: dict[type[Message], _Spec] = {}


def _spec(cls: type[Message]) -> _Spec:
    """The field checks of a message class, read once from its annotations."""
    spec = _SPECS.get(cls)
    if spec is None:
        hints = get_type_hints(cls, include_extras=True)
        checks = []
        for field in dataclasses.fields(cls):
            metadata = getattr(hints[field.name], "__metadata__", ())
            if not metadata:
                raise TypeError(f"{cls.__name__}.{field.name} has no check")
            checks.append((field.name, metadata[0]))
        required = tuple(
            field.name
            for field in dataclasses.fields(cls)
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        )
        names = frozenset(name for name, _ in checks)
        spec = _SPECS[cls] = _Spec(tuple(checks), names, required, frozenset(required))
    return spec


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """Any message. ``t`` is its type on the wire; ``id`` pairs a request with its reply."""

    t: ClassVar[str]
    id: RequestId = None

    def __post_init__(self) -> None:
        for name, check in _spec(type(self)).checks:
            value = getattr(self, name)
            try:
                checked = check(value)
            except ValueError as exc:
                raise self._invalid(name, str(exc)) from None
            if checked is not value:
                object.__setattr__(self, name, checked)
        self._check_together()

    def _check_together(self) -> None:
        """Rules that span fields; raise :meth:`_invalid` to refuse."""

    def _invalid(self, field: str, reason: str) -> LocalProtocolError:
        return LocalProtocolError(f"{self.t}.{field}: {reason}", field=field, reason=reason)

    @classmethod
    def _before_fields(cls, data: Mapping[str, object]) -> None:
        """Checks a peer's map must pass before its fields are looked at."""

    @classmethod
    def from_wire(cls, data: Mapping[str, object]) -> Self:
        """Build from a peer's decoded map; raises :class:`InvalidField` naming the field."""
        cls._before_fields(data)
        spec = _spec(cls)
        fields: dict[str, Any] = {}
        for key, value in data.items():
            if key in spec.names:
                fields[key] = value
            elif key != "t":
                raise InvalidField(str(key)[:40], "unknown field", t=cls.t)
            elif value != cls.t:
                raise InvalidField("t", f"must be {cls.t!r}", t=cls.t)
        for name in spec.required:
            if name not in fields:
                raise InvalidField(name, "missing", t=cls.t)
        try:
            return cls(**fields)
        except LocalProtocolError as exc:
            raise InvalidField(exc.field or "?", exc.reason, t=cls.t) from None

    def to_wire(self) -> dict[str, Any]:
        """The map to encode: ``t`` first, ``None`` fields left out, enums as their values."""
        wire: dict[str, Any] = {"t": self.t}
        for name, _ in _spec(type(self)).checks:
            value = getattr(self, name)
            if value is not None:
                wire[name] = value.value if isinstance(value, enum.Enum) else value
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientMessage(Message):
    """A message a client sends to the server."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMessage(Message):
    """A message the server sends to a client."""

    @classmethod
    def trusted_wire(cls, **fields: Any) -> dict[str, Any]:
        """The wire map of ``cls(**fields)``, made without checking the values.

        Only for values the server made: the messages of every move
        (``moved``, ``progress``, ``board``) and of a race's start, built from
        the engine's output and the server's own counters, valid by
        construction. Checking them again and building a message object only
        to turn it back into a map cost more than packing the frame. A peer
        decodes the map to a message equal to ``cls(**fields)`` (enum members
        are ``StrEnum``: msgpack packs them as their text). Nothing a peer
        sent may come through here. A missing or unknown field is still a
        ``TypeError``, as for ``cls(**fields)``; None values are left out.
        """
        spec = _spec(cls)
        if not spec.names >= fields.keys() >= spec.required_names:
            unknown = sorted(fields.keys() - spec.names)
            missing = sorted(spec.required_names - fields.keys())
            raise TypeError(f"{cls.__name__}: unknown or missing field {(unknown or missing)[0]!r}")
        wire = {"t": cls.t, **fields}
        if None in fields.values():
            return {name: value for name, value in wire.items() if value is not None}
        return wire


# ----------------------------------------------------------------------
# The spectating delay, shared by races and tournaments.

#: Seconds spectators are kept behind under the ``delayed`` policy when the
#: host names none.
DEFAULT_DELAY = 30

#: ``delay``: 1..600 under ``delayed``, 0 otherwise; left out, the policy's default.
SpectateDelay = Annotated[int | None, Opt(Int(0, 600))]


def spectate_delay(policy: SpectatePolicy, delay: int | None) -> int:
    """The spectating delay in seconds: ``delay`` as sent, or the policy's default."""
    if delay is not None:
        return delay
    return DEFAULT_DELAY if policy is SpectatePolicy.DELAYED else 0


def _check_spectate_delay(message: Message, policy: SpectatePolicy, delay: int | None) -> None:
    """A delay sent must suit the policy: some under ``delayed``, none otherwise."""
    if delay is None:
        return
    if policy is SpectatePolicy.DELAYED and delay == 0:
        raise message._invalid("delay", "must be 1..600 when spectate is 'delayed'")
    if policy is not SpectatePolicy.DELAYED and delay != 0:
        raise message._invalid("delay", "must be 0 unless spectate is 'delayed'")


# ----------------------------------------------------------------------
# Client to server.


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(ClientMessage):
    """The first message: protocol version, display name, and a token to resume a session."""

    t: ClassVar[str] = "hello"
    v: Version
    name: PlayerName
    token: Annotated[str | None, Opt(Str(1, 64))] = None

    @classmethod
    def _before_fields(cls, data: Mapping[str, object]) -> None:
        # The version is judged first, so that a newer client whose hello has
        # fields we never heard of still learns which versions we speak.
        version = data.get("v")
        if _is_int(version) and version not in SUPPORTED_VERSIONS:
            raise UnsupportedVersion(version, SUPPORTED_VERSIONS)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListRaces(ClientMessage):
    """Ask for the races open to join and under way; with ``follow``, get the list
    pushed again whenever it changes (``follow`` false stops that)."""

    t: ClassVar[str] = "list_races"
    follow: Annotated[bool | None, Opt(Bool())] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRace(ClientMessage):
    """Open a new race hosted by the sender. ``deal`` None means a secret seed.

    ``spectate`` left out is ``delayed``: boards never reach a racer's second
    client while they could help (docs/protocol.md, *Fair spectating*).
    ``winnable``: a secret seed the server's solver proved winnable (not
    with ``deal``). ``practice``: a race where racers may ask for a ``hint``,
    marked so in its info for anyone who joins.
    """

    t: ClassVar[str] = "create_race"
    variant: Annotated[str, Str(1, 40)]
    max_players: Annotated[int, Int(1, MAX_PLAYERS)]
    time_limit: Annotated[int, Int(30, 7200)]
    spectate: Annotated[SpectatePolicy, Choice(SpectatePolicy)] = SpectatePolicy.DELAYED
    deal: Annotated[int | None, Opt(Int(0, MAX_SEED))] = None
    delay: SpectateDelay = None
    #: Seconds a racer may be away (disconnected) before being resigned as "left"
    #: (None: the server's default, 60).
    grace: Annotated[int | None, Opt(Int(1, 3600))] = None
    winnable: Annotated[bool | None, Opt(Bool())] = None
    practice: Annotated[bool | None, Opt(Bool())] = None
    #: True: the race is never rated, whoever races (docs/players.md).
    unrated: Annotated[bool | None, Opt(Bool())] = None

    def _check_together(self) -> None:
        if self.winnable and self.deal is not None:
            raise self._invalid("winnable", "a public deal number cannot also be drawn winnable")
        _check_spectate_delay(self, self.spectate, self.delay)

    @property
    def spectate_delay(self) -> int:
        """The delay in seconds: the one sent, or the policy's default."""
        return spectate_delay(self.spectate, self.delay)


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinRace(ClientMessage):
    """Join a race as a racer, by its id or by its join code (exactly one)."""

    t: ClassVar[str] = "join_race"
    race: Annotated[str | None, Opt(Str(1, 40))] = None
    code: Annotated[str | None, Opt(Str(1, 12))] = None

    def _check_together(self) -> None:
        if (self.race is None) == (self.code is None):
            raise self._invalid("race", "give exactly one of race and code")


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveRace(ClientMessage):
    t: ClassVar[str] = "leave_race"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(ClientMessage):
    """Say whether the sender is ready; the race starts when every racer is."""

    t: ClassVar[str] = "ready"
    race: RaceId
    ready: Annotated[bool, Bool()]


@dataclass(frozen=True, slots=True, kw_only=True)
class StartRace(ClientMessage):
    """The host starts the countdown without waiting for everyone to be ready."""

    t: ClassVar[str] = "start_race"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class SubmitMove(ClientMessage):
    """One move; ``seq`` is how many moves the sender has already made in this race.

    ``move`` is only checked for length here: the server parses it with the
    engine and answers text that names no move with ``illegal_move``.
    """

    t: ClassVar[str] = "move"
    race: RaceId
    seq: Seq
    move: MoveString


@dataclass(frozen=True, slots=True, kw_only=True)
class Resign(ClientMessage):
    t: ClassVar[str] = "resign"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(ClientMessage):
    t: ClassVar[str] = "spectate"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(ClientMessage):
    """After a reconnect: replay the race's events after number ``since``."""

    t: ClassVar[str] = "resume"
    race: RaceId
    since: EventNumber


@dataclass(frozen=True, slots=True, kw_only=True)
class GetReplay(ClientMessage):
    """After a race: every position of one racer's game, to step through."""

    t: ClassVar[str] = "replay"
    race: RaceId
    player: PlayerId


@dataclass(frozen=True, slots=True, kw_only=True)
class GetHint(ClientMessage):
    """In a practice race: the next move of a winning line from the sender's board."""

    t: ClassVar[str] = "hint"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(ClientMessage):
    t: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTournament(ClientMessage):
    """Open a tournament hosted by the sender.

    ``rounds`` counts the rounds of the rounds format; a knockout plays as
    many bracket rounds as its entrants need. Round ``r`` (from 1) plays
    ``variants[(r - 1) % len(variants)]``. ``best_of`` is the number of races
    of a knockout match (odd). ``table_size`` caps the racers sharing one race
    in a rounds tournament; every table of a round races the same deal.
    """

    t: ClassVar[str] = "create_tournament"
    name: Annotated[str, Str(1, 40, stripped=True)]
    format: Annotated[TournamentFormat, Choice(TournamentFormat)]
    variants: Annotated[Sequence[str], ListOf(Str(1, 40), MAX_ROUNDS)]
    time_limit: Annotated[int, Int(30, 7200)]
    rounds: Annotated[int, Int(1, MAX_ROUNDS)] = 3
    best_of: Annotated[int, Int(1, 9)] = 1
    table_size: Annotated[int, Int(2, MAX_PLAYERS)] = MAX_PLAYERS
    spectate: Annotated[SpectatePolicy, Choice(SpectatePolicy)] = SpectatePolicy.DELAYED
    delay: SpectateDelay = None
    break_seconds: Annotated[int, Int(0, 600)] = 20
    grace: Annotated[int, Int(0, 3600)] = 60
    password: Annotated[str | None, Opt(Str(1, 64))] = None
    winnable: Annotated[bool | None, Opt(Bool())] = None  # every stage on a proved winnable deal

    def _check_together(self) -> None:
        if not self.variants:
            raise self._invalid("variants", "must name at least one variant")
        if self.best_of % 2 == 0:
            raise self._invalid("best_of", "must be odd, so that every match has a winner")
        _check_spectate_delay(self, self.spectate, self.delay)

    @property
    def spectate_delay(self) -> int:
        """The delay in seconds: the one sent, or the policy's default."""
        return spectate_delay(self.spectate, self.delay)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListTournaments(ClientMessage):
    """Ask for the tournaments open to join or under way."""

    t: ClassVar[str] = "list_tournaments"


@dataclass(frozen=True, slots=True, kw_only=True)
class _NamesATournament(ClientMessage):
    """A request about one tournament, named by its id or its join code (exactly one)."""

    tournament: Annotated[str | None, Opt(Str(1, 40))] = None
    code: Annotated[str | None, Opt(Str(1, 12))] = None

    def _check_together(self) -> None:
        if (self.tournament is None) == (self.code is None):
            raise self._invalid("tournament", "give exactly one of tournament and code")


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinTournament(_NamesATournament):
    """Enter a tournament before it starts."""

    t: ClassVar[str] = "join_tournament"
    password: Annotated[str | None, Opt(Str(1, 64))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveTournament(ClientMessage):
    """Withdraw before the start (afterwards the host removes entrants)."""

    t: ClassVar[str] = "leave_tournament"
    tournament: TournamentId


@dataclass(frozen=True, slots=True, kw_only=True)
class WatchTournament(_NamesATournament):
    """Follow a tournament: its state now, then every change pushed."""

    t: ClassVar[str] = "watch_tournament"


@dataclass(frozen=True, slots=True, kw_only=True)
class ManageTournament(ClientMessage):
    """The host starts, pauses, resumes or cancels a tournament, or removes an entrant."""

    t: ClassVar[str] = "manage_tournament"
    tournament: TournamentId
    action: Annotated[TournamentAction, Choice(TournamentAction)]
    player: Annotated[str | None, Opt(Str(1, 40))] = None

    def _check_together(self) -> None:
        if (self.action is TournamentAction.REMOVE) != (self.player is not None):
            raise self._invalid("player", "is required for 'remove' and only for it")


@dataclass(frozen=True, slots=True, kw_only=True)
class GetTournamentRecord(_NamesATournament):
    """The whole record: every round, race, revealed seed and move log so far."""

    t: ClassVar[str] = "get_tournament_record"


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(ClientMessage):
    """Create an account and log this connection in to it (docs/players.md).

    ``name`` must not be taken by another account, nor look like one that is
    (case, width, accents and look-alike letters are folded).
    """

    t: ClassVar[str] = "register"
    name: PlayerName
    password: NewPassword = dataclasses.field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(ClientMessage):
    """Log this connection in to an account; it speaks for the account from now on."""

    t: ClassVar[str] = "login"
    name: PlayerName
    password: GivenPassword = dataclasses.field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Logout(ClientMessage):
    """Revoke this connection's account token (``everywhere``: every token of the account).

    The connection goes on as a new guest, which the ``account`` reply names.
    """

    t: ClassVar[str] = "logout"
    everywhere: Annotated[bool, Bool()] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickRace(ClientMessage):
    """Wait for a race of ``size`` racers in ``variant`` against players of close rating."""

    t: ClassVar[str] = "quick_race"
    variant: Annotated[str, Str(1, 40)]
    size: Annotated[int, Int(2, MAX_PLAYERS)] = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveQueue(ClientMessage):
    """Stop waiting for a quick race."""

    t: ClassVar[str] = "leave_queue"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(ClientMessage):
    """After a race: accept a new race on a fresh deal with the same racers (all must)."""

    t: ClassVar[str] = "rematch"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class GetResults(ClientMessage):
    """A finished race's results again (from a profile, say); answered with race_finished."""

    t: ClassVar[str] = "get_results"
    race: RaceId


@dataclass(frozen=True, slots=True, kw_only=True)
class GetDaily(ClientMessage):
    """Today's deal of a variant: its commitment, its board of times, yesterday's seed."""

    t: ClassVar[str] = "get_daily"
    variant: Annotated[str, Str(1, 40)]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayDaily(ClientMessage):
    """Play today's deal of a variant (accounts, once a day); answered with ``matched``."""

    t: ClassVar[str] = "play_daily"
    variant: Annotated[str, Str(1, 40)]


@dataclass(frozen=True, slots=True, kw_only=True)
class GetProfile(ClientMessage):
    """An account's profile: ratings, races played and won, best times, last 50 races.

    ``player`` names the account; without it, the sender's own (an account's).
    """

    t: ClassVar[str] = "get_profile"
    player: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GetLeaderboard(ClientMessage):
    """The top 100 settled ratings of a variant (or ``overall``), or its fastest wins."""

    t: ClassVar[str] = "get_leaderboard"
    variant: Annotated[str, Str(1, 40)]
    #: True: the fastest winning times of the variant instead of its ratings.
    fastest: Annotated[bool | None, Opt(Bool())] = None


# ----------------------------------------------------------------------
# Server to client.


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(ServerMessage):
    """The answer to hello: the version spoken, the session token and the player's id."""

    t: ClassVar[str] = "welcome"
    v: Version
    token: Token
    player: PlayerId
    name: PlayerName
    node: Annotated[str, Str(1, 64)]
    #: The server's clock (unix seconds) as it answered: a client whose own
    #: clock is off counts a race's time left by the server's.
    now: Annotated[float | None, Opt(Float())] = None
    #: True for a guest session, False for an account's; absent from older servers.
    guest: Annotated[bool | None, Opt(Bool())] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Races(ServerMessage):
    """The answer to list_races: one summary map per open race."""

    t: ClassVar[str] = "races"
    races: Annotated[Sequence[dict[str, Any]], ListOf(AnyMap(), MAX_RACES)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceInfo(ServerMessage):
    """The answer to create_race and join_race: the race as it stands."""

    t: ClassVar[str] = "race"
    race: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceState(ServerMessage):
    """Pushed to everyone in a race's lobby whenever it changes."""

    t: ClassVar[str] = "race_state"
    race: Data
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Countdown(ServerMessage):
    t: ClassVar[str] = "countdown"
    race: RaceId
    seconds: Annotated[int, Int(0, 3600)]
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceStarted(ServerMessage):
    """To each racer at the start: the layout, their view, legal moves, the commitment."""

    t: ClassVar[str] = "race_started"
    race: RaceId
    layout: Data
    view: Data
    legal: LegalMoves
    commitment: Digest
    deal_version: DealVersion
    started_at: Timestamp
    ends_at: Timestamp
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Moved(ServerMessage):
    """The answer to move, and to a repeat of an already applied ``seq``."""

    t: ClassVar[str] = "moved"
    race: RaceId
    seq: Seq
    move: MoveString
    view: Data
    legal: LegalMoves
    progress: Data
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress(ServerMessage):
    """To the other racers: how far ``player`` has got, never their cards."""

    t: ClassVar[str] = "progress"
    race: RaceId
    player: PlayerId
    progress: Data
    event: EventNumber


@dataclass(frozen=True, slots=True, kw_only=True)
class Presence(ServerMessage):
    """To a race's other racers and spectators: ``player``'s connection came or went.

    ``away`` is when they went away (unix seconds), None once they are back.
    A racer away longer than the race's ``grace`` is resigned as ``left``.
    """

    t: ClassVar[str] = "presence"
    race: RaceId
    player: PlayerId
    event: EventNumber
    away: Annotated[float | None, Opt(Float())] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTaken(ServerMessage):
    """Pushed to a racer's connection when another connection of theirs takes the seat.

    A seat has one live connection: from this event on, this connection's
    moves in the race are refused (``seat_taken``); a ``resume`` takes the
    seat back.
    """

    t: ClassVar[str] = "seat_taken"
    race: RaceId
    event: EventNumber


@dataclass(frozen=True, slots=True, kw_only=True)
class Board(ServerMessage):
    """To spectators: one racer's board after ``move`` (None: a change without a move).

    ``seq`` is how many moves the player had made before ``move``; with no
    move, how many they have made.
    """

    t: ClassVar[str] = "board"
    race: RaceId
    player: PlayerId
    seq: Seq
    view: Data
    event: EventNumber
    move: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectating(ServerMessage):
    """The answer to spectate: the race, its layout and every racer's board.

    Before the start (or, under the ``after`` policy, before the end) there
    are no boards yet, and before the start no ``layout`` either.
    """

    t: ClassVar[str] = "spectating"
    race: Data
    boards: Annotated[dict[str, dict[str, Any]], MapOf(Str(1, 40), AnyMap(), MAX_PLAYERS)]
    event: EventNumber
    layout: Annotated[dict[str, Any] | None, Opt(AnyMap())] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceFinished(ServerMessage):
    """The results, the seed that proves the commitment, and every racer's move log."""

    t: ClassVar[str] = "race_finished"
    race: RaceId
    standings: Annotated[Sequence[dict[str, Any]], ListOf(AnyMap(), MAX_PLAYERS)]
    seed: Annotated[int, Int(0, MAX_SEED)]
    commitment: Digest
    deal_version: DealVersion
    logs: Annotated[
        dict[str, Sequence[str]],
        MapOf(Str(1, 40), ListOf(Str(1, 40), MAX_SEQ + 1), MAX_PLAYERS),
    ]
    event: PushedEvent = None
    #: A winnable deal's winning line, found by the solver, and its length.
    line: Annotated[Sequence[str] | None, Opt(ListOf(Str(1, 40), MAX_SEQ + 1))] = None
    par: Annotated[int | None, Opt(Int(0, MAX_SEQ))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(ServerMessage):
    """The answer to replay: ``views[n]`` is the racer's board after ``n`` of ``moves``."""

    t: ClassVar[str] = "replay_views"
    race: RaceId
    player: PlayerId
    moves: Annotated[Sequence[str], ListOf(Str(1, 40), MAX_SEQ + 1)]
    views: Annotated[Sequence[dict[str, Any]], ListOf(AnyMap(), MAX_SEQ + 2)]


class HintOutcome(enum.StrEnum):
    """What the solver found from a racer's board, for a ``hint``."""

    WINNABLE = "winnable"  # ``move`` is the next move of a winning line
    LOST = "lost"  # no line wins from here (proved)
    UNKNOWN = "unknown"  # the solver found no win within its time


@dataclass(frozen=True, slots=True, kw_only=True)
class Hinted(ServerMessage):
    """The answer to hint: ``move`` when a winning line was found from board ``seq``."""

    t: ClassVar[str] = "hinted"
    race: RaceId
    seq: Seq
    outcome: Annotated[HintOutcome, Choice(HintOutcome)]
    move: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(ServerMessage):
    t: ClassVar[str] = "pong"


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorMessage(ServerMessage):
    """A refusal: ``code`` for programs, ``message`` for people, ``id`` of the request."""

    t: ClassVar[str] = "error"
    code: Annotated[ErrorCode, Choice(ErrorCode)]
    message: Annotated[str, Str(0, 1000, printable=False)]
    #: Seconds to wait before asking again (``rate_limited`` logins).
    retry_after: Annotated[float | None, Opt(Float())] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(ServerMessage):
    """A tournament as it stands: the reply to tournament requests, and pushed on change."""

    t: ClassVar[str] = "tournament"
    tournament: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournaments(ServerMessage):
    """The answer to list_tournaments: one summary map per tournament."""

    t: ClassVar[str] = "tournaments"
    tournaments: Annotated[Sequence[dict[str, Any]], ListOf(AnyMap(), MAX_RACES)]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRecord(ServerMessage):
    """The answer to get_tournament_record: the tournament and every finished race's results."""

    t: ClassVar[str] = "tournament_record"
    record: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class Account(ServerMessage):
    """The answer to register, login and logout: who this connection now speaks for.

    ``token`` resumes this identity in a later ``hello``; an account's token
    works until it is revoked (logout) or unused for 30 days.
    """

    t: ClassVar[str] = "account"
    token: Token
    player: PlayerId
    name: PlayerName
    guest: Annotated[bool, Bool()]


@dataclass(frozen=True, slots=True, kw_only=True)
class Queued(ServerMessage):
    """The answer to quick_race and leave_queue: whether the sender waits, and for what."""

    t: ClassVar[str] = "queue"
    queued: Annotated[bool, Bool()]
    variant: Annotated[str | None, Opt(Str(1, 40))] = None
    size: Annotated[int | None, Opt(Int(2, MAX_PLAYERS))] = None
    rating: Annotated[int | None, Opt(Int(0, 100_000))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Matched(ServerMessage):
    """Pushed when a quick race was found: the race's events follow, as to a racer."""

    t: ClassVar[str] = "matched"
    race: RaceId
    variant: Annotated[str, Str(1, 40)]
    #: The race as a ``race`` message describes it: its racers and settings.
    info: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchState(ServerMessage):
    """The answer to rematch: how many racers accepted; ``rematch`` once all did."""

    t: ClassVar[str] = "rematch_state"
    race: RaceId
    accepted: Annotated[int, Int(0, MAX_PLAYERS)]
    racers: Annotated[int, Int(0, MAX_PLAYERS)]
    rematch: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOffer(ServerMessage):
    """Pushed to a finished race's other racers when ``player`` accepts a rematch of it.

    Without it a racer would learn of the offer only by asking; ``rematch``
    names the new race once this acceptance completed the set.
    """

    t: ClassVar[str] = "rematch_offer"
    race: RaceId
    player: PlayerId
    name: PlayerName
    accepted: Annotated[int, Int(1, MAX_PLAYERS)]
    racers: Annotated[int, Int(1, MAX_PLAYERS)]
    event: EventNumber
    rematch: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Daily(ServerMessage):
    """The answer to get_daily (its map is described in docs/protocol.md)."""

    t: ClassVar[str] = "daily"
    daily: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile(ServerMessage):
    """The answer to get_profile (its map is described in docs/players.md)."""

    t: ClassVar[str] = "profile"
    profile: Data


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(ServerMessage):
    """The answer to get_leaderboard: place, player, name and rating, best first."""

    t: ClassVar[str] = "leaderboard"
    variant: Annotated[str, Str(1, 40)]
    entries: Annotated[Sequence[dict[str, Any]], ListOf(AnyMap(), 100)]
    fastest: Annotated[bool | None, Opt(Bool())] = None


class ServiceState(enum.StrEnum):
    """Whether a node can do its work: reach the storage every race lives in."""

    OK = "ok"
    DEGRADED = "degraded"  # storage unreachable: connections stay open, moves are refused


@dataclass(frozen=True, slots=True, kw_only=True)
class Service(ServerMessage):
    """Pushed to every connected client when the node loses its storage, and when it is back.

    While ``degraded`` the connection stays open, and requests that need the
    storage (moves among them) are refused with the retryable ``unavailable``.
    """

    t: ClassVar[str] = "service"
    state: Annotated[ServiceState, Choice(ServiceState)]
    message: Annotated[str, Str(0, 1000)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rewound(ServerMessage):
    """Pushed when the storage lost a race's latest events (restored from an older copy).

    Everything after ``event`` that the client was told did not happen, and
    later events reuse those numbers. A racer's message carries their board as
    it now stands (``seq``, ``view``, ``legal``), ``lost``: how many of their
    acknowledged moves are gone, and every racer's ``progress``.
    """

    t: ClassVar[str] = "rewound"
    race: RaceId
    event: EventNumber
    lost: Annotated[int | None, Opt(Int(0, MAX_SEQ))] = None
    seq: Annotated[int | None, Opt(Int(0, MAX_SEQ))] = None
    view: Annotated[dict[str, Any] | None, Opt(AnyMap())] = None
    legal: Annotated[Sequence[str] | None, Opt(ListOf(Str(1, 40), MAX_LEGAL))] = None
    progress: Annotated[
        dict[str, dict[str, Any]] | None, Opt(MapOf(Str(1, 40), AnyMap(), MAX_PLAYERS))
    ] = None


# ----------------------------------------------------------------------
# Registries and dispatch.

CLIENT_MESSAGES: Mapping[str, type[ClientMessage]] = MappingProxyType(
    {
        cls.t: cls
        for cls in (
            Hello,
            ListRaces,
            CreateRace,
            JoinRace,
            LeaveRace,
            Ready,
            StartRace,
            SubmitMove,
            Resign,
            Spectate,
            Resume,
            GetReplay,
            GetHint,
            Ping,
            CreateTournament,
            ListTournaments,
            JoinTournament,
            LeaveTournament,
            WatchTournament,
            ManageTournament,
            GetTournamentRecord,
            Register,
            Login,
            Logout,
            QuickRace,
            LeaveQueue,
            GetProfile,
            GetLeaderboard,
            Rematch,
            GetDaily,
            PlayDaily,
            GetResults,
        )
    }
)

SERVER_MESSAGES: Mapping[str, type[ServerMessage]] = MappingProxyType(
    {
        cls.t: cls
        for cls in (
            Welcome,
            Races,
            RaceInfo,
            RaceState,
            Countdown,
            RaceStarted,
            Moved,
            Progress,
            Presence,
            SeatTaken,
            Board,
            Spectating,
            RaceFinished,
            Replay,
            Hinted,
            Pong,
            ErrorMessage,
            TournamentInfo,
            Tournaments,
            TournamentRecord,
            Service,
            Rewound,
            Account,
            Queued,
            Matched,
            Profile,
            Leaderboard,
            RematchState,
            RematchOffer,
            Daily,
        )
    }
)

M = TypeVar("M", bound=Message)


def _from_wire(data: object, registry: Mapping[str, type[M]]) -> M:
    if not isinstance(data, dict):
        raise NotAMap(_kind(data))
    request_id = data.get("id")
    try:
        if "t" not in data:
            raise InvalidField("t", "missing")
        t = data["t"]
        if not isinstance(t, str):
            raise InvalidField("t", f"must be a string, not {_kind(t)}")
        cls = registry.get(t)
        if cls is None:
            raise UnknownType(t)
        return cls.from_wire(data)
    except RemoteProtocolError as exc:
        # Let the error reply carry the request's id whenever it was readable.
        if _is_int(request_id) and 0 <= request_id <= MAX_ID:
            exc.request_id = request_id
        raise


def client_from_wire(data: object) -> ClientMessage:
    """The client message a decoded map holds; raises :class:`RemoteProtocolError`."""
    return _from_wire(data, CLIENT_MESSAGES)


def server_from_wire(data: object) -> ServerMessage:
    """The server message a decoded map holds; raises :class:`RemoteProtocolError`."""
    return _from_wire(data, SERVER_MESSAGES)


def deal_commitment(variant: str, deal_version: int, seed: int, race: str) -> str:
    """The hex SHA-256 a race publishes at its start and proves with the seed at its end.

    It hashes the UTF-8 of ``ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race}``
    (numbers in decimal), so anyone can check that every racer got the deal
    fixed before the race began.
    """
    text = f"ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

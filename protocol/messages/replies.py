"""The messages the server sends: replies to requests and pushes, one class per ``t``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from protocol.exceptions import ErrorCode
from protocol.layout import Layout
from protocol.lobby import RaceSummary
from protocol.messages.base import ServerMessage
from protocol.messages.enums import HintOutcome, ServiceState
from protocol.messages.fields import (
    MAX_ID,
    MAX_LEGAL,
    MAX_PLAYERS,
    MAX_RACES,
    MAX_SEED,
    MAX_SEQ,
    MAX_STAGE,
    DealVersion,
    Digest,
    EventNumber,
    LegalMoves,
    MoveString,
    PlayerId,
    PlayerName,
    PushedEvent,
    RaceId,
    Seq,
    Timestamp,
    Token,
    Version,
)
from protocol.profiles import DailyDeal, LeaderboardEntry, PlayerProfile
from protocol.results import RaceAnalysis, Standing
from protocol.tournaments import Tournament, TournamentSummary
from protocol.validation import AnyMap, Bool, Choice, Float, Int, ListOf, MapOf, Opt, Str, Typed
from protocol.views import Progress as RacerProgress
from protocol.views import View

#: A field of one typed value, read from its map and written back to the same map.
RaceField = Annotated[RaceSummary, Typed(RaceSummary)]
ViewField = Annotated[View, Typed(View)]
LayoutField = Annotated[Layout, Typed(Layout)]
ProgressField = Annotated[RacerProgress, Typed(RacerProgress)]

__all__ = [
    "Account",
    "Board",
    "Countdown",
    "Daily",
    "ErrorMessage",
    "Featured",
    "Hinted",
    "Leaderboard",
    "Matched",
    "Moved",
    "Pong",
    "Presence",
    "Profile",
    "Progress",
    "Queued",
    "RaceAnalysed",
    "RaceFinished",
    "RaceInfo",
    "RaceStarted",
    "RaceState",
    "Races",
    "RematchOffer",
    "RematchState",
    "Replay",
    "Rewound",
    "SeatTaken",
    "Service",
    "Spectating",
    "Spectators",
    "TournamentInfo",
    "TournamentRecord",
    "Tournaments",
    "Welcome",
]


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
    races: Annotated[Sequence[RaceSummary], ListOf(Typed(RaceSummary), MAX_RACES)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceInfo(ServerMessage):
    """The answer to create_race and join_race: the race as it stands."""

    t: ClassVar[str] = "race"
    race: RaceField


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceState(ServerMessage):
    """Pushed to everyone in a race's lobby whenever it changes."""

    t: ClassVar[str] = "race_state"
    race: RaceField
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
    layout: LayoutField
    view: ViewField
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
    view: ViewField
    legal: LegalMoves
    progress: ProgressField
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress(ServerMessage):
    """To the other racers: how far ``player`` has got, never their cards."""

    t: ClassVar[str] = "progress"
    race: RaceId
    player: PlayerId
    progress: ProgressField
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
class Spectators(ServerMessage):
    """To a race's spectators: how many are watching it now, on every node together.

    Pushed when the count changes (at most once per node sweep) and once to each
    new spectator. It numbers no event: someone watching is no event of the race.
    """

    t: ClassVar[str] = "spectators"
    race: RaceId
    count: Annotated[int, Int(0, MAX_ID)]


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
    view: ViewField
    event: EventNumber
    move: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectating(ServerMessage):
    """The answer to spectate: the race, its layout and every racer's board.

    Before the start (or, under the ``after`` policy, before the end) there
    are no boards yet, and before the start no ``layout`` either.
    """

    t: ClassVar[str] = "spectating"
    race: RaceField
    boards: Annotated[dict[str, View], MapOf(Str(1, 40), Typed(View), MAX_PLAYERS)]
    event: EventNumber
    layout: Annotated[Layout | None, Opt(Typed(Layout))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceFinished(ServerMessage):
    """The results, the seed that proves the commitment, and every racer's move log."""

    t: ClassVar[str] = "race_finished"
    race: RaceId
    standings: Annotated[Sequence[Standing], ListOf(Typed(Standing), MAX_PLAYERS)]
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
    #: A winnable deal's draw and the number of its candidate dealt (docs/protocol.md).
    draw: Annotated[int | None, Opt(Int(0, MAX_SEED))] = None
    pick: Annotated[int | None, Opt(Int(0, 1000))] = None
    #: The post-race analysis, once done (it follows the results: :class:`RaceAnalysed`).
    analysis: Annotated[RaceAnalysis | None, Opt(Typed(RaceAnalysis))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceAnalysed(ServerMessage):
    """The post-race analysis of a race whose results were sent without it: pushed to
    its racers once the solver has looked at every racer's game."""

    t: ClassVar[str] = "race_analysis"
    race: RaceId
    analysis: Annotated[RaceAnalysis, Typed(RaceAnalysis)]
    event: PushedEvent = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(ServerMessage):
    """The answer to replay: ``views[n]`` is the racer's board after ``n`` of ``moves``."""

    t: ClassVar[str] = "replay_views"
    race: RaceId
    player: PlayerId
    moves: Annotated[Sequence[str], ListOf(Str(1, 40), MAX_SEQ + 1)]
    views: Annotated[Sequence[View], ListOf(Typed(View), MAX_SEQ + 2)]


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
    tournament: Annotated[Tournament, Typed(Tournament)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournaments(ServerMessage):
    """The answer to list_tournaments: one summary map per tournament."""

    t: ClassVar[str] = "tournaments"
    tournaments: Annotated[Sequence[TournamentSummary], ListOf(Typed(TournamentSummary), MAX_RACES)]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRecord(ServerMessage):
    """The answer to get_tournament_record: the tournament and every finished race's results."""

    t: ClassVar[str] = "tournament_record"
    #: Still the map itself: a client saves it as JSON exactly as sent
    #: (:func:`protocol.record.to_json`), and reads it with
    #: :meth:`protocol.tournaments.Record.from_data`, which writes no map back yet.
    record: Annotated[dict[str, Any], AnyMap()]
    #: Where the next page of the record starts (its ``from_stage``); left out on the last.
    next_stage: Annotated[int | None, Opt(Int(0, MAX_STAGE))] = None


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
    info: RaceField


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
    daily: Annotated[DailyDeal, Typed(DailyDeal)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Featured(ServerMessage):
    """The answer to featured_race: the race to watch now, None when none is under way.

    Only the race's id: it is watched with ``spectate``, under its own policy.
    """

    t: ClassVar[str] = "featured"
    race: Annotated[str | None, Opt(Str(1, 40))] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile(ServerMessage):
    """The answer to get_profile (its map is described in docs/players.md)."""

    t: ClassVar[str] = "profile"
    profile: Annotated[PlayerProfile, Typed(PlayerProfile)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(ServerMessage):
    """The answer to get_leaderboard: place, player, name and rating, best first."""

    t: ClassVar[str] = "leaderboard"
    variant: Annotated[str, Str(1, 40)]
    entries: Annotated[Sequence[LeaderboardEntry], ListOf(Typed(LeaderboardEntry), 100)]
    fastest: Annotated[bool | None, Opt(Bool())] = None


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
    view: Annotated[View | None, Opt(Typed(View))] = None
    legal: Annotated[Sequence[str] | None, Opt(ListOf(Str(1, 40), MAX_LEGAL))] = None
    progress: Annotated[
        dict[str, RacerProgress] | None, Opt(MapOf(Str(1, 40), Typed(RacerProgress), MAX_PLAYERS))
    ] = None

"""The messages a client sends to the server (requests), one class per ``t``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar

from protocol.exceptions import UnsupportedVersion
from protocol.messages.base import ClientMessage, Message
from protocol.messages.enums import (
    HintLevel,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    spectate_delay,
)
from protocol.messages.fields import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_STAGE,
    EventNumber,
    GivenPassword,
    MoveString,
    NewPassword,
    PlayerId,
    PlayerName,
    RaceId,
    Seq,
    SpectateDelay,
    TournamentId,
    Version,
)
from protocol.validation import Bool, Choice, Int, ListOf, Opt, Str, is_int
from protocol.version import SUPPORTED_VERSIONS

__all__ = [
    "CreateRace",
    "CreateTournament",
    "FeaturedRace",
    "GetDaily",
    "GetHint",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "GetResults",
    "GetTournamentRecord",
    "Hello",
    "JoinRace",
    "JoinTournament",
    "LeaveQueue",
    "LeaveRace",
    "LeaveTournament",
    "ListRaces",
    "ListTournaments",
    "Login",
    "Logout",
    "ManageTournament",
    "PauseArena",
    "Ping",
    "PlayDaily",
    "QuickRace",
    "Ready",
    "Register",
    "Rematch",
    "Resign",
    "Resume",
    "Spectate",
    "StartRace",
    "SubmitMove",
    "WatchTournament",
]


def _check_spectate_delay(message: Message, policy: SpectatePolicy, delay: int | None) -> None:
    """A delay sent must suit the policy: some under ``delayed``, none otherwise."""
    if delay is None:
        return
    if policy is SpectatePolicy.DELAYED and delay == 0:
        raise message._invalid("delay", "must be 1..600 when spectate is 'delayed'")
    if policy is not SpectatePolicy.DELAYED and delay != 0:
        raise message._invalid("delay", "must be 0 unless spectate is 'delayed'")


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
        if is_int(version) and version not in SUPPORTED_VERSIONS:
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
    """In a practice race: the next move of a winning line from the sender's board.

    ``level`` expert (None means solver): the move the expert bot would play,
    worked out from the sender's view alone (``server.rules.expert``).
    """

    t: ClassVar[str] = "hint"
    race: RaceId
    level: Annotated[HintLevel | None, Opt(Choice(HintLevel))] = None


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
    #: An arena's length in seconds from its start (clients ask for minutes).
    duration: Annotated[int, Int(10, 86400)] = 1800
    #: An arena starts no race in its last ``cutoff`` seconds.
    cutoff: Annotated[int, Int(0, 3600)] = 30

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
class PauseArena(ClientMessage):
    """An arena's entrant steps out (``paused``: no new race for them; the one under way
    goes on) or comes back (``paused`` false: grouped again at the next sweep)."""

    t: ClassVar[str] = "pause_arena"
    tournament: TournamentId
    paused: Annotated[bool, Bool()]


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
    """The record, a page at a time: every round, race, revealed seed and move log so far.

    ``from_stage``: the stage number the page starts at (the first stage when
    left out); the reply's ``next_stage`` is where the next page starts.
    """

    t: ClassVar[str] = "get_tournament_record"
    from_stage: Annotated[int | None, Opt(Int(0, MAX_STAGE))] = None


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
class FeaturedRace(ClientMessage):
    """Which race the server features now (the /tv page's): answered with ``featured``."""

    t: ClassVar[str] = "featured_race"


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

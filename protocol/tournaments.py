"""A tournament as both ends hold it: the document of ``docs/protocol.md``.

The server keeps one document per tournament and pushes it whole at every
change (``tournament``); the lobby lists short summaries of them
(``tournaments``) and ``tournament_record`` carries one with the results of
every closed race. The types here hold those maps, and they are the one
model of a tournament on both ends: the server's rules
(``server/rules/tournaments.py``) change these frozen values with
``dataclasses.replace``, and its store keeps their ``to_data`` maps.
``to_data`` gives exactly the maps the protocol describes, keys in the
server's order; ``from_data`` reads such a map or refuses it with
:class:`~protocol.exceptions.InvalidField` naming the key
(``tournament.stages[1].races[0].seed``).

Nothing here knows the scoring rules: places, points, bracket winners and
the champion come from the server's rules, and these types only carry them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from protocol.messages.enums import SpectatePolicy, TournamentFormat
from protocol.results import DecidedBy, RacerStatus, Standing
from protocol.validation import Shape

__all__ = [
    "ClosedRace",
    "Entrant",
    "Match",
    "RankedBy",
    "Record",
    "Stage",
    "StageResult",
    "StageStatus",
    "Tournament",
    "TournamentStanding",
    "TournamentStatus",
    "TournamentSummary",
    "TournamentTable",
]


class TournamentStatus(enum.StrEnum):
    """Where a tournament is in its life."""

    OPEN = "open"  # entrants join
    RUNNING = "running"
    PAUSED = "paused"  # the stage under way ends; no new one starts
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        """Whether nothing will change any more."""
        return self in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)

    @property
    def active(self) -> bool:
        """Whether it has started and not ended: entrants are racing or about to."""
        return self in (TournamentStatus.RUNNING, TournamentStatus.PAUSED)


class StageStatus(enum.StrEnum):
    """Whether a stage's races are under way."""

    RUNNING = "running"
    DONE = "done"  # every race closed and scored
    CANCELLED = "cancelled"  # the host cancelled the tournament during it


class RankedBy(enum.StrEnum):
    """What put an entrant below the one above them in a tournament's standings."""

    REMOVED = "removed"  # the host took the lower one out
    POINTS = "points"
    CHAMPION = "champion"
    ROUND_REACHED = "round reached"
    RACES_WON = "races won"
    AVERAGE_PLACE = "average place"  # an arena's: the better mean place over its races
    ENTRY = "entry"  # an arena's last tie-break: who entered first
    CARDS_HOME = "cards home"
    TIME = "time"
    TIE = "tie"  # nothing: they share the place


@dataclass(frozen=True, slots=True)
class Entrant:
    """One entrant, as seeded (the order they joined).

    ``paused``: an arena's entrant who stepped out, or was away past the grace
    period; they are grouped into no new race until they come back.
    """

    player: str
    name: str
    removed: bool = False
    paused: bool = False

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {
            "player": self.player,
            "name": self.name,
            "removed": self.removed,
        }
        if self.paused:  # only an arena's entrants pause: the other formats' maps stay as were
            data["paused"] = True
        return data

    @classmethod
    def read(cls, shape: Shape) -> Entrant:
        return cls(
            shape.text("player"),
            shape.text("name"),
            shape.flag("removed", False),
            shape.flag("paused", False),
        )


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """One race of a stage: the table's number, who sits at it, and its deal's proof.

    ``match`` is the index of the knockout match it plays in its bracket
    round (None in the rounds format); ``seed`` is None until the race closes.
    """

    race: str
    table: int
    players: tuple[str, ...]
    commitment: str
    match: int | None = None
    seed: int | None = None

    def to_data(self) -> dict[str, object]:
        return {
            "race": self.race,
            "table": self.table,
            "players": list(self.players),
            "match": self.match,
            "commitment": self.commitment,
            "seed": self.seed,
        }

    @classmethod
    def read(cls, shape: Shape) -> TournamentTable:
        return cls(
            race=shape.text("race"),
            table=shape.integer("table"),
            players=shape.texts("players"),
            commitment=shape.text("commitment"),
            match=shape.optional_integer("match"),
            seed=shape.optional_integer("seed"),
        )


@dataclass(frozen=True, slots=True)
class StageResult:
    """One seated player's result in a stage: their place, points and game.

    ``time`` is seconds; in the rounds format a racer who did not win counts
    the whole time limit. ``by`` says what decided the place within a round
    (the rounds format ranks all tables together); a knockout's game has none.
    ``points`` may be a share such as 2.5 when racers tie.
    """

    place: int
    points: float
    status: RacerStatus
    home: int
    time: float
    by: DecidedBy | None = None

    def to_data(self, *, ranked: bool) -> dict[str, object]:
        """The map; ``ranked``: the rounds format's, which says what decided the place."""
        data: dict[str, object] = {
            "place": self.place,
            "points": self.points,
            "status": self.status.value,
            "home": self.home,
            "time": self.time,
        }
        if ranked:
            data["by"] = None if self.by is None else self.by.value
        return data

    @classmethod
    def read(cls, shape: Shape) -> StageResult:
        return cls(
            place=shape.integer("place"),
            points=shape.number("points"),
            status=shape.choice("status", RacerStatus),
            home=shape.integer("home"),
            time=shape.number("time"),
            by=shape.optional_choice("by", DecidedBy),
        )


@dataclass(frozen=True, slots=True)
class Stage:
    """A set of races started together on one deal: a round, or one game of each match.

    ``started`` is unix seconds; ``results`` maps each seated player to their
    result once the stage is done.
    """

    n: int
    round: int
    game: int
    variant: str
    status: StageStatus
    started: float
    races: tuple[TournamentTable, ...]
    results: Mapping[str, StageResult]

    def seat_of(self, player: str) -> TournamentTable | None:
        """The table ``player`` sits at in this stage, if any (none: a bye, or not an entrant)."""
        return next((table for table in self.races if player in table.players), None)

    def table_of(self, race: str) -> TournamentTable | None:
        return next((table for table in self.races if table.race == race), None)

    def to_data(self, *, ranked: bool) -> dict[str, object]:
        """The map; ``ranked`` as in :meth:`StageResult.to_data`."""
        return {
            "n": self.n,
            "round": self.round,
            "game": self.game,
            "variant": self.variant,
            "status": self.status.value,
            "started": self.started,
            "races": [table.to_data() for table in self.races],
            "results": {
                player: result.to_data(ranked=ranked) for player, result in self.results.items()
            },
        }

    @classmethod
    def read(cls, shape: Shape) -> Stage:
        return cls(
            n=shape.integer("n"),
            round=shape.integer("round"),
            game=shape.integer("game"),
            variant=shape.text("variant"),
            status=shape.choice("status", StageStatus),
            started=shape.number("started"),
            races=tuple(TournamentTable.read(table) for table in shape.shapes("races")),
            results={
                player: StageResult.read(result)
                for player, result in shape.shape_map("results").items()
            },
        )


@dataclass(frozen=True, slots=True)
class Match:
    """A knockout match: ``a`` against ``b`` (None on one side: a bye for the other).

    ``wins`` counts the games each side won; ``forfeit`` names the player who
    lost it by being away or removed, if that decided it.
    """

    a: str | None
    b: str | None
    wins: tuple[int, int] = (0, 0)
    winner: str | None = None
    forfeit: str | None = None

    @property
    def bye(self) -> bool:
        return self.a is None or self.b is None

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for player in (self.a, self.b) if player is not None)

    def to_data(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "wins": list(self.wins),
            "winner": self.winner,
            "forfeit": self.forfeit,
        }

    @classmethod
    def read(cls, shape: Shape) -> Match:
        wins = shape.integers("wins")
        if len(wins) != 2:
            raise shape.invalid("wins", "must hold two counts, a's and b's")
        return cls(
            a=shape.optional_text("a"),
            b=shape.optional_text("b"),
            wins=(wins[0], wins[1]),
            winner=shape.optional_text("winner"),
            forfeit=shape.optional_text("forfeit"),
        )


@dataclass(frozen=True, slots=True)
class TournamentStanding:
    """One entrant's line in the standings, best first.

    Totals over every stage: ``points``, cards ``home``, ``time`` (seconds)
    and ``wins`` (games solved, or in a knockout games won; in an arena, races
    placed first); ``round`` is the last bracket round a knockout entrant
    reached (0 in the other formats). An arena's line also counts the
    entrant's ``races``, their ``streak`` (races placed first in a row up to
    now; from 2, their next race scores double: docs/tournaments.md) and
    ``places``, the sum of their races' places (its mean breaks ties). The
    line is the running total of the entrant's scored races, so an arena's
    standings hold even for races no longer in the document.
    """

    place: int
    player: str
    name: str
    points: float
    home: int
    time: float
    wins: int
    round: int
    removed: bool = False
    by: RankedBy | None = None
    races: int = 0
    streak: int = 0
    places: int = 0

    @property
    def average_place(self) -> float:
        """The mean place over the entrant's arena races (infinite before the first)."""
        return self.places / self.races if self.races else float("inf")

    def to_data(self, *, arena: bool = False) -> dict[str, object]:
        """The map; ``arena``: with the arena's ``races``, ``streak`` and ``places``."""
        data: dict[str, object] = {
            "place": self.place,
            "player": self.player,
            "name": self.name,
            "points": self.points,
            "home": self.home,
            "time": self.time,
            "wins": self.wins,
            "round": self.round,
            "removed": self.removed,
            "by": None if self.by is None else self.by.value,
        }
        if arena:
            data["races"] = self.races
            data["streak"] = self.streak
            data["places"] = self.places
        return data

    @classmethod
    def read(cls, shape: Shape) -> TournamentStanding:
        return cls(
            place=shape.integer("place"),
            player=shape.text("player"),
            name=shape.text("name"),
            points=shape.number("points"),
            home=shape.integer("home"),
            time=shape.number("time"),
            wins=shape.integer("wins"),
            round=shape.integer("round"),
            removed=shape.flag("removed", False),
            by=shape.optional_choice("by", RankedBy),
            races=shape.integer("races", 0),
            streak=shape.integer("streak", 0),
            places=shape.integer("places", 0),
        )


@dataclass(frozen=True, slots=True)
class Tournament:
    """The whole public document of one tournament; nothing in it is secret.

    The settings are the host's (``password`` says only whether there is
    one). ``next_at`` is when the next stage starts, during a break;
    ``bracket`` holds a knockout's rounds of matches, and ``champion`` its
    winner once there is one. An arena lasts ``duration`` seconds from its
    start, until ``ends_at``, and starts no race in its last ``cutoff``
    seconds; each of its races is a stage of one table, and several run at once.
    An arena's document keeps its races under way and its latest scored ones;
    ``archived`` counts the older scored races moved out of ``stages`` (a
    thousand entrants race thousands of times, and the document is pushed at
    every change), which the record (``get_tournament_record``) still holds.
    """

    id: str
    code: str
    host: str
    name: str
    format: TournamentFormat
    variants: tuple[str, ...]
    time_limit: int
    status: TournamentStatus
    created: float
    host_name: str = ""
    rounds: int = 3
    best_of: int = 1
    table_size: int = 8
    spectate: SpectatePolicy = SpectatePolicy.DELAYED
    delay: int = 30
    break_seconds: int = 20
    grace: int = 60
    password: bool = False
    winnable: bool = False
    next_at: float | None = None
    entrants: tuple[Entrant, ...] = ()
    stages: tuple[Stage, ...] = ()
    bracket: tuple[tuple[Match, ...], ...] = ()
    standings: tuple[TournamentStanding, ...] = ()
    champion: str | None = None
    duration: int = 0
    cutoff: int = 0
    ends_at: float | None = None
    archived: int = 0

    @property
    def knockout(self) -> bool:
        return self.format is TournamentFormat.KNOCKOUT

    @property
    def arena(self) -> bool:
        return self.format is TournamentFormat.ARENA

    @property
    def names(self) -> dict[str, str]:
        """Each entrant's display name by player id."""
        return {entrant.player: entrant.name for entrant in self.entrants}

    def name_of(self, player: str) -> str:
        """``player``'s display name, or their id when they are not an entrant."""
        return next((e.name for e in self.entrants if e.player == player), player)

    def entrant(self, player: str | None) -> Entrant | None:
        return next((e for e in self.entrants if e.player == player), None)

    def active_entrants(self) -> Iterator[Entrant]:
        """Entrants not removed, in seeding order."""
        return (entrant for entrant in self.entrants if not entrant.removed)

    @property
    def last_stage(self) -> Stage | None:
        return self.stages[-1] if self.stages else None

    @property
    def running_stage(self) -> Stage | None:
        """The stage under way, if one is."""
        last = self.last_stage
        return last if last is not None and last.status is StageStatus.RUNNING else None

    def seat_of(self, player: str) -> TournamentTable | None:
        """The table ``player`` races at in a stage under way, if any (an arena runs
        several stages at once; the other formats one at most, the last)."""
        for stage in reversed(self.stages):
            if stage.status is StageStatus.RUNNING and (table := stage.seat_of(player)):
                return table
            if not self.arena:
                return None
        return None

    def stage(self, n: int) -> Stage | None:
        """Stage number ``n``, if it has started."""
        return next((stage for stage in self.stages if stage.n == n), None)

    @property
    def running_stages(self) -> tuple[Stage, ...]:
        """Every stage under way: an arena's races not yet scored."""
        return tuple(s for s in self.stages if s.status is StageStatus.RUNNING)

    @property
    def stages_played(self) -> int:
        """How many stages have started, an arena's archived races counted."""
        return self.archived + len(self.stages)

    def variant_of_round(self, number: int) -> str:
        """The variant bracket or rounds round ``number`` (from 1) plays."""
        return self.variants[(number - 1) % len(self.variants)]

    def summary(self) -> TournamentSummary:
        """The tournament as the lobby lists it: enough to choose one."""
        return TournamentSummary(
            id=self.id,
            code=self.code,
            name=self.name,
            host=self.host,
            format=self.format,
            variants=self.variants,
            status=self.status,
            rounds=self.rounds,
            best_of=self.best_of,
            entrants=sum(1 for _ in self.active_entrants()),
            stage=self.stages_played,
        )

    def to_data(self) -> dict[str, object]:
        ranked = not self.knockout
        data: dict[str, object] = {
            "id": self.id,
            "code": self.code,
            "host": self.host,
            "host_name": self.host_name,
            "name": self.name,
            "format": self.format.value,
            "variants": list(self.variants),
            "rounds": self.rounds,
            "best_of": self.best_of,
            "table_size": self.table_size,
            "time_limit": self.time_limit,
            "spectate": self.spectate.value,
            "delay": self.delay,
            "break_seconds": self.break_seconds,
            "grace": self.grace,
            "winnable": self.winnable,
            "password": self.password,
            "status": self.status.value,
            "created": self.created,
            "next_at": self.next_at,
            "entrants": [entrant.to_data() for entrant in self.entrants],
            "stages": [stage.to_data(ranked=ranked) for stage in self.stages],
            "bracket": [[match.to_data() for match in matches] for matches in self.bracket],
            "standings": [standing.to_data(arena=self.arena) for standing in self.standings],
            "champion": self.champion,
        }
        if self.arena:  # the other formats' maps stay as they were
            data.update(
                duration=self.duration,
                cutoff=self.cutoff,
                ends_at=self.ends_at,
                archived=self.archived,
            )
        return data

    @classmethod
    def from_data(cls, data: object) -> Tournament:
        return cls.read(Shape(data, "tournament"))

    @classmethod
    def read(cls, shape: Shape) -> Tournament:
        return cls(
            id=shape.text("id"),
            code=shape.text("code"),
            host=shape.text("host"),
            host_name=shape.text("host_name", ""),
            name=shape.text("name"),
            format=shape.choice("format", TournamentFormat),
            variants=_variants(shape),
            rounds=shape.integer("rounds"),
            best_of=shape.integer("best_of"),
            table_size=shape.integer("table_size"),
            time_limit=shape.integer("time_limit"),
            spectate=shape.choice("spectate", SpectatePolicy),
            delay=shape.integer("delay"),
            break_seconds=shape.integer("break_seconds"),
            grace=shape.integer("grace"),
            password=shape.flag("password", False),
            winnable=shape.flag("winnable", False),
            status=shape.choice("status", TournamentStatus),
            created=shape.number("created"),
            next_at=shape.optional_number("next_at"),
            entrants=tuple(Entrant.read(entrant) for entrant in shape.shapes("entrants")),
            stages=tuple(Stage.read(stage) for stage in shape.shapes("stages")),
            bracket=tuple(
                tuple(Match.read(match) for match in matches)
                for matches in shape.shape_rows("bracket")
            ),
            standings=tuple(
                TournamentStanding.read(standing) for standing in shape.shapes("standings")
            ),
            champion=shape.optional_text("champion"),
            duration=shape.integer("duration", 0),
            cutoff=shape.integer("cutoff", 0),
            ends_at=shape.optional_number("ends_at"),
            archived=shape.integer("archived", 0),
        )


def _variants(shape: Shape) -> tuple[str, ...]:
    variants = shape.texts("variants")
    if not variants:
        raise shape.invalid("variants", "must name at least one variant")
    return variants


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """One tournament as the lobby lists it (``tournaments``): enough to choose one.

    ``entrants`` counts those not removed; ``stage`` the stages played so far.
    """

    id: str
    code: str
    name: str
    host: str
    format: TournamentFormat
    variants: tuple[str, ...]
    status: TournamentStatus
    rounds: int
    best_of: int
    entrants: int
    stage: int

    def to_data(self) -> dict[str, object]:
        return {
            "id": self.id,
            "code": self.code,
            "name": self.name,
            "host": self.host,
            "format": self.format.value,
            "variants": list(self.variants),
            "status": self.status.value,
            "rounds": self.rounds,
            "best_of": self.best_of,
            "entrants": self.entrants,
            "stage": self.stage,
        }

    @classmethod
    def from_data(cls, data: object) -> TournamentSummary:
        shape = Shape(data, "tournaments")
        return cls(
            id=shape.text("id"),
            code=shape.text("code"),
            name=shape.text("name"),
            host=shape.text("host"),
            format=shape.choice("format", TournamentFormat),
            variants=_variants(shape),
            status=shape.choice("status", TournamentStatus),
            rounds=shape.integer("rounds"),
            best_of=shape.integer("best_of"),
            entrants=shape.integer("entrants"),
            stage=shape.integer("stage"),
        )


@dataclass(frozen=True, slots=True)
class ClosedRace:
    """A closed race of the record: its results and the seed that proves its deal.

    ``logs`` holds every racer's moves as text; ``line`` and ``par`` are a
    winnable deal's winning line, when the solver found one; ``draw`` and
    ``pick`` say how that deal was chosen (docs/protocol.md, "Winnable deals").
    """

    variant: str
    standings: tuple[Standing, ...]
    seed: int
    commitment: str
    deal_version: int
    logs: Mapping[str, tuple[str, ...]]
    line: tuple[str, ...] | None = None
    par: int | None = None
    draw: int | None = None
    pick: int | None = None

    @classmethod
    def read(cls, shape: Shape) -> ClosedRace:
        logs = shape.shape("logs")
        return cls(
            variant=shape.text("variant"),
            standings=tuple(
                Standing.from_data(standing.data) for standing in shape.shapes("standings")
            ),
            seed=shape.integer("seed"),
            commitment=shape.text("commitment"),
            deal_version=shape.integer("deal_version"),
            logs={player: logs.texts(player) for player in shape.mapping("logs")},
            line=None if shape.value("line", None) is None else shape.texts("line"),
            par=shape.optional_integer("par"),
            draw=shape.optional_integer("draw"),
            pick=shape.optional_integer("pick"),
        )


@dataclass(frozen=True, slots=True)
class Record:
    """What ``tournament_record`` carries: the document and every closed race by id."""

    tournament: Tournament
    races: Mapping[str, ClosedRace]

    @classmethod
    def from_data(cls, data: object) -> Record:
        shape = Shape(data, "record")
        return cls(
            tournament=Tournament.read(shape.shape("tournament")),
            races={
                race: ClosedRace.read(closed) for race, closed in shape.shape_map("races").items()
            },
        )

"""A race's rules that need no I/O: lifecycle, fairness, standings.

The lifecycle is one table, in the manner of h11's state machine: a race is
``open`` (players join and get ready), then ``countdown`` (the deal is fixed,
the clock about to start), ``running``, and ``finished``. Redis stores only
whether the race was started and its times; the phase at any moment is
derived from those and the clock, so no timer has to fire for a race to move
from countdown to running on every node at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from protocol.exceptions import ErrorCode
from protocol.lobby import RacePhase
from protocol.messages import SpectatePolicy as Spectate
from protocol.messages import deal_commitment as commitment
from protocol.results import RacerStatus
from server.rules.ranking import Placed, rank, tenths

__all__ = [
    "ALLOWED_PHASES",
    "RACE_CRITERIA",
    "Phase",
    "PhaseRefusal",
    "RaceSettings",
    "RacerResult",
    "Spectate",
    "commitment",
    "phase_at",
    "phase_refusal",
    "standings",
]


#: A race's phase: the protocol's own words (``race.phase``).
Phase = RacePhase


#: Which request may be made in which phase. Everything not listed is refused.
ALLOWED_PHASES: dict[str, frozenset[Phase]] = {
    "join_race": frozenset({Phase.OPEN}),
    "leave_race": frozenset({Phase.OPEN}),
    "ready": frozenset({Phase.OPEN}),
    "start_race": frozenset({Phase.OPEN}),
    "move": frozenset({Phase.RUNNING}),
    "hint": frozenset({Phase.RUNNING}),
    "resign": frozenset({Phase.COUNTDOWN, Phase.RUNNING}),
    "spectate": frozenset(Phase),
    "resume": frozenset(Phase),
}


#: Why a request is refused in a phase, worded for the player, by phase.
_REFUSED_IN = {
    Phase.OPEN: (ErrorCode.RACE_NOT_OPEN, "the race has not started yet"),
    Phase.COUNTDOWN: (ErrorCode.RACE_NOT_OPEN, "the race has not started yet"),
    Phase.RUNNING: (ErrorCode.RACE_NOT_OPEN, "the race is under way"),
    Phase.FINISHED: (ErrorCode.RACE_OVER, "the race is over"),
}


@dataclass(frozen=True, slots=True)
class PhaseRefusal:
    """A request the race's phase does not allow: the error code and the reason."""

    code: ErrorCode
    message: str


def phase_refusal(request: str, phase: Phase) -> PhaseRefusal | None:
    """Why ``request`` is refused in ``phase`` (per :data:`ALLOWED_PHASES`), or None."""
    if phase in ALLOWED_PHASES.get(request, frozenset()):
        return None
    code, message = _REFUSED_IN[phase]
    return PhaseRefusal(code, message)


def phase_at(status: str, now: float, started_at: float, ends_at: float) -> Phase:
    """The phase of a race with stored ``status`` (open/started/finished) at ``now``."""
    if status == "open":
        return Phase.OPEN
    if status == "finished" or now >= ends_at:
        return Phase.FINISHED
    return Phase.COUNTDOWN if now < started_at else Phase.RUNNING


@dataclass(frozen=True, slots=True)
class RacerResult:
    """One racer at the end: how they finished and when (unix seconds)."""

    player: str
    name: str
    status: RacerStatus  # how the game ended: never playing
    home: int
    moves: int
    finished_at: float


#: What decides a race's places, in order (the parts of :func:`standings`' key).
RACE_CRITERIA = ("won", "time", "cards home", "time")


def standings(
    results: Iterable[RacerResult], started_at: float, *, table: bool = False
) -> list[Placed[RacerResult]]:
    """Winners first by time, then the rest by cards home, then by time.

    Times count in tenths of a second from ``started_at`` (what a person
    sees); racers equal in all of it share a place. A rounds tournament's
    ``table`` ranks as its round scores it: a game not won counts the whole
    time limit, so those stopped on the same cards home share the place, in
    the race's results as in the round and the standings. (A knockout's game
    keeps the race's rule: its first placed racer wins it.)
    """

    def key(result: RacerResult) -> tuple[bool, int, int, int]:
        time = tenths(result.finished_at - started_at)
        won = result.status is RacerStatus.WON
        return (not won, time if won else 0, -result.home, 0 if table else time)

    return rank(results, key, RACE_CRITERIA)


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceSettings:
    """What a race is made with, as its meta hash keeps it (the seed and line are secret).

    Every race has a variant, a deal (a public ``deal`` number, else a secret
    ``seed``), a clock and a spectating policy; the rest depends on who made
    it: a host in the lobby, a tournament's table, a quick race, a rematch or
    the daily deal. Unset fields are not stored (the ``leave`` script tells a
    tournament's table by its ``tournament`` field being there).
    """

    variant: str
    seed: int
    deal_version: int
    time_limit: int
    spectate: Spectate
    delay: int = 0
    #: The public deal number of a practice deal (None: a secret deal).
    deal: int | None = None
    #: Places in the race; a race made with its racers seated has exactly theirs.
    max_players: int | None = None
    #: Seconds a racer may be away before being resigned as "left" (None: the default).
    grace: int | None = None
    #: How a race that asked for a winnable deal got it: "proved" or "fallback".
    winnable: str = ""
    #: The solver's winning line of a winnable deal (secret, like the seed).
    line: tuple[str, ...] = ()
    #: A winnable deal's draw and the number of the candidate dealt (server/rules/winnable.py):
    #: secret, like the seed, until the results reveal them.
    draw: int | None = None
    pick: int | None = None
    practice: bool = False
    unrated: bool = False
    #: A tournament's table: its tournament, code and name.
    tournament: str | None = None
    tournament_code: str | None = None
    host_name: str | None = None
    #: The results (and seed) wait until the tournament or the day announces them.
    hold_results: bool = False
    #: A rounds tournament's table: ranked as its round scores it (:func:`standings`).
    round_ranked: bool = False
    #: ``day:variant`` of a daily deal's race.
    daily: str | None = None

    def to_meta(self) -> dict[str, str | int]:
        """The fields of the race's meta hash."""
        meta: dict[str, str | int] = {
            "variant": self.variant,
            "deal": "" if self.deal is None else self.deal,
            "seed": self.seed,
            "deal_version": self.deal_version,
            "time_limit": self.time_limit,
            "spectate": self.spectate.value,
            "delay": self.delay,
        }
        optional: dict[str, str | int | None] = {
            "max_players": self.max_players,
            "grace": self.grace,
            "winnable": self.winnable or None,
            "line": ",".join(self.line) or None,
            "draw": self.draw,
            "pick": self.pick,
            "practice": 1 if self.practice else None,
            "unrated": 1 if self.unrated else None,
            "tournament": self.tournament,
            "tournament_code": self.tournament_code,
            "host_name": self.host_name,
            "hold_results": 1 if self.hold_results else None,
            "round_ranked": 1 if self.round_ranked else None,
            "daily": self.daily,
        }
        meta.update({key: value for key, value in optional.items() if value is not None})
        return meta

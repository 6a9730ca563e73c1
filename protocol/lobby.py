"""A race as the lobby shows it: the **Race info** map of ``docs/protocol.md``.

The same summary goes out in ``races`` (the lobby's list), ``race`` and
``race_state`` (one race's lobby) and ``spectating``. It never holds the
seed of a secret deal, only its commitment.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from protocol.messages.enums import SpectatePolicy
from protocol.validation import Shape

__all__ = ["RacePhase", "RaceSummary", "Winnable"]


class RacePhase(enum.StrEnum):
    """Where a race is in its life, as the server last saw it."""

    OPEN = "open"  # racers join and get ready
    COUNTDOWN = "countdown"  # the deal is fixed; the clock is about to start
    RUNNING = "running"
    FINISHED = "finished"


class Winnable(enum.StrEnum):
    """How a race asked to be dealt a winnable deal got it."""

    PROVED = "proved"  # the solver found a win
    FALLBACK = "fallback"  # none was found in time; an ordinary deal instead


@dataclass(frozen=True, slots=True)
class RaceSummary:
    """One race's public facts; keys in the wire's order.

    ``players`` are in join order and ``names`` gives each a display name;
    ``away`` says since when (unix seconds) each racer away now has been
    gone. ``deal`` is the public deal number, None for a secret deal.
    ``started_at`` and ``ends_at`` are None before the start; ``tournament``
    and ``tournament_code`` are set for a tournament's table.
    """

    id: str
    code: str
    variant: str
    host: str
    players: tuple[str, ...]
    names: Mapping[str, str]
    ready: tuple[str, ...]
    phase: RacePhase
    max_players: int
    time_limit: int
    spectate: SpectatePolicy
    delay: int
    grace: int
    commitment: str
    tournament: str | None = None
    tournament_code: str | None = None
    host_name: str = ""
    away: Mapping[str, float] = field(default_factory=dict)
    deal: int | None = None
    winnable: Winnable | None = None
    practice: bool = False
    started_at: float | None = None
    ends_at: float | None = None

    def name(self, player: str) -> str:
        """``player``'s display name, or their id when the race does not know it."""
        return self.names.get(player, player)

    def to_data(self) -> dict[str, object]:
        return {
            "id": self.id,
            "code": self.code,
            "variant": self.variant,
            "host": self.host,
            "players": list(self.players),
            "names": dict(self.names),
            "ready": list(self.ready),
            "phase": self.phase.value,
            "max_players": self.max_players,
            "time_limit": self.time_limit,
            "spectate": self.spectate.value,
            "delay": self.delay,
            "grace": self.grace,
            "tournament": self.tournament,
            "tournament_code": self.tournament_code,
            "host_name": self.host_name,
            "away": dict(self.away),
            "deal": self.deal,
            "winnable": None if self.winnable is None else self.winnable.value,
            "practice": self.practice,
            "commitment": self.commitment,
            "started_at": self.started_at,
            "ends_at": self.ends_at,
        }

    @classmethod
    def from_data(cls, data: object) -> RaceSummary:
        shape = Shape(data, "race")
        return cls(
            id=shape.text("id"),
            code=shape.text("code"),
            variant=shape.text("variant"),
            host=shape.text("host"),
            players=shape.texts("players"),
            names=shape.of_texts("names"),
            ready=shape.texts("ready"),
            phase=shape.choice("phase", RacePhase),
            max_players=shape.integer("max_players"),
            time_limit=shape.integer("time_limit"),
            spectate=shape.choice("spectate", SpectatePolicy),
            delay=shape.integer("delay"),
            grace=shape.integer("grace"),
            commitment=shape.text("commitment"),
            tournament=shape.optional_text("tournament"),
            tournament_code=shape.optional_text("tournament_code"),
            host_name=shape.text("host_name", ""),
            away=shape.of_numbers("away", {}),
            deal=shape.optional_integer("deal"),
            winnable=shape.optional_choice("winnable", Winnable),
            practice=shape.flag("practice", False),
            started_at=shape.optional_number("started_at"),
            ends_at=shape.optional_number("ends_at"),
        )

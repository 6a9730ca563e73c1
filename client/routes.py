"""Where a screen may send the player: one frozen value per page of the app.

Screens never import one another, nor the app. A screen that opens another
page hands the app one of these values (:meth:`client.screens.base.Host.show`);
:mod:`client.navigation`, the one module that imports every screen, builds
the page the value names. A route holds what its page is built from, so a
page is a new screen at each visit, as it was when screens built each other.

Modal dialogs that answer their opener (a question, a confirmation, the
forms) are not pages: screens open them from :mod:`client.dialogs`, which
imports no screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from client.models.record import RaceRecord
from protocol.layout import Layout
from protocol.lobby import RaceSummary
from protocol.messages import RaceStarted
from protocol.tournaments import Tournament as TournamentDoc

__all__ = [
    "Account",
    "Daily",
    "Game",
    "Leaderboard",
    "LobbyHelp",
    "Profile",
    "QuickRace",
    "Rematch",
    "Replay",
    "Results",
    "Room",
    "Route",
    "Rules",
    "Spectate",
    "Tournament",
    "TournamentResults",
    "Waiting",
]


@dataclass(frozen=True, slots=True)
class Game:
    """A racer's game in a race that has started; ``daily``: today's deal, whose
    results wait for tomorrow."""

    record: RaceRecord
    started: RaceStarted
    daily: bool = False


@dataclass(frozen=True, slots=True)
class Room:
    """A race's waiting room, before it starts; ``practice``: the bot is brought in."""

    info: RaceSummary
    practice: bool = False


@dataclass(frozen=True, slots=True)
class Waiting:
    """Live standings once the player's own game is over (``why`` says how it ended)."""

    record: RaceRecord
    why: str
    ends_at: float


@dataclass(frozen=True, slots=True)
class Results:
    """A finished race's results."""

    record: RaceRecord


@dataclass(frozen=True, slots=True)
class Replay:
    """A race's boards replayed move by move, from ``player``'s (None: the first)."""

    record: RaceRecord
    player: str | None = None


@dataclass(frozen=True, slots=True)
class Spectate:
    """A race watched as a spectator; ``label`` names it when its code will not do."""

    race: str
    label: str | None = None


@dataclass(frozen=True, slots=True)
class QuickRace:
    """The quick-race queue of a variant."""

    variant: str


@dataclass(frozen=True, slots=True)
class Rematch:
    """Waiting for the ``racers`` of the finished ``race`` to accept a rematch."""

    race: str
    variant: str
    racers: int


@dataclass(frozen=True, slots=True)
class Account:
    """Logging in, registering, or changing the display name."""


@dataclass(frozen=True, slots=True)
class Profile:
    """An account's profile: one's own unless ``player`` names another."""

    player: str | None = None


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """The leaderboards, opened at ``variant``'s (or overall)."""

    variant: str = "overall"


@dataclass(frozen=True, slots=True)
class Daily:
    """The daily deal of a variant."""

    variant: str


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's own screen; ``doc``: the document a request answered with, if any."""

    tournament: str
    doc: TournamentDoc | None = None


@dataclass(frozen=True, slots=True)
class TournamentResults:
    """A finished tournament's final standings and record."""

    tournament: str
    doc: TournamentDoc


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules page of the variant a race is played on."""

    layout: Layout


@dataclass(frozen=True, slots=True)
class LobbyHelp:
    """The lobby's help: which server this is, as whom, and the keys."""

    server_url: str
    name: str


#: Every page a screen may open.
Route = (
    Game
    | Room
    | Waiting
    | Results
    | Replay
    | Spectate
    | QuickRace
    | Rematch
    | Account
    | Profile
    | Leaderboard
    | Daily
    | Tournament
    | TournamentResults
    | Rules
    | LobbyHelp
)

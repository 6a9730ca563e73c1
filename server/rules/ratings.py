"""Ratings: which races count, and how a race's ranking moves its racers' skills.

A race of k racers is a ranking of k, ties allowed, so we use a rating
system made for rankings of many players rather than for duels: Weng and
Lin's Bayesian approximation with the Plackett–Luce model (the ``openskill``
library). A skill is a mean ``mu`` and an uncertainty ``sigma``; one race
updates every racer at once from the whole ranking, and a newcomer's large
``sigma`` makes their first races move them quickly. Glicko-2 applied to
each pair of racers would count a race of 8 as 28 duels, each assumed
independent, and over-trust the result.

What players see is a number on the familiar chess-like scale,
:func:`Skill.display`: 1500 for a newcomer, 40 points per unit of
``mu``. A rating is *provisional* (shown with ``?``) until
:data:`PROVISIONAL_RACES` rated races; leaderboards leave those out.

Each racer has one skill per variant and one overall; a race moves both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from protocol.accounts import is_guest
from protocol.results import DecidedBy, Standing
from server.rules.races import RaceSettings

__all__ = [
    "OVERALL",
    "PROVISIONAL_RACES",
    "Skill",
    "is_rated",
    "may_be_rated",
    "ranks",
    "rate",
]

#: The key of the rating across every variant.
OVERALL = "overall"
#: Rated races before a rating stops being provisional.
PROVISIONAL_RACES = 10

_MODEL = PlackettLuce()
_MU, _SIGMA = _MODEL.mu, _MODEL.sigma
_SCALE = 40.0  # display points per unit of mu


@dataclass(frozen=True, slots=True)
class Skill:
    """A racer's skill in one variant (or overall), and how many rated races made it."""

    mu: float = _MU
    sigma: float = _SIGMA
    races: int = 0

    @property
    def display(self) -> int:
        """The rating players see: 1500 for a newcomer."""
        return round(1500 + _SCALE * (self.mu - _MU))

    @property
    def provisional(self) -> bool:
        return self.races < PROVISIONAL_RACES

    def text(self) -> str:
        """``1512`` or, while provisional, ``1512?``."""
        return f"{self.display}{'?' if self.provisional else ''}"


def is_rated(settings: RaceSettings, racers: Sequence[str]) -> bool:
    """Whether a finished race counts: a secret deal, not a practice race, not marked
    unrated, two or more accounts.

    A public deal number can be practised beforehand, so it is never rated.
    A practice race answers ``hint`` (the server's solver plays through it,
    as the solver bot does), so it is never rated either, and a race that
    may be rated answers no hint (:meth:`server.services.hints.Hints.hint`).
    Guests (bots among them: a bot never logs in) are left out of the
    ranking; the accounts are ranked among themselves.
    """
    if not may_be_rated(settings):
        return False
    return sum(not is_guest(player) for player in racers) >= 2


def may_be_rated(settings: RaceSettings) -> bool:
    """Whether a race's settings let it be rated (it is, with two accounts at the end):
    no public deal, no practice (hints), not marked unrated by its host."""
    return settings.deal is None and not settings.practice and not settings.unrated


def ranks(standings: Sequence[Standing]) -> list[int]:
    """1-based ranks of standings in order, equal for racers the standings cannot part.

    Winners are parted by time; the others by cards home, then by time; a place the
    standings share (a tournament's table does not part games not won by time) stays
    shared.
    """
    out: list[int] = []
    previous: tuple[bool, float] | tuple[bool, int, float] | None = None
    for place, standing in enumerate(standings, 1):
        won = standing.won
        key = (won, standing.time) if won else (won, standing.home, standing.time)
        shared = key == previous or (bool(out) and standing.by is DecidedBy.TIE)
        out.append(out[-1] if shared else place)
        previous = key
    return out


def rate(ranking: Sequence[tuple[str, int]], skills: Mapping[str, Skill]) -> dict[str, Skill]:
    """Every racer's skill after a race; ``ranking`` is (player, rank) best first."""
    players = [player for player, _ in ranking]
    teams = [[_MODEL.rating(mu=skills[p].mu, sigma=skills[p].sigma)] for p in players]
    rated = _MODEL.rate(teams, ranks=[float(rank) for _, rank in ranking])
    return {
        player: Skill(team[0].mu, team[0].sigma, skills[player].races + 1)
        for player, team in zip(players, rated, strict=True)
    }

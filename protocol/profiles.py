"""An account's profile, the leaderboards and the daily deal, as typed values.

These are the maps of ``profile``, ``leaderboard`` and ``daily`` in
``docs/protocol.md``. A client reads them here and draws from the values;
``to_data`` gives the maps back in the server's key order, ``from_data``
refuses a map of the wrong shape with :class:`~protocol.exceptions.InvalidField`.
A scope is a variant id or ``overall``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from protocol.results import RacerStatus
from protocol.validation import Shape

__all__ = [
    "DailyDeal",
    "DailyEntry",
    "LeaderboardEntry",
    "PlayerProfile",
    "Rating",
    "RecentRace",
    "RevealedDeal",
    "Tally",
]


@dataclass(frozen=True, slots=True)
class Rating:
    """An account's rating in one scope; ``provisional`` until enough rated races."""

    rating: int
    provisional: bool
    races: int

    def to_data(self) -> dict[str, object]:
        return {"rating": self.rating, "provisional": self.provisional, "races": self.races}

    @classmethod
    def read(cls, shape: Shape) -> Rating:
        return cls(shape.integer("rating"), shape.flag("provisional"), shape.integer("races"))


@dataclass(frozen=True, slots=True)
class Tally:
    """Races played and won in one scope, and the fastest win (seconds), if any."""

    played: int
    won: int
    best: float | None = None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {"played": self.played, "won": self.won}
        if self.best is not None:
            data["best"] = self.best
        return data

    @classmethod
    def read(cls, shape: Shape) -> Tally:
        return cls(shape.integer("played"), shape.integer("won"), shape.optional_number("best"))


@dataclass(frozen=True, slots=True)
class RecentRace:
    """One of an account's last races: ``at`` is its start (unix seconds), ``place`` of ``of``.

    ``rating`` (after the race) and ``change`` are None when it was not rated.
    """

    race: str
    variant: str
    at: float
    place: int
    of: int
    status: RacerStatus
    time: float
    home: int
    change: int | None = None
    rating: int | None = None

    def to_data(self) -> dict[str, object]:
        return {
            "race": self.race,
            "variant": self.variant,
            "at": self.at,
            "place": self.place,
            "of": self.of,
            "status": self.status.value,
            "time": self.time,
            "home": self.home,
            "change": self.change,
            "rating": self.rating,
        }

    @classmethod
    def from_data(cls, data: object) -> RecentRace:
        """An entry as stored on its own (the server keeps each in the account's history)."""
        return cls.read(Shape(data, "entry"))

    @classmethod
    def read(cls, shape: Shape) -> RecentRace:
        return cls(
            race=shape.text("race"),
            variant=shape.text("variant"),
            at=shape.number("at"),
            place=shape.integer("place"),
            of=shape.integer("of"),
            status=shape.choice("status", RacerStatus),
            time=shape.number("time"),
            home=shape.integer("home"),
            change=shape.optional_integer("change"),
            rating=shape.optional_integer("rating"),
        )


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    """What ``profile`` carries: ratings and tallies by scope, the last races newest first."""

    player: str
    name: str
    ratings: Mapping[str, Rating]
    races: Mapping[str, Tally]
    recent: tuple[RecentRace, ...]

    def to_data(self) -> dict[str, object]:
        return {
            "player": self.player,
            "name": self.name,
            "ratings": {scope: rating.to_data() for scope, rating in self.ratings.items()},
            "races": {scope: tally.to_data() for scope, tally in self.races.items()},
            "recent": [entry.to_data() for entry in self.recent],
        }

    @classmethod
    def from_data(cls, data: object) -> PlayerProfile:
        shape = Shape(data, "profile")
        return cls(
            player=shape.text("player"),
            name=shape.text("name"),
            ratings={s: Rating.read(r) for s, r in shape.shape_map("ratings").items()},
            races={s: Tally.read(t) for s, t in shape.shape_map("races").items()},
            recent=tuple(RecentRace.read(entry) for entry in shape.shapes("recent")),
        )


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """A leaderboard's line: a settled ``rating``, or the ``time`` of a fastest win."""

    place: int
    player: str
    name: str
    rating: int | None = None
    time: float | None = None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {"place": self.place, "player": self.player, "name": self.name}
        if self.rating is not None:
            data["rating"] = self.rating
        if self.time is not None:
            data["time"] = self.time
        return data

    @classmethod
    def from_data(cls, data: object) -> LeaderboardEntry:
        shape = Shape(data, "leaderboard")
        return cls(
            place=shape.integer("place"),
            player=shape.text("player"),
            name=shape.text("name"),
            rating=shape.optional_integer("rating"),
            time=shape.optional_number("time"),
        )


@dataclass(frozen=True, slots=True)
class DailyEntry:
    """A line of a day's board: a win's ``time`` (seconds), or the cards ``home`` otherwise."""

    place: int
    player: str
    name: str
    won: bool
    time: float | None = None
    home: int | None = None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {
            "place": self.place,
            "player": self.player,
            "name": self.name,
            "won": self.won,
        }
        if self.won:
            data["time"] = self.time
        else:
            data["home"] = self.home
        return data

    @classmethod
    def read(cls, shape: Shape) -> DailyEntry:
        won = shape.flag("won")
        return cls(
            place=shape.integer("place"),
            player=shape.text("player"),
            name=shape.text("name"),
            won=won,
            time=shape.number("time") if won else None,
            home=None if won else shape.integer("home"),
        )


@dataclass(frozen=True, slots=True)
class RevealedDeal:
    """A past day's deal, its seed revealed, to check against the commitment it had."""

    day: str
    seed: int
    deal_version: int
    commitment: str

    def to_data(self) -> dict[str, object]:
        return {
            "day": self.day,
            "seed": self.seed,
            "deal_version": self.deal_version,
            "commitment": self.commitment,
        }

    @classmethod
    def read(cls, shape: Shape) -> RevealedDeal:
        return cls(
            day=shape.text("day"),
            seed=shape.integer("seed"),
            deal_version=shape.integer("deal_version"),
            commitment=shape.text("commitment"),
        )


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """What ``daily`` carries: today's deal of a variant (UTC day), its board, yesterday's."""

    variant: str
    day: str
    commitment: str
    board: tuple[DailyEntry, ...]
    yesterday: RevealedDeal | None = None

    def to_data(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "day": self.day,
            "commitment": self.commitment,
            "board": [entry.to_data() for entry in self.board],
            "yesterday": None if self.yesterday is None else self.yesterday.to_data(),
        }

    @classmethod
    def from_data(cls, data: object) -> DailyDeal:
        shape = Shape(data, "daily")
        yesterday = None if shape.value("yesterday", None) is None else shape.shape("yesterday")
        return cls(
            variant=shape.text("variant"),
            day=shape.text("day"),
            commitment=shape.text("commitment"),
            board=tuple(DailyEntry.read(entry) for entry in shape.shapes("board")),
            yesterday=None if yesterday is None else RevealedDeal.read(yesterday),
        )

"""A finished race's results as the server stores and sends them, typed.

The stored map is the one ``race_finished`` is built from (``docs/protocol.md``):
standings, the revealed seed, its commitment and every racer's log, and for a
winnable deal the solver's line and its length as the par. Two keys are the
server's own, never sent: ``daily`` (the day's board the race scores on) and
``records`` (each account's rating moves and history entry, written once the
results are stored: docs/players.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from protocol.profiles import RecentRace
from protocol.results import RaceAnalysis, Standing
from protocol.validation import Shape

__all__ = ["AccountRecord", "RaceResults", "RatingChange"]


class RatingChange(NamedTuple):
    """One rating a race moved: its scope (a variant or ``overall``), from and to."""

    scope: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """What a race writes into one account: its rating moves and its history entry."""

    moves: tuple[RatingChange, ...]
    entry: RecentRace

    def to_data(self) -> dict[str, object]:
        return {"moves": [list(move) for move in self.moves], "entry": self.entry.to_data()}

    @classmethod
    def from_data(cls, data: object) -> AccountRecord:
        shape = Shape(data, "record")
        moves = shape.value("moves", [])
        assert isinstance(moves, list)  # written by the server itself
        return cls(
            moves=tuple(RatingChange(*move) for move in moves),
            entry=RecentRace.from_data(shape.value("entry")),
        )


@dataclass(frozen=True, slots=True)
class RaceResults:
    """A finished race's results; ``to_data`` is the stored (and published) map."""

    standings: tuple[Standing, ...]
    seed: int
    commitment: str
    deal_version: int
    variant: str
    logs: Mapping[str, list[str]]
    #: The solver's winning line of a winnable deal (empty for other deals).
    line: tuple[str, ...] = ()
    #: A winnable deal's draw and the number of the candidate dealt (server/rules/winnable.py).
    draw: int | None = None
    pick: int | None = None
    #: ``day:variant`` of a daily race: its board gets the racers' scores.
    daily: str | None = None
    records: Mapping[str, AccountRecord] = field(default_factory=dict)
    #: The post-race analysis, stored after the results (``analysis`` in the meta hash).
    analysis: RaceAnalysis | None = None

    @property
    def par(self) -> int | None:
        """The length of the line the solver found (not a proved shortest), if any."""
        return len(self.line) if self.line else None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {
            "standings": [standing.to_data() for standing in self.standings],
            "seed": self.seed,
            "commitment": self.commitment,
            "deal_version": self.deal_version,
            "variant": self.variant,
            "logs": dict(self.logs),
        }
        if self.line:
            data["line"], data["par"] = list(self.line), len(self.line)
        if self.draw is not None:
            data["draw"], data["pick"] = self.draw, self.pick
        if self.daily is not None:
            data["daily"] = self.daily
        if self.records:
            data["records"] = {p: record.to_data() for p, record in self.records.items()}
        if self.analysis is not None:
            data["analysis"] = self.analysis.to_data()
        return data

    @classmethod
    def from_data(cls, data: object) -> RaceResults:
        shape = Shape(data, "results")
        standings = shape.value("standings")
        logs = shape.value("logs")
        records = shape.value("records", {})
        assert isinstance(standings, list) and isinstance(logs, dict)  # the server's own
        assert isinstance(records, dict)
        line = shape.value("line", None)
        analysis = shape.value("analysis", None)
        return cls(
            standings=tuple(Standing.from_data(row) for row in standings),
            seed=shape.integer("seed"),
            commitment=shape.text("commitment"),
            deal_version=shape.integer("deal_version"),
            variant=shape.text("variant"),
            logs={str(player): list(log) for player, log in logs.items()},
            line=tuple(line) if isinstance(line, list) else (),
            draw=shape.optional_integer("draw"),
            pick=shape.optional_integer("pick"),
            daily=shape.optional_text("daily"),
            records={str(p): AccountRecord.from_data(r) for p, r in records.items()},
            analysis=None if analysis is None else RaceAnalysis.from_data(analysis),
        )

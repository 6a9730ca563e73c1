"""True odds: the share of deals the solver proves winnable (``ballroom odds --solver``).

Where :mod:`server.rules.odds` measures what a bot achieves, this measures the
game: a deal counts as won when some line wins it. Deals the solver cannot
decide within its limits are counted apart, so the true share lies between
the winnable share and that share plus the unknown one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.engine import Game
from server.engine.solver import DEFAULT_SECONDS, Outcome, Solution, solve_deal
from server.rules.odds import wilson_interval

__all__ = ["SolverOdds", "measure_solver_odds"]


@dataclass(frozen=True, slots=True)
class SolverOdds:
    """How ``games`` deals of one variant came out under the solver."""

    variant: str
    games: int
    winnable: int
    unwinnable: int
    unknown: int
    seconds: float

    @property
    def share(self) -> float:
        """Deals proved winnable, of all deals tried."""
        return self.winnable / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the winnable share, unknowns counted as not winnable."""
        return wilson_interval(self.winnable, self.games)

    @property
    def unknown_share(self) -> float:
        return self.unknown / self.games if self.games else 0.0

    def summary(self) -> str:
        low, high = self.interval
        per_deal = self.seconds / self.games if self.games else 0.0
        bounds = ""
        if self.unknown:
            top = (self.winnable + self.unknown) / self.games
            bounds = f"; true share between {100 * self.share:.1f}% and {100 * top:.1f}%"
        return (
            f"{self.variant}: winnable {self.winnable} of {self.games} = {100 * self.share:.1f}% "
            f"(95% CI {100 * low:.1f}-{100 * high:.1f}%), unwinnable {self.unwinnable}, "
            f"unknown {self.unknown} = {100 * self.unknown_share:.1f}%{bounds}; "
            f"{per_deal:.2f} s/deal"
        )


def measure_solver_odds(
    game: Game,
    games: int,
    seed_base: int = 0,
    *,
    seconds: float | None = DEFAULT_SECONDS,
    nodes: int | None = None,
    clock: Callable[[], float] | None = None,
    each: Callable[[int, Solution], None] | None = None,
) -> SolverOdds:
    """Solve deals ``seed_base``, ``seed_base + 1``, … each within the limits given.

    This layer is pure: a time limit needs the caller's ``clock``
    (``time.monotonic``), as :func:`~server.engine.solver.solve` does; the
    seconds reported are the solves' own. ``each`` is told every seed's
    solution as it comes (for progress output).
    """
    counts = dict.fromkeys(Outcome, 0)
    spent = 0.0
    for seed in range(seed_base, seed_base + games):
        solution = solve_deal(game, seed, seconds=seconds, nodes=nodes, clock=clock)
        counts[solution.outcome] += 1
        spent += solution.elapsed
        if each is not None:
            each(seed, solution)
    return SolverOdds(
        game.id,
        games,
        counts[Outcome.WINNABLE],
        counts[Outcome.UNWINNABLE],
        counts[Outcome.UNKNOWN],
        spent,
    )

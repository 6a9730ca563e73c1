"""True odds: the share of deals the solver proves winnable (``ballroom odds --solver``).

Where :mod:`server.rules.odds` measures what a bot achieves, this measures the
game: a deal counts as won when some line wins it, with full knowledge of the
stock. Deals the solver cannot decide within its limits are counted apart,
so the true share lies between the winnable share and that share plus the
unknown one. :func:`odds_row` sets one rule set's figures beside the greedy
bot's and the published ones, as ``docs/odds.md`` shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from server.engine import Game
from server.engine.solver import DEFAULT_SECONDS, Outcome, Solution, solve_deal
from server.rules.odds import OddsResult, wilson_interval

__all__ = [
    "ODDS_HEADER",
    "PUBLISHED",
    "SolverOdds",
    "expert_cells",
    "measure_solver_odds",
    "odds_row",
    "tally",
]

#: Published odds, where any were found, with their source. Both are for play
#: without knowledge of the stock, so they sit beside the greedy bot's rate
#: (and the expert bot's, once measured) more than beside the solver's.
PUBLISHED = {
    "quadrille": '"more than half" with no mistakes (quoted in the rules book, source unnamed)',
    "royal-parade": "about 1 in 30 (3.3%) with good play (Morehead & Mott-Smith)",
    "virginia-reel": "about 1 in 4 (25%) (Morehead & Mott-Smith)",
}


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

    @property
    def bounds_interval(self) -> tuple[float, float]:
        """95% interval of the true share, unknowns taken both ways: the low end
        of the proved share's interval to the high end of (winnable + unknown)'s."""
        low, _ = wilson_interval(self.winnable, self.games)
        _, high = wilson_interval(self.winnable + self.unknown, self.games)
        return low, high

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


def tally(variant: str, solutions: Iterable[Solution]) -> SolverOdds:
    """One variant's odds from its deals' solutions (solved in any order, anywhere)."""
    counts = dict.fromkeys(Outcome, 0)
    games = 0
    spent = 0.0
    for solution in solutions:
        counts[solution.outcome] += 1
        games += 1
        spent += solution.elapsed
    return SolverOdds(
        variant,
        games,
        counts[Outcome.WINNABLE],
        counts[Outcome.UNWINNABLE],
        counts[Outcome.UNKNOWN],
        spent,
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

    def solutions() -> Iterable[Solution]:
        for seed in range(seed_base, seed_base + games):
            solution = solve_deal(game, seed, seconds=seconds, nodes=nodes, clock=clock)
            if each is not None:
                each(seed, solution)
            yield solution

    return tally(game.id, solutions())


def _percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def _interval(low: float, high: float) -> str:
    return f"{100 * low:.1f}-{100 * high:.1f}%"


ODDS_HEADER = (
    "| rule set | solver n | winnable | unwinnable | unknown "
    "| winnable share (95% CI) | true share within (95%) "
    "| greedy bot n | greedy win rate (95% CI) | expert bot | published (stock unseen) |\n"
    "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | --- | --- | --- |"
)


#: The expert bot's cell of a rule set not measured yet.
NOT_MEASURED = "not yet measured"


def expert_cells(markdown: str) -> dict[str, str]:
    """The expert bot's cells, by rule set, of the odds table in ``markdown`` (docs/odds.md).

    The expert bot is measured apart (``ballroom odds VARIANT --strategy expert``,
    minutes per deal where the solver takes seconds), so a new run of the
    table keeps its cells rather than printing them as not measured. Rows not
    measured, and text with no such table, give nothing.
    """
    head = ODDS_HEADER.splitlines()[0]
    column = [cell.strip() for cell in head.strip("|").split("|")].index("expert bot")
    found: dict[str, str] = {}
    in_table = False
    for line in markdown.splitlines():
        if line.strip() == head:
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) > column and not set(cells[0]) <= set("-: "):
            expert = cells[column]
            if expert and expert != NOT_MEASURED:
                found[cells[0]] = expert
    return found


def odds_row(solver: SolverOdds, greedy: OddsResult, expert: str | None = None) -> str:
    """One rule set's line of the odds table (:data:`ODDS_HEADER`), in Markdown.

    ``expert`` is the expert bot's cell, measured apart (:func:`expert_cells`).
    """
    low, high = solver.interval
    within = _interval(*solver.bounds_interval)
    glow, ghigh = greedy.interval
    return (
        f"| {solver.variant} | {solver.games} | {solver.winnable} | {solver.unwinnable} "
        f"| {solver.unknown} | {_percent(solver.share)} ({_interval(low, high)}) | {within} "
        f"| {greedy.games} | {_percent(greedy.rate)} ({_interval(glow, ghigh)}) "
        f"| {expert or NOT_MEASURED} | {PUBLISHED.get(solver.variant, '')} |"
    )

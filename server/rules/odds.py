"""Win rates of a bot policy over many seeded deals (``ballroom odds``).

The bot sees only the player's view and legal moves, as it would over the
wire, so the rates measure what a client-side bot can achieve.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from protocol.policy import make_policy
from server.engine import Game
from server.rules.expert import ExpertBudget, ExpertPolicy

__all__ = ["OddsResult", "measure_odds", "play_out", "wilson_interval"]

#: No dance game needs anywhere near this many moves; a guard, not a rule.
MOVE_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class OddsResult:
    variant: str
    games: int
    wins: int
    seconds: float
    moves: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    def summary(self) -> str:
        low, high = self.interval
        per_second = self.games / self.seconds if self.seconds else float("inf")
        one_in = f"about 1 in {1 / self.rate:.1f}" if self.wins else "no wins"
        return (
            f"{self.variant}: won {self.wins} of {self.games} = {100 * self.rate:.1f}% "
            f"(95% CI {100 * low:.1f}-{100 * high:.1f}%, {one_in}); "
            f"{per_second:.3g} games/s, {self.moves / max(self.seconds, 1e-9):.0f} moves/s"
        )


def wilson_interval(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval: sound even at 0% or 100%, unlike the normal one."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_out(
    game: Game, seed: int, strategy: str = "greedy", budget: ExpertBudget | None = None
) -> tuple[bool, int]:
    """Play one deal to its end; returns (won, moves made).

    ``expert`` is :mod:`server.rules.expert` (which masks the face-down cards
    itself; its samples are drawn from ``random.Random(seed)``, so a run repeats).
    """
    if strategy == "expert":
        return _expert_play_out(game, seed, budget)
    policy = make_policy(strategy, game.layout, seed)
    state = game.deal(seed)
    for _ in range(MOVE_LIMIT):
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, policy.choose(game.view(state), legal))
    else:
        raise RuntimeError(f"{game.id} seed {seed} did not end within {MOVE_LIMIT} moves")
    return game.is_won(state), state.moves


def _expert_play_out(game: Game, seed: int, budget: ExpertBudget | None) -> tuple[bool, int]:
    expert = ExpertPolicy(game, budget)
    rng = random.Random(seed)
    state = game.deal(seed)
    for _ in range(MOVE_LIMIT):
        move = expert.choose(state, rng)
        if move is None:
            break
        state = game.apply(state, move)
    else:
        raise RuntimeError(f"{game.id} seed {seed} did not end within {MOVE_LIMIT} moves")
    return game.is_won(state), state.moves


def measure_odds(
    game: Game,
    games: int,
    seed_base: int = 0,
    strategy: str = "greedy",
    *,
    clock: Callable[[], float],
    budget: ExpertBudget | None = None,
) -> OddsResult:
    """Play ``games`` deals with seeds ``seed_base``, ``seed_base + 1``, …

    The rules read no clock of their own: the caller's ``clock`` (``time.perf_counter``)
    times the run, for the games and moves per second of the summary.
    """
    start = clock()
    wins = moves = 0
    for seed in range(seed_base, seed_base + games):
        won, made = play_out(game, seed, strategy, budget)
        wins += won
        moves += made
    return OddsResult(game.id, games, wins, clock() - start, moves)

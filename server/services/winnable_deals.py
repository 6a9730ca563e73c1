"""Winnable deals for races that ask for one, chosen so that anyone can check the choice.

The server draws a secret number and deals the first of its candidates the
solver proves winnable (:mod:`server.rules.winnable`). A search takes a
second or so per candidate, and some games need several candidates (a
Royal Parade or a Virginia Reel about one in five), so a search made while
the host waits kept them waiting up to :attr:`~server.settings.Solving.winnable`
seconds, and then, for a quarter of those games' races, gave up and dealt
candidate 0 as a plain deal, marked as the fallback.

So a node chooses ahead. Once a variant has been asked for, it keeps
:data:`KEEP` of its choices ready, each from a secret draw of its own that
nobody has seen, found in the solver's idle pool (CPU the races leave) one
candidate per job; a request takes one at once, and the next is searched for
in the background. Only a request that finds none ready (the first of a
variant, or a run of them on a busy node) searches while it waits, as before.
A choice made ahead is the same choice a search made on request would
have made from its draw, so it checks the same way. The choices live in the
node's memory only: a node that dies loses them unused, and its draws with
them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from server.engine import Game, find_variant
from server.rules.winnable import (
    CANDIDATES,
    WinnableChoice,
    candidate_seed,
    choose_winnable,
    proved_line,
)
from server.services.solving import Priority, SolverPool
from server.storage.draws import draw_secret_seed

__all__ = ["KEEP", "WinnableDeals", "choose_in_worker", "line_in_worker"]

log = logging.getLogger(__name__)

#: Choices a node keeps ready per variant (and deal version) once it was asked for one.
KEEP = 2
#: Draws searched in one go before the background search waits for the next request:
#: a draw none of whose candidates is proved is rare, and a run of them costs CPU.
DRAWS_PER_FILL = 4


def choose_in_worker(
    variant: str, draw: int, deal_version: int, seconds: float
) -> tuple[int, int, tuple[str, ...]]:
    """What a solver worker runs: (pick, seed, line) of ``draw``'s first winnable candidate,
    no new candidate tried after ``seconds``."""
    deadline = time.monotonic() + seconds
    choice = choose_winnable(
        find_variant(variant), draw, deal_version, out_of_time=lambda: time.monotonic() > deadline
    )
    return choice.pick, choice.seed, choice.line


def line_in_worker(variant: str, seed: int, deal_version: int) -> tuple[str, ...]:
    """What a solver worker runs for one candidate: its proved winning line, or empty."""
    return proved_line(find_variant(variant), seed, deal_version)


class WinnableDeals:
    """A node's winnable deals: made ahead where it can, else searched for on request."""

    def __init__(self, pool: SolverPool, *, keep: int = KEEP) -> None:
        self.pool = pool
        self.keep = keep
        #: (variant, deal version) -> choices ready, oldest first.
        self._ready: dict[tuple[str, int], deque[WinnableChoice]] = {}
        self._filling: dict[tuple[str, int], asyncio.Task[None]] = {}

    def ready(self, variant: str, deal_version: int) -> int:
        """How many choices of ``variant`` wait ready."""
        return len(self._ready.get((variant, deal_version), ()))

    async def choose(self, game: Game, deal_version: int) -> WinnableChoice:
        """A winnable deal of ``game``: one made ahead, else one searched for now (or, past
        the time bound, its draw's candidate 0 as the fallback)."""
        key = (game.id, deal_version)
        ready = self._ready.setdefault(key, deque())
        choice = ready.popleft() if ready else None
        self._fill(key)
        if choice is not None:
            return choice
        return await self.choose_now(game, deal_version)

    async def choose_now(self, game: Game, deal_version: int) -> WinnableChoice:
        """A fresh secret draw's winnable deal searched for now, or (past the time bound)
        its candidate 0."""
        draw = draw_secret_seed()
        seconds = self.pool.solving.winnable
        found = None
        if seconds > 0:
            found = await self.pool.run(
                seconds, choose_in_worker, game.id, draw, deal_version, seconds
            )
        if found is None:
            return WinnableChoice(draw, 0, candidate_seed(game.id, deal_version, draw, 0), ())
        pick, seed, line = found
        return WinnableChoice(draw, pick, seed, tuple(line))

    def _fill(self, key: tuple[str, int]) -> None:
        """Search in the background until ``key``'s choices are ready again."""
        if key in self._filling or len(self._ready[key]) >= self.keep:
            return
        task = asyncio.get_running_loop().create_task(self._fill_up(key))
        self._filling[key] = task
        task.add_done_callback(lambda _: self._filling.pop(key, None))

    async def _fill_up(self, key: tuple[str, int]) -> None:
        variant, deal_version = key
        ready = self._ready[key]
        try:
            for _ in range(DRAWS_PER_FILL):
                if len(ready) >= self.keep:
                    return
                choice = await self._search_ahead(variant, deal_version)
                if choice is None:
                    return  # no CPU to spare now: the next request starts it again
                if choice.proved:
                    ready.append(choice)
        except Exception:
            log.exception("the search ahead for a winnable deal of %s failed", variant)

    async def _search_ahead(self, variant: str, deal_version: int) -> WinnableChoice | None:
        """A new draw's choice, one candidate per job in the idle pool, in the candidates'
        order (so it is the choice :func:`choose_winnable` makes); None if a job had no
        answer within the time bound."""
        draw = draw_secret_seed()
        seconds = self.pool.solving.ahead
        for k in range(CANDIDATES):
            seed = candidate_seed(variant, deal_version, draw, k)
            line = await self.pool.run(
                seconds, line_in_worker, variant, seed, deal_version, priority=Priority.IDLE
            )
            if line is None:
                return None
            if line:
                return WinnableChoice(draw, k, seed, tuple(line))
        return WinnableChoice(draw, 0, candidate_seed(variant, deal_version, draw, 0), ())

    async def close(self) -> None:
        """Stop the searches ahead (their choices were never shown to anyone)."""
        tasks = list(self._filling.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

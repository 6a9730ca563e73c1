"""A solver: decides a deal with full knowledge of the stock order.

Pure, like the rest of the engine: no I/O, no asyncio, and time enters only
through an injected clock, read every :data:`CHECK_EVERY` positions. It searches
over the engine's own moves (so every line it finds is one the engine will
replay), depth-first and in beams, made fast enough by five things:

* a **transposition table** of the positions already searched, keyed by a
  canonical form of the position in which the two copies of a card are one
  card and interchangeable piles are sorted (:meth:`Family.key` says which, per
  family), so that positions that differ only by such a symmetry are
  searched once;
* **safe moves**: a move that can never hurt is played at once, with no
  alternative tried beside it (:meth:`Family.safe_move`, whose proof per
  family is in ``docs/engine.md``);
* **move ordering**: cards going home first, then cards founding a
  foundation, then the stock actions, so that the first line tried is close
  to what a good player does;
* **restarts**: each depth-first phase starts again, mostly with a small
  budget and partly shuffled orders, keeping the positions it searched to
  the end, so that one wrong first choice does not take the whole budget;
* a **beam** between the depth-first phases (:mod:`.beam`): the most
  promising positions at each move, ten at first, more when that fails,
  searched in step, which finds the wins whose early choices a depth-first
  search never gets back to.

Every move either puts a card home, uses up stock, or uses up a redeal, so
a position never repeats along a line: the table only needs to remember
positions that were searched to the end without a win. A search that ends
without a win and without hitting a limit therefore proves the deal lost
(given that the pruning is safe, which is what the tests check against a
plain search on small positions).

The package: :mod:`.search` (the phases and the answer), :mod:`.beam`,
:mod:`.budget` (the count and limits every phase shares), :mod:`.base` (what
every family shares), one module per family (:mod:`.stockwaste`,
:mod:`.duchess`, :mod:`.parade`).
"""

from server.engine.solver.search import (
    CHECK_EVERY,
    DEFAULT_SECONDS,
    Outcome,
    Solution,
    family_of,
    first_choice,
    line_fault,
    solve,
    solve_deal,
)

__all__ = [
    "CHECK_EVERY",
    "DEFAULT_SECONDS",
    "Outcome",
    "Solution",
    "family_of",
    "first_choice",
    "line_fault",
    "solve",
    "solve_deal",
]

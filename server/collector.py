"""The cyclic garbage collector's full passes, kept short while a crowd watches.

A full pass of CPython's collector walks every object it tracks and holds
the event loop meanwhile: with 3,000 to 5,000 spectators on a node (about 65
tracked objects each: the connection, its transport, its watch) a pass took
190-450 ms, and every board and every move's acknowledgement waited behind it
(docs/deployment.md, *The collector's pauses*). Full passes come whenever
the long-lived objects grew by a quarter, so a crowd that is still arriving
sets off one after another.

What survives a full pass is mostly the crowd itself, which will not become
garbage while it watches. So after every full pass the survivors are frozen
(:func:`gc.freeze`): later passes skip them, and a full pass costs what was
made since the last one. A frozen object that dies by its last reference
going away is freed as before. One that dies in a reference cycle is not,
until the frozen objects are thawed. A closed connection leaves few such
objects (its transport, the transport's bound method and its socket: five,
asyncio's own cycle; :meth:`server.net.connection.Connection.run` lets go
of the rest), but other cycles may die frozen too. The frozen objects are
thawed once the connections closed since the last thaw outnumber the
live ones, or once :attr:`CrowdCollector.THAW_EVERY` seconds passed,
whichever comes first. The full pass after a thaw walks everything, as
every full pass did before, and frees the cycles; its survivors are frozen
again. A crowd that stays pays for one such pass per turnover, or per
interval, instead of one per quarter it grew by.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

__all__ = ["CrowdCollector", "thaw_due"]


def thaw_due(closed: int, live: int, elapsed: float, *, minimum: int, every: float) -> bool:
    """Whether the frozen objects are to be thawed: ``closed`` connections ended since
    the last thaw, ``live`` are open now, ``elapsed`` seconds passed since it."""
    return closed > max(live, minimum) or elapsed >= every


class CrowdCollector:
    """Freezes what survives each full pass, and thaws it once the crowd turned over.

    ``live`` and ``closed`` count the node's open connections and the ones that
    ended since it started. Installed process-wide (the collector is), by the
    process that serves: :func:`server.serve.serve_forever`.
    """

    #: Closed connections fewer than this never call for a thaw by themselves.
    THAW_MINIMUM = 1_000
    #: Seconds after which the frozen objects are thawed anyway: cycles that are no
    #: connection's (a race's end, say) are freed at least this often.
    THAW_EVERY = 600.0

    def __init__(
        self,
        live: Callable[[], int],
        closed: Callable[[], int],
        *,
        minimum: int = THAW_MINIMUM,
        every: float = THAW_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._live = live
        self._closed = closed
        self.minimum = minimum
        self.every = every
        self._clock = clock
        self._closed_at_thaw = closed()
        self._thawed_at = clock()
        #: How many times the frozen objects were thawed (for tests and figures).
        self.thaws = 0

    def install(self) -> None:
        """Freeze now, and after every full pass from now on."""
        gc.freeze()
        gc.callbacks.append(self._after_pass)

    def uninstall(self) -> None:
        """Stop, and thaw what is frozen: the collector is as Python leaves it."""
        if self._after_pass in gc.callbacks:
            gc.callbacks.remove(self._after_pass)
        gc.unfreeze()

    def _after_pass(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        closed, now = self._closed(), self._clock()
        if thaw_due(
            closed - self._closed_at_thaw,
            self._live(),
            now - self._thawed_at,
            minimum=self.minimum,
            every=self.every,
        ):
            # The next full pass walks everything and frees the cycles; this one's
            # survivors stay unfrozen until then.
            gc.unfreeze()
            self._closed_at_thaw, self._thawed_at = closed, now
            self.thaws += 1
        else:
            gc.freeze()

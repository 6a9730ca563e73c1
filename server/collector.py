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

The young generation's threshold (allocations between young passes) is set
here too, by the crowd's size. It bounds how long a middle-generation pass
holds the loop, since that generation holds the survivors of ten young
passes, and a crowd arriving leaves many. A node racing flat out wants it
high: a young pass every few moves cost CPU, and at 700 (Python's default)
a move cost 5% more than at 2,000 (`bench.interleaved`, seven pairs). A node
holding a crowd wants it low: with 10,000 spectators over two nodes, at 700
no pass took over 50 ms and the racers' acknowledgements stayed within
15-28 ms p99, against passes of up to 147 ms and acks of 22-127 ms at 2,000
(docs/deployment.md, *The collector's pauses*). So it is 2,000 until
:attr:`CrowdCollector.CROWD` connections are open, then 700.

A crowd also gets full passes more often: one every 2 middle passes
instead of 10. A full pass walks what survived since the last one, so
between passes ten middle passes apart a crowd with 50 newcomers a second
on a node piled up over 100,000 objects, and the pass took 73-117 ms;
every 2, each took 37-53 ms, and they took as long in all.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

__all__ = ["CrowdCollector", "thaw_due", "thresholds"]


def thaw_due(closed: int, live: int, elapsed: float, *, minimum: int, every: float) -> bool:
    """Whether the frozen objects are to be thawed: ``closed`` connections ended since
    the last thaw, ``live`` are open now, ``elapsed`` seconds passed since it."""
    return closed > max(live, minimum) or elapsed >= every


def thresholds(live: int, *, crowd: int) -> tuple[int, int, int]:
    """The collector's thresholds (:func:`gc.set_threshold`) for a node with ``live``
    connections open: allocations between young passes, young passes between middle
    ones, middle passes between full ones."""
    if live >= crowd:
        return CrowdCollector.CROWD_THRESHOLDS
    return CrowdCollector.THRESHOLDS


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
    #: A crowd: at least this many connections open.
    CROWD = 2_000
    #: The thresholds of a node without a crowd, and of one with a crowd (see the
    #: module's docstring).
    THRESHOLDS, CROWD_THRESHOLDS = (2_000, 10, 10), (700, 10, 2)

    def __init__(
        self,
        live: Callable[[], int],
        closed: Callable[[], int],
        *,
        minimum: int = THAW_MINIMUM,
        every: float = THAW_EVERY,
        crowd: int = CROWD,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._live = live
        self._closed = closed
        self.minimum = minimum
        self.every = every
        self.crowd = crowd
        self._clock = clock
        self._closed_at_thaw = closed()
        self._thawed_at = clock()
        #: How many times the frozen objects were thawed (for tests and figures).
        self.thaws = 0
        self._thresholds = gc.get_threshold()  # read again by install(), put back by uninstall()

    def install(self) -> None:
        """Freeze now, and after every full pass from now on; set the thresholds now,
        and again after every pass but a young one."""
        self._thresholds = gc.get_threshold()
        gc.freeze()
        self._set_thresholds(self._live())
        gc.callbacks.append(self._after_pass)

    def uninstall(self) -> None:
        """Stop, and thaw what is frozen: the collector is as before :meth:`install`."""
        if self._after_pass in gc.callbacks:
            gc.callbacks.remove(self._after_pass)
        gc.unfreeze()
        gc.set_threshold(*self._thresholds)

    def _set_thresholds(self, live: int) -> None:
        wanted = thresholds(live, crowd=self.crowd)
        if gc.get_threshold() != wanted:
            gc.set_threshold(*wanted)

    def _after_pass(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] == 0:
            return
        live = self._live()
        self._set_thresholds(live)
        if info["generation"] != 2:
            return
        closed, now = self._closed(), self._clock()
        if thaw_due(
            closed - self._closed_at_thaw,
            live,
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

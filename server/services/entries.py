"""Entries to a tournament made together: one edit of its document for all that wait.

Every change of a tournament stores its whole document and announces it, so
a thousand entrants entering one at a time cost a thousand rewrites of a
document that grows with each: work that grows with the square of the
entrants (bench/events.py measured 25 s for 1,024). Here an entry waits for
the next edit on this node instead: the first entry asks for one, and every
entry that arrives before that edit holds the tournament's lock goes into it
too (the lock may be held by another node meanwhile, which is when entries
pile up). Each entry is still checked on its own, in the order it came: one
refused (the tournament full, say) is refused alone.

The edit runs in a task of its own, so an entrant who hangs up while it runs
takes nobody else's entry with them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from protocol.tournaments import Tournament
from server.exceptions import RequestRefused

__all__ = ["EnterAll", "Entry", "EntryQueue"]

log = logging.getLogger(__name__)


@dataclass(eq=False, slots=True)
class Entry:
    """One entrant waiting for the edit that enters them."""

    player: str
    name: str
    done: asyncio.Future[Tournament] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


#: Enters a batch under the tournament's lock: ``enter_all(tournament, take)`` calls
#: ``take()`` once it holds the lock (no entry joins the batch after that) and returns the
#: document as stored and the entries refused, with why.
EnterAll = Callable[
    [str, Callable[[], list[Entry]]],
    Awaitable[tuple[Tournament, Mapping[Entry, RequestRefused]]],
]


class EntryQueue:
    """This node's entries waiting for an edit, by tournament."""

    def __init__(self, enter_all: EnterAll) -> None:
        self._enter_all = enter_all
        #: The batch of each tournament still open to new entries.
        self._open: dict[str, list[Entry]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def enter(self, tournament: str, player: str, name: str) -> Tournament:
        """Enter ``player`` in the next edit; the document as it was stored with them in.

        Raises:
            RequestRefused: this entry, or the whole edit, was refused.
        """
        entry = Entry(player, name)
        # Looked at even if the entrant hung up meanwhile: never "exception not retrieved".
        entry.done.add_done_callback(lambda done: done.cancelled() or done.exception())
        batch = self._open.get(tournament)
        if batch is not None:
            batch.append(entry)
        else:
            self._open[tournament] = batch = [entry]
            task = asyncio.get_running_loop().create_task(self._run(tournament, batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(entry.done)

    async def _run(self, tournament: str, batch: list[Entry]) -> None:
        def take() -> list[Entry]:
            if self._open.get(tournament) is batch:
                del self._open[tournament]
            return list(batch)

        try:
            doc, refused = await self._enter_all(tournament, take)
        except RequestRefused as exc:
            take()
            for entry in batch:
                entry.done.set_exception(RequestRefused(exc.code, exc.message))
            return
        except Exception as exc:
            take()
            log.exception("entering %d players in %s failed", len(batch), tournament)
            for entry in batch:
                entry.done.set_exception(exc)
            return
        for entry in batch:
            if entry in refused:
                entry.done.set_exception(refused[entry])
            else:
                entry.done.set_result(doc)

    async def close(self) -> None:
        """Stop the edits under way (their entrants are told nothing more)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

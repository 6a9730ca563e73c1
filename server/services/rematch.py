"""Rematch: after a race, the same racers on a fresh secret deal, once all of them accept.

Each racer's ``rematch`` is one step of ``lua/rematch.lua`` on the finished
race's slot: the acceptance that completes the set also names the new race,
once, so two racers completing it on two nodes get the same race. The new
race is made and started by whichever node gets there first
(``create_seated`` and ``start`` are safe to repeat), which is also what
happens when the node that named it died before making it: every waiting
racer's node makes sure of it before telling its racer (``matched``).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from protocol.exceptions import ErrorCode
from server.engine import DEAL_VERSION
from server.exceptions import RequestRefused
from server.rules.races import RaceSettings
from server.services.lobby import Lobby
from server.storage.draws import draw_secret_seed
from server.storage.matchmaking import RematchStore

__all__ = ["REMATCH_HOST", "RematchState", "Rematches"]

log = logging.getLogger(__name__)

#: The host of every rematch: no player has this id, so none can start one.
REMATCH_HOST = "rematch"

_REFUSALS = {
    "not_found": (ErrorCode.NOT_FOUND, "no such race"),
    "not_a_racer": (ErrorCode.NOT_A_RACER, "only the race's racers can ask for a rematch"),
    "not_over": (ErrorCode.NOT_ALLOWED, "a rematch is offered once the race is over"),
    "tournament": (ErrorCode.NOT_ALLOWED, "a tournament's races have no rematch"),
}


@dataclass(frozen=True, slots=True)
class RematchState:
    """How far a rematch is: how many of the racers accepted, and the new race once all did."""

    race: str
    accepted: int
    racers: int
    rematch: str | None


@dataclass(slots=True)
class _Waiter:
    race: str
    notify: Callable[[str], Awaitable[None]] = field(repr=False)
    alive: Callable[[], bool] = field(repr=False)


class Rematches:
    """This node's racers waiting for the others to accept a rematch."""

    def __init__(self, votes: RematchStore, lobby: Lobby) -> None:
        self.votes = votes
        self.lobby = lobby
        self.waiting: dict[str, _Waiter] = {}

    async def accept(
        self,
        player: str,
        race: str,
        *,
        notify: Callable[[str], Awaitable[None]],
        alive: Callable[[], bool],
    ) -> RematchState:
        """Accept a rematch of ``race``; told by ``notify`` (maybe at once) when it starts."""
        vote = await self.votes.accept(
            race, player, new=f"r{secrets.token_hex(6)}", now=time.time()
        )
        if vote.status in _REFUSALS:
            raise RequestRefused(*_REFUSALS[vote.status])
        if vote.race is None:
            self.waiting[player] = _Waiter(race, notify, alive)
            return RematchState(race, vote.accepted, vote.racers, None)
        await self._make(race, vote.race)
        self.waiting.pop(player, None)
        await notify(vote.race)
        return RematchState(race, vote.accepted, vote.racers, vote.race)

    async def tick(self) -> None:
        """Tell this node's waiting racers whose rematch was named meanwhile."""
        for player, waiter in list(self.waiting.items()):
            if not waiter.alive():
                del self.waiting[player]
                continue
            new = await self.votes.named(waiter.race)
            if new is None:
                continue
            del self.waiting[player]
            await self._make(waiter.race, new)
            try:
                await waiter.notify(new)
            except (ConnectionError, RequestRefused) as exc:  # they can still resume it
                log.info("could not tell %s of rematch %s: %s", player, new, exc)

    async def _make(self, old: str, new: str) -> None:
        """The rematch of ``old`` as race ``new``, made and started (safe to repeat)."""
        meta = await self.lobby.meta(old)
        if meta is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {old!r}")
        was = meta.settings
        settings = RaceSettings(
            variant=was.variant, seed=draw_secret_seed(), deal_version=DEAL_VERSION,
            time_limit=was.time_limit, spectate=was.spectate, delay=was.delay,
            # a practice on a public deal stays unrated
            unrated=was.unrated or was.deal is not None,
        )  # fmt: skip
        await self.lobby.create_seated(new, REMATCH_HOST, await self.lobby.players(old), settings)
        with contextlib.suppress(RequestRefused):  # started already
            await self.lobby.start(REMATCH_HOST, new)

"""The boards a watcher is shown when it needs a whole picture, not an event:
a racer's snapshot on (re)joining, the boards Redis holds after it lost
writes, and a spectator's boards under the race's spectating policy."""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from protocol.exceptions import ErrorCode
from protocol.lobby import RaceSummary
from protocol.messages import Spectating
from protocol.moves import Move
from server.engine import State
from server.exceptions import RequestRefused
from server.rules.events import Finished, MoveMade, Starting, decode_event
from server.rules.races import Phase, Spectate
from server.services.lobby import Lobby
from server.services.race_memory import RaceMemory
from server.storage.store import Store

__all__ = ["Boards", "SpectatorSnapshot"]


class SpectatorSnapshot(NamedTuple):
    """The boards spectators may see, as of event ``event`` (the ``spectating`` reply)."""

    race: RaceSummary
    #: The wire's layout map (None before the start), and each racer's **View** map.
    layout: dict[str, object] | None
    boards: dict[str, dict[str, Any]]
    event: int

    def message(self, request: int | None = None) -> Spectating:
        """The ``spectating`` message: the answer to request ``request``, or a push."""
        return Spectating(
            id=request,
            race=self.race.to_data(),
            layout=self.layout,
            boards=self.boards,
            event=self.event,
        )


class Boards:
    """Whole pictures of a race for racers and spectators."""

    def __init__(self, store: Store, memory: RaceMemory, lobby: Lobby) -> None:
        self.store = store
        self.memory = memory
        self.lobby = lobby

    async def event_count(self, race: str) -> int:
        """How many events the race has had: a watcher's ``since`` for what comes next."""
        return await self.store.event_count(race)

    async def racer_snapshot(self, race: str, player: str) -> dict[str, Any]:
        """Everything a racer needs to (re)draw their game: the race_started fields."""
        started = await self.memory.started(race)
        _, _, state = await self.memory.board(race, player, fresh=True)
        game = started.game
        return {
            "race": race,
            "layout": game.layout.to_data(),
            "view": game.view(state),
            "legal": game.legal_moves(state).texts(),
            "commitment": started.commitment,
            "deal_version": started.deal_version,
            "started_at": started.started_at,
            "ends_at": started.ends_at,
        }

    async def board_now(self, race: str, player: str) -> dict[str, Any]:
        """What a racer is told when Redis lost the race's latest writes: the fields of
        ``rewound``. The number of the race's latest event; once the race has
        started, the racer's board as Redis now holds it and every racer's progress."""
        event, boards = await self.store.race_now(race)
        now: dict[str, Any] = {"race": race, "event": event}
        if player not in boards:
            return now
        started = await self.memory.started(race)
        game = started.game
        progress: dict[str, dict[str, int | bool]] = {}
        for racer, board in boards.items():
            state = started.rebuilt(board)
            racing = game.progress(state)._replace(resigned=board.status == "resigned")
            progress[racer] = racing.to_data()
            if racer == player:
                now.update(
                    seq=board.seq, view=game.view(state), legal=game.legal_moves(state).texts()
                )
        now["progress"] = progress
        return now

    async def spectator_snapshot(
        self, race: str, player: str | None, upto: int | None = None
    ) -> SpectatorSnapshot:
        """Boards as the race's policy lets spectators see them now (and no later than
        event ``upto``), and the number of the last event they reflect. Racers may
        not spectate their own race."""
        info = await self.lobby.info(race)
        if player is not None and player in info.players:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "racers cannot spectate their own race")
        if info.phase is Phase.OPEN:
            last = await self.store.event_count(race)
            last = last if upto is None else min(upto, last)
            return SpectatorSnapshot(info, None, {}, last)
        started = await self.memory.started(race)
        last = 0
        hidden_until_the_end = (
            started.spectate is Spectate.AFTER and info.phase is not Phase.FINISHED
        )
        cutoff = time.time() - (started.delay if started.spectate is Spectate.DELAYED else 0)
        game = started.game
        states: dict[str, State] = {}
        for n, payload in await self.store.events_since(race, 0):
            if upto is not None and n > upto:
                break
            event = decode_event(payload)
            if isinstance(event, Starting):
                if hidden_until_the_end:
                    break
                states = dict.fromkeys(info.players, started.opening())
            elif isinstance(event, MoveMade):
                if event.at > cutoff:
                    break
                mover = event.player
                states[mover] = game.apply(states[mover], Move.parse(event.move))
            elif isinstance(event, Finished):
                break  # left for the watch, so a late spectator gets race_finished too
            last = n
        return SpectatorSnapshot(
            info,
            game.layout.to_data(),
            {racer: game.view(state) for racer, state in states.items()},
            last,
        )

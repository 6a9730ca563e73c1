"""The race services of one node, made together in one place.

A race is served by parts with one job each: the lobby (before the start),
moves, hints, results (the end), presence (who is connected) and boards (the
whole pictures watchers are shown), sharing the node's memory of races
(:mod:`server.services.race_memory`). None holds state that matters:
everything is in Redis, and any node can serve any request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.services.boards import Boards
from server.services.hints import Hints
from server.services.lobby import Lobby
from server.services.moves import Moves, NoWatchers, OwnEvents
from server.services.presence import Presence
from server.services.race_memory import RaceMemory
from server.services.results import Results
from server.services.solving import SolverPool
from server.services.winnable_deals import WinnableDeals
from server.settings import Settings
from server.storage.store import Store

if TYPE_CHECKING:
    from server.services.records import Records

__all__ = ["RaceServices"]


@dataclass(frozen=True, slots=True)
class RaceServices:
    """The parts that serve races, wired to each other."""

    memory: RaceMemory
    lobby: Lobby
    moves: Moves
    hints: Hints
    results: Results
    presence: Presence
    boards: Boards
    #: Works out hints, analyses and winnable deals, off the event loop.
    solver: SolverPool
    #: Winnable deals, made ahead where the node can.
    winnable: WinnableDeals

    @classmethod
    def build(
        cls,
        store: Store,
        settings: Settings,
        *,
        own_events: OwnEvents | None = None,
        solver: SolverPool | None = None,
        records: Records | None = None,
    ) -> RaceServices:
        """The parts for one node; ``own_events`` hears of the moves it stores (its hub)."""
        solver = SolverPool(settings.solving) if solver is None else solver
        memory = RaceMemory(store)
        winnable = WinnableDeals(solver)
        lobby = Lobby(store, settings, solver, winnable)
        results = Results(store, settings, memory, lobby, records)
        moves = Moves(store, memory, results, NoWatchers() if own_events is None else own_events)
        return cls(
            memory=memory,
            lobby=lobby,
            moves=moves,
            hints=Hints(memory, solver),
            results=results,
            presence=Presence(store, settings, moves),
            boards=Boards(store, memory, lobby),
            solver=solver,
            winnable=winnable,
        )

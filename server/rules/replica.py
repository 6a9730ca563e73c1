"""A race's boards, replicated on a node from its move events.

A move event carries the move, not the board: every node that serves
spectators of a race applies the same moves to its own copy of each racer's
board with the engine, which is deterministic, and so draws the same boards
(docs/architecture.md). A replica knows each racer's moves from the first on,
without gaps; when an event arrives whose earlier moves it has not seen (a
node that just started following the race, a catch-up still reading), it
says so and is filled from the racer's log in Redis first.
"""

from __future__ import annotations

from collections import OrderedDict

from protocol.moves import Move
from protocol.views import ViewMap
from server.engine import Game, State

__all__ = ["RaceReplica"]


class _Racer:
    """One racer's known moves and the board after the last of them."""

    __slots__ = ("moves", "state")

    def __init__(self, opening: State) -> None:
        self.moves: list[str] = []
        self.state = opening


class RaceReplica:
    """Every racer's board of one race, advanced one move event at a time."""

    #: Views kept for watchers that are a few events behind (a catch-up, a delay).
    RECENT_VIEWS = 512

    def __init__(self, game: Game, seed: int, deal_version: int) -> None:
        self.game = game
        self._opening = game.deal(seed, deal_version)
        self._racers: dict[str, _Racer] = {}
        self._views: OrderedDict[tuple[str, int], ViewMap] = OrderedDict()

    def known(self, player: str) -> int:
        """How many of ``player``'s moves the replica has applied."""
        racer = self._racers.get(player)
        return 0 if racer is None else len(racer.moves)

    def view_after(self, player: str, seq: int, move: str) -> ViewMap | None:
        """The view of ``player``'s board after their move ``seq`` (which is ``move``).

        None when the replica cannot tell: it has not seen the moves before
        ``seq``, or it holds another move ``seq`` (Redis lost and rewrote it);
        :meth:`fill` from the log, or start a new replica, and ask again.
        """
        racer = self._racer(player)
        known = len(racer.moves)
        if seq > known:
            return None
        if seq == known:
            racer.state = self.game.apply(racer.state, Move.parse(move))
            racer.moves.append(move)
            return self._remember(player, seq, self.game.view(racer.state))
        if racer.moves[seq] != move:
            return None
        view = self._views.get((player, seq))
        if view is None:
            state = self.game.advance(self._opening, racer.moves[: seq + 1])
            view = self._remember(player, seq, self.game.view(state))
        return view

    def fill(self, player: str, log: list[str]) -> bool:
        """Learn ``player``'s moves from their log; False if it contradicts what is known."""
        racer = self._racer(player)
        if racer.moves != log[: len(racer.moves)]:
            return False
        unseen = log[len(racer.moves) :]
        racer.state = self.game.advance(racer.state, unseen)
        racer.moves.extend(unseen)
        return True

    def _racer(self, player: str) -> _Racer:
        racer = self._racers.get(player)
        if racer is None:
            racer = self._racers[player] = _Racer(self._opening)
        return racer

    def _remember(self, player: str, seq: int, view: ViewMap) -> ViewMap:
        self._views[(player, seq)] = view
        while len(self._views) > self.RECENT_VIEWS:
            self._views.popitem(last=False)
        return view

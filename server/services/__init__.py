"""What a node does with requests, between the wire and Redis.

Races are served by parts with one job each (:mod:`server.services.races`
wires them: lobby, moves, hints, results, presence, boards); then
tournaments (:mod:`server.services.tournaments`), sessions
(:mod:`server.services.sessions`), accounts (:mod:`server.services.players`)
and the services built on races (quick races, rematches, the daily deal).
They hold no state that matters: everything is in Redis, and any node can
serve any request.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.services.boards import Boards
from server.services.daily import DailyDeals
from server.services.hints import Hints
from server.services.lobby import Lobby
from server.services.matchmaking import Matchmaker
from server.services.moves import Moves
from server.services.players import Accounts
from server.services.presence import Presence
from server.services.race_memory import RaceMemory
from server.services.records import Records
from server.services.rematch import Rematches
from server.services.results import Results
from server.services.sessions import Sessions
from server.services.tournaments import Director
from server.services.tv import FeaturedRaces

__all__ = ["Services"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Services:
    """The services a request handler may call: handed to each connection."""

    lobby: Lobby
    moves: Moves
    hints: Hints
    results: Results
    presence: Presence
    boards: Boards
    #: The node's memory of races, which a race's watchers replicate boards in.
    memory: RaceMemory
    tournaments: Director
    sessions: Sessions
    accounts: Accounts
    matchmaker: Matchmaker
    records: Records
    rematches: Rematches
    daily: DailyDeals
    #: The race the /tv page follows.
    tv: FeaturedRaces

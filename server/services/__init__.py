"""What a node does with requests, between the wire and Redis.

Races (:mod:`server.services.races`), tournaments
(:mod:`server.services.tournaments`), sessions (:mod:`server.services.sessions`)
and accounts (:mod:`server.services.players`). They hold no state that
matters: everything is in Redis, and any node can serve any request.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.services.daily import DailyDeals
from server.services.matchmaking import Matchmaker
from server.services.players import Accounts
from server.services.races import RaceService
from server.services.records import Records
from server.services.rematch import Rematches
from server.services.sessions import Sessions
from server.services.tournaments import Director

__all__ = ["Services"]


@dataclass(frozen=True, slots=True)
class Services:
    """The services a request handler may call: handed to each connection."""

    races: RaceService
    tournaments: Director
    sessions: Sessions
    accounts: Accounts
    matchmaker: Matchmaker
    records: Records
    rematches: Rematches
    daily: DailyDeals

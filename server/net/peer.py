"""A client connection as the message handlers see it: what they may ask of it.

The handlers (:mod:`server.net.handlers`) decide what a request does; the
connection (:class:`server.net.connection.Connection`) owns the socket, the
watches and the node's hub, and dispatches each message to its handler.
Handlers reach the connection only through this protocol, so neither module
knows the other both ways: the connection imports the handlers, and the
handlers know a :class:`Peer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from protocol.messages import ServerMessage
from server.fanout.feeds import RaceWatch, Role
from server.fanout.tournament_feed import TournamentWatch
from server.rules.races import Spectate

if TYPE_CHECKING:
    from server.services import Services

__all__ = ["Peer"]


class Peer(Protocol):
    """One client's connection: who it speaks for, how to answer it, what it follows."""

    #: The player it said hello as (None before); a login or logout changes it.
    player: str | None
    name: str | None
    #: The session's token, so that logout can revoke it.
    token: str | None
    #: Whether the client asked to get the list of races pushed as it changes.
    follows_lobby: bool

    @property
    def services(self) -> Services:
        """The node's services, which the handlers call on the client's behalf."""
        ...

    @property
    def node(self) -> str:
        """The name of the node serving the client (``welcome`` says it)."""
        ...

    @property
    def address(self) -> str:
        """The client's IP address, the unit of the per-address login limit."""
        ...

    @property
    def is_open(self) -> bool:
        """Whether the connection is still open, for services that tell it things later."""
        ...

    def send(self, message: ServerMessage) -> None:
        """Encode and write one message now (a reply that must precede others)."""
        ...

    async def watch(
        self,
        race: str,
        role: Role,
        since: int,
        *,
        policy: Spectate | None = None,
        delay: float = 0.0,
        held: bool = False,
    ) -> RaceWatch:
        """Follow a race's events after number ``since``, as a racer or a spectator."""
        ...

    def newest_here(self, race: str) -> tuple[int, bytes] | None:
        """(number, payload) of the newest event of ``race`` this node has passed on to
        its watchers, if it follows the race."""
        ...

    def watch_of(self, race: str) -> RaceWatch | None:
        """How the connection follows ``race`` now, if it does."""
        ...

    async def stop_following(self, race: str) -> None:
        """Follow ``race`` no more (nothing if it did not)."""
        ...

    def rewind(self, race: str, why: str) -> None:
        """Redis lost ``race``'s latest writes (``why``): everyone here goes on from Redis."""
        ...

    async def follow_tournament(self, tournament: str, since: int, *, entrant: bool) -> None:
        """Get every change of a tournament after event ``since`` pushed."""
        ...

    def tournament_watch(self, tournament: str) -> TournamentWatch | None:
        """How the connection follows ``tournament`` now, if it does."""
        ...

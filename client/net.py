"""The app's link to the server: kept up by one worker, used by every screen.

:meth:`ServerLink.run` is the body of a Textual worker that lives as long
as the app. It connects, says hello (with the session token once it has
one), resumes every race the app follows from the last event number seen,
watches again the tournament it follows (which, for an entrant, also
restarts the grace clock the server keeps for them), and then turns each
message the server pushes into a :class:`ServerPushed` posted to the app,
until the connection drops. Then it says so (:class:`LinkChanged`) and
starts over, each attempt bounded in time and the pauses between attempts
growing up to a few seconds, for as long as the app runs; from the
:data:`SAY_WHY_AFTER`-th failed attempt on, the state line also says what
went wrong the last time (refused, no such host, handshake rejected), so a
wrong address does not look like a slow one. Screens ask the
server through :meth:`ServerLink.request`, which fails at once with
:class:`Offline` while the link is down rather than leaving a key press
hanging. When the server says its storage is away (``service``), the link
stays up but says it is degraded, until the server says it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import socket
import time
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump
from websockets.asyncio.client import connect
from websockets.exceptions import (
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    InvalidURI,
    WebSocketException,
)

from client.models.saved import SavedRace, SessionFile
from client.session import ClientSession, RequestFailed
from protocol.codec import MAX_SERVER_FRAME
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Board,
    ClientMessage,
    Presence,
    Progress,
    Resume,
    Rewound,
    SeatTaken,
    ServerMessage,
    Service,
    ServiceState,
    Spectating,
    TournamentInfo,
    WatchTournament,
)

__all__ = [
    "LinkChanged",
    "LinkState",
    "Offline",
    "RaceLost",
    "ServerLink",
    "ServerPushed",
    "TournamentLost",
    "connect_error_text",
]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=ServerMessage)

FIRST_PAUSE = 0.2  # seconds before the second attempt; doubles up to MAX_PAUSE
MAX_PAUSE = 4.0
ATTEMPT_TIMEOUT = 5.0  # one attempt: TCP, websocket handshake and hello
PUMP_WAIT = 3600.0  # how long the pump waits for a message before looking again
SAY_WHY_AFTER = 3  # failed attempts before the state line names the last error

#: Refusals of a hello that no retry can mend.
_FATAL = frozenset({ErrorCode.UNSUPPORTED_VERSION, ErrorCode.INVALID_FIELD})

#: What can go wrong while connecting: refused, unreachable, handshake, timeout.
_CONNECT_ERRORS = (OSError, TimeoutError, WebSocketException, ConnectionError)


def connect_error_text(exc: BaseException) -> str:
    """Why one connection attempt failed, in a few words a player can act on."""
    if isinstance(exc, socket.gaierror):
        return "no such host (DNS)"
    if isinstance(exc, ConnectionRefusedError):
        return "refused: is a server running there?"
    if isinstance(exc, InvalidStatus):
        return f"handshake rejected (HTTP {exc.response.status_code}): not a Ballroom server?"
    if isinstance(exc, InvalidURI):
        return f"not a websocket URL: {exc.uri}"
    if isinstance(exc, InvalidMessage | InvalidHandshake):
        return "handshake failed: not a websocket server?"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


class LinkState(enum.Enum):
    CONNECTING = "connecting"  # no connection yet
    ONLINE = "online"
    DEGRADED = "degraded"  # connected, but the server cannot reach its storage
    RECONNECTING = "reconnecting"  # had one, lost it, trying again
    REFUSED = "refused"  # the server will not talk to us (a protocol version it lacks)


class Offline(ConnectionError):
    """The request could not be answered: the link is down (it reconnects by itself)."""


class ServerPushed(Message):
    """A message from the server that no request of the screens waits for."""

    def __init__(self, message: ServerMessage) -> None:
        super().__init__()
        self.message = message


class LinkChanged(Message):
    """The link went up or down; ``text`` says so in a few words."""

    def __init__(self, state: LinkState, text: str) -> None:
        super().__init__()
        self.state = state
        self.text = text


class RaceLost(Message):
    """A followed race could not be resumed after a reconnect."""

    def __init__(self, race: str, reason: str) -> None:
        super().__init__()
        self.race = race
        self.reason = reason


class TournamentLost(Message):
    """The followed tournament could not be watched again after a reconnect."""

    def __init__(self, tournament: str, reason: str) -> None:
        super().__init__()
        self.tournament = tournament
        self.reason = reason


#: This machine's clock; tests replace it to play a client whose clock is off.
clock = time.time


class ServerLink:
    """One server, one session token, any number of connections over time."""

    def __init__(
        self,
        app: MessagePump,
        url: str,
        name: str,
        saved: SessionFile | None = None,
        *,
        restore_last: bool = False,
    ) -> None:
        """``saved``: where the logins and their races outlive the app (None: nowhere).

        The login kept for ``name`` on this server is the one taken up, and no
        other: two clients of one OS user under two names never share a
        token. ``restore_last``: no name was asked for, so the login used last
        on this server is taken up (``name`` if there is none).
        """
        self.app = app
        self.url = url
        kept = None
        if saved is not None:
            kept = saved.load(url, None if restore_last else name)
            if kept.token is None and restore_last:
                kept = saved.load(url, name)
        #: The name this client's login is kept under (the account's, or the guest's).
        self.name = kept.name if kept is not None and kept.name else name
        self.saved = saved
        #: The session token: the one kept from an earlier run, if any, so that a
        #: restarted client is the same player and can take its races back.
        self.token: str | None = kept.token if kept is not None else None
        #: Whether the token came from the file (the client says whose login it restored).
        self.restored = self.token is not None
        #: Whether the server counts this client as a guest (from the last welcome).
        self.guest = True
        self.player: str | None = None
        self.session: ClientSession | None = None
        self.state = LinkState.CONNECTING
        #: Races to resume after a reconnect, with the last event number seen in each.
        self.following: dict[str, int] = {}
        #: The tournament to watch again after a reconnect (one at a time).
        self.tournament: str | None = None
        self.connections = 0  # how many times a connection was made
        #: The server's clock less ours, as measured at the last welcome.
        self.clock_offset = 0.0
        #: Why the latest attempt failed, in words (None once connected).
        self.last_error: str | None = None

    # -- for the screens ---------------------------------------------------

    @property
    def online(self) -> bool:
        return self.state in (LinkState.ONLINE, LinkState.DEGRADED)

    def follow(self, race: str) -> None:
        """Resume ``race`` after any reconnect, from the events this link has seen."""
        self.following.setdefault(race, 0)

    def forget(self, race: str) -> None:
        self.following.pop(race, None)
        if self.saved is not None:
            self.saved.drop_race(self.url, self.name, race)

    def unkeep(self, race: str) -> None:
        """Offer ``race`` back no more after a restart (resigned), but follow it on."""
        if self.saved is not None:
            self.saved.drop_race(self.url, self.name, race)

    def keep_race(self, race: SavedRace) -> None:
        """Remember ``race`` across runs of the app, to offer it back after a restart."""
        if self.saved is not None:
            self.saved.add_race(self.url, self.name, race)

    def saved_races(self) -> tuple[SavedRace, ...]:
        """The races an earlier run of this login was racing in on this server, oldest first."""
        return self.saved.load(self.url, self.name).races if self.saved is not None else ()

    def speak_as(self, name: str, player: str, token: str, *, guest: bool) -> None:
        """From now on the link is ``name`` (``player``), saying hello with ``token``: after a
        login, a registration or a logout, kept as that name's login on this server."""
        self.name, self.player, self.token, self.guest = name, player, token, guest
        if self.saved is not None:
            self.saved.save_token(self.url, name, token)

    def follow_tournament(self, tournament: str) -> None:
        """Watch ``tournament`` again after any reconnect (instead of any other)."""
        self.tournament = tournament

    def forget_tournament(self, tournament: str) -> None:
        if self.tournament == tournament:
            self.tournament = None

    async def request(self, message: ClientMessage, expect: type[M]) -> M:
        """Send ``message`` and return its reply; raises RequestFailed or :class:`Offline`."""
        session = self.session
        if session is None or not self.online:
            raise Offline("not connected to the server; reconnecting")
        try:
            return await session.request(message, expect)
        except (ConnectionError, WebSocketException) as exc:
            raise Offline("the connection dropped; reconnecting") from exc

    # -- the worker ----------------------------------------------------------

    async def run(self) -> None:
        """Stay connected for as long as the app runs (cancel to stop)."""
        pause = FIRST_PAUSE
        attempt = 0
        while True:
            attempt += 1
            try:
                session = await asyncio.wait_for(self._connect(), ATTEMPT_TIMEOUT)
            except RequestFailed as exc:
                if exc.code is ErrorCode.BAD_TOKEN:
                    # The server forgot our session: start a new one (races are lost).
                    self.token = None
                    self.restored = False
                    if self.saved is not None:
                        self.saved.save_token(self.url, self.name, None)
                    for race in list(self.following):
                        self._post(RaceLost(race, "the server no longer knows this session"))
                    self.following.clear()
                    continue
                if exc.code in _FATAL:
                    self._set(LinkState.REFUSED, f"✗ refused: {exc.message}")
                    return
                log.info("the server turned the hello down: %s", exc)
                self.last_error = f"refused: {exc.message}"
                if attempt >= SAY_WHY_AFTER:
                    self._set(self.state, f"⟳ attempt {attempt}: {self.last_error}")
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)
                continue
            except _CONNECT_ERRORS as exc:
                log.info("connecting to %s failed: %s", self.url, exc)
                self.last_error = connect_error_text(exc)
                again = LinkState.CONNECTING if self.connections == 0 else LinkState.RECONNECTING
                why = f": {self.last_error}" if attempt >= SAY_WHY_AFTER else ""
                self._set(again, f"⟳ {again.value}… (attempt {attempt}{why})")
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)
                continue
            pause, attempt = FIRST_PAUSE, 0
            await self._serve(session)
            self._set(LinkState.RECONNECTING, "⟳ reconnecting…")

    async def _connect(self) -> ClientSession:
        ws = await connect(self.url, compression=None, max_size=MAX_SERVER_FRAME, open_timeout=None)
        session = ClientSession(ws)
        try:
            asked = clock()
            welcome = await session.hello(self.name, self.token)
            if welcome.now is not None:  # the server's time, halfway through the trip
                self.clock_offset = welcome.now - (asked + clock()) / 2
        except BaseException:
            with contextlib.suppress(Exception):
                await session.close()
            raise
        return session

    def now(self) -> float:
        """The time by the server's clock (unix seconds): what race clocks count by."""
        return clock() + self.clock_offset

    async def _serve(self, session: ClientSession) -> None:
        """Use one connection until it drops."""
        assert session.welcome is not None
        self.session = session
        welcome = session.welcome
        if self.saved is not None and (welcome.token != self.token or welcome.name != self.name):
            if welcome.name != self.name:  # kept under another name: filed under the server's
                self.saved.save_token(self.url, self.name, None)
            self.saved.save_token(self.url, welcome.name, welcome.token)
        self.token, self.player, self.name = welcome.token, welcome.player, welcome.name
        self.guest = welcome.guest is not False
        self.connections += 1
        self.last_error = None
        self._set(LinkState.ONLINE, "● online")
        pump = asyncio.get_running_loop().create_task(self._pump(session))
        try:
            await self._resume(session)
            await pump
        finally:
            pump.cancel()
            self.session = None
            with contextlib.suppress(Exception):
                await session.close()

    async def _resume(self, session: ClientSession) -> None:
        for race, since in list(self.following.items()):
            try:
                reply = await session.request(Resume(race=race, since=since), ServerMessage)
            except RequestFailed as exc:
                self.forget(race)
                self._post(RaceLost(race, exc.message))
            except (ConnectionError, WebSocketException):
                return  # dropped again: the next connection resumes
            else:
                self._seen(reply)
                self._post(ServerPushed(reply))
        tournament = self.tournament
        if tournament is None:
            return
        try:
            watched = await session.request(WatchTournament(tournament=tournament), TournamentInfo)
        except RequestFailed as exc:
            self.forget_tournament(tournament)
            self._post(TournamentLost(tournament, exc.message))
        except (ConnectionError, WebSocketException):
            return
        else:
            self._post(ServerPushed(watched))

    async def _pump(self, session: ClientSession) -> None:
        while True:
            try:
                message = await session.next(ServerMessage, timeout=PUMP_WAIT)
            except TimeoutError:
                continue
            except ConnectionError:
                return
            if isinstance(message, Service):
                if message.state is ServiceState.DEGRADED:
                    self._set(LinkState.DEGRADED, "▲ server degraded")
                else:
                    self._set(LinkState.ONLINE, "● online")
                continue
            self._seen(message)
            self._post(ServerPushed(message))

    def _seen(self, message: ServerMessage) -> None:
        """Remember the newest event number of each followed race."""
        if isinstance(message, Rewound):  # later events reuse the numbers after this one
            if message.race in self.following:
                self.following[message.race] = message.event
            return
        if isinstance(message, Progress | Board | Presence | SeatTaken):
            race, event = message.race, message.event
        elif isinstance(message, Spectating):
            race, event = str(message.race.id), message.event
        else:
            return
        if race in self.following:
            self.following[race] = max(self.following[race], event)

    def _set(self, state: LinkState, text: str) -> None:
        self.state = state
        self._post(LinkChanged(state, text))

    def _post(self, message: Message) -> None:
        self.app.post_message(message)

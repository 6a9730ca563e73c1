"""One server process: websockets in front, Redis behind, nothing else shared.

A node accepts connections, hands each to a :class:`Connection`, and runs
three background jobs: the event hub's pub/sub reader; the sweeper, which
closes races whose clock ran out, keeps the grace clocks of this node's
tournament entrants from running and moves tournaments on; and the probe of
Redis's health. While
Redis is unreachable the node keeps its clients connected and tells them the
service is degraded; when Redis is back (and, if it restarted, once the node
checked it lost nothing it had passed on: :mod:`server.fanout.history`) it tells
them the service is ok. Any number of nodes may share one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.codec import encode
from protocol.messages import Races, Service, ServiceState
from server.fanout.feeds import RaceWatch, Role
from server.fanout.history import History
from server.fanout.hub import Hub
from server.fanout.spectators import SpectatorCounts
from server.fanout.tournament_feed import TournamentWatch
from server.net.connection import CLOSE_POLICY, CLOSE_TRY_AGAIN, Connection
from server.net.web import Site
from server.net.websocket import Bounds, PushConnection, WebSocketServer
from server.services import Services
from server.services.daily import DailyDeals
from server.services.lobby import next_phase_change
from server.services.matchmaking import Matchmaker
from server.services.players import Accounts, is_account_token
from server.services.races import RaceServices
from server.services.records import Records
from server.services.rematch import Rematches
from server.services.sessions import Sessions
from server.services.tournaments import Director
from server.services.tv import FeaturedRaces
from server.settings import Settings
from server.storage.counters import RateCounters
from server.storage.daily import DailyStore
from server.storage.exceptions import StoreUnavailable
from server.storage.health import StorageHealth
from server.storage.matchmaking import QueueStore, RematchStore
from server.storage.players import PlayerStore
from server.storage.spectators import SpectatorStore
from server.storage.store import Store, connect

__all__ = ["Node", "running_node"]

log = logging.getLogger(__name__)


class Node:
    """The parts of one server process, wired together."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.name = settings.node
        self.store = store
        self.hub = Hub(store, on_feed_lost=self._suspect)
        players, daily = PlayerStore(store), DailyStore(store)
        self.records = Records(players, daily)
        self.races = races = RaceServices.build(
            store, settings, own_events=self.hub, records=self.records
        )
        self.director = Director(store, races, settings)
        self.accounts = Accounts(players, RateCounters(store), settings.logins)
        self.matchmaker = Matchmaker(QueueStore(store), players, races.lobby)
        self.rematches = Rematches(RematchStore(store), races.lobby)
        self.daily = DailyDeals(daily, players, races.lobby, races.results)
        self.services = Services(
            lobby=races.lobby,
            moves=races.moves,
            hints=races.hints,
            results=races.results,
            presence=races.presence,
            boards=races.boards,
            memory=races.memory,
            tournaments=self.director,
            sessions=Sessions(store, logins=settings.logins, timeouts=settings.timeouts),
            accounts=self.accounts,
            matchmaker=self.matchmaker,
            records=self.records,
            rematches=self.rematches,
            daily=self.daily,
            tv=FeaturedRaces(store, players),
        )
        self.history = History(store, self.hub, races.memory)
        #: How many watch each race, summed over the nodes and pushed to its spectators.
        self.spectators = SpectatorCounts(
            SpectatorStore(store.redis), settings.node, vouch=settings.timeouts.unheard
        )
        if settings.redis_url is None:
            raise ValueError("a node needs settings.redis_url")
        timeouts = settings.timeouts
        self.health = StorageHealth(
            settings.redis_url,
            self._storage_changed,
            interval=timeouts.health,
            timeout=timeouts.health_timeout,
        )
        self.degraded = False
        self.connections: set[Connection] = set()
        #: How many connections ended since the node started (the collector's
        #: thaws count them: server/collector.py).
        self.connections_closed = 0
        #: The watching page, answered on the websocket's port (docs/web.md).
        self.site = Site.load(allowed_origins=settings.allowed_origins)
        self._per_address: Counter[str] = Counter()
        self._sweeper: asyncio.Task[None] | None = None
        #: The lobby's version when this node last pushed the list of races.
        self._lobby_version = 0
        #: When a race in the list last pushed changes phase by its clock (a countdown
        #: ends): the list is pushed again then, though nothing was written.
        self._lobby_due: float | None = None
        #: Whether the list was last looked at with no follower here to read it for.
        self._lobby_unread = True
        #: When this node last said which racers are connected to it.
        self._heartbeat = 0.0
        # Set by stop: the sweeper stops on it too, since a Redis call can
        # swallow a cancellation (redis-py issues #2028, #2551).
        self._stopping = False

    async def start(self) -> None:
        await self.hub.start()
        await self.health.start()
        self.races.solver.start()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        self._stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.health.close()
        await self.hub.close()
        await self.director.close()
        await self.races.results.analyst.close()
        await self.races.winnable.close()
        await self.races.solver.close()
        self.accounts.close()

    # -- Redis's health ------------------------------------------------------

    def _suspect(self) -> None:
        self.health.suspect()

    async def _storage_changed(self, up: bool, restarted: bool) -> None:
        """Redis went away or came back (maybe restarted, maybe from older files)."""
        if restarted:
            self.races.memory.forget()  # Redis may hold less than the cached boards
        if not up:
            self.degraded = True
            self.announce(ServiceState.DEGRADED, "storage unreachable: moves wait until it is back")
            return
        if not await self.hub.reconnected(2 * self.health.interval + 2):
            log.warning("redis is back but the event feed is not yet; it keeps retrying")
        if restarted:
            await self.history.check_all()
        self.hub.catch_up_all()
        if self.degraded:
            self.degraded = False
            self.announce(ServiceState.OK, "storage is back: moves are accepted again")

    def announce(self, state: ServiceState, message: str) -> None:
        """Tell every client that said hello how the service is."""
        frame = encode(Service(state=state, message=message))
        told = 0
        for conn in list(self.connections):
            if conn.player is not None:
                conn.send_frame(frame)
                told += 1
        log.info("told %d clients the service is %s", told, state.value)

    async def handle(self, ws: PushConnection) -> None:
        """The websocket server's handler: one call per connection."""
        address = str(ws.remote_address[0]) if ws.remote_address else "?"
        if self._per_address[address] >= self.settings.limits.connections_per_address:
            await ws.close(CLOSE_TRY_AGAIN, "too many connections from your address")
            return
        self._per_address[address] += 1
        conn = Connection(
            ws,
            settings=self.settings,
            services=self.services,
            hub=self.hub,
            history=self.history,
            storage_failed=self._suspect,
        )
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            self.connections_closed += 1
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]

    def answer_http(self, request: Request) -> Response | None:
        """The websocket server's ``process_request``: the page's answer, or None to go on
        upgrading."""
        answer = self.site.answer(request.method, request.path, request.headers.raw_items())
        if answer is None:
            return None
        status = answer.status
        return Response(status.value, status.phrase, Headers(answer.headers), answer.body)

    #: Sweeps between two checks that this node's logged-in connections were not logged out.
    REVOKE_EVERY = 10

    async def _sweep(self) -> None:
        sweeps = 0
        while not self._stopping:
            await asyncio.sleep(self.settings.timeouts.sweep)
            sweeps += 1
            if not self.health.up:
                continue  # the health probe says when Redis is back
            try:
                await self.races.results.sweep()
                await self._presence()
                await self._push_lobby()
                await self.spectators.sweep(self._spectators_here(), time.time())
                await self.records.recover(self.races.results.stored_results)
                await self.matchmaker.tick()
                await self.rematches.tick()
                await self.daily.tick()
                if sweeps % self.REVOKE_EVERY == 0:
                    await self._close_revoked()
                    await self._lease_guests()
                await self.director.heartbeat(self._entrants_here())
                await self.director.tick()
            except (StoreUnavailable, OSError) as exc:
                log.warning("sweep failed: %s", exc)
                self.health.suspect()
            except Exception:
                log.exception("sweep failed")

    async def _presence(self) -> None:
        """Say which racers are connected here, a few times per ``timeouts.unheard``
        (not at every sweep: a node may hold thousands), and resign those away too long."""
        now = time.time()
        beat = now - self._heartbeat >= self.settings.timeouts.unheard / 3
        if beat:
            self._heartbeat = now
        await self.races.presence.sweep(self._racers_here() if beat else (), now)

    async def _push_lobby(self) -> None:
        """Push the list of races to the clients following it here, once it changed.

        One read of the list per change and node, one frame for everyone: every
        client is shown the same list, at most a sweep after the change. A
        phase that changes by the clock (a countdown ends) is a change too.
        """
        version = await self.store.lobby.version()
        followers = [conn for conn in self.connections if conn.follows_lobby]
        # The list's phase changes are known only from a read made for followers.
        due = self._lobby_due is not None and time.time() >= self._lobby_due
        due = due or (bool(followers) and self._lobby_due is None and self._lobby_unread)
        if version == self._lobby_version and not due:
            return
        self._lobby_version, self._lobby_due = version, None
        self._lobby_unread = not followers
        if followers:
            listed = await self.races.lobby.listed_races()
            self._lobby_due = next_phase_change(listed)
            frame = encode(Races(races=listed))
            for conn in followers:
                conn.send_frame(frame)

    def _spectators_here(self) -> dict[str, list[RaceWatch]]:
        """Race -> the watches of this node's connections that watch it as spectators.

        Read from the hub's watchers of each followed race, not from every connection:
        a sweep twice a second then looks once at each watcher, instead of walking
        every connection and its watches (about 4% of a node's CPU with 5,000 spectators).
        """
        here: dict[str, list[RaceWatch]] = {}
        for race in self.hub.races():
            spectators = [
                watcher
                for watcher in self.hub.watchers_of(race)
                if isinstance(watcher, RaceWatch) and watcher.role is Role.SPECTATOR
            ]
            if spectators:
                here[race] = spectators
        return here

    def _racers_here(self) -> set[tuple[str, str]]:
        """(race, player) of every racer connected to this node."""
        return {
            (race, conn.player)
            for conn in self.connections
            if conn.player is not None
            for race in conn.racing()
        }

    async def _close_revoked(self) -> None:
        """Close this node's connections whose account token was revoked ("log out
        everywhere" on another device): they speak for nobody any more."""
        held = {c.token: c for c in self.connections if c.token and is_account_token(c.token)}
        if not held:
            return
        for token in await self.accounts.revoked(list(held)):
            conn = held[token]
            if conn.token == token:  # not logged in again meanwhile
                conn.close(CLOSE_POLICY, "logged out everywhere")

    async def _lease_guests(self) -> None:
        """Give the full lease, once, to the session of each guest connected here for half of
        ``timeouts.guest_unused``: a session in use, not one opened and dropped."""
        due = asyncio.get_running_loop().time() - self.settings.timeouts.guest_unused / 2
        used = [
            conn
            for conn in self.connections
            if conn.token is not None
            and conn.leased != conn.token
            and conn.opened <= due
            and not is_account_token(conn.token)
        ]
        if used:
            await self.services.sessions.lease([conn.token for conn in used if conn.token])
            for conn in used:
                conn.leased = conn.token

    def _entrants_here(self) -> dict[str, set[str]]:
        """Tournament -> entrants connected to this node, following it (from the hub's
        watchers, as :meth:`_spectators_here`)."""
        here: dict[str, set[str]] = {}
        for tournament in self.hub.races():
            entrants = {
                player
                for follower in self.hub.watchers_of(tournament)
                if isinstance(follower, TournamentWatch)
                and follower.entrant
                and (player := follower.conn.player) is not None
            }
            if entrants:
                here[tournament] = entrants
        return here

    def websocket_server(self, sock: socket.socket | None = None) -> WebSocketServer:
        """Serve on ``sock`` (bound, maybe shared with other workers), else on host:port."""
        limits, timeouts = self.settings.limits, self.settings.timeouts
        # No compression extension is offered: msgpack frames are small and
        # rarely compress, so deflate would cost CPU and memory for nothing.
        return WebSocketServer(
            self.handle,
            self.settings.host,
            self.settings.port,
            sock=sock,
            # Plain GETs get the watching page; browsers' upgrades have their origin checked.
            process_request=self.answer_http,
            # Hard cap for the websocket layer; the codec refuses frames above
            # limits.max_frame with a typed error and keeps the connection.
            max_size=limits.message_size,
            ping_interval=timeouts.ping_interval,
            ping_timeout=timeouts.ping_timeout,
            # A client that does not answer our close must not hold up a shutdown.
            close_timeout=2,
            open_timeout=timeouts.handshake,
            bounds=Bounds(
                frame_rate=limits.frame_rate,
                frame_burst=limits.frame_burst,
                fragments=limits.fragments,
                unsent=limits.outbox,
                head=limits.request_head,
                handshakes_per_address=limits.connections_per_address,
            ),
        )


@contextlib.asynccontextmanager
async def running_node(
    settings: Settings, sock: socket.socket | None = None
) -> AsyncIterator[Node]:
    """A started node serving on ``sock``, else ``settings.host:port``, until the block exits."""
    assert settings.redis_url is not None
    store = await connect(settings.redis_url)
    node = Node(settings, store)
    await node.start()
    try:
        async with node.websocket_server(sock):
            yield node
    finally:
        await node.stop()
        await store.close()

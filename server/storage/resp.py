"""A lean, pipelined Redis connection for the two things every move does.

Each move is one EVALSHA (its commit) and, on every node following the race,
one pub/sub message (its event). Through redis-py these cost a busy node
about 22 µs and 15 µs of CPU each: every argument is encoded in Python, and
every reply passes through layers of parsing, retry and push-message
handling (with a ``logging.getLogger`` call per pub/sub message). Here
hiredis, the C parser redis-py itself installs, packs the commands and parses
the replies; an asyncio protocol matches replies to requests in order, so any
number of pipelines can be in flight on one connection, and a reply resolves
its future straight from ``data_received`` with no task woken per command.

Only what those two paths need is here: connecting (with the AUTH and SELECT
of the node's redis-py settings), pipelines of commands, and SUBSCRIBE /
UNSUBSCRIBE (SSUBSCRIBE / SUNSUBSCRIBE on a cluster) with a callback per
message. Everything else the node says to Redis goes through redis-py.
Failures raise redis-py's own exception types, so callers treat them
exactly as they treat redis-py's.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.storage.exceptions import storage_edge

__all__ = ["Endpoint", "Pipe", "ReplyError", "Subscriber"]

log = logging.getLogger(__name__)

#: An error reply of Redis, returned in place of its reply (never raised).
ReplyError = hiredis.ReplyError

Command = tuple[str | bytes | int | float, ...]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where Redis is and how to talk to it: read from the node's redis-py client."""

    host: str = "localhost"
    port: int = 6379
    path: str | None = None  # a unix socket, instead of host and port
    db: int = 0
    username: str | None = None
    password: str | None = None
    connect_timeout: float = 2.0
    #: How long Redis may take to answer before the connection is given up.
    reply_timeout: float = 5.0

    @classmethod
    def of(cls, client: aioredis.Redis) -> Endpoint:
        return cls.from_settings(client.connection_pool.connection_kwargs)

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Endpoint:
        """From redis-py's connection settings (a pool's, or a cluster node's)."""
        return cls(
            host=settings.get("host", "localhost"),
            port=int(settings.get("port", 6379)),
            path=settings.get("path"),
            db=int(settings.get("db") or 0),
            username=settings.get("username"),
            password=settings.get("password"),
            connect_timeout=float(settings.get("socket_connect_timeout") or 2.0),
            reply_timeout=float(settings.get("socket_timeout") or 5.0),
        )


@dataclass(slots=True)
class _Waiting:
    """A pipeline sent and not yet answered in full."""

    size: int
    future: asyncio.Future[list[Any]]
    sent_at: float
    replies: list[Any] = field(default_factory=list)


class _Connection(asyncio.Protocol):
    """One socket to Redis: writes packed commands, hands parsed replies on in order.

    Replies go to the oldest pipeline still waiting; with none waiting (a
    subscribed connection) they go to ``on_push``. If Redis has not answered
    the oldest pipeline within ``reply_timeout``, the connection is dropped:
    everything still waiting fails, and ``on_lost`` is told.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        on_push: Callable[[Any], None] | None,
        on_lost: Callable[[Exception], None] | None,
    ) -> None:
        self._endpoint = endpoint
        self._on_push = on_push
        self._on_lost = on_lost
        self._reader = hiredis.Reader()
        self._transport: asyncio.Transport | None = None
        self._waiting: deque[_Waiting] = deque()
        self._watchdog: asyncio.TimerHandle | None = None
        self._error: Exception | None = None
        self._closed_on_purpose = False

    @property
    def usable(self) -> bool:
        return self._transport is not None and self._error is None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        endpoint = self._endpoint
        try:
            async with asyncio.timeout(endpoint.connect_timeout):
                if endpoint.path:
                    await loop.create_unix_connection(lambda: self, endpoint.path)
                else:
                    await loop.create_connection(lambda: self, endpoint.host, endpoint.port)
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"cannot reach redis: {exc}") from exc
        greeting: list[Command] = []
        if endpoint.password:
            user = (endpoint.username,) if endpoint.username else ()
            greeting.append(("AUTH", *user, endpoint.password))
        if endpoint.db:
            greeting.append(("SELECT", endpoint.db))
        if greeting:
            for reply in await self.execute(greeting):
                if isinstance(reply, ReplyError):
                    self.close()
                    raise AuthenticationError(str(reply))

    def execute(self, commands: Sequence[Command]) -> asyncio.Future[list[Any]]:
        """Send ``commands`` as one pipeline; the future gets all their replies, in order.

        An error reply is a :data:`ReplyError` in the list, not an exception:
        one failing command does not hide the replies of the others.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Any]] = loop.create_future()
        if not self.usable:
            future.set_exception(self._error or RedisConnectionError("not connected to redis"))
            return future
        self.write(commands)
        self._waiting.append(_Waiting(len(commands), future, loop.time()))
        if self._watchdog is None:
            self._watchdog = loop.call_later(self._endpoint.reply_timeout, self._check_stalled)
        return future

    def write(self, commands: Sequence[Command]) -> None:
        """Send ``commands`` expecting no reply in order (their replies are pushes)."""
        if self._transport is None or self._error is not None:
            raise self._error or RedisConnectionError("not connected to redis")
        # hiredis's stub types the argument as a 1-tuple; any tuple is packed.
        pack = hiredis.pack_command
        self._transport.write(b"".join([pack(c) for c in commands]))  # type: ignore[arg-type]

    def close(self) -> None:
        self._closed_on_purpose = True
        if self._transport is not None:
            self._transport.close()

    # -- asyncio.Protocol ----------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not always a subclass of asyncio.Transport
        # (uvloop's TCPTransport is not, with ``serve --loop uvloop``).
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        try:
            while (reply := reader.gets()) is not False:
                waiting = self._waiting
                if waiting:
                    oldest = waiting[0]
                    oldest.replies.append(reply)
                    if len(oldest.replies) == oldest.size:
                        waiting.popleft()
                        if not oldest.future.done():
                            oldest.future.set_result(oldest.replies)
                elif self._on_push is not None:
                    self._on_push(reply)
        except hiredis.ProtocolError as exc:
            self.abort(RedisConnectionError(f"redis sent something unreadable: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        error = self._error or RedisConnectionError(f"connection to redis lost: {exc or 'closed'}")
        self._error = error
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        while self._waiting:
            future = self._waiting.popleft().future
            if not future.done():
                future.set_exception(error)
        if not self._closed_on_purpose and self._on_lost is not None:
            self._on_lost(error)

    def abort(self, error: Exception) -> None:
        """Give the connection up: what waits fails with ``error``."""
        if self._error is None:
            self._error = error
        if self._transport is not None:
            self._transport.abort()

    def _check_stalled(self) -> None:
        self._watchdog = None
        if not self._waiting:
            return
        loop = asyncio.get_running_loop()
        late = loop.time() - self._waiting[0].sent_at
        timeout = self._endpoint.reply_timeout
        if late >= timeout:
            self.abort(RedisTimeoutError(f"redis did not answer within {timeout} s"))
        else:
            self._watchdog = loop.call_later(timeout - late, self._check_stalled)


class Pipe:
    """Pipelines of commands on one connection, opened (again) when needed."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self._connection: _Connection | None = None
        self._opening = asyncio.Lock()

    def ready(self) -> bool:
        """True if :meth:`send` can go out now, without connecting first."""
        return self._connection is not None and self._connection.usable

    def send(self, commands: Sequence[Command]) -> asyncio.Future[list[Any]]:
        """Send on the open connection (see :meth:`ready`); replies as in ``execute``."""
        assert self._connection is not None
        return self._connection.execute(commands)

    async def execute(self, commands: Sequence[Command]) -> list[Any]:
        """Send ``commands``, connecting first if need be; every reply, in order."""
        if not self.ready():
            async with self._opening:
                if not self.ready():
                    connection = _Connection(self._endpoint, None, None)
                    await connection.open()
                    self._connection = connection
        return await self.send(commands)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class _PushKinds(NamedTuple):
    """The names of a pub/sub flavour's commands and of its messages."""

    subscribe: bytes
    unsubscribe: bytes
    message: bytes


_PLAIN_KINDS = _PushKinds(b"subscribe", b"unsubscribe", b"message")
_SHARDED_KINDS = _PushKinds(b"ssubscribe", b"sunsubscribe", b"smessage")


@dataclass(slots=True)
class _Confirming:
    """A SUBSCRIBE or UNSUBSCRIBE waiting for Redis to confirm each of its channels."""

    future: asyncio.Future[None]
    unconfirmed: int


@storage_edge
class Subscriber:
    """A pub/sub connection handing each message to a callback as soon as it is parsed.

    ``on_message(channel, data)`` runs inside the protocol's ``data_received``:
    it must not block, and what it raises is logged, not propagated.
    ``on_lost`` is told when the connection breaks (not when it is closed);
    the owner opens a new subscriber and subscribes again.

    ``sharded`` subscribes to shard channels (SSUBSCRIBE, Redis 7+), which a
    cluster node serves only for the slots it owns. When a slot leaves the
    node (a failover, a resharding) Redis unsubscribes its channels on its
    own; that counts as the connection lost, so the owner subscribes again
    wherever the slot now lives.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        on_message: Callable[[bytes, bytes], None],
        on_lost: Callable[[Exception], None],
        *,
        sharded: bool = False,
    ) -> None:
        self._sharded = sharded
        self._kinds = _SHARDED_KINDS if sharded else _PLAIN_KINDS
        self._on_message = on_message
        self._on_lost = on_lost
        self._connection = _Connection(endpoint, self._pushed, self._lost)
        self._timeout = endpoint.reply_timeout
        #: (kind, channel) -> the commands waiting for its confirmation, oldest first.
        self._confirming: dict[tuple[bytes, bytes], deque[_Confirming]] = {}

    @property
    def usable(self) -> bool:
        return self._connection.usable

    async def open(self) -> None:
        await self._connection.open()

    async def subscribe(self, *channels: str) -> None:
        """Subscribe; with ``sharded``, the channels must share one slot."""
        await self._command(self._kinds.subscribe, channels)

    async def unsubscribe(self, *channels: str) -> None:
        await self._command(self._kinds.unsubscribe, channels)

    def close(self) -> None:
        self._connection.close()
        self._give_up(None)

    async def _command(self, kind: bytes, channels: Sequence[str]) -> None:
        """Send SUBSCRIBE or UNSUBSCRIBE and wait until Redis confirmed every channel."""
        self._connection.write([(kind.decode().upper(), *channels)])
        command = _Confirming(asyncio.get_running_loop().create_future(), len(channels))
        for channel in channels:
            self._confirming.setdefault((kind, channel.encode()), deque()).append(command)
        try:
            async with asyncio.timeout(self._timeout):
                await command.future
        except TimeoutError:
            error = RedisTimeoutError(f"redis did not confirm {kind.decode()}")
            self._connection.abort(error)
            raise error from None

    def _give_up(self, error: Exception | None) -> None:
        """No confirmation will come: fail (None: cancel) every command still waiting."""
        for waiting in self._confirming.values():
            for command in waiting:
                if not command.future.done():
                    if error is None:
                        command.future.cancel()
                    else:
                        command.future.set_exception(error)
        self._confirming.clear()

    def _lost(self, error: Exception) -> None:
        self._give_up(error)
        self._on_lost(error)

    def _pushed(self, reply: Any) -> None:
        if self._sharded and isinstance(reply, ReplyError):
            # SSUBSCRIBE on a node that does not own the slot (MOVED): the
            # owner must read the slot map again and subscribe there.
            self._connection.abort(RedisConnectionError(f"redis refused: {reply}"))
            return
        if not isinstance(reply, list) or len(reply) != 3:
            return
        kind, channel, data = reply
        if kind == self._kinds.message:
            try:
                self._on_message(channel, data)
            except Exception:
                log.exception("handling a message on %r failed", channel)
            return
        waiting = self._confirming.get((kind, channel))
        if not waiting:
            if self._sharded and kind == self._kinds.unsubscribe:
                # Not asked for: the channel's slot left this node.
                self._connection.abort(RedisConnectionError(f"{channel!r} moved to another node"))
            return  # not a confirmation anyone waits for
        command = waiting.popleft()
        if not waiting:
            del self._confirming[(kind, channel)]
        command.unconfirmed -= 1
        if command.unconfirmed == 0 and not command.future.done():
            command.future.set_result(None)

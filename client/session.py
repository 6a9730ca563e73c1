"""A protocol client over a real websocket: requests with replies, and pushed events.

Used by the bots, the load tools, the terminal client and the tests. It
speaks only :mod:`protocol`; it knows nothing of the server's insides.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.client_core import ClientCore, Reply
from protocol.codec import decode_server, encode
from protocol.exceptions import ErrorCode
from protocol.messages import ClientMessage, ErrorMessage, ServerMessage, Welcome

__all__ = ["ClientSession", "RequestFailed"]

M = TypeVar("M", bound=ServerMessage)


class RequestFailed(Exception):
    """The server answered a request with an ``error``."""

    def __init__(self, error: ErrorMessage) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.code = ErrorCode(error.code)
        self.message = error.message
        self.retry_after = error.retry_after  # seconds, when the server says when to retry


class ClientSession:
    """One connection to a server. Pushed messages queue up in ``events``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.welcome: Welcome | None = None
        self.received: list[ServerMessage] = []
        self.core: ClientCore[ServerMessage, asyncio.Future[ServerMessage]] = ClientCore(
            decode_server, _id_of
        )
        self._arrived = asyncio.Condition()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(
        cls, url: str, name: str = "player", token: str | None = None
    ) -> ClientSession:
        """Connect and say hello; raises :class:`RequestFailed` if refused."""
        ws = await connect(url, compression=None, max_size=2**20, open_timeout=10)
        session = cls(ws)
        try:
            async with asyncio.timeout(10):
                await session.hello(name, token)
        except BaseException:
            await session.close()
            raise
        return session

    async def hello(self, name: str, token: str | None = None) -> Welcome:
        """Say hello (``token``: as the session it names); raises :class:`RequestFailed`."""
        future = self._waiter()
        await self.ws.send(self.core.hello(name, token, future))
        self.welcome = _reply(await future, Welcome)
        return self.welcome

    @property
    def player(self) -> str:
        assert self.welcome is not None
        return self.welcome.player

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                event = self.core.receive(frame)
                if type(event) is Reply:
                    if not event.waiter.done():
                        event.waiter.set_result(event.message)
                    continue
                async with self._arrived:
                    self.received.append(event.message)
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            for future in self.core.lost():
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            async with self._arrived:
                self._arrived.notify_all()

    async def request(self, message: ClientMessage, expect: type[M]) -> M:
        """Send ``message`` with a fresh id and wait for the reply of that id."""
        future = self._waiter()
        await self.ws.send(self.core.request(message, future))
        return _reply(await future, expect)

    def _waiter(self) -> asyncio.Future[ServerMessage]:
        return asyncio.get_running_loop().create_future()

    async def send(self, message: ClientMessage) -> None:
        await self.ws.send(encode(message))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def next(
        self, kind: type[M], where: Callable[[M], bool] = lambda _: True, timeout: float = 10
    ) -> M:
        """The first pushed message of ``kind`` matching ``where``, removed from the queue."""
        async with asyncio.timeout(timeout), self._arrived:
            while True:
                for i, message in enumerate(self.received):
                    if isinstance(message, kind) and where(message):
                        del self.received[i]
                        return message
                if self._reader.done():
                    raise ConnectionError("connection closed")
                await self._arrived.wait()

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def _id_of(message: ServerMessage) -> int | None:
    return message.id


def _reply(reply: ServerMessage, expect: type[M]) -> M:
    """``reply`` if it is an ``expect``; raises :class:`RequestFailed` for an ``error``."""
    if isinstance(reply, ErrorMessage):
        raise RequestFailed(reply)
    if not isinstance(reply, expect):
        raise TypeError(f"expected {expect.t}, got {reply.t}")
    return reply

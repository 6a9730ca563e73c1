"""A protocol client over a real websocket: requests with replies, and pushed events.

Used by the bots, the load tools, the terminal client and the tests. It
speaks only :mod:`protocol`; it knows nothing of the server's insides.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
from collections.abc import Callable
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import decode_server, encode
from protocol.exceptions import ErrorCode
from protocol.messages import ClientMessage, ErrorMessage, Hello, ServerMessage, Welcome
from protocol.version import PROTOCOL_VERSION

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
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[ServerMessage]] = {}
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
                session.welcome = await session.request(
                    Hello(v=PROTOCOL_VERSION, name=name, token=token), Welcome
                )
        except BaseException:
            await session.close()
            raise
        return session

    @property
    def player(self) -> str:
        assert self.welcome is not None
        return self.welcome.player

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                message = decode_server(frame)
                if message.id is not None and message.id in self._replies:
                    future = self._replies.pop(message.id)
                    if not future.done():
                        future.set_result(message)
                    continue
                async with self._arrived:
                    self.received.append(message)
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            for future in self._replies.values():
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            async with self._arrived:
                self._arrived.notify_all()

    async def request(self, message: ClientMessage, expect: type[M]) -> M:
        """Send ``message`` with a fresh id and wait for the reply of that id."""
        request_id = next(self._ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        await self.ws.send(encode(_with_id(message, request_id)))
        reply = await future
        if isinstance(reply, ErrorMessage):
            raise RequestFailed(reply)
        if not isinstance(reply, expect):
            raise TypeError(f"expected {expect.t}, got {reply.t}")
        return reply

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


def _with_id(message: ClientMessage, request_id: int) -> ClientMessage:
    return dataclasses.replace(message, id=request_id)

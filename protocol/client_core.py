"""The client's side of a connection without I/O: request ids, the replies awaited, pushes.

Every client of a Ballroom server does the same bookkeeping: it numbers its
requests, says hello first with the protocol's version, and sorts each
message that comes back into the reply some request waits for or a message
the server pushed. :class:`ClientCore` does that once, for any driver: the
asyncio session (:mod:`client.session`), the app's link (:mod:`client.net`,
through the session) and the load generator's lean client
(:mod:`bench.lean_client`). It never touches a socket or an event loop: the
driver gives it frames and the things it waits with (futures, usually), and
gets back frames to send and what each received frame is.

The core does not fix how a message is read: the session reads typed
messages (:func:`protocol.codec.decode_server`), the lean client bare
msgpack maps, so each gives its own ``read`` and ``id_of``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from protocol.codec import encode
from protocol.messages.base import ClientMessage
from protocol.messages.requests import Hello
from protocol.version import PROTOCOL_VERSION

__all__ = ["ClientCore", "Pushed", "Reply"]

#: A server message as the driver reads it (a typed message, or a bare map).
M = TypeVar("M")
#: What the driver waits for a reply with (a future, usually).
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Reply(Generic[M, W]):
    """The answer to a request: hand ``message`` to ``waiter``."""

    message: M
    waiter: W


@dataclass(frozen=True, slots=True)
class Pushed(Generic[M]):
    """A message no request waits for: an event, or a reply nobody awaits any more."""

    message: M


class ClientCore(Generic[M, W]):
    """One connection's requests in flight; ``read`` turns a frame into a message."""

    def __init__(self, read: Callable[[bytes | str], M], id_of: Callable[[M], int | None]) -> None:
        self.read = read
        self.id_of = id_of
        self._ids = itertools.count(1)
        self._waiting: dict[int, W] = {}

    def expect(self, waiter: W) -> int:
        """A fresh request id, whose reply will go to ``waiter``."""
        request_id = next(self._ids)
        self._waiting[request_id] = waiter
        return request_id

    def request(self, message: ClientMessage, waiter: W) -> bytes:
        """The frame of ``message`` under a fresh id, whose reply will go to ``waiter``."""
        return encode(dataclasses.replace(message, id=self.expect(waiter)))

    def hello(self, name: str, token: str | None, waiter: W) -> bytes:
        """The frame of the hello that opens every session (``token`` resumes an old one)."""
        return encode(Hello(id=self.expect(waiter), v=PROTOCOL_VERSION, name=name, token=token))

    def receive(self, frame: bytes | str) -> Reply[M, W] | Pushed[M]:
        """What a frame from the server is: the reply to a request, or a push.

        Raises whatever ``read`` raises for a frame it cannot read.
        """
        message = self.read(frame)
        request_id = self.id_of(message)
        if request_id is not None:
            waiter = self._waiting.pop(request_id, None)
            if waiter is not None:
                return Reply(message, waiter)
        return Pushed(message)

    def lost(self) -> list[W]:
        """The connection is gone: every waiter still waiting, which no reply will reach now."""
        waiters = list(self._waiting.values())
        self._waiting.clear()
        return waiters

    @property
    def waiting(self) -> int:
        """How many requests wait for their reply."""
        return len(self._waiting)

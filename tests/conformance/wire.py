"""A client written from docs/protocol.md alone: msgpack maps in binary websocket frames.

It knows nothing of ``protocol/`` or ``client/``: it packs plain maps the
way the page says, and keeps every frame it receives, in order, so that the
tests can check the order rules the page states (a reply before the events
it precedes, every event once, ``race_finished`` last).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

__all__ = ["Frame", "Peer", "about", "commitment_of"]

#: One decoded server message, as the page describes it: a map with ``t``.
Frame = dict[str, Any]


def commitment_of(variant: str, deal_version: int, seed: int, race: str) -> str:
    """The deal commitment, computed as the page's *The deal commitment* says."""
    text = f"ballroom-commit/v1/{variant}/{deal_version}/{seed}/{race}"
    return hashlib.sha256(text.encode()).hexdigest()


#: Pushes about a race that report no event of it (the page's *Conventions*): how many
#: watch it. :meth:`Peer.pushed` gives them only when asked for by type.
UNNUMBERED = ("spectators",)


def about(message: Frame, race: str) -> bool:
    """Whether a message is about ``race``: ``race`` is its id, or a race info map."""
    named = message.get("race")
    return named == race or (isinstance(named, dict) and named.get("id") == race)


class Peer:
    """One connection: requests with ids, and every frame received, kept in order."""

    def __init__(self, ws: ClientConnection, timeout: float) -> None:
        self.ws = ws
        self.timeout = timeout
        self.frames: list[Frame] = []
        self.welcome: Frame = {}
        self._ids = itertools.count(1)
        self._arrived = asyncio.Condition()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def hello(
        cls, url: str, name: str, *, token: str | None = None, timeout: float = 10.0
    ) -> Peer:
        """Connect and say hello (with ``token``: resume that session)."""
        peer = cls(await connect(url, compression=None, max_size=2**20), timeout)
        fields: dict[str, Any] = {"v": 4, "name": name}
        if token is not None:
            fields["token"] = token
        peer.welcome = await peer.ask("hello", **fields)
        assert peer.welcome["t"] == "welcome", peer.welcome
        return peer

    @property
    def player(self) -> str:
        player: str = self.welcome["player"]
        return player

    @property
    def token(self) -> str:
        token: str = self.welcome["token"]
        return token

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                assert isinstance(frame, bytes), "the server sends binary frames only"
                message = msgpack.unpackb(frame, raw=False)
                assert isinstance(message, dict) and isinstance(message.get("t"), str)
                async with self._arrived:
                    self.frames.append(message)
                    self._arrived.notify_all()

    async def send(self, message: Frame) -> None:
        await self.ws.send(msgpack.packb(message, use_bin_type=True))

    async def call(self, t: str, **fields: Any) -> Frame:
        """Send a request with a fresh id; its reply, or the ``error`` refusing it."""
        request = next(self._ids)
        await self.send({"t": t, **fields, "id": request})
        return await self.wait(lambda m: m.get("id") == request)

    async def ask(self, t: str, **fields: Any) -> Frame:
        """A request that must succeed: its reply."""
        reply = await self.call(t, **fields)
        assert reply["t"] != "error", (t, fields, reply)
        return reply

    async def refused(self, t: str, **fields: Any) -> str:
        """A request that must be refused: the error code."""
        reply = await self.call(t, **fields)
        assert reply["t"] == "error", (t, fields, reply)
        code: str = reply["code"]
        return code

    async def wait(self, where: Callable[[Frame], bool], timeout: float | None = None) -> Frame:
        """The first frame received (from the start of the connection) matching ``where``."""
        async with asyncio.timeout(self.timeout if timeout is None else timeout):
            async with self._arrived:
                while True:
                    for message in self.frames:
                        if where(message):
                            return message
                    if self._reader.done():
                        raise ConnectionError("the connection closed")
                    await self._arrived.wait()

    async def push(
        self, t: str, where: Callable[[Frame], bool] = lambda _: True, *, race: str | None = None
    ) -> Frame:
        """The first pushed (id-less) frame of type ``t`` (about ``race``) matching ``where``."""
        return await self.wait(
            lambda m: (
                m["t"] == t and "id" not in m and (race is None or about(m, race)) and where(m)
            )
        )

    def pushed(self, race: str, *kinds: str) -> list[Frame]:
        """Every pushed frame about ``race`` that reports an event (of ``kinds``, if given:
        of any type named), in arrival order."""
        return [
            m
            for m in self.frames
            if "id" not in m
            and (m["t"] in kinds if kinds else m["t"] not in UNNUMBERED)
            and about(m, race)
        ]

    def index(self, frame: Frame) -> int:
        """Where ``frame`` (that very object) arrived among this connection's frames."""
        return next(i for i, m in enumerate(self.frames) if m is frame)

    def last_event(self, race: str) -> int:
        """The highest event number received about ``race`` but in a ``moved``: the
        page's ``since`` (a ``moved`` can overtake another racer's progress)."""
        numbers = [
            m["event"]
            for m in self.frames
            if isinstance(m.get("event"), int) and about(m, race) and m["t"] != "moved"
        ]
        return max(numbers, default=0)

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def event_is(number: int) -> Callable[[Frame], bool]:
    """A ``where`` for :meth:`push`: the push of event ``number``."""
    return lambda frame: frame.get("event") == number

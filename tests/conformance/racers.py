"""Racers of the conformance tests: two on the public deal, greeted as docs/protocol.md says,
and two nodes on one Redis to race across."""

from __future__ import annotations

import asyncio

from tests.conformance.wire import Frame, Peer
from tests.server.conftest import TIMEOUT, ProcessFactory

VARIANT = "quadrille"


DEAL = 7


async def two_nodes(node_processes: ProcessFactory) -> tuple[str, str]:
    first, second = await asyncio.to_thread(node_processes, 2)
    return first.url, second.url


async def hello(url: str, name: str, token: str | None = None) -> Peer:
    return await Peer.hello(url, name, token=token, timeout=TIMEOUT)


class Racer:
    """A racer's game as the server last showed it: the next ``seq`` and the legal moves."""

    def __init__(self, peer: Peer, race: str, started: Frame) -> None:
        self.peer, self.race = peer, race
        self.seq, self.legal, self.view = 0, list(started["legal"]), started["view"]
        self.start_event: int = started["event"]
        self.replies: list[Frame] = []

    async def play(self, count: int) -> list[Frame]:
        """Up to ``count`` moves, each the first legal one; their ``moved`` replies."""
        made = []
        for _ in range(count):
            if not self.legal:
                break
            reply = await self.peer.ask("move", race=self.race, seq=self.seq, move=self.legal[0])
            assert reply["t"] == "moved" and reply["seq"] == self.seq
            assert isinstance(reply["event"], int)
            self.seq, self.legal, self.view = self.seq + 1, list(reply["legal"]), reply["view"]
            made.append(reply)
        self.replies.extend(made)
        return made


__all__ = ["DEAL", "VARIANT", "Racer", "hello", "two_nodes"]

"""A racer's ``rewound`` counts only moves that are gone (issue: one failover, one rewind).

The rewind reads the racer's board from Redis; a move of theirs acknowledged
while that read was on its way is in Redis but may be missing from what the
read returned. Counting it lost told a racer ``rewound {lost: 1, seq: 12}``
right after ``moved seq 12``, though the move stood. The watch is driven
here with stand-ins for the connection and the board reads (no Redis: the
order of two replies is the point, and a real Redis cannot be made to hold
one back).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, cast

from protocol.codec import decode_server
from protocol.exceptions import ErrorCode
from protocol.messages import Rewound, ServerMessage
from server.exceptions import RequestRefused
from server.fanout.feeds import RaceWatch, Role
from server.services.boards import RacerBoard

RACE = "r1"


class _Client:
    """A connection as a watch sees it: who it is, its watches, what it was sent."""

    def __init__(self) -> None:
        self.player = "p1"
        self.frames: list[bytes] = []
        self._watches: dict[str, object] = {}

    @property
    def watches(self) -> Mapping[str, object]:
        return self._watches

    def send(self, message: ServerMessage) -> None:
        raise AssertionError("a watch sends frames")

    def send_frame(self, frame: bytes) -> None:
        self.frames.append(frame)

    async def unwatch(self, race: str, watch: RaceWatch) -> None:
        self._watches.pop(race, None)

    async def hear_rematches(self, race: str, since: int) -> None:
        return None


class _Boards:
    """Board reads: the first answers as of before the racer's move 12 was stored, and
    meanwhile the move's reply told the watch it is (acknowledged 13)."""

    def __init__(self) -> None:
        self.watch: RaceWatch | None = None
        self.reads = 0

    async def board_now(self, race: str, player: str) -> RacerBoard:
        self.reads += 1
        await asyncio.sleep(0)
        if self.reads == 1:
            assert self.watch is not None
            self.watch.acknowledged = 13  # `moved seq 12` went out during the read
            return RacerBoard(race, 30, seq=12)
        return RacerBoard(race, 31, seq=13)


class _Lobby:
    async def info(self, race: str) -> Any:
        raise RequestRefused(ErrorCode.NOT_FOUND, "not needed here")


async def test_a_move_acknowledged_during_the_rewind_is_not_reported_lost() -> None:
    """The read is made again when the racer's count moved meanwhile: seq 13, lost 0."""
    client, boards = _Client(), _Boards()
    watch = RaceWatch(
        cast(Any, client), RACE, Role.RACER, 29,
        lobby=cast(Any, _Lobby()), boards=cast(Any, boards), memory=cast(Any, None),
    )  # fmt: skip
    client._watches[RACE] = watch
    boards.watch = watch
    watch.acknowledged = 12
    assert await watch.rewound() == 31
    (rewound,) = [m for m in map(decode_server, client.frames) if isinstance(m, Rewound)]
    assert (rewound.seq, rewound.lost, rewound.event) == (13, 0, 31)

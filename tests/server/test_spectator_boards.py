"""A spectator's boards, as :class:`~server.fanout.feeds.RaceWatch` hands them out.

No Redis and no sockets: the watches' client and the node's replica are
stand-ins that record what they are asked. What must hold: a move's board
is drawn and encoded once per node, whatever the number of spectators; it
goes straight out to a spectator with nothing before it, and otherwise
waits where the general rules say (a reply not yet sent, a delay, a client
reading behind).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from protocol.codec import decode_server, encode
from protocol.messages import Board, ServerMessage, Spectators
from protocol.views import Progress, ViewMap
from server.engine import find_variant
from server.fanout.client import Shared
from server.fanout.feeds import RaceWatch, Role
from server.rules.events import MoveMade
from server.rules.races import Spectate
from tests.server.writes import Writes

RACE = "r1"
GAME = find_variant("odd-and-even")
VIEW = GAME.view(GAME.deal(7))


class _Client(Writes[bytes]):
    """A spectator's connection: what it was sent (each write's frames in ``writes``),
    and whether it reads behind."""

    def __init__(self) -> None:
        super().__init__()
        self.player: str | None = None
        self.seat_holder = "h"
        self.watches: dict[str, object] = {}
        self.frames: list[bytes] = []
        self.reading_behind = False
        self.caught_up: list[Callable[[], None]] = []

    def send(self, message: ServerMessage) -> None:
        raise AssertionError("a board is sent as a frame")

    def send_frame(self, frame: bytes) -> None:
        self.frames.append(frame)
        self.write(frame)

    def when_caught_up(self, callback: Callable[[], None]) -> None:
        self.caught_up.append(callback)

    async def unwatch(self, race: str, watch: object) -> None:
        self.watches.pop(race, None)

    async def hear_rematches(self, race: str, since: int) -> None:
        return None


class _Replica:
    def __init__(self) -> None:
        self.drawn = 0

    def view_after(self, player: str, seq: int, move: str) -> ViewMap:
        self.drawn += 1
        return VIEW


class _Memory:
    def __init__(self) -> None:
        self.replica = _Replica()

    def replica_now(self, race: str) -> _Replica:
        return self.replica


def _spectators(count: int, memory: _Memory, delay: float = 0.0) -> list[RaceWatch]:
    watches = []
    for _ in range(count):
        client = _Client()
        watch = RaceWatch(
            client,
            RACE,
            Role.SPECTATOR,
            0,
            lobby=None,  # type: ignore[arg-type]
            boards=None,  # type: ignore[arg-type]
            memory=memory,  # type: ignore[arg-type]
        )
        watch.policy, watch.delay = Spectate.DELAYED if delay else Spectate.LIVE, delay
        client.watches[RACE] = watch
        watches.append(watch)
    return watches


def _move(seq: int, at: float | None = None) -> MoveMade:
    progress = Progress(home=seq, target=52, moves=seq + 1, won=False, over=False)
    return MoveMade("p1", seq, "w>f3", progress, time.time() - 0.01 if at is None else at)


def _sent(watch: RaceWatch) -> list[bytes]:
    frames: list[bytes] = watch.conn.frames  # type: ignore[attr-defined]
    return frames


async def test_a_board_is_drawn_and_encoded_once_for_every_spectator_here() -> None:
    """A hundred spectators of one event: one view drawn, one frame, the same bytes each."""
    memory = _Memory()
    watches = _spectators(100, memory)
    shared = Shared()
    for watch in watches:
        watch.last_event = 1
        watch.deliver(RACE, 1, _move(0), shared)
    assert memory.replica.drawn == 1
    first = _sent(watches[0])
    assert len(first) == 1 and all(_sent(w) == first for w in watches)
    assert all(_sent(w)[0] is first[0] for w in watches)
    board = decode_server(first[0])
    assert isinstance(board, Board) and board.seq == 0 and board.event == 1


async def test_a_board_waits_for_the_reply_the_delay_and_a_client_reading_behind() -> None:
    """Straight out only with nothing before it: a held watch keeps it until its reply
    went; a delayed race owes it; a client reading behind skips it and is told once it
    caught up; the others, live, get it at once."""
    memory = _Memory()
    held, behind, live = _spectators(3, memory)
    (delayed,) = _spectators(1, memory, delay=30.0)
    held.hold()
    behind.conn.reading_behind = True  # type: ignore[misc]
    shared = Shared()
    for watch in (held, behind, live, delayed):
        watch.deliver(RACE, 1, _move(0), shared)
    assert len(_sent(live)) == 1
    assert _sent(held) == [] and _sent(behind) == [] and _sent(delayed) == []
    held.release()
    assert _sent(held) == _sent(live)
    assert len(behind.conn.caught_up) == 1  # type: ignore[attr-defined]
    later = Shared()
    for watch in (behind, live, delayed):
        watch.deliver(RACE, 2, _move(1), later)
    assert _sent(behind) == [] and len(_sent(live)) == 2 and _sent(delayed) == []


async def test_a_board_from_a_clock_ahead_waits_until_its_time() -> None:
    """A move stamped a little ahead of this node's clock (another node's) is owed, not
    sent before its time; a board after it waits behind it."""
    memory = _Memory()
    (watch,) = _spectators(1, memory)
    watch.deliver(RACE, 1, _move(0, at=time.time() + 30), Shared())
    watch.deliver(RACE, 2, _move(1), Shared())
    assert _sent(watch) == []


async def test_a_count_kept_aside_goes_out_with_the_next_board() -> None:
    """A count of spectators kept aside is written with the next board, after it, in one
    write; kept with nothing to take it along, it goes alone when the sweep says; told on
    its own, it drops an older one still kept."""
    memory = _Memory()
    rides, alone, replaced = _spectators(3, memory)
    count, newer = encode(Spectators(race=RACE, count=9)), encode(Spectators(race=RACE, count=10))
    for watch in (rides, alone, replaced):
        watch.notice_with_next(count)
    replaced.notice(newer)
    assert _sent(rides) == [] and _sent(alone) == [] and _sent(replaced) == [newer]
    rides.deliver(RACE, 1, _move(0), Shared())
    ((board, then),) = rides.conn.writes  # type: ignore[attr-defined]
    assert isinstance(decode_server(board), Board) and then == count
    alone.send_aside()
    replaced.send_aside()
    rides.send_aside()  # taken along already: nothing more
    assert alone.conn.writes == [[count]]  # type: ignore[attr-defined]
    assert replaced.conn.writes == [[newer]]  # type: ignore[attr-defined]
    assert len(rides.conn.writes) == 1  # type: ignore[attr-defined]

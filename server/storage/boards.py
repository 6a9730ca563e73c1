"""The racers' boards of a race, kept in Redis: the boards hash and each racer's move log.

A racer's board is a few fields of the race's boards hash (named by
:class:`keys.BoardField`: the move count, the status, the cards home, when the
game ended, the board's version, and every few moves a snapshot) and the log
of their moves (``keys.race_log``), which is the truth the fields are checked
against. Moves are written by the commit path (:mod:`server.storage.commits`);
this store reads. A snapshot is stored packed and returned as the engine's
:class:`~server.engine.state.State`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from protocol.results import RacerStatus
from server.engine.state import State
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.keys import BoardField
from server.storage.packing import unpack
from server.storage.replies import reply_bytes, reply_text
from server.storage.scripts import ScriptRegistry

__all__ = ["BoardStore", "RacerBoard", "StoredBoard", "racer_boards"]


def _snapshot(packed: bytes | None) -> State | None:
    return State.from_data(unpack(packed)) if packed else None


class StoredBoard(NamedTuple):
    """One racer's board as Redis holds it: a snapshot and the moves logged after it.

    The board itself is ``snapshot`` (the deal when None) advanced by ``tail``;
    the service does that with the engine.
    """

    seq: int
    status: RacerStatus
    #: A token each move writes anew (empty before the first). A move commits
    #: only if the board still has the version it was checked against, not
    #: just the same seq: after Redis lost its latest writes, a board may be
    #: back at a seq a node remembers, reached by other moves.
    version: str
    snapshot: State | None
    snapshot_seq: int
    tail: list[str]


class RacerBoard(NamedTuple):
    """One racer's fields of the boards hash (see :class:`keys.BoardField`)."""

    seq: int
    status: RacerStatus
    home: int
    #: When the racer's game ended; None while it goes on.
    finished_at: float | None
    version: str
    #: The board after move ``snapshot_seq``, when one was taken.
    snapshot: State | None
    snapshot_seq: int


def racer_boards(raw: Mapping[Any, object]) -> dict[str, RacerBoard]:
    """A boards hash as Redis returns it (HGETALL), racer by racer."""
    fields = {reply_text(k): reply_bytes(v) for k, v in raw.items()}
    boards = {}
    for key in fields:
        if not key.startswith(BoardField.SEQ):
            continue
        p = key.removeprefix(BoardField.SEQ)
        at = fields.get(BoardField.AT.of(p))
        boards[p] = RacerBoard(
            seq=int(fields[key]),
            status=RacerStatus(reply_text(fields[BoardField.STATUS.of(p)])),
            home=int(fields.get(BoardField.HOME.of(p)) or 0),
            finished_at=float(at) if at else None,
            version=reply_text(fields.get(BoardField.VERSION.of(p), b"")),
            snapshot=_snapshot(fields.get(BoardField.STATE.of(p))),
            snapshot_seq=int(fields.get(BoardField.SNAP.of(p)) or 0),
        )
    return boards


@storage_edge
class BoardStore:
    """Typed reads of the Redis model of racers' boards."""

    def __init__(self, client: RedisClient, scripts: ScriptRegistry) -> None:
        self.redis = client
        self._scripts = scripts

    async def board(self, race: str, player: str) -> StoredBoard | None:
        """One racer's stored board, or None if they are not racing."""
        reply = await self._scripts.run(
            "board", [keys.race_boards(race), keys.race_log(race, player)], [player]
        )
        if not reply:
            return None
        seq, status, version, snapshot, snapshot_seq, *tail = reply
        return StoredBoard(
            int(seq), RacerStatus(reply_text(status)), reply_text(version),
            _snapshot(reply_bytes(snapshot)), int(snapshot_seq),
            [reply_text(move) for move in tail],
        )  # fmt: skip

    async def racer_seqs(self, race: str, players: list[str]) -> dict[str, int | None]:
        """How many moves each of ``players`` has made (None: not racing)."""
        seqs = await self.redis.hmget(
            keys.race_boards(race), [BoardField.SEQ.of(p) for p in players]
        )
        return {p: None if s is None else int(s) for p, s in zip(players, seqs, strict=True)}

    async def race_now(self, race: str) -> tuple[int, dict[str, StoredBoard]]:
        """The race's latest event number and every racer's stored board, as of one instant.

        The number and the boards hash are read together; each log's tail is
        read after, cut at the board's ``seq``, so a move made in between is
        left out as the hash leaves it out.
        """
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xlen(keys.race_events(race))
            pipe.hgetall(keys.race_boards(race))
            events, raw = await pipe.execute()
        racers = racer_boards(raw)
        # LRANGE's end is inclusive, and -1 would mean the whole log: only racers with a tail.
        behind = [p for p, b in racers.items() if b.seq > b.snapshot_seq]
        tails: dict[str, list[str]] = {p: [] for p in racers}
        if behind:
            async with self.redis.pipeline(transaction=False) as pipe:
                for p in behind:
                    pipe.lrange(keys.race_log(race, p), racers[p].snapshot_seq, racers[p].seq - 1)
                for p, tail in zip(behind, await pipe.execute(), strict=True):
                    tails[p] = [reply_text(move) for move in tail]
        boards = {
            p: StoredBoard(b.seq, b.status, b.version, b.snapshot, b.snapshot_seq, tails[p])
            for p, b in racers.items()
        }
        return int(events or 0), boards

    async def racers(self, race: str) -> dict[str, RacerBoard]:
        """Every racer's fields of the race's boards hash."""
        return racer_boards(await self.redis.hgetall(keys.race_boards(race)))

    async def log(self, race: str, player: str) -> list[str]:
        """Every move ``player`` made in ``race``, oldest first."""
        return [reply_text(m) for m in await self.redis.lrange(keys.race_log(race, player), 0, -1)]

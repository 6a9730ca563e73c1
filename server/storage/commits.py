"""Move commits, the hot path: many connections' moves sent to Redis together.

:class:`CommitBatcher` gathers the commits of all connections that arrive in
the same event-loop turn and sends them as one pipeline, so a busy node pays
one Redis round trip per batch, not per move.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import Any, NamedTuple

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from server.engine.state import State
from server.storage import keys
from server.storage.cluster import Topology, is_redirection
from server.storage.exceptions import StoreUnavailable, unavailable
from server.storage.packing import pack
from server.storage.replies import reply_bytes
from server.storage.resp import Endpoint, Pipe, ReplyError
from server.storage.scripts import ScriptRegistry

__all__ = ["CommitBatcher", "CommitReply", "MoveCommit"]


class CommitReply(NamedTuple):
    """Redis's answer to a move's commit: ``ok`` (or why not), the number of the move's
    event (or, refused, the racer's current seq), and how many racers still play."""

    outcome: str
    event: int
    left: int


class MoveCommit(NamedTuple):
    """One move to commit, already checked against the engine by the node.

    A named tuple: one is made per move, and cheaply (see ``MoveResult``).
    """

    race: str
    player: str
    expected_seq: int
    #: The board after the move, every few moves (packed at the edge); None otherwise.
    snapshot: State | None
    move: str
    status: str
    home: int
    now: float
    payload: bytes
    #: The board version the move was checked against, and the one it writes:
    #: see :class:`StoredBoard`.
    expected_version: str = ""
    version: str = ""


Pending = list[tuple[MoveCommit, "asyncio.Future[CommitReply]"]]


class CommitBatcher:
    """Sends concurrent move commits to Redis together: a group commit.

    Commits go in one pipeline on the node's lean commit connection
    (:mod:`server.storage.resp`) to the Redis that holds the race: on a
    cluster, one pipeline per primary among those the races live on. A
    pipeline leaves at the end of the event-loop turn its first commit came
    in, unless :attr:`PIPELINES_IN_FLIGHT` are in flight to that Redis: then
    the commits wait for one's answer and leave together as the next. A node
    so sends each commit at once, and one that Redis cannot keep up with
    sends fewer, fuller pipelines. In a pipeline, the commits of one slot
    share script calls, each commit with its own reply. Redis spends more on
    each round trip, script call and command than on what they carry, so a
    commit costs it less the more it shares them (docs/performance.md, "What
    a move costs Redis: where its CPU goes"). Order between pipelines does
    not matter: each commit is a compare-and-set on its racer's sequence,
    and a racer's next move waits for the reply to its last.

    The rare cases take a slower path in a task: connecting (again), a Redis
    that forgot its scripts (restarted, or a replica just promoted), a
    connection lost mid-flight, a cluster saying the slot moved. A commit
    sent twice that way is harmless: the second finds its sequence taken and
    the service answers it as the resent move it is.
    """

    #: The most commits one call of the move script holds.
    MOVES_PER_CALL = 64

    #: Pipelines a node keeps in flight to one Redis; commits that come
    #: meanwhile wait for one to be answered and then go together. One alone
    #: made the node and Redis take turns (docs/performance.md, change 4);
    #: four keep both busy, and past them a Redis that falls behind gets
    #: fuller script calls, which cost it less a move.
    PIPELINES_IN_FLIGHT = 4

    #: Pauses before the attempts after a failed one (redis-py's retries, before).
    RETRY_PAUSES = (0.05, 0.1, 0.2)

    def __init__(self, topology: Topology, scripts: ScriptRegistry) -> None:
        self._scripts = scripts
        self._topology = topology
        self._pipes: dict[Endpoint, Pipe] = {}
        self._pending: Pending = []
        self._scheduled = False
        self._retrying: set[asyncio.Task[None]] = set()
        #: Pipelines in flight to each Redis, and the commits waiting for them.
        self._in_flight: dict[Endpoint, int] = {}
        self._waiting: dict[Endpoint, Pending] = {}

    def send(self, commit: MoveCommit) -> asyncio.Future[CommitReply]:
        """Send a commit with the others of this loop turn, or of the pipeline in flight;
        the future is Redis's answer, or :class:`~server.storage.exceptions.StoreUnavailable`."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[CommitReply] = loop.create_future()
        self._pending.append((commit, future))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return future

    def close(self) -> None:
        for pipe in self._pipes.values():
            pipe.close()
        self._pipes.clear()

    def _pipe(self, endpoint: Endpoint) -> Pipe:
        pipe = self._pipes.get(endpoint)
        if pipe is None:
            pipe = self._pipes[endpoint] = Pipe(endpoint)
        return pipe

    def _by_endpoint(self, batch: Pending) -> dict[Endpoint, Pending]:
        """The batch split by the Redis that holds each race (one group on one Redis)."""
        if self._topology.single is not None:
            return {self._topology.single: batch}
        endpoint_for = self._topology.endpoint_for
        groups: dict[Endpoint, Pending] = {}
        for item in batch:
            groups.setdefault(endpoint_for(keys.race_meta(item[0].race)), []).append(item)
        return groups

    def _flush(self) -> None:
        self._scheduled = False
        batch, self._pending = self._pending, []
        try:
            groups = self._by_endpoint(batch)
        except RedisError:  # the slot map has a hole: the slow path reads it again
            self._retry(batch)
            return
        for endpoint, group in groups.items():
            if self._in_flight.get(endpoint, 0) >= self.PIPELINES_IN_FLIGHT:
                self._waiting.setdefault(endpoint, []).extend(group)
            else:
                self._send(endpoint, group)

    def _send(self, endpoint: Endpoint, group: Pending) -> None:
        pipe = self._pipe(endpoint)
        if not pipe.ready():
            self._retry(group)
            return
        calls = self._calls(group)
        sent = pipe.send([self._command(call) for call in calls])
        self._in_flight[endpoint] = self._in_flight.get(endpoint, 0) + 1
        sent.add_done_callback(functools.partial(self._answered, endpoint, calls))

    def _calls(self, group: Pending) -> list[Pending]:
        """One Redis's commits as script calls: a call's commits share a slot, and a
        call holds at most :attr:`MOVES_PER_CALL` of them."""
        if self._topology.single is not None:
            by_slot = [group]
        else:
            slot, slots = self._topology.slot, dict[int, Pending]()
            for item in group:
                slots.setdefault(slot(keys.race_meta(item[0].race)), []).append(item)
            by_slot = list(slots.values())
        size = self.MOVES_PER_CALL
        return [commits[i : i + size] for commits in by_slot for i in range(0, len(commits), size)]

    def _command(self, call: Pending) -> tuple[Any, ...]:
        names: list[Any] = []
        values: list[Any] = []
        for c, _ in call:
            race = c.race
            names += (
                keys.race_meta(race), keys.race_boards(race),
                keys.race_events(race), keys.race_log(race, c.player),
            )  # fmt: skip
            values += (
                c.player, c.expected_seq, _packed(c.snapshot), c.move, c.status, c.home,
                repr(c.now), keys.race_channel(race), c.payload,
                c.expected_version, c.version,
            )  # fmt: skip
        return ("EVALSHA", self._scripts.sha("move"), len(names), *names, *values)

    def _answered(
        self, endpoint: Endpoint, calls: list[Pending], sent: asyncio.Future[list[Any]]
    ) -> None:
        self._in_flight[endpoint] -= 1
        waiting = self._waiting.pop(endpoint, None)
        if waiting:
            self._send(endpoint, waiting)
        if sent.cancelled() or sent.exception() is not None:
            self._retry([item for call in calls for item in call])  # the connection broke
            return
        again = self._deliver(calls, sent.result())
        if again:
            self._retry(again)  # Redis restarted, or the cluster moved a slot

    def _deliver(self, calls: list[Pending], replies: list[Any]) -> Pending:
        """Resolve each commit with its reply; returns those to send again.

        A call's reply is an error for all its commits (a forgotten script, a
        moved slot) or a line a commit: its outcome, or the error it met.
        """
        again: Pending = []
        for call, reply in zip(calls, replies, strict=True):
            if isinstance(reply, ReplyError):
                if _send_again(reply):
                    again += call
                else:
                    _fail(call, StoreUnavailable(str(reply)))
                continue
            for (_, future), line in zip(call, reply_bytes(reply).split(b"\n"), strict=True):
                if future.done():
                    continue
                if line.startswith(b"! "):
                    future.set_exception(StoreUnavailable(line[2:].decode()))
                else:
                    outcome, number, left = line.split(b" ")
                    future.set_result(CommitReply(outcome.decode(), int(number), int(left)))
        return again

    def _retry(self, batch: Pending) -> None:
        task = asyncio.get_running_loop().create_task(self._send_slowly(batch))
        self._retrying.add(task)
        task.add_done_callback(self._retrying.discard)

    async def _send_slowly(self, batch: Pending) -> None:
        """Connect, reload the scripts if Redis forgot them, read the slot map again
        if the cluster says it changed, and send; a few tries."""
        error: Exception = RedisConnectionError("redis is unreachable")
        for pause in (0.0, *self.RETRY_PAUSES):
            await asyncio.sleep(pause)
            try:
                errors: list[str] = []
                for endpoint, group in self._by_endpoint(batch).items():
                    calls = self._calls(group)
                    replies = await self._pipe(endpoint).execute(
                        [self._command(call) for call in calls]
                    )
                    errors += [str(reply) for reply in replies if isinstance(reply, ReplyError)]
                    self._deliver(calls, replies)
                batch = [item for item in batch if not item[1].done()]
                if not batch:
                    return
                error = await self._mend(errors)
            except (RedisError, OSError) as exc:
                error = exc
                with contextlib.suppress(RedisError, OSError):
                    await self._topology.refresh()
        _fail(batch, error)

    async def _mend(self, errors: list[str]) -> Exception:
        """Do what the error replies ask: reload the scripts, read the slot map again."""
        forgot = any(e.startswith("NOSCRIPT") for e in errors)
        if forgot or any(is_redirection(e) for e in errors):
            # On a cluster a script is missing from a replica just promoted:
            # the map first, so the scripts reach the new primary.
            await self._topology.refresh()
        if forgot:
            await self._scripts.load()
        return ResponseError(errors[0] if errors else "redis did not answer every commit")


def _packed(snapshot: State | None) -> bytes:
    """A commit's snapshot as the move script stores it (empty: none taken)."""
    return b"" if snapshot is None else pack(snapshot.to_data())


def _fail(commits: Pending, error: Exception) -> None:
    """Answer these commits with ``error``, as storage says it (StoreUnavailable)."""
    failed = unavailable(error)
    for _, future in commits:
        if not future.done():
            future.set_exception(failed)


def _send_again(reply: ReplyError) -> bool:
    """An error reply that a retry may cure: a forgotten script, a slot served elsewhere."""
    text = str(reply)
    return text.startswith("NOSCRIPT") or is_redirection(text)

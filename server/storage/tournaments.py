"""Tournaments kept in Redis: the document, its events, seeds, presence, the lock.

A tournament's public state is one msgpack document in its meta hash (the
``to_data`` map of :class:`~protocol.tournaments.Tournament`, read back
through ``from_data``, so the store takes and gives typed values); every
change stores the whole document and announces it as the tournament's next
event (``tournament_save.lua``), so watchers on any node get it through the
same hub as race events; its stream keeps only the newest :data:`EVENTS_KEPT`
of them, since each is a whole document. An arena's older scored races leave the document
for its archive hash in the same step (:func:`server.rules.arena.archive`),
and the record reads them back from there. Seeds of stages not yet revealed stay in the meta
hash, never in the document. Changes are made under a Redis lock per
tournament, so two nodes never interleave them.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence

from redis.asyncio.lock import Lock

from protocol.tournaments import Stage, Tournament, TournamentStatus
from protocol.validation import Shape
from server.rules.events import TournamentChanged
from server.rules.winnable import WinnableChoice
from server.storage import keys
from server.storage.draws import draw_secret_seed, new_code
from server.storage.event_codec import encode_event
from server.storage.exceptions import storage_edge
from server.storage.packing import pack, unpack
from server.storage.replies import (
    optional_text,
    reply_bytes,
    reply_text,
)
from server.storage.store import Store

__all__ = ["TournamentLock", "TournamentStore", "hash_password"]

LOCK_SECONDS = 10.0
#: Documents a node keeps, the ones it changed last (:meth:`TournamentStore.load_for_change`).
HELD = 16
#: Changes a tournament's stream keeps, the newest: each holds the whole document, and a
#: follower needs only the newest (one further behind is sent the document afresh).
EVENTS_KEPT = 32


def hash_password(password: str, salt: str) -> str:
    """A salted, slow hash: an entry password is worth little, but never stored plain."""
    digest = hashlib.scrypt(password.encode(), salt=salt.encode(), n=2**12, r=8, p=1)
    return f"{salt}${digest.hex()}"


@storage_edge
class TournamentLock:
    """A tournament's lock in Redis (redis-py's :class:`~redis.asyncio.lock.Lock`), whose
    failures are storage's :class:`~server.storage.exceptions.StoreUnavailable`."""

    def __init__(self, lock: Lock) -> None:
        self._lock = lock

    async def acquire(self) -> bool:
        """Take the lock; False if another node held it past the wait."""
        return bool(await self._lock.acquire())

    async def release(self) -> None:
        """Give the lock up (raises if it expired and another node took it)."""
        await self._lock.release()


@storage_edge
class TournamentStore:
    """Typed operations on the Redis model of tournaments."""

    def __init__(self, store: Store) -> None:
        self.redis = store.redis
        self._scripts = store.scripts
        #: One Redis runs a MULTI over any keys; a cluster only over one slot's.
        self.atomic_across_slots = store.atomic_across_slots
        #: Tournament -> the token of the save this node made or read last, and its document.
        self._held: dict[str, tuple[str, Tournament]] = {}

    async def create(
        self, host: str, password: str | None, make_doc: Callable[[str, str], Tournament]
    ) -> Tournament:
        """Store a new tournament; ``make_doc(id, code)`` builds its document."""
        tournament = "T" + secrets.token_hex(5)
        code = new_code()
        doc = make_doc(tournament, code)
        meta = keys.tournament_meta(tournament)
        hashed = None
        if password is not None:
            hashed = await asyncio.to_thread(hash_password, password, secrets.token_hex(8))
        async with self.redis.pipeline(transaction=self.atomic_across_slots) as pipe:
            pipe.hset(meta, "doc", pack(doc.to_data()))
            if hashed is not None:
                pipe.hset(meta, "password", hashed)
            if not self.atomic_across_slots:
                # A cluster: the code and the lists lie in other slots, written
                # after the tournament, so a listing never finds one not there.
                await pipe.execute()
            pipe.set(keys.tournament_code(code), tournament)
            pipe.zadd(keys.TOURNAMENTS, {tournament: doc.created})
            pipe.sadd(keys.hosted_tournaments(host), tournament)
            await pipe.execute()
        return doc

    async def open_hosted_by(self, player: str) -> int:
        """How many tournaments ``player`` created that have not started; forgets the others."""
        key = keys.hosted_tournaments(player)
        hosted = [reply_text(t) for t in await self.redis.smembers(key)]
        still_open = 0
        for tournament in hosted:
            doc = await self.load(tournament)
            if doc is not None and doc.status is TournamentStatus.OPEN:
                still_open += 1
            else:
                await self.redis.srem(key, tournament)
        return still_open

    async def id_for_code(self, code: str) -> str | None:
        return optional_text(await self.redis.get(keys.tournament_code(code.upper())))

    async def load(self, tournament: str) -> Tournament | None:
        data = await self.redis.hget(keys.tournament_meta(tournament), "doc")
        if data is None:
            return None
        return Tournament.from_data(unpack(reply_bytes(data)))

    async def save(self, doc: Tournament, archived: Sequence[Stage] = ()) -> int:
        """Store the document and announce it, and move ``archived`` (stages it no longer
        holds) to the archive; returns its event number."""
        tournament = doc.id
        data = doc.to_data()  # made once: stored, and announced
        token = secrets.token_hex(8)  # which save the stored document is
        stages: list[bytes | int] = []
        for stage in archived:
            stages += [stage.n, pack(stage.to_data(ranked=not doc.knockout))]
        n = int(
            await self._scripts.run(
                "tournament_save",
                [
                    keys.tournament_meta(tournament),
                    keys.events(tournament),
                    keys.tournament_archive(tournament),
                ],
                [
                    pack(data),
                    keys.channel(tournament),
                    encode_event(TournamentChanged(doc, data=data)),
                    EVENTS_KEPT,
                    token,
                    *stages,
                ],
            )
        )
        self._hold(tournament, token, doc)
        return n

    async def load_for_change(self, tournament: str) -> Tournament | None:
        """The document, to change under the tournament's lock: the one this node saved
        last if it is still the one stored (no other node saved since), without reading
        it again (an arena of a thousand entrants takes ~75 ms to read)."""
        held = self._held.get(tournament)
        if held is not None:
            token = await self.redis.hget(keys.tournament_meta(tournament), "saved")
            if token is not None and reply_text(token) == held[0]:
                return held[1]
        data, token = await self.redis.hmget(keys.tournament_meta(tournament), ["doc", "saved"])
        if data is None:
            return None
        doc = Tournament.from_data(unpack(reply_bytes(data)))
        if token is not None:
            self._hold(tournament, reply_text(token), doc)
        return doc

    def _hold(self, tournament: str, token: str, doc: Tournament) -> None:
        self._held.pop(tournament, None)
        self._held[tournament] = (token, doc)
        while len(self._held) > HELD:
            del self._held[next(iter(self._held))]

    async def archived_numbers(self, tournament: str) -> list[int]:
        """The numbers of the stages in the archive, in order."""
        return sorted(int(n) for n in await self.redis.hkeys(keys.tournament_archive(tournament)))

    async def archived_among(self, tournament: str, numbers: Sequence[int]) -> set[int]:
        """Which of these stages are in the archive."""
        if not numbers:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for n in numbers:
                pipe.hexists(keys.tournament_archive(tournament), n)
            found = await pipe.execute()
        return {n for n, there in zip(numbers, found, strict=True) if there}

    async def archived_stages(self, tournament: str, numbers: Sequence[int]) -> list[Stage]:
        """These archived stages, in the order asked."""
        if not numbers:
            return []
        found = await self.redis.hmget(keys.tournament_archive(tournament), list(numbers))
        return [
            Stage.read(Shape(unpack(reply_bytes(data)), f"archive[{n}]"))
            for n, data in zip(numbers, found, strict=True)
            if data is not None
        ]

    async def event_count(self, tournament: str) -> int:
        """The number of the latest change (its stream keeps only the newest few)."""
        last = await self.redis.xrevrange(keys.events(tournament), count=1)
        if not last:
            return 0
        return int(reply_text(last[0][0]).rsplit("-", 1)[1])

    async def password_matches(self, tournament: str, password: str | None) -> bool:
        stored = await self.redis.hget(keys.tournament_meta(tournament), "password")
        if stored is None:
            return True
        if password is None:
            return False
        salt = reply_text(stored).split("$", 1)[0]
        # scrypt is slow on purpose (~10 ms): off the event loop, so guesses
        # cannot stall every other client of the node.
        hashed = await asyncio.to_thread(hash_password, password, salt)
        return hmac.compare_digest(hashed, reply_text(stored))

    async def listed(self, limit: int = 50) -> list[Tournament]:
        """The newest tournaments' documents, newest first."""
        ids = [reply_text(t) for t in await self.redis.zrevrange(keys.TOURNAMENTS, 0, limit - 1)]
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for tournament in ids:
                pipe.hget(keys.tournament_meta(tournament), "doc")
            docs = await pipe.execute()
        gone = [t for t, doc in zip(ids, docs, strict=True) if doc is None]
        if gone:
            await self.redis.zrem(keys.TOURNAMENTS, *gone)  # expired since they ended
        return [Tournament.from_data(unpack(doc)) for doc in docs if doc is not None]

    async def expire(self, tournament: str, code: str, seconds: float) -> None:
        """Let Redis drop a tournament that is over after ``seconds``."""
        ttl = max(1, int(seconds))
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (
                keys.tournament_meta(tournament), keys.events(tournament),
                keys.tournament_seen(tournament), keys.tournament_code(code),
                keys.tournament_archive(tournament),
            ):  # fmt: skip
                pipe.expire(key, ttl)
            await pipe.execute()

    async def set_active(self, tournament: str, active: bool) -> None:
        if active:
            await self.redis.sadd(keys.ACTIVE_TOURNAMENTS, tournament)
        else:
            await self.redis.srem(keys.ACTIVE_TOURNAMENTS, tournament)

    async def active(self) -> list[str]:
        return sorted(reply_text(t) for t in await self.redis.smembers(keys.ACTIVE_TOURNAMENTS))

    async def stage_seed(self, tournament: str, stage: int) -> int:
        """The secret seed of a stage, drawn once whichever node asks first."""
        meta = keys.tournament_meta(tournament)
        await self.redis.hsetnx(meta, f"seed:{stage}", draw_secret_seed())
        return int(reply_text(await self.redis.hget(meta, f"seed:{stage}")))

    async def stage_deal(self, tournament: str, stage: int) -> WinnableChoice | None:
        """A winnable stage's deal and how it was chosen, once a node has found one."""
        found = await self.redis.hget(keys.tournament_meta(tournament), f"deal:{stage}")
        if found is None:
            return None
        seed, draw, pick, line = reply_text(found).split("|", 3)
        moves = tuple(line.split(",")) if line else ()
        return WinnableChoice(int(draw), int(pick), int(seed), moves)

    async def offer_stage_deal(self, tournament: str, stage: int, choice: WinnableChoice) -> None:
        """Keep a winnable stage's deal, unless another node's search got there first."""
        line = ",".join(choice.line)
        await self.redis.hsetnx(
            keys.tournament_meta(tournament),
            f"deal:{stage}",
            f"{choice.seed}|{choice.draw}|{choice.pick}|{line}",
        )

    async def touch(self, seen: dict[str, set[str]], now: float) -> None:
        """Note that these entrants are connected now (``tournament -> players``)."""
        if not seen:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for tournament, players in seen.items():
                if players:
                    pipe.hset(keys.tournament_seen(tournament), mapping=dict.fromkeys(players, now))
            await pipe.execute()

    async def last_seen(self, tournament: str) -> dict[str, float]:
        raw = await self.redis.hgetall(keys.tournament_seen(tournament))
        return {reply_text(k): float(v) for k, v in raw.items()}

    def lock(self, tournament: str, *, wait: float | None) -> TournamentLock:
        """The tournament's lock; ``wait`` None gives up at once if it is taken."""
        return TournamentLock(
            self.redis.lock(
                keys.tournament_lock(tournament),
                timeout=LOCK_SECONDS,
                blocking=wait is not None,
                blocking_timeout=wait,
            )
        )

"""An arena's grouping kept in Redis: who waits, who races where, what is left to do.

Every key of an arena shares its tournament's hash tag, so each transition is
one script on one cluster slot (``lua/arena_*.lua``) and holds across nodes
whatever dies: an entrant is in the waiting set or in one race, never both
(``arena_racing``); grouping takes a group out of the waiting set and marks
it racing in one step (``arena_pair``); a race's racers wait again only once
it is scored (``arena_release``). The groups not yet released are kept
(``arena_pairs``), so a node that dies after grouping leaves the next node
to make the race, and one that dies after scoring leaves it the release.
"""

from __future__ import annotations

from typing import NamedTuple

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text
from server.storage.store import Store

__all__ = ["ArenaStore", "Grouped", "pairing_score"]


def pairing_score(points: float, rating: int) -> float:
    """Where an entrant waits: by points, then by rating (close scores race together)."""
    return float(points) * 10_000 + max(0, min(rating, 9_999))


class Grouped(NamedTuple):
    """A race the grouping made: its number in the arena, and its racers."""

    n: int
    players: tuple[str, ...]


@storage_edge
class ArenaStore:
    """Typed transitions of an arena's grouping, each one script."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        scripts = store.scripts
        self._enter = scripts["arena_enter"]
        self._pair = scripts["arena_pair"]
        self._release = scripts["arena_release"]

    async def wait(self, tournament: str, player: str, score: float, *, now: float) -> str:
        """``player`` waits for a race from ``now`` (unless racing): 'waiting' or 'racing'."""
        return await self._step(tournament, player, score, now=now, paused=False)

    async def pause(self, tournament: str, player: str) -> None:
        """``player`` steps out: no new race until they wait again."""
        await self._step(tournament, player, 0.0, now=0.0, paused=True)

    async def _step(
        self, tournament: str, player: str, score: float, *, now: float, paused: bool
    ) -> str:
        reply = await self._enter(
            keys=[
                keys.arena_waiting(tournament),
                keys.arena_racing(tournament),
                keys.arena_paused(tournament),
                keys.arena_since(tournament),
            ],
            args=[player, repr(score), "1" if paused else "0", repr(now)],
        )
        return reply_text(reply)

    async def pair(self, tournament: str, size: int) -> list[Grouped]:
        """Group every waiting entrant who can be now, best scores together."""
        reply = await self._pair(
            keys=[
                keys.arena_waiting(tournament),
                keys.arena_racing(tournament),
                keys.arena_pairs(tournament),
                keys.tournament_meta(tournament),
                keys.arena_since(tournament),
            ],
            args=[size],
        )
        return [Grouped(int(group[0]), tuple(reply_text(p) for p in group[1:])) for group in reply]

    async def pending(self, tournament: str) -> list[Grouped]:
        """The groups made and not yet released, by race number."""
        raw = await self.redis.hgetall(keys.arena_pairs(tournament))
        groups = [
            Grouped(int(reply_text(n)), tuple(reply_text(players).split(",")))
            for n, players in raw.items()
        ]
        return sorted(groups)

    async def release(
        self, tournament: str, n: int, scores: dict[str, float], *, now: float
    ) -> int:
        """Race ``n`` is scored: its racers wait again from ``now``, at these scores (not
        those who stepped out). Safe to repeat."""
        args: list[str | int] = [n, repr(now)]
        for player, score in scores.items():
            args += [player, repr(score)]
        return int(
            await self._release(
                keys=[
                    keys.arena_waiting(tournament),
                    keys.arena_racing(tournament),
                    keys.arena_paused(tournament),
                    keys.arena_pairs(tournament),
                    keys.arena_since(tournament),
                ],
                args=args,
            )
        )

    async def waiting(self, tournament: str) -> list[str]:
        """The entrants waiting now, best score first."""
        found = await self.redis.zrevrange(keys.arena_waiting(tournament), 0, -1)
        return [reply_text(p) for p in found]

    async def racing(self, tournament: str) -> dict[str, int]:
        """Each racing entrant's race number."""
        raw = await self.redis.hgetall(keys.arena_racing(tournament))
        return {reply_text(p): int(reply_text(n)) for p, n in raw.items()}

    async def close(self, tournament: str) -> None:
        """The arena is over: nobody waits any more."""
        await self.redis.delete(keys.arena_waiting(tournament))

    async def expire(self, tournament: str, seconds: int) -> None:
        """Let Redis drop the arena's keys with its tournament."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (
                keys.arena_waiting(tournament), keys.arena_racing(tournament),
                keys.arena_paused(tournament), keys.arena_pairs(tournament),
                keys.arena_since(tournament),
            ):  # fmt: skip
                pipe.expire(key, seconds)
            await pipe.execute()

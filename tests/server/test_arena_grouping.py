"""An arena's grouping scripts on a real Redis: close scores together, at most one race
each, pause and come back, release, and two nodes grouping at once."""

from __future__ import annotations

import asyncio

from server.storage.arena import ArenaStore, pairing_score
from server.storage.store import Store

NOW = 1_000.0


async def test_groups_close_scores_together_and_never_twice(store: Store) -> None:
    """Six waiting at races of four: two races of 3 (as even as can be), best scores in
    the first; grouped entrants leave the waiting set and race in exactly one race."""
    arena = ArenaStore(store)
    for i, player in enumerate("abcdef"):
        await arena.wait("Tg1", player, pairing_score(i * 4, 1500), now=NOW)
    groups = await arena.pair("Tg1", 4)
    assert [(g.n, set(g.players)) for g in groups] == [(1, set("fed")), (2, set("cba"))]
    assert await arena.waiting("Tg1") == []
    assert await arena.racing("Tg1") == {p: 1 if p in "def" else 2 for p in "abcdef"}
    assert await arena.pair("Tg1", 4) == []
    assert await arena.wait("Tg1", "a", 0.0, now=NOW) == "racing"  # not while racing
    assert await arena.waiting("Tg1") == []
    assert [g.n for g in await arena.pending("Tg1")] == [1, 2]


async def test_races_of_two_leave_out_the_last_to_come_not_the_lowest_score(
    store: Store,
) -> None:
    """Three waiting at races of two: one race; the one who came last waits, whatever the
    scores, so the lowest score is not left out race after race (found by the kill test:
    an entrant starved while the others raced)."""
    arena = ArenaStore(store)
    for i, player in enumerate("abc"):  # a, the lowest score, waits longest
        await arena.wait("Tg2", player, pairing_score(i, 1500), now=NOW + i)
    [group] = await arena.pair("Tg2", 2)
    assert set(group.players) == {"a", "b"}
    assert await arena.waiting("Tg2") == ["c"]
    # b and a come back after c: now a and b are the last to come; c races.
    await arena.release("Tg2", group.n, {"a": 0.0, "b": 1.0}, now=NOW + 10)
    [group] = await arena.pair("Tg2", 2)
    assert "c" in group.players and len(await arena.waiting("Tg2")) == 1


async def test_pause_release_and_come_back(store: Store) -> None:
    """A racer who stepped out is not released into the waiting set; back, they wait."""
    arena = ArenaStore(store)
    for player in "ab":
        await arena.wait("Tg3", player, 0.0, now=NOW)
    [group] = await arena.pair("Tg3", 2)
    await arena.pause("Tg3", "a")
    assert await arena.release("Tg3", group.n, {"a": 4e4, "b": 0.0}, now=NOW) == 1
    assert await arena.release("Tg3", group.n, {"a": 4e4, "b": 0.0}, now=NOW) == 0  # repeated
    assert await arena.waiting("Tg3") == ["b"]
    assert await arena.racing("Tg3") == {} and await arena.pending("Tg3") == []
    assert await arena.wait("Tg3", "a", 4e4, now=NOW) == "waiting"
    assert await arena.waiting("Tg3") == ["a", "b"]


async def test_two_nodes_grouping_at_once_never_share_an_entrant(store: Store) -> None:
    """Many groupings at once over 40 waiting: every entrant in exactly one race."""
    arena = ArenaStore(store)
    players = [f"p{i}" for i in range(40)]
    for i, player in enumerate(players):
        await arena.wait("Tg4", player, float(i), now=NOW)
    results = await asyncio.gather(*(arena.pair("Tg4", 3) for _ in range(8)))
    seen = [p for groups in results for g in groups for p in g.players]
    assert sorted(seen) == sorted(players)
    numbers = [g.n for groups in results for g in groups]
    assert len(numbers) == len(set(numbers))

"""Handing events to many watchers a slice at a time (server/fanout/spread.py)."""

from __future__ import annotations

import asyncio

from server.fanout.client import Shared
from server.fanout.spread import Spread
from server.rules.events import Event, ReadySet
from tests.server.writes import Writes

RACE = "r1"


class _Watcher:
    def __init__(self) -> None:
        self.got: list[int] = []
        self.shared: list[Shared] = []
        self.conn: Writes[int] = Writes()

    def deliver(self, race: str, n: int, event: Event, shared: Shared) -> None:
        self.got.append(n)
        self.shared.append(shared)
        self.conn.write(n)


async def test_events_reach_every_watcher_in_order_a_slice_per_turn() -> None:
    """An event reaches nobody in the call that brings it, and a callback that call
    scheduled (a commit's reply) runs before its first slice; then a slice a turn (with no
    time for more than a slice a turn); a later event waits behind it for everyone; each
    event's Shared is one for all its watchers."""
    gone: set[_Watcher] = set()
    spread = Spread(lambda race, watcher: watcher not in gone, size=10, budget=0.0)
    watchers = [_Watcher() for _ in range(25)]
    event = ReadySet("p1", True)
    seen_by_reply: list[int] = []
    spread.deliver(RACE, 1, event, watchers)
    loop = asyncio.get_running_loop()
    loop.call_soon(lambda: seen_by_reply.append(sum(len(w.got) for w in watchers)))
    assert not any(w.got for w in watchers)
    spread.deliver(RACE, 2, event, watchers[:5])  # behind event 1, though its watchers have it
    await asyncio.sleep(0)
    assert seen_by_reply == [0]
    while not watchers[0].got:
        await asyncio.sleep(0)
    # event 2, for fewer watchers than a slice, is not handed ahead: it goes in its turn
    assert [w.got for w in watchers[:10]] == [[1]] * 10 and not watchers[10].got
    gone.add(watchers[24])  # stops following while event 1 waits for it
    while spread.waiting(RACE):
        await asyncio.sleep(0)
    assert [w.got for w in watchers[:5]] == [[1, 2]] * 5
    assert [w.got for w in watchers[5:24]] == [[1]] * 19 and watchers[24].got == []
    assert len({id(w.shared[0]) for w in watchers[:24]}) == 1


async def test_a_turn_hands_out_a_budget_of_slices() -> None:
    """With time to spare, one turn of the loop hands out slice after slice (and the next
    event too) until the budget is spent: small slices cost no extra turns."""
    spread = Spread(lambda race, watcher: True, size=2, budget=10.0)
    watchers = [_Watcher() for _ in range(9)]
    event = ReadySet("p1", True)
    spread.deliver(RACE, 1, event, watchers)
    spread.deliver(RACE, 2, event, watchers)
    turns = 0
    while spread.waiting(RACE):
        await asyncio.sleep(0)
        turns += 1
    assert [w.got for w in watchers] == [[1, 2]] * 9
    assert turns <= 3  # the hop that puts the first slice behind the caller's callbacks


async def test_a_watcher_handed_events_that_queued_gets_them_in_one_write() -> None:
    """Events queued behind one still going out reach each of its watchers with it, in
    order, corked into one write; a watcher of a later event only (a newcomer) gets that
    one in its turn, and one that is not a watcher of a later event does not get it."""
    spread = Spread(lambda race, watcher: True, size=4, budget=0.0)
    watchers = [_Watcher() for _ in range(10)]
    newcomer = _Watcher()
    event = ReadySet("p1", True)
    spread.deliver(RACE, 1, event, watchers)
    spread.deliver(RACE, 2, event, [*watchers[:9], newcomer])  # watchers[9] left
    spread.deliver(RACE, 3, event, [newcomer, *watchers[:9]])
    while spread.waiting(RACE):
        await asyncio.sleep(0)
    assert all(w.got == [1, 2, 3] for w in watchers[:9]) and watchers[9].got == [1]
    assert all(w.conn.writes == [[1, 2, 3]] for w in watchers[:9])
    assert newcomer.got == [2, 3] and newcomer.conn.writes == [[2, 3]]
    assert len({id(w.shared[1]) for w in watchers[:9]} | {id(newcomer.shared[0])}) == 1


async def test_an_event_for_a_few_watchers_is_handed_in_its_turn_and_order_holds() -> None:
    """Behind an event still going out, an event for a single watcher (a newcomer's
    catch-up) is not looked for watcher by watcher: it and the events behind it go in
    their own turns, each watcher's events still in order."""
    spread = Spread(lambda race, watcher: True, size=4, budget=10.0)
    watchers = [_Watcher() for _ in range(8)]
    event = ReadySet("p1", True)
    spread.deliver(RACE, 1, event, watchers)
    spread.deliver(RACE, 2, event, watchers[:1])
    spread.deliver(RACE, 3, event, watchers)
    while spread.waiting(RACE):
        await asyncio.sleep(0)
    assert watchers[0].got == [1, 2, 3] and all(w.got == [1, 3] for w in watchers[1:])
    assert all(w.conn.writes == [[1], [3]] for w in watchers[1:])

"""Quick races: queue, pairing, leaving, one queue per player, on one node and on two."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections import Counter

import pytest

from client.session import ClientSession, RequestFailed
from protocol.codec import encode
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Daily,
    GetDaily,
    GetResults,
    LeaveQueue,
    Matched,
    Ping,
    PlayDaily,
    Pong,
    Queued,
    QuickRace,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Rematch,
    RematchState,
    Resign,
    deal_commitment,
)
from server.engine import DEAL_VERSION
from server.rules.daily import reveal_at
from server.rules.races import RaceSettings, Spectate
from server.settings import Timeouts
from server.storage import keys
from server.storage.matchmaking import QueueStore
from server.storage.races import RaceStatus
from server.storage.store import Store
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory, ProcessFactory
from tests.server.refusals import VARIANT, refused
from tests.server.secrecy import carries_seed

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]


async def queued(session: ClientSession, size: int = 2) -> Queued:
    return await session.request(QuickRace(variant=VARIANT, size=size), Queued)


async def test_two_players_are_matched_and_race(node: str, clients: Clients, store: Store) -> None:
    """Two players queueing for a race of two are told the same race, which starts."""
    ann, bob = await clients.hello(node, "Ann"), await clients.hello(node, "Bob")
    first = await queued(ann)
    assert first.queued and first.rating == 1500 and first.size == 2
    await queued(bob)
    matched = [await s.next(Matched, timeout=TIMEOUT) for s in (ann, bob)]
    assert matched[0].race == matched[1].race and matched[0].variant == VARIANT
    assert set(matched[0].info.players) == {ann.player, bob.player}
    meta = await store.races.meta(matched[0].race)
    assert meta is not None
    seed = meta.settings.seed
    assert not carries_seed(encode(matched[0]), seed)  # the secret deal stays secret
    assert meta.settings.deal is None
    for session in (ann, bob):
        started = await session.next(RaceStarted, timeout=TIMEOUT)
        assert started.race == matched[0].race and started.legal


async def test_one_queue_at_a_time_and_leaving(node: str, clients: Clients, store: Store) -> None:
    """A player waits in one queue: queueing again moves the place; leaving takes it out; a
    second leave is refused."""
    ann = await clients.hello(node, "Ann")
    await queued(ann, size=3)
    moved = await queued(ann, size=2)
    assert moved.queued and moved.size == 2
    assert not await store.redis.zcard(keys.queue_line(f"{VARIANT}:3"))
    assert await store.redis.zcard(keys.queue_line(f"{VARIANT}:2")) == 1
    assert not (await ann.request(LeaveQueue(), Queued)).queued
    assert not await store.redis.zcard(keys.queue_line(f"{VARIANT}:2"))
    await refused(ann, LeaveQueue(), ErrorCode.NOT_ALLOWED)
    await refused(ann, QuickRace(variant="no-such-game"), ErrorCode.INVALID_FIELD)


async def test_disconnecting_cancels_the_place(node: str, clients: Clients, store: Store) -> None:
    """A player whose connection closes leaves the queue: nobody is matched with a ghost."""
    ann = await clients.hello(node, "Ann")
    await queued(ann)
    line = keys.queue_line(f"{VARIANT}:2")
    assert await store.redis.zcard(line) == 1
    await ann.close()
    async with asyncio.timeout(TIMEOUT):
        while await store.redis.zcard(line):  # polled: the sweep notices the closed connection
            await asyncio.sleep(0.05)
    assert not NODES[node].matchmaker.waiting


async def test_a_closed_connection_leaves_the_queue_before_another_node_pairs(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Ann queues on one node and her websocket closes; Bob queues on another node, whose
    pairing must not match him with Ann: her place went with her connection, at once (no
    sweep runs here to clean up after her). The next player to come is Bob's opponent."""
    no_sweeps = STEPPED
    line = keys.queue_line(f"{VARIANT}:2")
    async with make_node(timeouts=no_sweeps) as first, make_node(timeouts=no_sweeps) as second:
        ann = await clients.hello(first, "Ann")
        await queued(ann)
        await ann.close()
        async with asyncio.timeout(TIMEOUT):
            while await store.redis.zscore(line, ann.player) is not None:
                await asyncio.sleep(0.02)  # polled: the close is the server's own business
        assert not NODES[first].matchmaker.waiting
        bob = await clients.hello(second, "Bob")
        await queued(bob)
        await NODES[second].matchmaker.tick()
        assert await store.redis.zrange(line, 0, -1) == [bob.player.encode()]
        assert not [m for m in bob.received if isinstance(m, Matched)]
        cy = await clients.hello(first, "Cy")
        await queued(cy)
        await NODES[second].matchmaker.tick()
        matched = await bob.next(Matched, timeout=TIMEOUT)
        assert set(matched.info.players) == {bob.player, cy.player}


async def test_far_ratings_wait_for_the_gap_to_widen(
    node: str, clients: Clients, store: Store
) -> None:
    """Ratings further apart than the gap are not paired until the waiting widens it."""
    matchmaker = NODES[node].matchmaker
    matchmaker.settings = dataclasses.replace(matchmaker.settings, base_gap=50.0, widen=0.0)
    ann, bob = await clients.hello(node, "Ann"), await clients.hello(node, "Bob")
    await queued(ann)
    await store.redis.zadd(keys.queue_line(f"{VARIANT}:2"), {ann.player: 1800})
    await queued(bob)
    await matchmaker.tick()
    assert await store.redis.zcard(keys.queue_line(f"{VARIANT}:2")) == 2
    matchmaker.settings = dataclasses.replace(matchmaker.settings, widen=1000.0)
    matched = [await s.next(Matched, timeout=TIMEOUT) for s in (ann, bob)]
    assert matched[0].race == matched[1].race


async def test_a_match_whose_race_never_came_is_requeued(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A node pairs two players and dies before making their race: once the match's time
    runs out their nodes, which vouched for them meanwhile, put them back in the queue,
    where they are paired again into a race that does start."""
    async with make_node(timeouts=STEPPED) as url:
        matchmaker = NODES[url].matchmaker
        ann, bob = await clients.hello(url, "Ann"), await clients.hello(url, "Bob")
        await queued(ann)
        await queued(bob)
        dying = QueueStore(store)  # the node that dies: it pairs, and makes no race
        [group] = await dying.pair(
            f"{VARIANT}:2", now=time.time(), size=2, base_gap=100.0, widen=0.0, stale=60.0,
            prefix="qdead-", grace=60.0,
        )  # fmt: skip
        assert set(group.racers) == {ann.player, bob.player}
        await matchmaker.tick()  # the race may still be coming: they wait, vouched for
        assert not ann.received and len(matchmaker.waiting) == 2
        await _time_runs_out(store, group.race)
        await matchmaker.tick()  # not coming: back in the queue (and paired again)
        matched = [await s.next(Matched, timeout=TIMEOUT) for s in (ann, bob)]
        assert matched[0].race == matched[1].race != "qdead-1"
        await ann.next(RaceStarted, timeout=TIMEOUT)


# -- a node dying with players in the queue (docs/players.md) ------------------------

#: Nodes whose sweep the test runs itself (``matchmaker.tick``).
STEPPED = Timeouts(countdown=0.0, sweep=3600.0)


async def _time_runs_out(store: Store, race: str) -> None:
    """Make a match's time run out now, as if its grace had passed."""
    await store.redis.zadd(keys.matchmaking().pending, {race: 0})


async def _left_by_a_dead_node(store: Store, player: str, queue: str = f"{VARIANT}:2") -> None:
    """A place held by a connection of a node that died (it never vouches again)."""
    await QueueStore(store).join(
        player, queue, holder="dead", name="Ann", rating=1500, now=time.time()
    )


async def _paired_while_away(
    url: str, clients: Clients, store: Store
) -> tuple[str, ClientSession, ClientSession]:
    """Ann's place was left by her dead node; Bob queues here and the node pairs them:
    Bob is told, the race waits for Ann. Returns the race, Ann's old session and Bob's."""
    ann, bob = await clients.hello(url, "Ann"), await clients.hello(url, "Bob")
    await _left_by_a_dead_node(store, ann.player)
    await queued(bob)
    await NODES[url].matchmaker.tick()
    matched = await bob.next(Matched, timeout=TIMEOUT)
    assert set(matched.info.players) == {ann.player, bob.player}
    meta = await store.races.meta(matched.race)
    assert meta is not None and meta.status is RaceStatus.OPEN  # Ann was not told yet
    return matched.race, ann, bob


async def test_a_player_paired_while_away_hears_of_it_first_when_back(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Paired while their node was dead, a player who says hello again with their token
    hears ``matched`` before anything else, and only then does the race start."""
    async with make_node(timeouts=STEPPED) as url:
        race, ann, bob = await _paired_while_away(url, clients, store)
        assert ann.welcome is not None
        back = await clients.hello(url, "Ann", token=ann.welcome.token)
        await back.request(Ping(), Pong)
        assert isinstance(back.received[0], Matched) and back.received[0].race == race
        for session in (back, bob):
            assert (await session.next(RaceStarted, timeout=TIMEOUT)).race == race


async def test_a_match_nobody_comes_back_for_is_undone(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A racer who does not come back within the grace is dropped; the other racer, who was
    told, is told the match is undone (``queue``, queued) and waits again, where the next
    player is paired with them."""
    async with make_node(timeouts=STEPPED) as url:
        race, ann, bob = await _paired_while_away(url, clients, store)
        await _time_runs_out(store, race)
        await NODES[url].matchmaker.tick()
        again = await bob.next(Queued, timeout=TIMEOUT)
        assert again.queued and again.id is None and again.variant == VARIANT
        meta = await store.races.meta(race)
        assert meta is not None and meta.status is RaceStatus.FINISHED  # closed, never started
        assert await store.redis.zrange(keys.queue_line(f"{VARIANT}:2"), 0, -1) == [
            bob.player.encode()
        ]
        assert not await QueueStore(store).match_of(ann.player)
        cy = await clients.hello(url, "Cy")
        await queued(cy)
        await NODES[url].matchmaker.tick()
        matched = await bob.next(Matched, timeout=TIMEOUT)
        assert set(matched.info.players) == {bob.player, cy.player}


async def test_queueing_again_takes_the_match_over_once(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A player paired while away who queues again for the same queue (on a connection that
    did not hold the place) is answered ``queue``, then ``matched`` for that match, and is
    given no new place: they are not paired a second time."""
    async with make_node(timeouts=STEPPED) as url:
        race, ann, bob = await _paired_while_away(url, clients, store)
        ghost = await clients.hello(url, "Cy")
        await _left_by_a_dead_node(store, ghost.player)  # someone to pair Ann with again
        assert (await queued(ann)).queued
        assert (await ann.next(Matched, timeout=TIMEOUT)).race == race
        for session in (ann, bob):
            assert (await session.next(RaceStarted, timeout=TIMEOUT)).race == race
        await NODES[url].matchmaker.tick()
        line = keys.queue_line(f"{VARIANT}:2")
        assert await store.redis.zrange(line, 0, -1) == [ghost.player.encode()]
        assert await QueueStore(store).match_of(ann.player) == race
        await refused(ann, QuickRace(variant=VARIANT), ErrorCode.NOT_ALLOWED)  # racing


async def test_queueing_elsewhere_moves_the_place_and_gives_a_match_up(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A place left in one queue by a dead node moves when the player queues for another
    (not refused); a match made while away for the old queue is undone, its other racer
    waits again: a player is never paired from a queue they left."""
    async with make_node(timeouts=STEPPED) as url:
        _, ann, bob = await _paired_while_away(url, clients, store)
        elsewhere = await ann.request(QuickRace(variant="gavotte", size=2), Queued)
        assert elsewhere.queued and elsewhere.variant == "gavotte"
        await NODES[url].matchmaker.tick()
        assert (await bob.next(Queued, timeout=TIMEOUT)).queued  # undone: Bob waits again
        assert await store.redis.zrange(keys.queue_line("gavotte:2"), 0, -1) == [
            ann.player.encode()
        ]
        assert await store.redis.zrange(keys.queue_line(f"{VARIANT}:2"), 0, -1) == [
            bob.player.encode()
        ]
        await ann.request(QuickRace(variant=VARIANT, size=2), Queued)  # moves back
        assert not await store.redis.zcard(keys.queue_line("gavotte:2"))


async def test_leaving_after_a_pairing_gives_the_match_up(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """``leave_queue`` after a pairing that did not start is answered, not refused: the match
    is undone and the other racer waits again."""
    async with make_node(timeouts=STEPPED) as url:
        race, ann, bob = await _paired_while_away(url, clients, store)
        assert not (await ann.request(LeaveQueue(), Queued)).queued
        await NODES[url].matchmaker.tick()
        assert (await bob.next(Queued, timeout=TIMEOUT)).queued
        assert not await QueueStore(store).match_of(ann.player)
        meta = await store.races.meta(race)
        assert meta is not None and meta.status is RaceStatus.FINISHED


async def test_one_unfinished_quick_race_at_a_time(node: str, clients: Clients) -> None:
    """While their quick race runs a player can neither leave nor queue again (refused
    ``not_allowed``, naming the race); once their game in it is over, they queue again."""
    ann, bob = await clients.hello(node, "Ann"), await clients.hello(node, "Bob")
    await queued(ann)
    await queued(bob)
    started = await ann.next(RaceStarted, timeout=TIMEOUT)
    assert started.race in await refused(ann, LeaveQueue(), ErrorCode.NOT_ALLOWED)
    assert started.race in await refused(ann, QuickRace(variant=VARIANT), ErrorCode.NOT_ALLOWED)
    await ann.request(Resign(race=started.race), RaceInfo)
    await refused(ann, LeaveQueue(), ErrorCode.NOT_ALLOWED)  # in no queue
    assert (await queued(ann)).queued


async def test_a_race_made_after_its_match_was_undone_is_closed_again(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A pairing node stores a race just after its match was undone, then dies before it
    sees that: a sweep closes the race again, so no race is left open for its players."""
    async with make_node(timeouts=STEPPED) as url:
        ann, bob = await clients.hello(url, "Ann"), await clients.hello(url, "Bob")
        await queued(ann)
        await queued(bob)
        dying = QueueStore(store)
        [group] = await dying.pair(
            f"{VARIANT}:2", now=time.time(), size=2, base_gap=100.0, widen=0.0, stale=60.0,
            prefix="qlate-", grace=60.0,
        )  # fmt: skip
        assert await dying.made(group.race)
        assert not (await ann.request(LeaveQueue(), Queued)).queued  # undone: Bob waits again
        lobby = NODES[url].races.lobby
        settings = RaceSettings(
            variant=VARIANT, seed=1, deal_version=DEAL_VERSION, time_limit=300,
            spectate=Spectate.AFTER,
        )  # fmt: skip
        await lobby.create_seated(group.race, "quick", group.racers, settings)  # then it dies
        await store.redis.zadd(keys.matchmaking().pending, {f"close:{group.race}": 0})
        await NODES[url].matchmaker.tick()
        meta = await store.races.meta(group.race)
        assert meta is not None and meta.status is RaceStatus.FINISHED


# -- two node processes ----------------------------------------------------------

PLAYERS, ROUNDS = 24, 40  # players; random joins and leaves, bounded


@dataclasses.dataclass
class Player:
    session: ClientSession
    queued: bool = False
    race: str | None = None


async def _churn(players: list[Player], rng: random.Random) -> None:
    """Players join and leave at random, a bounded number of times."""
    for _ in range(ROUNDS):
        player = rng.choice(players)
        if player.race is not None or _matched(player):
            continue
        try:
            if player.queued:
                await player.session.request(LeaveQueue(), Queued)
                player.queued = False
            else:
                await player.session.request(QuickRace(variant=VARIANT), Queued)
                player.queued = True
        except RequestFailed as failed:  # matched meanwhile: leave is refused; that is fine
            assert failed.code is ErrorCode.NOT_ALLOWED


def _matched(player: Player) -> bool:
    return any(isinstance(m, Matched) for m in player.session.received)


async def test_two_nodes_match_everyone_once(
    node_processes: ProcessFactory, clients: Clients, store: Store
) -> None:
    """Players on two nodes join and leave at random, then all wait: each starts exactly one
    race of two, every race has two players from the queue, nobody twice."""
    nodes = node_processes(2)
    urls = [f"ws://127.0.0.1:{node.port}/" for node in nodes]
    rng = random.Random(16)
    players = [Player(await clients.hello(urls[i % 2], f"P{i}")) for i in range(PLAYERS)]
    await _churn(players, rng)
    for player in players:  # everyone still out joins now
        if not player.queued and not _matched(player):
            await player.session.request(QuickRace(variant=VARIANT), Queued)
            player.queued = True
    races: Counter[str] = Counter()
    for player in players:  # a match undone (its other racer left) never starts
        player.race = (await player.session.next(RaceStarted, timeout=3 * TIMEOUT)).race
        races[player.race] += 1
    assert set(races.values()) == {2}, races
    for race in races:
        racers = await store.races.players(race)
        assert {p.session.player for p in players if p.race == race} == set(racers)
    assert not await store.redis.zcard(keys.queue_line(f"{VARIANT}:2"))


async def test_a_node_killed_while_players_queue_loses_none_of_the_others(
    node_processes: ProcessFactory, clients: Clients, store: Store
) -> None:
    """Players queue on two nodes; one node is killed mid-way: its players are gone from the
    queue, and every player of the other node ends in exactly one race or still queued."""
    doomed, survivor = node_processes(2)
    urls = [f"ws://127.0.0.1:{node.port}/" for node in (doomed, survivor)]
    players = [Player(await clients.hello(urls[i % 2], f"P{i}")) for i in range(2 * 7)]
    for i, player in enumerate(players):
        if i == 7:
            doomed.kill()  # SIGKILL mid-way: pairing may be running on it
        if i % 2 == 0 and i >= 7:
            continue  # the dead node's players are disconnected
        await player.session.request(QuickRace(variant=VARIANT), Queued)
    survivors = players[1::2]
    line = keys.queue_line(f"{VARIANT}:2")
    dead = {p.session.player for p in players[0:7:2]}
    deadline = time.monotonic() + 3 * TIMEOUT
    while True:  # polled: the sweeps pair the living (a dead player goes at a pairing)
        queued: list[bytes] = await store.redis.zrange(line, 0, -1)  # type: ignore[assignment]
        waiting = {p.decode() for p in queued}
        unmatched = {p.session.player for p in survivors if not _matched(p)}
        if unmatched <= waiting <= unmatched | dead and len(unmatched) <= 1:
            break
        assert time.monotonic() < deadline, (unmatched, waiting)
        await asyncio.sleep(0.1)
    races: Counter[str] = Counter()
    for player in survivors:
        if _matched(player):
            player.race = (await player.session.next(Matched)).race
            races[player.race] += 1
            assert player.session.player in await store.races.players(player.race)
    assert not [p for p in survivors if _matched(p)]  # each was told exactly once
    assert all(count <= 2 for count in races.values()), races


async def test_rematch_starts_when_every_racer_accepts(node: str, clients: Clients) -> None:
    """After a race, each racer accepts; the last acceptance makes a fresh race for all."""
    from tests.server.accounts import race_to_the_end

    ann, bob = await clients.hello(node, "Ann"), await clients.hello(node, "Bob")
    outsider = await clients.hello(node, "Cy")
    finished = await race_to_the_end(ann, bob)
    await refused(outsider, Rematch(race=finished.race), ErrorCode.NOT_A_RACER)
    first = await ann.request(Rematch(race=finished.race), RematchState)
    assert (first.accepted, first.racers, first.rematch) == (1, 2, None)
    last = await bob.request(Rematch(race=finished.race), RematchState)
    assert last.rematch is not None and last.accepted == 2
    for session in (ann, bob):
        matched = await session.next(Matched, timeout=TIMEOUT)
        assert matched.race == last.rematch
        started = await session.next(RaceStarted, lambda m: m.race == last.rematch)
        assert started.commitment != finished.commitment  # a fresh deal
    again = await ann.request(Rematch(race=finished.race), RematchState)
    assert again.rematch == last.rematch  # asking again names the same race


async def test_no_rematch_before_the_end(node: str, clients: Clients) -> None:
    ann, bob = await clients.hello(node, "Ann"), await clients.hello(node, "Bob")
    await queued(ann)
    await queued(bob)
    matched = await ann.next(Matched, timeout=TIMEOUT)
    await refused(ann, Rematch(race=matched.race), ErrorCode.NOT_ALLOWED)


async def test_daily_deal_once_per_account_results_the_next_day(
    node: str, clients: Clients, store: Store
) -> None:
    """Two accounts play today's deal (the same seed, committed), each once; the board has
    both; the results, which hold the seed, wait until the day is over."""
    from tests.server.accounts import account

    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    guest = await clients.hello(node, "Guest")
    await refused(guest, PlayDaily(variant=VARIANT), ErrorCode.NOT_ALLOWED)
    today = (await ann.request(GetDaily(variant=VARIANT), Daily)).daily
    races = []
    for session in (ann, bob):
        matched = await session.request(PlayDaily(variant=VARIANT), Matched)
        await session.next(RaceStarted, timeout=TIMEOUT)
        await session.request(Resign(race=matched.race), RaceInfo)
        races.append(matched.race)
    metas = [await store.races.meta(race) for race in races]
    seeds = {meta.settings.seed for meta in metas if meta is not None}
    assert len(seeds) == 1
    seed = seeds.pop()
    proof = deal_commitment(VARIANT, DEAL_VERSION, seed, f"daily-{today.day}")
    assert today.commitment == proof
    await refused(ann, PlayDaily(variant=VARIANT), ErrorCode.NOT_ALLOWED)  # once a day
    async with asyncio.timeout(TIMEOUT):
        while len((await ann.request(GetDaily(variant=VARIANT), Daily)).daily.board) < 2:
            await asyncio.sleep(0.05)  # polled: the board is written just after the results
    assert not [m for m in ann.received if isinstance(m, RaceFinished)]  # held: the seed
    await refused(bob, GetResults(race=races[0]), ErrorCode.NOT_ALLOWED)
    daily = NODES[node].daily
    daily.clock = lambda: reveal_at(today.day)  # tomorrow, once the day's races are over
    await daily.tick()
    finished = await ann.next(RaceFinished, timeout=TIMEOUT)
    assert finished.seed == seed
    revealed = (await ann.request(GetDaily(variant=VARIANT), Daily)).daily.yesterday
    assert revealed is not None
    assert revealed.seed == seed and revealed.commitment == today.commitment

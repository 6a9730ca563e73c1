"""Quick races while nodes die (docs/players.md, *A node dying mid-pairing*).

About a hundred players, accounts and guests, on two node processes join,
switch and leave quick-race queues and resign their races at random while
one node or the other is SIGKILLed and started again, over and over. A
client whose node died connects to a live node with its token and, if it
believed it was queued, queues again, as the issue's clients do. At the end
every player must be in exactly one race it was told of, or in exactly one
queue, and no race may wait on a racer who was never told of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import time
from collections import Counter
from pathlib import Path

import pytest
from websockets.exceptions import WebSocketException

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Account,
    LeaveQueue,
    Matched,
    Ping,
    Pong,
    Queued,
    QuickRace,
    RaceInfo,
    Register,
    Resign,
)
from protocol.results import RacerStatus
from server.storage import keys
from server.storage.races import RaceStatus
from server.storage.store import Store
from tests.server.conftest import NODE_ENV, TIMEOUT, ServerProcess

pytestmark = pytest.mark.slow

PLAYERS, ACCOUNTS = 100, 30
KILLS = 20
NODES = 3  # two stay up while a third is killed and another starts in its place
VARIANTS = ("gavotte", "quadrille")
ACTORS = 6  # players acting at once
SEED = 23
#: Environment of these nodes: a registration per account from one address.
ENV = {"BALLROOM_LOGINS_PER_ADDRESS": "1000", "BALLROOM_CONNECTIONS_PER_ADDRESS": "1000"}

#: What a client may meet when its node dies under it.
LOST = (ConnectionError, WebSocketException, OSError, TimeoutError)


@dataclasses.dataclass
class Player:
    """One client, as it believes it stands."""

    name: str
    id: str
    token: str
    session: ClientSession | None = None
    want: str | None = None  # the variant it believes it waits for
    race: str | None = None  # the race it was told of and still plays
    told: set[str] = dataclasses.field(default_factory=set)  # every race it was sent
    busy: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)

    def hear(self) -> bool:
        """Take in what the server pushed: ``matched``, and ``queue`` (undone, dropped);
        whether any of them came."""
        if self.session is None:
            return False
        pushed, self.session.received[:] = list(self.session.received), []
        heard = False
        for message in pushed:
            heard = heard or isinstance(message, Matched | Queued)
            if isinstance(message, Matched):
                self.race, self.want = message.race, None
                self.told.add(message.race)
            elif isinstance(message, Queued) and message.id is None:
                self.want = message.variant if message.queued else None
                if message.queued:
                    self.race = None
        return heard


@dataclasses.dataclass
class Figures:
    kills: int = 0
    wrongly_refused: int = 0  # quick_race refused though the player raced in nothing
    reconnects: int = 0
    refused: Counter[str] = dataclasses.field(default_factory=Counter)


class Cluster:
    """Node processes on one Redis, of which one is killed at random moments and another
    started in its place; at least one is up at every moment."""

    def __init__(self, redis_url: str, logs: Path) -> None:
        self.redis_url, self.logs = redis_url, logs
        self.nodes: list[ServerProcess] = []
        self.started: list[ServerProcess] = []
        self.changed = asyncio.Condition()
        self.starting: set[asyncio.Task[None]] = set()

    @property
    def urls(self) -> list[str]:
        return [f"ws://127.0.0.1:{node.port}/" for node in self.nodes]

    async def grow(self) -> None:
        node = ServerProcess(self.logs, ["--redis", self.redis_url], {**NODE_ENV, **ENV})
        self.started.append(node)
        await asyncio.to_thread(node.wait_ready, 6 * TIMEOUT)  # three may start at once
        async with self.changed:
            self.nodes.append(node)
            self.changed.notify_all()

    async def kill_one(self, rng: random.Random) -> None:
        """SIGKILL one node once two are up, and start another in its place meanwhile."""
        async with self.changed:
            await self.changed.wait_for(lambda: len(self.nodes) >= 2)
            victim = self.nodes.pop(rng.randrange(len(self.nodes)))
        await asyncio.to_thread(victim.kill)
        task = asyncio.create_task(self.grow())
        self.starting.add(task)
        task.add_done_callback(self.starting.discard)

    async def all_up(self) -> None:
        """Until every replacement started is up."""
        await asyncio.gather(*self.starting)

    def stop(self) -> None:
        for node in self.started:
            node.stop(TIMEOUT)


async def connect(
    player: Player, cluster: Cluster, rng: random.Random, figures: Figures
) -> ClientSession:
    """Connect ``player`` to a live node with its token (bounded tries)."""
    player.hear()  # what the old connection was told
    for _ in range(50):
        try:
            player.session = await ClientSession.connect(
                rng.choice(cluster.urls), player.name, player.token
            )
            figures.reconnects += 1
            return player.session
        except (*LOST, RequestFailed):
            await asyncio.sleep(0.05)  # pacing: a node is on its way up
    raise AssertionError(f"{player.name} found no live node")


async def step(player: Player, cluster: Cluster, rng: random.Random, figures: Figures) -> None:
    """One random act of a player, as a client would do it."""
    if player.session is None or player.session.ws.close_code is not None:
        session = await connect(player, cluster, rng, figures)
        # What the player has is said after welcome, before the reply to any later request:
        # nothing said, no race and no place (docs/protocol.md, quick_race).
        await session.request(Ping(), Pong)
        if not player.hear():
            player.race = None
            if player.want is not None:  # queues again
                await request_queue(player, player.want, figures)
        return
    session = player.session
    player.hear()
    try:
        if player.race is not None:
            if rng.random() < 0.3:
                await session.request(Resign(race=player.race), RaceInfo)
                player.hear()
                player.race = None
        elif player.want is None:
            await request_queue(player, rng.choice(VARIANTS), figures)
        elif rng.random() < 0.5:
            left = await session.request(LeaveQueue(), Queued)
            assert not left.queued
            player.hear()  # pushed before the reply; the reply stands after them
            player.want = player.race = None
        else:
            other = [v for v in VARIANTS if v != player.want]
            await request_queue(player, rng.choice(other), figures)
    except RequestFailed as failed:
        figures.refused[f"{failed.code.value}: {failed.args[0] if failed.args else ''}"] += 1
    player.hear()


async def request_queue(player: Player, variant: str, figures: Figures) -> None:
    assert player.session is not None
    try:
        queued = await player.session.request(QuickRace(variant=variant, size=2), Queued)
    except RequestFailed as failed:
        figures.refused[f"quick_race {failed.code.value}"] += 1
        if failed.code is not ErrorCode.NOT_ALLOWED:
            raise
        # Refused only while the player races (the message names the race), never for a
        # place or a match their dead node left behind.
        figures.wrongly_refused += not failed.message.startswith("you race in quick race")
        return
    assert queued.queued
    # The reply stands after what was pushed before it, except a match of the place it
    # made: the pairing may push `matched` before the reply goes (docs/protocol.md).
    standing = [m for m in player.session.received if isinstance(m, Matched | Queued)]
    player.hear()
    player.want, player.race = variant, None
    last = standing[-1] if standing else None
    if isinstance(last, Matched) and last.variant == variant:
        player.race, player.want = last.race, None


async def act(
    players: list[Player],
    cluster: Cluster,
    rng: random.Random,
    figures: Figures,
    stop: asyncio.Event,
) -> None:
    while not stop.is_set():
        player = rng.choice(players)
        async with player.busy:
            with contextlib.suppress(*LOST):
                await step(player, cluster, rng, figures)
        await asyncio.sleep(rng.uniform(0.0, 0.06))  # pacing, not a wait


#: Quick races by how they stand at the end, from Redis: started, undone (closed unstarted).
RACES: Counter[str] = Counter()


async def server_state(store: Store) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Queues each player is in, and the unfinished quick races each plays in, from Redis."""
    RACES.clear()
    queues: dict[str, list[str]] = {}
    async for key in store.redis.scan_iter(match="mm:*queue*"):
        if await store.redis.type(key) != b"zset":
            continue
        members: list[bytes] = await store.redis.zrange(key, 0, -1)  # type: ignore[assignment]
        for member in members:
            queues.setdefault(member.decode(), []).append(key.decode())
    races: dict[str, list[str]] = {}
    async for key in store.redis.scan_iter(match="race:{*}:meta"):
        race = key.decode()[len("race:{") : -len("}:meta")]
        meta = await store.races.meta(race)
        if meta is None or meta.host != "quick":
            continue
        RACES["started" if meta.started else meta.status] += 1
        if meta.status is RaceStatus.FINISHED:
            continue
        for player in await store.races.players(race):
            board = await store.boards.board(race, player)
            if board is None or board.status is RacerStatus.PLAYING:
                races.setdefault(player, []).append(race)
    return queues, races


async def test_nodes_killed_while_players_queue_lose_nobody(
    redis_url: str, tmp_path: Path, store: Store
) -> None:
    """Players queue, switch and leave while nodes are killed 20 times: at the end each
    player is in exactly one race it was told of or in exactly one queue, and no race
    waits on a player who was never told."""
    began = time.monotonic()
    phases: dict[str, float] = {}
    rng = random.Random(SEED)
    cluster = Cluster(redis_url, tmp_path)
    figures = Figures()
    players: list[Player] = []
    try:
        await asyncio.gather(*(cluster.grow() for _ in range(NODES)))
        for i in range(PLAYERS):
            players.append(await newcomer(cluster.urls[i % NODES], i))
        phases["players"] = time.monotonic() - began
        stop = asyncio.Event()
        actors = [
            asyncio.create_task(act(players, cluster, rng, figures, stop)) for _ in range(ACTORS)
        ]
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.2, 1.0))  # a random moment of the churn
            await cluster.kill_one(rng)
            figures.kills += 1
        await cluster.all_up()
        stop.set()
        await asyncio.gather(*actors)
        phases["churn"] = time.monotonic() - began
        # Everyone still out queues now; the racers play on.
        for player in players:
            async with player.busy:
                with contextlib.suppress(*LOST):
                    if player.session is None or player.session.ws.close_code is not None:
                        await step(player, cluster, rng, figures)
                    player.hear()
                    if player.race is None and player.want is None:
                        await request_queue(player, rng.choice(VARIANTS), figures)
        queues, races = await settle(players, cluster, rng, figures, store)
        phases["settled"] = time.monotonic() - began
        await explain(faults(players, queues, races), players, races, store)
    finally:
        for player in players:
            if player.session is not None:
                with contextlib.suppress(*LOST):
                    await player.session.close()
        await asyncio.gather(*cluster.starting, return_exceptions=True)
        await asyncio.to_thread(cluster.stop)
    report(players, figures, queues, races, phases)


async def newcomer(url: str, i: int) -> Player:
    """Player ``i``: a guest, or for the first ``ACCOUNTS`` an account."""
    session = await ClientSession.connect(url, f"P{i}")
    assert session.welcome is not None
    token = session.welcome.token
    if i < ACCOUNTS:
        made = await session.request(Register(name=f"P{i}", password="churn churn churn"), Account)
        await session.close()
        session = await ClientSession.connect(url, f"P{i}", made.token)
        token = made.token
    return Player(f"P{i}", session.player, token, session)


async def settle(
    players: list[Player], cluster: Cluster, rng: random.Random, figures: Figures, store: Store
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Poll until every player stands as its client believes and each queue holds at most
    one player (the rest were paired), or a bounded time has passed."""
    deadline = time.monotonic() + 3 * TIMEOUT
    while True:
        for player in players:
            player.hear()
        queues, races = await server_state(store)
        if not faults(players, queues, races) and all(
            sum(1 for q in queues.values() if key in q) <= 1
            for key in {k for q in queues.values() for k in q}
        ):
            return queues, races
        if time.monotonic() > deadline:
            return queues, races
        for player in players:  # a client whose node died at the very end comes back
            async with player.busy:
                with contextlib.suppress(*LOST):
                    if player.session is None or player.session.ws.close_code is not None:
                        await step(player, cluster, rng, figures)
                    elif player.race is None and player.want is None:
                        await request_queue(player, rng.choice(VARIANTS), figures)
        await asyncio.sleep(0.2)  # polled: the sweeps pair, tell and start


def faults(
    players: list[Player], queues: dict[str, list[str]], races: dict[str, list[str]]
) -> dict[str, list[str]]:
    """Every way the players' standing breaks the rule, by kind."""
    found: dict[str, list[str]] = {}
    told = {p.id: p.told for p in players}
    for player in players:
        mine, waits = races.get(player.id, []), queues.get(player.id, [])
        if len(mine) > 1:
            found.setdefault("in two races", []).append(player.name)
        if len(waits) > 1:
            found.setdefault("in two queues", []).append(player.name)
        if mine and waits:
            found.setdefault("racing and queued", []).append(player.name)
        if not mine and not waits:
            found.setdefault("neither racing nor queued", []).append(player.name)
        if mine and player.race not in mine:
            found.setdefault("in a race the client does not follow", []).append(player.name)
        if waits and player.want is None:
            found.setdefault("queued though told otherwise", []).append(player.name)
    for player_id, mine in races.items():
        for race in mine:
            if race not in told.get(player_id, set()):
                found.setdefault("race waits on a player never told", []).append(race)
    return found


async def explain(
    found: dict[str, list[str]], players: list[Player], races: dict[str, list[str]], store: Store
) -> None:
    """Print what Redis holds about the races of the players a fault names."""
    names = {name for kind in found.values() for name in kind[:4]}
    mm = keys.matchmaking()
    for player in players:
        if player.name not in names and not player.told & names:
            continue
        matched = await store.redis.hget(mm.matched, player.id)
        print(f"{player.name} {player.id}: client race {player.race}, matched {matched!r}")
        for race in races.get(player.id, []):
            meta = await store.races.meta(race)
            group = await store.redis.hget(mm.groups, race)
            board = await store.boards.board(race, player.id)
            print(
                f"  {race}: status {meta and meta.status}, told {race in player.told}, "
                f"board {board and board.status}, group {group!r}"
            )


def report(
    players: list[Player],
    figures: Figures,
    queues: dict[str, list[str]],
    races: dict[str, list[str]],
    phases: dict[str, float],
) -> None:
    found = faults(players, queues, races)
    if figures.wrongly_refused:
        found["quick_race refused while not racing"] = [str(figures.wrongly_refused)]
    told = {race for p in players for race in p.told}
    print(
        f"\nmatchmaking churn: {len(players)} players ({ACCOUNTS} accounts), "
        f"{figures.kills} kills, {RACES['started']} races started, "
        f"{RACES['finished']} matches undone, {RACES['open']} waiting to start, "
        f"{len(told)} races told, {figures.reconnects} reconnects, "
        f"in two races: {len(found.get('in two races', []))}, "
        f"waiting on a ghost: {len(found.get('race waits on a player never told', []))}, "
        f"in two queues: {len(found.get('in two queues', []))}, "
        f"refusals: {dict(figures.refused)}; seconds: "
        + ", ".join(f"{k} {v:.0f}" for k, v in phases.items())
    )
    for kind, names in found.items():  # what a failure needs to be understood
        for p in players:
            if p.name in names[:4] or p.told & set(names[:4]):
                print(kind, p.name, p.id, p.race, p.want, races.get(p.id), queues.get(p.id))
    assert not found, found

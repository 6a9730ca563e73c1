"""No deal before its time: every frame the node sends, scanned for boards, moves and seeds.

Every frame the node sends to any client is recorded at the server's end of
the socket (``Connection.send_frame``), with the player it went to and the
wall-clock moment it went. Then, whatever each message's type:

* before a race's start, no frame to anyone holds a board of it; before the
  start plus its delay (``delayed``) or its results (``after``), no frame to
  anyone but its racers does;
* until a daily deal's results are announced, no frame to anyone but its
  player holds a board, a move or the seed of that player's race, whichever
  request they try (``docs/protocol.md``, *Spectators*; ``docs/players.md``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import pytest

from client.session import ClientSession, RequestFailed
from protocol.messages import (
    Countdown,
    CreateRace,
    Daily,
    GetDaily,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    GetResults,
    JoinRace,
    Leaderboard,
    ListRaces,
    Matched,
    Moved,
    PlayDaily,
    Profile,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from server.net.connection import Connection
from server.settings import Timeouts
from server.storage.store import Store
from tests.server.accounts import account
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.days import tomorrow
from tests.server.secrecy import carries_seed, logs_in, views_in, wire_map

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

VARIANT = "royal-cotillion"


@dataclasses.dataclass(frozen=True, slots=True)
class Sent:
    """One frame the node sent: when (Unix time), to whom, what."""

    at: float
    player: str | None
    frame: bytes

    @property
    def message(self) -> dict[str, Any]:
        return wire_map(self.frame)

    def about(self, race: str) -> bool:
        """Whether the frame is about ``race`` (its ``race`` field, or its info's id)."""
        named = self.message.get("race")
        return named == race or (isinstance(named, dict) and named.get("id") == race)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Sent]:
    """Every frame any connection of an in-process node sends, from now on."""
    frames: list[Sent] = []
    send_frame = Connection.send_frame

    def spy(conn: Connection, frame: bytes) -> None:
        frames.append(Sent(time.time(), conn.player, frame))
        send_frame(conn, frame)

    monkeypatch.setattr(Connection, "send_frame", spy)
    return frames


async def _tried(session: ClientSession, request: Any) -> ServerMessage | None:
    """Ask; a refusal is an answer too (None)."""
    try:
        return await asyncio.wait_for(session.request(request, ServerMessage), TIMEOUT)
    except RequestFailed:
        return None


@pytest.mark.parametrize(("policy", "delay"), [("live", 0), ("delayed", 1), ("after", 0)])
async def test_no_frame_shows_a_board_before_the_policy_allows(
    make_node: NodeFactory, sent: list[Sent], policy: str, delay: int
) -> None:
    """A race watched from before the start, from the countdown (spectate and resume) and
    from within the delay: no board reaches anyone before the start, nor anyone but the
    racers before the policy's moment."""
    async with make_node(timeouts=Timeouts(countdown=0.5)) as url:
        ann, bob = [await ClientSession.connect(url, name) for name in ("Ann", "Bob")]
        early, counting, resuming, late = [
            await ClientSession.connect(url, name) for name in ("Eve", "Cid", "Rue", "Lee")
        ]
        create = CreateRace(
            variant=VARIANT, max_players=2, time_limit=60, spectate=SpectatePolicy(policy),
            delay=delay,
        )  # fmt: skip
        race = str((await ann.request(create, RaceInfo)).race.id)
        await bob.request(JoinRace(race=race), RaceInfo)
        replies = {early: await early.request(Spectate(race=race), Spectating)}
        await early.request(ListRaces(follow=True), Races)
        await ann.request(StartRace(race=race), RaceInfo)
        replies[counting] = await counting.request(Spectate(race=race), Spectating)
        replies[resuming] = await resuming.request(Resume(race=race, since=0), Spectating)
        started = await ann.next(RaceStarted, timeout=TIMEOUT)
        replies[late] = await late.request(Spectate(race=race), Spectating)
        legal = started.legal
        for seq in range(3):
            legal = (await ann.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)).legal
        if policy == "after":
            for racer in (ann, bob):
                await racer.request(Resign(race=race), RaceInfo)
            await late.next(RaceFinished, timeout=TIMEOUT)
        else:  # every watcher has had its opening boards (pushed, or in a late reply)
            for watcher in [w for w, reply in replies.items() if not reply.boards]:
                await watcher.next(Spectating, lambda s: bool(s.boards), timeout=TIMEOUT)
        ended = time.time()
        racers = {ann.player, bob.player}
        allowed = started.started_at + delay if policy != "after" else ended
        boards = [s for s in sent if s.about(race) and views_in(s.message)]
        assert boards
        for frame in boards:
            assert frame.at >= started.started_at, frame.message["t"]
            if frame.player not in racers:
                assert frame.at >= allowed, (frame.player, frame.message["t"])
        for session in (ann, bob, early, counting, resuming, late):
            await session.close()


async def test_no_frame_gives_a_daily_deal_away_before_its_reveal(
    node: str, clients: Clients, store: Store, sent: list[Sent]
) -> None:
    """Ann plays today's deal while Bob (an account) and a guest try every way in: the
    lobby's list, spectate, resume, replay, results, profile, leaderboards, the day's
    board. No frame to them holds a board, a move or the seed of her race until the day's
    results are announced; after that, they may."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    guest = await clients.hello(node, "Guest")
    others = (bob, guest)
    for other in others:
        await other.request(ListRaces(follow=True), Races)
    race = (await ann.request(PlayDaily(variant=VARIANT), Matched)).race
    started = await ann.next(RaceStarted, timeout=TIMEOUT)
    meta = await store.races.meta(race)
    assert meta is not None
    seed = meta.settings.seed

    async def every_way_in() -> None:
        for other in others:
            for request in (
                ListRaces(), Spectate(race=race), Resume(race=race, since=0),
                GetReplay(race=race, player=ann.player), GetResults(race=race),
                GetProfile(player=ann.player), GetDaily(variant=VARIANT),
                GetLeaderboard(variant=VARIANT), GetLeaderboard(variant=VARIANT, fastest=True),
            ):  # fmt: skip
                await _tried(other, request)

    await every_way_in()  # while she plays
    legal = started.legal
    for seq in range(4):
        legal = (await ann.request(SubmitMove(race=race, seq=seq, move=legal[0]), Moved)).legal
    await ann.request(Resign(race=race), RaceInfo)
    async with asyncio.timeout(TIMEOUT):  # polled: her record follows the results
        while not (await bob.request(GetProfile(player=ann.player), Profile)).profile.recent:
            await asyncio.sleep(0.02)
    await every_way_in()  # once she finished
    board = (await bob.request(GetDaily(variant=VARIANT), Daily)).daily.board
    assert [entry.player for entry in board] == [ann.player]
    assert not (await bob.request(GetLeaderboard(variant=VARIANT), Leaderboard)).entries
    revealed = time.time()
    daily = NODES[node].daily
    daily.clock = lambda: tomorrow(started.started_at)
    await daily.tick()
    finished = await ann.next(RaceFinished, timeout=TIMEOUT)
    assert finished.seed == seed
    replay = await bob.request(GetReplay(race=race, player=ann.player), ServerMessage)
    assert replay.t == "replay_views"

    to_others = [s for s in sent if s.player != ann.player and s.at < revealed]
    assert to_others
    for frame in to_others:
        message = frame.message
        assert not carries_seed(frame.frame, seed), message["t"]
        if frame.about(race):
            assert not views_in(message) and not logs_in(message), message["t"]
    assert [s for s in sent if s.player == bob.player and s.at > revealed and views_in(s.message)]


@pytest.mark.parametrize("seen", ["nothing", "the countdown"])
async def test_a_racer_resuming_in_the_countdown_gets_the_deal_at_the_start(
    make_node: NodeFactory, sent: list[Sent], seen: str
) -> None:
    """A racer's second connection (or a reconnect) resuming in the countdown gets the race's
    info, not its board: the deal comes with ``race_started`` at the start, as to everyone."""
    async with make_node(timeouts=Timeouts(countdown=0.6)) as url:
        ann = await ClientSession.connect(url, "Ann")
        bob = await ClientSession.connect(url, "Bob")
        create = CreateRace(variant=VARIANT, max_players=2, time_limit=60)
        race = str((await ann.request(create, RaceInfo)).race.id)
        await bob.request(JoinRace(race=race), RaceInfo)
        await ann.request(StartRace(race=race), RaceInfo)
        countdown = await bob.next(Countdown, timeout=TIMEOUT)
        assert bob.welcome is not None
        again = await ClientSession.connect(url, "Bob", bob.welcome.token)
        since = (countdown.event or 0) if seen == "the countdown" else 0
        reply = await again.request(Resume(race=race, since=since), ServerMessage)
        started = await again.next(RaceStarted, timeout=TIMEOUT)
        assert not isinstance(reply, RaceStarted)
        assert started.view == (await ann.next(RaceStarted, timeout=TIMEOUT)).view
        boards = [s for s in sent if s.about(race) and views_in(s.message)]
        assert boards and all(s.at >= started.started_at for s in boards)
        for session in (ann, bob, again):
            await session.close()

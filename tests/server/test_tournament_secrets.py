"""A tournament keeps its secrets: a stage's seed until the stage is over, face-down
cards always, and each racer's board from every other racer.

Every frame the node sends to any client is recorded at the server's end of
the socket (``Connection.send_frame``), with the player it went to, on one
clock with the moment each race's results were announced
(``ClosingStore.record``, or ``ResultStore.announce`` when held back), so that
"before the stage was over" means exactly that. All tables of a stage race
one deal, so a stage's seed is its races' seed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest

from client.session import ClientSession, RequestFailed
from client.tournament_bot import TournamentBot
from protocol.codec import decode_server, encode
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Board,
    GetReplay,
    GetTournamentRecord,
    JoinTournament,
    ManageTournament,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Replay,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    Spectating,
    TournamentAction,
    TournamentInfo,
    TournamentRecord,
    WatchTournament,
)
from protocol.tournaments import Tournament
from protocol.views import View
from server.engine import find_variant
from server.engine.state import State
from server.net.connection import Connection
from server.rules.results import RaceResults
from server.storage import keys
from server.storage.closing import ClosingStore
from server.storage.results import ResultStore
from server.storage.store import Store
from server.storage.tournaments import TournamentStore
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK, host_tournament
from tests.server.secrecy import as_received, carries_seed, face_down, positions, shown

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

SPEED = 60.0  # moves a second: slow enough for the watcher to see boards
OVER = ("finished", "cancelled")
PROGRESS_KEYS = {"home", "target", "moves", "won", "over", "resigned", "left"}


@dataclasses.dataclass(frozen=True, slots=True)
class Sent:
    """One frame the node sent: when (on the recorder's clock), to whom, what."""

    n: int
    player: str | None
    frame: bytes


class Recorder:
    """Every frame sent to any client, and when each race closed, on one clock."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.closed: dict[str, int] = {}
        self._clock = itertools.count()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Spy on the node's one way out to clients and on the closing of races."""
        send_frame, record_results = Connection.send_frame, ClosingStore.record
        announce_results = ResultStore.announce

        def spy_send(conn: Connection, frame: bytes) -> None:
            self.sent.append(Sent(next(self._clock), conn.player, frame))
            send_frame(conn, frame)

        async def spy_results(
            store: ClosingStore, race: str, results: RaceResults, *, hold: bool, **rest: Any
        ) -> RaceResults | None:
            # Noted before the results are announced: the seed is public from then on.
            if not hold:
                self.closed.setdefault(race, next(self._clock))
            return await record_results(store, race, results, hold=hold, **rest)

        async def spy_announce(store: ResultStore, race: str) -> int:
            self.closed.setdefault(race, next(self._clock))
            return await announce_results(store, race)

        monkeypatch.setattr(Connection, "send_frame", spy_send)
        monkeypatch.setattr(ResultStore, "announce", spy_announce)
        monkeypatch.setattr(ClosingStore, "record", spy_results)

    def messages(self) -> Iterator[tuple[Sent, ServerMessage]]:
        for sent in self.sent:
            yield sent, decode_server(sent.frame)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recording = Recorder()
    recording.install(monkeypatch)
    return recording


async def follow(watcher: ClientSession, tournament: str) -> Tournament:
    """Follow a tournament to its end, spectating each stage's first table and asking
    for the record at every change; returns the last document."""
    spectated: set[str] = set()
    reply = await watcher.request(WatchTournament(tournament=tournament), TournamentInfo)
    doc = reply.tournament
    while doc.status not in OVER:
        stage = doc.stages[-1] if doc.stages else None
        if stage is not None and stage.status == "running":
            race = stage.races[0].race
            if race not in spectated:
                spectated.add(race)
                await watcher.request(Spectate(race=race), Spectating)
        await watcher.request(GetTournamentRecord(tournament=tournament), TournamentRecord)
        doc = (await watcher.next(TournamentInfo, timeout=TIMEOUT)).tournament
    return doc


async def stage_seed(store: Store, tournament: str, stage: int) -> int:
    """The seed the tournament drew for a stage, as Redis holds it."""
    seed = await store.redis.hget(keys.tournament_meta(tournament), f"seed:{stage}")
    assert seed is not None
    return int(seed)


@dataclasses.dataclass
class Stage:
    """What Redis says of one stage once the tournament is over."""

    seed: int
    tables: dict[str, set[str]]  # race -> its racers

    @property
    def racers(self) -> set[str]:
        return set().union(*self.tables.values())


class Positions:
    """Every position of every racer of every race, and the views of them."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], list[State]] = {}
        self.views: dict[tuple[str, str], list[View]] = {}
        self.variant: dict[str, str] = {}

    async def load(self, store: Store, race: str, players: set[str]) -> None:
        meta = await store.races.meta(race)
        assert meta is not None
        settings = meta.settings
        game = find_variant(settings.variant)
        self.variant[race] = settings.variant
        for player in players:
            log = await store.boards.log(race, player)
            states = positions(game, settings.seed, log, settings.deal_version)
            self.states[race, player] = states
            self.views[race, player] = [as_received(game.view(state)) for state in states]

    def check(self, race: str, player: str, view: View, index: int | None) -> None:
        """``view`` is the engine's view of the racer's position ``index`` (of some position,
        when None), and shows none of that position's face-down cards."""
        game = find_variant(self.variant[race])
        views, states = self.views[race, player], self.states[race, player]
        matches = [i for i, v in enumerate(views) if v == view] if index is None else [index]
        assert matches and all(views[i] == view for i in matches), (race, player, index)
        for i in matches:
            assert not shown(view) & face_down(game, states[i]), (race, player, i)


async def test_a_whole_tournament_keeps_its_secrets(
    make_node: NodeFactory, store: Store, recorder: Recorder
) -> None:
    """Two rounds, three bot entrants at tables of two, a delayed watcher: no frame to
    anyone holds a stage's seed before the stage is over (a table's results go only to
    those not racing elsewhere in it), no view holds a face-down card, and no racer is
    ever sent anyone's board but their own."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(
            url,
            format="rounds",
            variants=["grand-duchess", "royal-cotillion"],  # face-down stock and reserve
            rounds=2,
            table_size=2,
            spectate="delayed",
            delay=1,
        )
        watcher = await ClientSession.connect(url, "Wendy")
        watching = asyncio.create_task(follow(watcher, doc.id))
        bots = [
            TournamentBot(url, name=f"Bot {i}", speed=SPEED, seed=i, patience=QUICK)
            for i in range(3)
        ]
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(bot.joined.wait() for bot in bots))
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        async with asyncio.timeout(6 * TIMEOUT):
            await asyncio.gather(*tasks)
            final = await watching
        for session in (watcher, host):
            await session.close()

    assert final.status == "finished"
    entrants = {e.player for e in final.entrants}
    stages: dict[int, Stage] = {}
    seen = Positions()
    for stage in final.stages:
        seed = await stage_seed(store, doc.id, stage.n)
        tables = {r.race: set(r.players) for r in stage.races}
        stages[stage.n] = Stage(seed, tables)
        for race, players in tables.items():
            meta = await store.races.meta(race)
            assert meta is not None and meta.settings.seed == seed
            await seen.load(store, race, players)
    assert [len(s.tables) for s in stages.values()] == [2, 2]
    stage_of = {race: n for n, stage in stages.items() for race in stage.tables}
    over = {n: max(recorder.closed[race] for race in s.tables) for n, s in stages.items()}

    counts: dict[str, int] = dict.fromkeys(("seed", "view", "board", "record"), 0)
    for sent, message in recorder.messages():
        for n, played in stages.items():
            if not carries_seed(sent.frame, played.seed):
                continue
            counts["seed"] += 1
            if sent.n > over[n]:
                continue
            # Before the stage is over, only a table's own results may hold its seed,
            # once that table has closed, and never for someone racing at another table.
            assert isinstance(message, RaceFinished) and stage_of[message.race] == n, message.t
            assert sent.n > recorder.closed[message.race]
            assert sent.player not in played.racers - played.tables[message.race]
        if isinstance(message, RaceStarted | Moved):
            assert (
                sent.player is not None
                and sent.player in stages[stage_of[message.race]].tables[message.race]
            ), "a racer was sent a board of a race they are not in"
            index = message.seq + 1 if isinstance(message, Moved) else None
            seen.check(message.race, sent.player, message.view, index)
            counts["view"] += 1
        elif isinstance(message, Board):
            assert sent.player not in entrants, "an entrant was sent a board"
            index = message.seq + (message.move is not None)
            seen.check(message.race, message.player, message.view, index)
            counts["board"] += 1
        elif isinstance(message, Spectating):
            assert sent.player not in entrants or not message.boards
            for player, view in message.boards.items():
                seen.check(message.race.id, player, view, None)
        elif isinstance(message, Replay):
            assert sent.player not in entrants
        elif isinstance(message, Progress):
            # Checked on the frame itself: the typed value has these fields by construction.
            assert set(msgpack.unpackb(sent.frame)["progress"]) <= PROGRESS_KEYS
        elif isinstance(message, TournamentRecord):
            counts["record"] += bool(message.record["races"])
    # The checks had something to check: seeds revealed, views, boards, records.
    assert all(counts.values()), counts


async def test_a_closed_table_shows_nothing_to_a_stage_still_racing(
    make_node: NodeFactory, store: Store
) -> None:
    """Once one table of a stage closes while another still races on the same deal,
    nobody learns its seed (no results, no replay, not in the record) and the racers
    at the other table cannot spectate it; everyone may once the stage is over."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(
            url, format="rounds", variants=["grand-duchess"], rounds=2, table_size=2
        )
        tournament = doc.id
        ann, bo, cy, olive = [
            await ClientSession.connect(url, name) for name in ("Ann", "Bo", "Cy", "Olive")
        ]
        for entrant in (ann, bo, cy):  # tables of two: Ann with Cy, Bo alone
            await entrant.request(JoinTournament(tournament=tournament), TournamentInfo)
        start = ManageTournament(tournament=tournament, action=TournamentAction.START)
        running = (await host.request(start, TournamentInfo)).tournament
        tables = {p: r.race for r in running.stages[0].races for p in r.players}
        first, second = tables[ann.player], tables[bo.player]
        assert tables[cy.player] == first != second
        for racer in (ann, cy):
            await racer.request(Resume(race=first, since=0), RaceStarted)
            await racer.request(Resign(race=first), RaceInfo)
        async with asyncio.timeout(TIMEOUT):  # closed, its results held back: no event says so
            while not await store.results.held(first):
                await asyncio.sleep(0.05)
        assert not [m for m in ann.received if isinstance(m, RaceFinished)]
        seed = await stage_seed(store, tournament, 1)

        for look in (Spectate(race=first), GetReplay(race=first, player=ann.player)):
            with pytest.raises(RequestFailed) as refused:
                await bo.request(look, ServerMessage)
            assert refused.value.code is ErrorCode.NOT_ALLOWED
        for asker in (bo, olive):
            record = await asker.request(GetTournamentRecord(code=doc.code), TournamentRecord)
            assert record.record["races"] == {}
            assert not carries_seed(encode(record), seed)
        await olive.request(Spectate(race=first), Spectating)
        with pytest.raises(RequestFailed) as refused:  # its moves would show the deal
            await olive.request(GetReplay(race=first, player=ann.player), Replay)
        assert refused.value.code is ErrorCode.NOT_ALLOWED

        await bo.request(Resume(race=second, since=0), RaceStarted)
        await bo.request(Resign(race=second), RaceInfo)
        # The schedule scores the stage on its next sweep.
        await bo.next(TournamentInfo, lambda m: len(m.tournament.stages) == 2)
        finished = await ann.next(RaceFinished, timeout=TIMEOUT)
        assert finished.seed == seed
        for asker in (bo, olive):
            await asker.request(GetReplay(race=first, player=ann.player), Replay)
        record = await bo.request(GetTournamentRecord(code=doc.code), TournamentRecord)
        assert set(record.record["races"]) == {first, second}
        assert {r["seed"] for r in record.record["races"].values()} == {seed}
        await host.request(
            ManageTournament(tournament=tournament, action=TournamentAction.CANCEL), TournamentInfo
        )
        for session in (host, ann, bo, cy, olive):
            await session.close()
    cancelled = await TournamentStore(store).load(tournament)
    assert cancelled is not None and cancelled.status == "cancelled"

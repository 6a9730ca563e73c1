"""The Redis model: scripts keep races consistent whatever order calls come in."""

from __future__ import annotations

import asyncio
import time

from protocol.results import RacerStatus
from protocol.views import Progress
from server.engine import find_variant
from server.engine.state import State
from server.rules.events import Resigned, Starting
from server.rules.races import RaceSettings, Spectate
from server.rules.results import RaceResults
from server.storage import keys
from server.storage.commits import CommitReply, MoveCommit
from server.storage.exceptions import StoreUnavailable
from server.storage.races import RaceStatus
from server.storage.store import Store


async def _open_race(store: Store, max_players: int = 2) -> str:
    settings = RaceSettings(
        variant="quadrille", seed=1, deal_version=1, time_limit=600,
        spectate=Spectate.LIVE, max_players=max_players,
    )  # fmt: skip
    return await store.races.create("host", "Hana", settings)


def _starting(started_at: float, ends_at: float) -> Starting:
    return Starting(started_at, ends_at, "commitment", 1, {}, {}, [])


def _resigned(player: str) -> Resigned:
    return Resigned(player, Progress(0, 52, 0, won=False, over=True, resigned=True), time.time())


async def _started_race(store: Store) -> str:
    race = await _open_race(store)
    assert (await store.races.join(race, "p2", "Pat"))[0] == "ok"
    now = time.time()
    status, _ = await store.races.start(race, "host", _starting(now - 1, now + 600), force=True)
    assert status == "ok"
    return race


def _commit(
    race: str, player: str, seq: int, status: str = "playing", snapshot: State | None = None
) -> MoveCommit:
    return MoveCommit(race, player, seq, snapshot, f"m{seq}", status, 0, time.time(), b"event")


async def test_join_refuses_a_full_race(store: Store) -> None:
    """A race never holds more players than its limit."""
    race = await _open_race(store, max_players=2)
    assert (await store.races.join(race, "p2", "Pat"))[0] == "ok"
    assert (await store.races.join(race, "p3", "Quin"))[0] == "race_full"
    assert set(await store.races.players(race)) == {"host", "p2"}


async def test_a_race_reads_back_typed(store: Store) -> None:
    """A new race's meta comes back as a RaceMeta: its settings, open, its host and code."""
    race = await _open_race(store, max_players=3)
    meta = await store.races.meta(race)
    assert meta is not None and meta.status is RaceStatus.OPEN and meta.host == "host"
    assert (meta.settings.variant, meta.settings.max_players) == ("quadrille", 3)
    assert await store.races.id_for_code(meta.code) == race
    assert await store.races.meta("norace") is None


async def test_start_needs_the_host_or_everyone_ready(store: Store) -> None:
    """Only the host forces a start; otherwise all players must be ready."""
    race = await _open_race(store)
    await store.races.join(race, "p2", "Pat")
    starting = _starting(0.0, 1.0)
    assert (await store.races.start(race, "p2", starting, force=True))[0] == "not_host"
    assert (await store.races.start(race, "p2", starting, force=False))[0] == "race_not_open"
    await store.races.set_ready(race, "host", True)
    _, _, everyone = await store.races.set_ready(race, "p2", True)
    assert everyone
    assert (await store.races.start(race, "p2", starting, force=False))[0] == "ok"


async def test_a_sequence_number_is_applied_once(store: Store) -> None:
    """Two commits of the same sequence: exactly one succeeds."""
    race = await _started_race(store)
    first, second = await asyncio.gather(
        store.batcher.send(_commit(race, "host", 0)),
        store.batcher.send(_commit(race, "host", 0)),
    )
    assert sorted([first[0], second[0]]) == ["bad_sequence", "ok"]
    assert await store.boards.log(race, "host") == ["m0"]
    board = await store.boards.board(race, "host")
    assert board is not None and board.seq == 1


async def test_a_board_is_its_latest_snapshot_and_the_moves_after_it(store: Store) -> None:
    """Moves store no board; a snapshot, when sent, moves the start of the tail read."""
    race = await _started_race(store)
    assert await store.boards.board(race, "nobody") is None
    board = await store.boards.board(race, "host")
    assert board is not None
    assert (board.seq, board.snapshot, board.snapshot_seq, board.tail) == (0, None, 0, [])
    after_m2 = find_variant("quadrille").deal(1, 1)  # a board, whichever: the store keeps it
    for seq in range(5):
        snapshot = after_m2 if seq == 2 else None
        assert (await store.batcher.send(_commit(race, "host", seq, snapshot=snapshot)))[0] == "ok"
    board = await store.boards.board(race, "host")
    assert board is not None and board.snapshot is not None
    assert (board.seq, board.status) == (5, "playing")
    assert (board.snapshot_seq, board.tail) == (3, ["m3", "m4"])
    assert board.snapshot.to_data() == after_m2.to_data()


async def test_events_are_numbered_and_resumable(store: Store) -> None:
    """Every event gets the next number and can be read back after any number."""
    race = await _started_race(store)
    for seq in range(3):
        result = await store.batcher.send(_commit(race, "p2", seq))
        assert result[0] == "ok"
    events = await store.events.since(race, 0)
    numbers = [n for n, _ in events]
    assert numbers == list(range(1, len(numbers) + 1))
    assert [n for n, _ in await store.events.since(race, numbers[-2])] == [numbers[-1]]


async def test_finish_closes_once(store: Store) -> None:
    """A race is closed by exactly one caller once every racer is done, and its results
    are stored and announced once: a second caller gets the first one's back."""
    race = await _started_race(store)
    assert await store.closing.close(race, time.time()) is None
    await store.batcher.send(_commit(race, "host", 0, status="won"))
    assert (await store.races.resign(race, "p2", _resigned("p2")))[2] == 0
    ends = await asyncio.gather(*(store.closing.close(race, time.time()) for _ in range(5)))
    assert [end.closed for end in ends if end is not None].count(True) == 1
    end = next(end for end in ends if end is not None and end.closed)
    results, other = (RaceResults((), seed, "c", 1, "klondike", {}) for seed in (1, 2))
    assert await store.closing.record(race, results, hold=False, end=end, keep_for=60) == results
    announced = len(await store.events.since(race, 0))
    assert await store.closing.record(race, other, hold=False, end=end, keep_for=60) == results
    assert len(await store.events.since(race, 0)) == announced
    assert await store.results.load(race) == results
    assert await store.closing.close(race, time.time()) is None


async def test_deadline_marks_unfinished_racers(store: Store) -> None:
    """At the deadline, racers still playing are recorded as timed out."""
    race = await _started_race(store)
    end = await store.closing.close(race, time.time() + 10_000)
    assert end is not None and end.closed
    boards = await store.boards.racers(race)
    assert boards["host"].status is RacerStatus.TIMEOUT
    assert await store.redis.zscore(keys.LIVE_RACES, race) is None


async def test_scripts_survive_a_script_flush(store: Store) -> None:
    """After Redis forgets its scripts (as after a restart) commits still work."""
    race = await _started_race(store)
    await store.redis.script_flush()
    assert (await store.batcher.send(_commit(race, "host", 0)))[0] == "ok"
    await store.redis.script_flush()
    assert (await store.races.resign(race, "p2", _resigned("p2")))[0] == "ok"


async def test_commits_go_on_after_their_connection_is_dropped(store: Store) -> None:
    """Dropped commit connections are opened again: a commit in flight is answered once."""
    race = await _started_race(store)
    assert (await store.batcher.send(_commit(race, "host", 0)))[0] == "ok"
    in_flight = asyncio.ensure_future(store.batcher.send(_commit(race, "host", 1)))
    await store.redis.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
    outcome = (await in_flight)[0]
    # Sent before the drop, it was applied; sent again after, its sequence was taken.
    assert outcome in ("ok", "bad_sequence")
    assert (await store.batcher.send(_commit(race, "host", 2)))[0] == "ok"
    assert await store.redis.lrange(keys.race_log(race, "host"), 0, -1) == [b"m0", b"m1", b"m2"]


async def test_commits_of_one_call_stand_alone(store: Store) -> None:
    """Commits sent together share a script call, yet each gets its own answer:
    a refusal or an error in one leaves the others committed."""
    race, other = await _started_race(store), await _started_race(store)
    await store.redis.delete(keys.race_log(other, "host"))
    await store.redis.set(keys.race_log(other, "host"), "not a list")
    replies = await asyncio.gather(
        store.batcher.send(_commit(race, "host", 0)),
        store.batcher.send(_commit(other, "host", 0)),
        store.batcher.send(_commit(race, "p2", 5)),
        store.batcher.send(_commit(race, "p2", 0)),
        return_exceptions=True,
    )
    assert replies[0][0] == "ok" and replies[3][0] == "ok"  # type: ignore[index]
    assert isinstance(replies[1], StoreUnavailable) and "WRONGTYPE" in str(replies[1])
    assert replies[2] == CommitReply("bad_sequence", 0, 0)
    assert await store.boards.log(race, "p2") == ["m0"]


async def test_refusals_name_what_is_wrong(store: Store) -> None:
    """A commit to a race that is not there, not started or over, or by someone not
    racing, is refused and changes nothing."""
    race = await _started_race(store)
    assert (await store.batcher.send(_commit("no-such-race", "host", 0)))[0] == "not_found"
    assert (await store.batcher.send(_commit(race, "stranger", 0)))[0] == "not_a_racer"
    assert (await store.batcher.send(_commit(await _open_race(store), "host", 0)))[0] == (
        "race_over"
    )
    await store.batcher.send(_commit(race, "host", 0, status="won"))
    assert (await store.batcher.send(_commit(race, "host", 1)))[0] == "race_over"
    assert await store.closing.close(race, time.time() + 10_000) is not None
    assert (await store.batcher.send(_commit(race, "p2", 0)))[0] == "race_over"
    assert await store.boards.log(race, "p2") == []


async def test_commits_wait_behind_pipelines_in_flight(store: Store) -> None:
    """Commits that come while the batcher's pipelines are in flight go together
    once one is answered, each answered once."""
    store.batcher.PIPELINES_IN_FLIGHT = 1
    races = [await _started_race(store) for _ in range(5)]
    assert (await store.batcher.send(_commit(races[0], "host", 0)))[0] == "ok"  # connected
    sent = []
    for race in races[1:]:  # one loop turn each: the first is in flight as the rest come
        sent.append(store.batcher.send(_commit(race, "host", 0)))
        await asyncio.sleep(0)
    assert [reply[0] for reply in await asyncio.gather(*sent)] == ["ok"] * 4
    for race in races:
        assert await store.boards.log(race, "host") == ["m0"]

"""Rated races on a real node: changes in the results, recorded once in each account,
recovered by the sweeper when the node that stored the results did not record them."""

from __future__ import annotations

import asyncio

import pytest

from protocol.exceptions import ErrorCode
from protocol.messages import (
    CreateRace,
    GetHint,
    GetLeaderboard,
    GetProfile,
    GetResults,
    JoinRace,
    Leaderboard,
    Profile,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    StartRace,
)
from protocol.profiles import RecentRace
from protocol.results import RacerStatus, Standing
from server.rules.results import AccountRecord, RaceResults
from server.services.records import Records
from server.storage import keys
from server.storage.store import Store
from tests.server.accounts import account, race_to_the_end, recorded
from tests.server.conftest import NODES, TIMEOUT, Clients
from tests.server.refusals import VARIANT, refused

pytestmark = pytest.mark.slow


def _by_player(finished: RaceFinished) -> dict[str, Standing]:
    return {s.player: s for s in finished.standings}


@pytest.mark.usefixtures("no_errors_logged")
async def test_rated_race_changes_ratings_once(node: str, clients: Clients, store: Store) -> None:
    """Two accounts on a secret deal: +/- changes in the results, each account's record
    written once, and writing it again changes nothing."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    finished = await race_to_the_end(ann, bob)
    standings = _by_player(finished)
    first, second = standings[ann.player], standings[bob.player]
    assert first.change is not None and second.change is not None
    assert first.place == 1 and first.change > 0 > second.change
    assert first.rating == 1500 + first.change and first.provisional is True
    again = await bob.request(GetResults(race=finished.race), RaceFinished)  # from a profile
    assert (again.standings, again.seed, again.logs) == (
        finished.standings,
        finished.seed,
        finished.logs,
    )
    await recorded(store)
    stats = await store.redis.hgetall(keys.account_stats(ann.player))
    assert stats[f"played:{VARIANT}".encode()] == b"1" and stats[b"n:overall"] == b"1"
    assert await store.redis.llen(keys.account_history(bob.player)) == 1
    # The step runs again (a second node closing the race): nothing changes.
    records: Records = NODES[node].records
    stored = await NODES[node].races.results.stored_results(finished.race)
    assert stored is not None
    await records.write(finished.race, stored)
    assert await store.redis.hgetall(keys.account_stats(ann.player)) == stats
    assert await store.redis.llen(keys.account_history(bob.player)) == 1
    assert not await store.redis.zcard(keys.RECORDS_PENDING)


@pytest.mark.usefixtures("no_errors_logged")
@pytest.mark.parametrize("kind", ["public deal", "unrated", "guest", "practice"])
async def test_unrated_races(node: str, clients: Clients, store: Store, kind: str) -> None:
    """Public deals, races the host marked unrated, races with one account and practice
    races (hints answered: a hint was taken) are not rated, though the accounts'
    histories still record them."""
    ann = await account(clients, node, "Ann")
    other = (
        await clients.hello(node, "Guest")
        if kind == "guest"
        else await account(clients, node, "Bob")
    )
    finished = await race_to_the_end(
        ann,
        other,
        deal=7 if kind == "public deal" else None,
        unrated=kind == "unrated",
        practice=kind == "practice",
    )
    assert all(s.change is None for s in finished.standings)
    await recorded(store)
    assert await store.redis.llen(keys.account_history(ann.player)) == 1
    assert not await store.redis.hexists(keys.account_stats(ann.player), "n:overall")


async def test_sweeper_records_what_a_dead_node_did_not(
    node: str, clients: Clients, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results stored, records not written (the node died between): another sweep writes
    them from the stored results."""
    records: Records = NODES[node].records
    real_write = Records.write
    failed = asyncio.Event()

    async def dies(self: Records, race: str, results: RaceResults) -> None:
        if not failed.is_set():
            failed.set()
            raise ConnectionError("the node died here")
        await real_write(self, race, results)

    monkeypatch.setattr(Records, "write", dies)
    monkeypatch.setattr(records, "RECOVER_AFTER", 0.0)
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    finished = await race_to_the_end(ann, bob)
    assert _by_player(finished)[ann.player].change is not None
    await asyncio.wait_for(failed.wait(), TIMEOUT)
    await recorded(store)
    assert await store.redis.hget(keys.account_stats(ann.player), "n:overall") == b"1"
    assert await store.redis.llen(keys.account_history(bob.player)) == 1


@pytest.mark.usefixtures("no_errors_logged")
async def test_profile_and_leaderboard(node: str, clients: Clients, store: Store) -> None:
    """A profile shows ratings, counts and the last races; the leaderboard only settled
    ratings (Ann's tenth rated race settles hers; Bob's first leaves his provisional)."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    for scope in (VARIANT, "overall"):
        await store.redis.hset(
            keys.account_stats(ann.player),
            mapping={f"mu:{scope}": 26.0, f"sigma:{scope}": 3.0, f"n:{scope}": 9},
        )
    await race_to_the_end(ann, bob)
    await recorded(store)
    mine = (await ann.request(GetProfile(), Profile)).profile
    assert mine.name == "Ann" and mine.races[VARIANT].played == 1
    assert mine.ratings[VARIANT].races == 10 and not mine.ratings[VARIANT].provisional
    assert [entry.place for entry in mine.recent] == [1]
    theirs = (await ann.request(GetProfile(player=bob.player), Profile)).profile
    change = theirs.recent[0].change
    assert theirs.ratings["overall"].provisional and change is not None and change < 0
    board = await bob.request(GetLeaderboard(variant=VARIANT), Leaderboard)
    assert [(e.place, e.name) for e in board.entries] == [(1, "Ann")]
    assert board.entries[0].rating == mine.ratings[VARIANT].rating


@pytest.mark.usefixtures("no_errors_logged")
async def test_fastest_wins_board(node: str, clients: Clients) -> None:
    """Each account's fastest win of a variant, fastest first; a slower win changes nothing."""
    ann = await account(clients, node, "Ann")
    records: Records = NODES[node].records
    for race, seconds in (("ra", 80.0), ("rb", 60.0), ("rc", 70.0)):
        entry = RecentRace(
            race=race, variant=VARIANT, at=0.0, place=1, of=1, status=RacerStatus.WON,
            time=seconds, home=52,
        )  # fmt: skip
        results = RaceResults(
            standings=(), seed=0, commitment="", deal_version=1, variant=VARIANT, logs={},
            records={ann.player: AccountRecord((), entry)},
        )  # fmt: skip
        await records.write(race, results)
    board = await ann.request(GetLeaderboard(variant=VARIANT, fastest=True), Leaderboard)
    assert board.fastest and [(e.name, e.time) for e in board.entries] == [("Ann", 60.0)]
    profile = (await ann.request(GetProfile(), Profile)).profile
    assert profile.races[VARIANT].best == 60.0 and profile.races[VARIANT].won == 3


@pytest.mark.usefixtures("no_errors_logged")
async def test_no_hint_in_a_rated_race(node: str, clients: Clients) -> None:
    """A race that will be rated (two accounts, a secret deal) answers no hint."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    create = CreateRace(variant=VARIANT, max_players=2, time_limit=600)
    race = str((await ann.request(create, RaceInfo)).race.id)
    await bob.request(JoinRace(race=race), RaceInfo)
    await ann.request(StartRace(race=race), RaceInfo)
    await ann.next(RaceStarted, timeout=TIMEOUT)
    await refused(ann, GetHint(race=race), ErrorCode.NOT_ALLOWED)


@pytest.mark.usefixtures("no_errors_logged")
async def test_no_overall_board_of_fastest_wins(node: str, clients: Clients) -> None:
    """Fastest wins are kept per variant: ``overall`` with ``fastest`` is refused for that
    reason (docs/protocol.md), not as an unknown variant; ``overall`` ratings are answered."""
    ann = await account(clients, node, "Ann")
    why = await refused(
        ann, GetLeaderboard(variant="overall", fastest=True), ErrorCode.INVALID_FIELD
    )
    assert "per variant" in why and "unknown variant" not in why
    board = await ann.request(GetLeaderboard(variant="overall"), Leaderboard)
    assert board.variant == "overall" and not board.fastest

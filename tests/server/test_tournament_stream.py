"""A tournament's stream keeps its newest changes only, and still numbers every one.

Each change of a tournament is announced with its whole document, which for
an arena of a thousand entrants is hundreds of KiB, several times a second:
a stream that kept them all grew by hundreds of MiB in a half-hour arena. A
follower needs only the newest document, so the stream keeps
:data:`~server.storage.tournaments.EVENTS_KEPT` of them.
"""

from __future__ import annotations

from dataclasses import replace

from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.tournaments import Tournament, TournamentStatus
from server.storage import keys
from server.storage.store import Store
from server.storage.tournaments import EVENTS_KEPT, TournamentStore


def new_doc(tournament: str, code: str) -> Tournament:
    return Tournament(
        id=tournament, code=code, host="p1", name="Cup", format=TournamentFormat.ROUNDS,
        variants=("gavotte",), time_limit=60, spectate=SpectatePolicy.LIVE,
        status=TournamentStatus.OPEN, created=0.0,
    )  # fmt: skip


async def test_the_stream_keeps_the_newest_changes_and_counts_them_all(store: Store) -> None:
    docs = TournamentStore(store)
    doc = await docs.create("p1", None, new_doc)
    assert await docs.event_count(doc.id) == 0
    changes = EVENTS_KEPT + 9
    numbers = [await docs.save(replace(doc, name=f"Cup {i}")) for i in range(changes)]
    assert numbers == list(range(1, changes + 1))
    assert await docs.event_count(doc.id) == changes
    assert await store.redis.xlen(keys.events(doc.id)) == EVENTS_KEPT
    newest = await store.events.since(doc.id, changes - 1)
    assert [event.number for event in newest] == [changes]
    loaded = await docs.load(doc.id)
    assert loaded is not None and loaded.name == f"Cup {changes - 1}"


async def test_a_node_changes_the_document_it_saved_without_reading_it_again(
    store: Store,
) -> None:
    """Reading an arena of a thousand into a Tournament takes ~75 ms a sweep: the node
    that saved the stored document last changes its own copy; once another node has
    saved, it reads the stored one."""
    here, there = TournamentStore(store), TournamentStore(store)
    doc = await here.create("p1", None, new_doc)
    first = await here.load_for_change(doc.id)
    assert first == doc
    saved = replace(doc, name="Cup 2")
    await here.save(saved)
    assert await here.load_for_change(doc.id) is saved  # its own, not read again
    elsewhere = replace(doc, name="Cup 3")
    await there.save(elsewhere)
    changed = await here.load_for_change(doc.id)
    assert changed == elsewhere and changed is not elsewhere  # read from Redis

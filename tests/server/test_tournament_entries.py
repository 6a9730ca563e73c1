"""Entrants entering at once share one edit of the document, and are refused one by one.

Every change rewrites the whole document, so a thousand entries made one at
a time cost work that grows with the square of the entrants (bench/events.py
measured 25 s for 1,024). Entries waiting on a node go into the next edit
together (server/services/entries.py).
"""

from __future__ import annotations

import asyncio

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import JoinTournament, TournamentInfo
from server.services import tournaments
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import TIMEOUT
from tests.server.hosting import host_tournament

ENTRANTS = 24


async def enter_all(url: str, code: str, count: int) -> list[TournamentInfo | RequestFailed]:
    """``count`` entrants, each on a connection of their own, entering at once."""
    sessions = await asyncio.gather(*(ClientSession.connect(url, f"E{i}") for i in range(count)))

    async def enter(session: ClientSession) -> TournamentInfo | RequestFailed:
        try:
            return await session.request(JoinTournament(code=code), TournamentInfo)
        except RequestFailed as refused:
            return refused

    try:
        async with asyncio.timeout(TIMEOUT):
            return await asyncio.gather(*(enter(s) for s in sessions))
    finally:
        await asyncio.gather(*(s.close() for s in sessions))


async def test_entries_at_once_share_edits(node: str, store: Store) -> None:
    """24 entries at once: each reply holds its entrant, all 24 are in, and the document
    was stored (and announced) far fewer than 24 times."""
    host, doc = await host_tournament(node, format="rounds", variants=["quadrille"])
    replies = await enter_all(node, doc.code, ENTRANTS)
    await host.close()
    docs = [r.tournament for r in replies if isinstance(r, TournamentInfo)]
    assert len(docs) == ENTRANTS
    assert all(len(d.entrants) >= 1 for d in docs)
    last = max(docs, key=lambda d: len(d.entrants))
    assert len(last.entrants) == ENTRANTS
    edits = await store.redis.xlen(keys.events(doc.id))
    assert edits <= ENTRANTS // 2, f"{edits} edits for {ENTRANTS} entries"


async def test_an_entry_refused_in_a_shared_edit_is_refused_alone(
    node: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight entries at once into room for five: five are in, three told it is full."""
    monkeypatch.setattr(tournaments, "MAX_ENTRANTS", 5)
    host, doc = await host_tournament(node, format="rounds", variants=["quadrille"])
    replies = await enter_all(node, doc.code, 8)
    await host.close()
    entered = [r for r in replies if isinstance(r, TournamentInfo)]
    refused = [r for r in replies if isinstance(r, RequestFailed)]
    assert len(entered) == 5 and len(refused) == 3
    assert {r.code for r in refused} == {ErrorCode.RACE_FULL}
    assert max(len(r.tournament.entrants) for r in entered) == 5

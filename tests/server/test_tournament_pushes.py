"""A burst of tournament changes reaches a watcher as the newest document, not every one."""

from __future__ import annotations

from protocol.messages import TournamentFormat, TournamentInfo
from tests.server.conftest import NODES, TIMEOUT, NodeFactory
from tests.server.hosting import host_tournament


async def test_a_burst_of_entries_is_pushed_as_the_newest_documents(
    make_node: NodeFactory,
) -> None:
    """Thirty entrants entering back to back reach a watcher in a few documents, the last
    with all thirty: each document is pushed whole, so a thousand entrants entering would
    otherwise send each watcher a thousand ever larger copies (bench/events.py)."""
    async with make_node() as url:
        host, doc = await host_tournament(
            url, format=TournamentFormat.ROUNDS, variants=["quadrille"]
        )
        director = NODES[url].director
        for n in range(30):
            await director.join(f"p{n}", f"P{n}", doc.id, None)
        pushes = 0
        while True:
            message = await host.next(TournamentInfo, timeout=TIMEOUT)
            pushes += 1
            if len(message.tournament.entrants) == 30:
                break
        await host.close()
    assert pushes <= 10, f"{pushes} documents for 30 changes"

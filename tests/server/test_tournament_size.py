"""How many entrants a knockout or rounds tournament takes (issue 28: a bracket of 1,024)."""

from __future__ import annotations

from protocol.messages import CreateTournament, TournamentFormat
from server.services.tournaments import MAX_ENTRANTS
from tests.server.conftest import NODES, NodeFactory


async def test_a_knockout_takes_more_than_64_entrants(make_node: NodeFactory) -> None:
    """A 65th entrant enters (the cap was 64; bench/events.py runs a bracket of 1,024, the
    cap now, on two nodes)."""
    assert MAX_ENTRANTS >= 1024
    async with make_node() as url:
        director = NODES[url].director
        request = CreateTournament(
            name="Big", format=TournamentFormat.KNOCKOUT, variants=["quadrille"], time_limit=60
        )
        doc = await director.create("host", "Host", request)
        for n in range(65):
            await director.join(f"p{n}", f"P{n}", doc.id, None)
        assert len((await director.info(doc.id)).entrants) == 65

"""Post-race analysis: after the results, where each racer's deal stopped being winnable."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    GetResults,
    Moved,
    RaceAnalysed,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from protocol.results import Winnability
from server.engine import find_variant
from server.engine.solver import Outcome, solve, solve_deal
from server.settings import Solving
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

#: Quadrille deals are decided in well under a second.
DEAL = 1
QUICK = Solving(workers=1, winnable=TIMEOUT, hint=1.0, analysis=TIMEOUT)


def losing_moves(seed: int) -> list[str]:
    """Random legal moves on a Quadrille deal until one move before the game is over
    (the racer resigns there): they lose it."""
    game = find_variant("quadrille")
    state, chooser, moves = game.deal(seed), random.Random(seed), list[str]()
    while not game.is_over(state):
        move = chooser.choice(list(game.legal_moves(state)))
        moves.append(move.text())
        state = game.apply(state, move)
    return moves[:-1]


def outcome_after(seed: int, moves: list[str]) -> Outcome:
    """What the solver says of the Quadrille deal ``seed`` after ``moves``."""
    game = find_variant("quadrille")
    state = game.replay(seed, moves)
    return solve(game, state, seconds=TIMEOUT, clock=time.monotonic).outcome


async def open_race(alice: ClientSession) -> str:
    """A one-seat public Quadrille race, watched live, not yet started."""
    created = await alice.request(
        CreateRace(
            variant="quadrille", max_players=1, time_limit=600, deal=DEAL,
            spectate=SpectatePolicy.LIVE,
        ),
        RaceInfo,
    )  # fmt: skip
    return str(created.race.id)


async def play_and_resign(alice: ClientSession, race: str, moves: list[str]) -> None:
    """Start ``race``, play ``moves`` and resign."""
    await alice.request(StartRace(race=race), RaceInfo)
    await alice.next(RaceStarted)
    for seq, move in enumerate(moves):
        await alice.request(SubmitMove(race=race, seq=seq, move=move), Moved)
    await alice.request(Resign(race=race), RaceInfo)


async def test_analysis_finds_the_losing_move_after_the_results(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Results go out without the analysis; it follows (racer and spectator), names the
    move after which the deal was lost, and is stored with the results."""
    moves = losing_moves(DEAL)
    async with make_node(solving=QUICK) as url:
        alice = await clients.hello(url, "Alice")
        bob = await clients.hello(url, "Bob")
        race = await open_race(alice)
        await bob.request(Spectate(race=race), Spectating)
        await play_and_resign(alice, race, moves)
        results = await alice.next(RaceFinished, timeout=TIMEOUT)
        assert results.analysis is None  # the results did not wait for it
        pushed = await alice.next(RaceAnalysed, timeout=TIMEOUT)
        watched = await bob.next(RaceAnalysed, timeout=TIMEOUT)
        again = await alice.request(GetResults(race=race), RaceFinished)

    assert pushed.race == race and watched.analysis == pushed.analysis == again.analysis
    analysis = pushed.analysis
    racer = analysis.of(alice.player)
    assert racer is not None and racer.verdict is Winnability.LOST and racer.move is not None
    # The move it names is the one that lost: winnable before it, not after.
    assert outcome_after(DEAL, moves[: racer.move - 1]) is Outcome.WINNABLE
    assert outcome_after(DEAL, moves[: racer.move]) is Outcome.UNWINNABLE
    assert racer.text == moves[racer.move - 1]
    # The par is the length of the solver's line from the opening.
    opening = solve_deal(find_variant("quadrille"), DEAL, seconds=TIMEOUT, clock=time.monotonic)
    assert analysis.par == len(opening.line)
    assert racer.describe(analysis.par) == (
        f"winnable until move {racer.move} ({racer.text}); par {analysis.par} moves"
    )


async def test_undecided_analysis_is_unknown(make_node: NodeFactory, clients: Clients) -> None:
    """With no time for the solver, the analysis still comes, and says ``unknown``."""
    async with make_node(solving=Solving(workers=1, analysis=0.0)) as url:
        alice = await clients.hello(url, "Alice")
        race = await open_race(alice)
        await play_and_resign(alice, race, losing_moves(DEAL)[:3])
        await alice.next(RaceFinished, timeout=TIMEOUT)
        pushed = await alice.next(RaceAnalysed, timeout=TIMEOUT)
    assert pushed.race == race
    racer = pushed.analysis.of(alice.player)
    assert racer is not None and racer.verdict is Winnability.UNKNOWN


async def test_results_do_not_wait_for_a_busy_solver(
    make_node: NodeFactory, clients: Clients
) -> None:
    """With the node's only solver worker busy, the results go out at once; the analysis
    comes after the worker is free."""
    async with make_node(solving=QUICK) as url:
        pool = NODES[url].races.solver
        alice = await clients.hello(url, "Alice")
        race = await open_race(alice)
        busy = asyncio.create_task(pool.run(TIMEOUT, time.sleep, TIMEOUT / 4))  # the only worker
        await play_and_resign(alice, race, losing_moves(DEAL)[:2])
        results = await alice.next(RaceFinished, timeout=TIMEOUT)
        stored = await NODES[url].races.results.stored_results(race)
        assert stored is not None and stored.analysis is None  # still waiting for the worker
        assert not busy.done()
        pushed = await alice.next(RaceAnalysed, timeout=TIMEOUT)
        await busy
    assert results.analysis is None and pushed.race == race

"""Winnable deals, par and hints: the solver in races, over real websockets and Redis."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from client.bot import start_bot
from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.lobby import RaceSummary
from protocol.messages import (
    CreateRace,
    GetHint,
    GetResults,
    GetTournamentRecord,
    Hinted,
    HintOutcome,
    Moved,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
    TournamentRecord,
)
from server.engine import find_variant
from server.rules.races import commitment
from server.rules.record import verify
from server.settings import Solving
from tests.server.conftest import TIMEOUT, Clients, NodeFactory
from tests.server.hosting import FAST, host_tournament, run_bots

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

#: Quadrille deals are decided in well under a second: a search finds one at once.
QUICK_SOLVER = Solving(workers=1, winnable=TIMEOUT, hint=TIMEOUT / 2)


async def open_race(session: ClientSession, **options: Any) -> RaceSummary:
    """A one-seat Quadrille race created by ``session`` (not yet started)."""
    created = await session.request(
        CreateRace(
            variant="quadrille",
            max_players=1,
            time_limit=600,
            spectate=SpectatePolicy.AFTER,
            **options,
        ),
        RaceInfo,
    )
    return created.race


async def test_winnable_race_reveals_a_line_that_verifies(
    make_node: NodeFactory, clients: Clients
) -> None:
    """A winnable deal is proved before the commitment; the results give its line and par."""
    async with make_node(solving=QUICK_SOLVER) as url:
        alice = await clients.hello(url, "Alice")
        info = await open_race(alice, winnable=True)
        assert info.winnable == "proved" and info.practice is False
        assert "line" not in info.to_data() and "seed" not in info.to_data()  # secret for now
        race = str(info.id)
        await alice.request(StartRace(race=race), RaceInfo)
        started = await alice.next(RaceStarted)
        await alice.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
        await alice.request(Resign(race=race), RaceInfo)
        results = await alice.next(RaceFinished, timeout=TIMEOUT)
        # Read again later (a profile's link), the results still carry the line and par.
        again = await alice.request(GetResults(race=race), RaceFinished)
        assert (again.line, again.par) == (results.line, results.par)

    assert commitment("quadrille", results.deal_version, results.seed, race) == info.commitment
    assert results.line and results.par == len(results.line)
    game = find_variant("quadrille")
    assert game.is_won(game.replay(results.seed, list(results.line), results.deal_version))
    # Anyone can check it with the command line, from the results as given.
    verified = subprocess.run(
        [
            sys.executable, "-m", "server.cli", "solve", "quadrille", "--seed", str(results.seed),
            "--deal-version", str(results.deal_version), "--verify",
            "--line", ", ".join(results.line),
        ],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("wins:")


async def test_no_winnable_deal_in_time_falls_back_and_says_so(
    make_node: NodeFactory, clients: Clients
) -> None:
    """With no time to search, the race gets a plain secret deal, marked as a fallback."""
    async with make_node(solving=Solving(workers=1, winnable=0.0)) as url:
        alice = await clients.hello(url, "Alice")
        info = await open_race(alice, winnable=True)
        assert info.winnable == "fallback"
        race = str(info.id)
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(Resign(race=race), RaceInfo)
        results = await alice.next(RaceFinished, timeout=TIMEOUT)
    assert results.line is None and results.par is None


async def test_a_plain_race_has_no_winnable_mark(node: str, clients: Clients) -> None:
    """Without the option, info says nothing about winnability and no solve happens."""
    alice = await clients.hello(node, "Alice")
    info = await open_race(alice)
    assert info.winnable is None and info.practice is False


async def test_hints_are_refused_outside_practice_races(
    make_node: NodeFactory, clients: Clients
) -> None:
    """A race against others gives no hints; nor does a practice race before it starts."""
    async with make_node(solving=QUICK_SOLVER) as url:
        alice = await clients.hello(url, "Alice")
        race = str((await open_race(alice)).id)
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        with pytest.raises(RequestFailed) as refused:
            await alice.request(GetHint(race=race), Hinted)
        assert refused.value.code is ErrorCode.NOT_ALLOWED

        practice = str((await open_race(alice, practice=True)).id)
        with pytest.raises(RequestFailed) as early:
            await alice.request(GetHint(race=practice), Hinted)
        assert early.value.code is ErrorCode.RACE_NOT_OPEN


async def test_following_hints_wins_a_practice_race(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Each hint is a legal move, and playing the hints to the end wins the game."""
    async with make_node(solving=QUICK_SOLVER) as url:
        alice = await clients.hello(url, "Alice")
        info = await open_race(alice, practice=True, winnable=True)
        assert info.practice is True
        race = str(info.id)
        await alice.request(StartRace(race=race), RaceInfo)
        legal = list((await alice.next(RaceStarted)).legal)
        seq, won = 0, False
        async with asyncio.timeout(4 * TIMEOUT):
            while legal:
                hint = await alice.request(GetHint(race=race), Hinted)
                assert hint.seq == seq and hint.outcome is HintOutcome.WINNABLE
                assert hint.move in legal
                moved = await alice.request(SubmitMove(race=race, seq=seq, move=hint.move), Moved)
                legal, seq, won = list(moved.legal), seq + 1, bool(moved.progress.won)
        assert won
        # Bob, who is not racing here, gets no hint.
        bob = await clients.hello(url, "Bob")
        with pytest.raises(RequestFailed) as refused:
            await bob.request(GetHint(race=race), Hinted)
        assert refused.value.code is ErrorCode.NOT_A_RACER


async def test_a_stuck_board_gets_no_win_from_here(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Dealing the whole stock away without a look leaves a position the solver calls lost."""
    async with make_node(solving=QUICK_SOLVER) as url:
        alice = await clients.hello(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant="royal-parade", max_players=1, time_limit=600,
                spectate=SpectatePolicy.AFTER, practice=True, deal=1,
            ),
            RaceInfo,
        )  # fmt: skip
        race = str(created.race.id)
        await alice.request(StartRace(race=race), RaceInfo)
        legal, seq = list((await alice.next(RaceStarted)).legal), 0
        while "deal" in legal:
            moved = await alice.request(SubmitMove(race=race, seq=seq, move="deal"), Moved)
            legal, seq = list(moved.legal), seq + 1
        hint = await alice.request(GetHint(race=race), Hinted)
    assert hint.seq == seq
    assert hint.outcome is HintOutcome.LOST and hint.move is None


async def test_winnable_tournament_stages_reveal_their_lines(make_node: NodeFactory) -> None:
    """Every table of a winnable tournament races a proved deal; the record holds its line."""
    async with make_node(timeouts=FAST, solving=QUICK_SOLVER) as url:
        host, doc = await host_tournament(
            url, format="rounds", variants=["quadrille"], rounds=1, winnable=True
        )
        await run_bots([url], doc.code, 2, host, doc.id)
        record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
        await host.close()
    assert verify(record.record) == []
    [race] = record.record["races"].values()
    game = find_variant("quadrille")
    assert race["par"] == len(race["line"]) > 0
    assert game.is_won(game.replay(race["seed"], race["line"], race["deal_version"]))


@pytest.mark.parametrize("practice", [True, False])
async def test_solver_bot_wins_with_hints_and_plays_greedy_without(
    make_node: NodeFactory, clients: Clients, practice: bool
) -> None:
    """The solver level wins a winnable practice deal in par moves; elsewhere it plays greedy."""
    async with make_node(solving=QUICK_SOLVER) as url:
        alice = await clients.hello(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER,
                winnable=True, practice=practice,
            ),
            RaceInfo,
        )  # fmt: skip
        bot = await start_bot(url, code=str(created.race.code), strategy="solver", speed=0)
        race = str(created.race.id)
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(Resign(race=race), RaceInfo)
        assert bot.task is not None
        async with asyncio.timeout(4 * TIMEOUT):
            results = await bot.task
    assert results is not None
    [standing] = [s for s in results.standings if s.player == bot.player]
    if practice:
        assert standing.status == "won" and standing.moves == results.par
    else:
        assert results.logs[bot.player or ""]  # it played on, greedy, without hints


async def test_a_hint_from_another_node_matches_the_line(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Any node can answer a hint: each solves with its own pool, from the board in Redis."""
    async with make_node(solving=QUICK_SOLVER) as a, make_node(solving=QUICK_SOLVER) as b:
        alice = await clients.hello(a, "Alice")
        info = await open_race(alice, practice=True, winnable=True)
        race = str(info.id)
        await alice.request(StartRace(race=race), RaceInfo)
        legal = list((await alice.next(RaceStarted)).legal)
        first = await alice.request(GetHint(race=race), Hinted)
        assert first.move in legal
        await alice.request(SubmitMove(race=race, seq=0, move=first.move), Moved)
        assert alice.welcome is not None
        elsewhere = await clients.hello(b, "Alice", token=alice.welcome.token)
        second = await elsewhere.request(GetHint(race=race), Hinted)
        assert second.seq == 1 and second.outcome is HintOutcome.WINNABLE
        moved = await elsewhere.request(SubmitMove(race=race, seq=1, move=str(second.move)), Moved)
        assert moved.seq == 1

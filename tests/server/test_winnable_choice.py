"""Winnable deals a third party can check: the first winnable candidate of a revealed draw."""

from __future__ import annotations

import asyncio
import calendar
import copy
import hashlib
import subprocess
import sys
import time

import pytest

from protocol.cli import main
from protocol.messages import (
    CreateRace,
    Daily,
    GetDaily,
    GetTournamentRecord,
    Matched,
    PlayDaily,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    TournamentRecord,
    deal_commitment,
)
from server.engine import DEAL_VERSION, find_variant
from server.engine.solver import solve_deal
from server.rules.races import commitment
from server.rules.record import verify
from server.rules.winnable import (
    CANDIDATES,
    RULE,
    candidate_seed,
    check_choice,
    choose_winnable,
)
from server.rules.winnable import NODES as SOLVER_NODES
from server.settings import Solving
from tests.server.accounts import account
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.days import tomorrow
from tests.server.hosting import FAST, host_tournament, run_bots

QUADRILLE = find_variant("quadrille")
CONTRADANCE = find_variant("contradance")


def test_a_candidate_is_the_documented_hash_of_the_draw() -> None:
    """Candidate k: the first 8 bytes of SHA-256 of the documented text, big-endian; the
    rule's version is in the text, and every version's candidates stay what they were."""
    digest = hashlib.sha256(b"ballroom-winnable/v1/quadrille/1/42/0").digest()
    assert candidate_seed("quadrille", 1, 42, 0, rule=1) == int.from_bytes(digest[:8], "big")
    assert candidate_seed("quadrille", 1, 42, 0, rule=1) == 6520596977819580406  # golden
    assert candidate_seed("quadrille", 1, 42, 1, rule=1) == 13849531534153749382
    digest = hashlib.sha256(f"ballroom-winnable/v{RULE}/quadrille/1/42/0".encode()).digest()
    assert candidate_seed("quadrille", 1, 42, 0) == int.from_bytes(digest[:8], "big")
    assert candidate_seed("quadrille", 1, 42, 0, rule=2) == 16555522284582345395  # golden
    assert candidate_seed("quadrille", 1, 42, 0, rule=3) == 12826851841987947057  # golden


def test_the_choice_is_the_first_winnable_candidate_and_reproducible() -> None:
    """The same draw gives the same deal; every candidate before it is not proved winnable."""
    draw = 13
    choice = choose_winnable(QUADRILLE, draw, DEAL_VERSION)
    assert choice == choose_winnable(QUADRILLE, draw, DEAL_VERSION)
    assert choice.proved and choice.pick == 2  # draw 13: candidates 0 and 1 are not winnable
    assert choice.seed == candidate_seed("quadrille", DEAL_VERSION, draw, choice.pick)
    for k in range(choice.pick):
        earlier = solve_deal(
            QUADRILLE, candidate_seed("quadrille", DEAL_VERSION, draw, k), nodes=SOLVER_NODES
        )
        assert not earlier.won
    assert (
        check_choice(
            QUADRILLE, DEAL_VERSION, draw=draw, pick=choice.pick, seed=choice.seed, line=choice.line
        )
        == []
    )


def test_a_rarely_won_game_looks_past_the_sixteenth_candidate() -> None:
    """About one Contradance deal in eighteen is winnable: draw 2's first proved candidate
    is its 38th, which the first 16 (the limit until 27 November 2026) missed, leaving a
    plain deal. It checks out like any other choice."""
    assert CANDIDATES >= 64
    choice = choose_winnable(CONTRADANCE, 2, DEAL_VERSION)
    assert choice.proved and choice.pick == 37
    assert not choose_winnable(CONTRADANCE, 2, DEAL_VERSION, candidates=16).proved
    problems = check_choice(
        CONTRADANCE, DEAL_VERSION, draw=2, pick=37, seed=choice.seed, line=choice.line
    )
    assert problems == []


def test_a_later_candidate_or_a_foreign_seed_is_caught() -> None:
    """Skipping a winnable candidate, or dealing a seed the draw does not give, is reported."""
    first = choose_winnable(QUADRILLE, 2, DEAL_VERSION)
    assert first.pick == 0  # draw 2: candidate 0 is winnable
    later = candidate_seed("quadrille", DEAL_VERSION, 2, 1)
    line = solve_deal(QUADRILLE, later, nodes=SOLVER_NODES).line
    assert line  # candidate 1 is winnable too: dealing it skips candidate 0
    skipped = check_choice(QUADRILLE, DEAL_VERSION, draw=2, pick=1, seed=later, line=line)
    assert skipped == [f"candidate 0 (seed {first.seed}) is winnable too, and comes first"]
    seed, line = first.seed, first.line
    foreign = check_choice(QUADRILLE, DEAL_VERSION, draw=9, pick=0, seed=seed, line=line)
    assert foreign == [f"seed {first.seed} is not candidate 0 of draw 9"]


def test_a_line_that_does_not_play_is_named_by_its_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``ballroom winnable`` given a line with a move that is not a move, or not legal
    there, says which move and why (exit 1); it never ends in a traceback."""
    seed = candidate_seed("quadrille", DEAL_VERSION, 13, 2)
    args = ["winnable", "quadrille", "--draw", "13", "--pick", "2", "--seed", str(seed)]
    assert main([*args, "--line", "deal, zz"]) == 1
    assert capsys.readouterr().out == (
        "✗ the line does not win the deal: move 2 ('zz') is refused: not a move: 'zz'\n"
    )
    assert main([*args, "--line", "p9>f1"]) == 1
    assert "move 1 ('p9>f1') is refused" in capsys.readouterr().out


@pytest.mark.usefixtures("no_errors_logged")
async def test_a_winnable_race_reveals_a_draw_that_checks_out(
    make_node: NodeFactory, clients: Clients
) -> None:
    """The results reveal the draw and the candidate; ballroom winnable checks them."""
    solving = Solving(workers=1, winnable=TIMEOUT, hint=1.0)
    async with make_node(solving=solving) as url:
        alice = await clients.hello(url, "Alice")
        created = await alice.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=600, winnable=True,
                spectate=SpectatePolicy.AFTER,
            ),
            RaceInfo,
        )  # fmt: skip
        info = created.race
        assert info.winnable == "proved"
        assert "draw" not in info.to_data()  # secret until the results
        race = str(info.id)
        await alice.request(StartRace(race=race), RaceInfo)
        await alice.next(RaceStarted)
        await alice.request(Resign(race=race), RaceInfo)
        results = await alice.next(RaceFinished, timeout=TIMEOUT)

    assert commitment("quadrille", results.deal_version, results.seed, race) == info.commitment
    assert results.draw is not None and results.pick is not None and results.line
    draw, pick = results.draw, results.pick
    assert results.seed == candidate_seed("quadrille", results.deal_version, draw, pick)
    checked = subprocess.run(
        [
            sys.executable, "-m", "server.cli", "winnable", "quadrille", "--draw", str(draw),
            "--pick", str(pick), "--seed", str(results.seed),
            "--deal-version", str(results.deal_version), "--line", ", ".join(results.line),
        ],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("✓ the first winnable candidate")


@pytest.mark.usefixtures("no_errors_logged")
async def test_the_daily_deal_is_its_draws_first_winnable_deal(
    make_node: NodeFactory, clients: Clients
) -> None:
    """The day's deal is chosen as a winnable race's is; its results, once revealed, say how."""
    solving = Solving(workers=1, winnable=TIMEOUT, hint=1.0)
    async with make_node(solving=solving) as url:
        ann = await account(clients, url, "Ann")
        today = (await ann.request(GetDaily(variant="quadrille"), Daily)).daily
        matched = await ann.request(PlayDaily(variant="quadrille"), Matched)
        await ann.next(RaceStarted, timeout=TIMEOUT)
        await ann.request(Resign(race=matched.race), RaceInfo)
        results = NODES[url].races.results
        async with asyncio.timeout(TIMEOUT):
            # Polled: closed just after, and analysed after that (the results still held).
            while (stored := await results.stored_results(matched.race)) is None or (
                stored.analysis is None
            ):
                await asyncio.sleep(0.02)
        daily = NODES[url].daily
        midnight = calendar.timegm(time.strptime(today.day, "%Y-%m-%d")) + 24 * 3600
        daily.clock = lambda: tomorrow(midnight - 1)  # the day is revealed
        await daily.tick()
        finished = await ann.next(RaceFinished, timeout=TIMEOUT)

    assert today.commitment == deal_commitment(
        "quadrille", finished.deal_version, finished.seed, f"daily-{today.day}"
    )
    assert finished.draw is not None and finished.pick is not None and finished.line
    # The analysis done while the results were held is announced with them.
    assert finished.analysis is not None and finished.analysis.par == len(finished.line)
    assert check_choice(
        QUADRILLE, finished.deal_version, draw=finished.draw, pick=finished.pick,
        seed=finished.seed, line=finished.line,
    ) == []  # fmt: skip


async def test_a_winnable_tournament_record_proves_each_deal_was_the_first_winnable(
    make_node: NodeFactory,
) -> None:
    """tournament verify checks each table's draw and pick; a wrong draw is caught."""
    solving = Solving(workers=1, winnable=TIMEOUT, hint=1.0)
    async with make_node(timeouts=FAST, solving=solving) as url:
        host, doc = await host_tournament(
            url, format="rounds", variants=["quadrille"], rounds=1, winnable=True
        )
        await run_bots([url], doc.code, 2, host, doc.id)
        record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
        await host.close()
    assert verify(record.record) == []
    [(race, closed)] = record.record["races"].items()
    assert isinstance(closed["draw"], int) and isinstance(closed["pick"], int)
    tampered = copy.deepcopy(record.record)
    tampered["races"][race]["draw"] = closed["draw"] + 1
    # Another draw may also put a winnable candidate before the pick: one more problem.
    problems = verify(tampered)
    assert problems[0].startswith(f"{race}: seed {closed['seed']} is not candidate")

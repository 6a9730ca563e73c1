"""Whole tournaments over real websockets on two nodes, played to the end by bots."""

from __future__ import annotations

import asyncio
import csv
import json
import sys
from pathlib import Path

import pytest

from client.tournament_bot import TournamentBot
from protocol.cli import main
from protocol.messages import (
    GetTournamentRecord,
    ManageTournament,
    TournamentAction,
    TournamentInfo,
    TournamentRecord,
)
from server.rules.record import verify
from server.settings import Timeouts
from server.storage import keys
from server.storage.store import Store
from tests.processes import ROOT
from tests.server.conftest import TIMEOUT, NodeFactory, ProcessFactory
from tests.server.hosting import FAST, QUICK, host_tournament, run_bots

pytestmark = pytest.mark.slow


async def test_rounds_tournament_with_ten_bots_on_two_nodes(make_node: NodeFactory) -> None:
    """Ten entrants, two rounds at tables of at most 8: standings, tie-breaks, seeds verify."""
    async with make_node(timeouts=FAST) as a, make_node(timeouts=FAST) as b:
        host, doc = await host_tournament(
            a, format="rounds", variants=["gavotte", "quadrille"], rounds=2
        )
        finals = await run_bots([a, b], doc.code, 10, host, doc.id)
        record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
        await host.close()

    final = finals[0]
    assert final.status == "finished"
    assert [s.variant for s in final.stages] == ["gavotte", "quadrille"]
    for stage in final.stages:
        assert [len(r.players) for r in stage.races] == [5, 5]  # 10 at tables of <= 8
        assert len({r.seed for r in stage.races}) == 1  # one deal per round
        # 10 + 9 + … + 1 points, racers tied sharing what their places earn.
        results = sorted(stage.results.values(), key=lambda r: r.place)
        assert sum(r.points for r in results) == 55
        assert [r.points for r in results] == sorted((r.points for r in results), reverse=True)
    standings = final.standings
    assert len(standings) == 10
    ranks = [(-s.points, -s.home, round(s.time * 10)) for s in standings]  # time in tenths
    assert ranks == sorted(ranks)
    totals = {s.player: 0.0 for s in standings}
    for stage in final.stages:
        for player, result in stage.results.items():
            totals[player] += result.points
    assert {s.player: s.points for s in standings} == totals
    assert verify(record.record) == []
    assert len(record.record["races"]) == 4


async def test_knockout_with_five_entrants_gives_byes(make_node: NodeFactory) -> None:
    """Five entrants: three byes in round one, best of three, one champion; seeds verify."""
    async with make_node(timeouts=FAST) as a, make_node(timeouts=FAST) as b:
        host, doc = await host_tournament(
            a, format="knockout", variants=["gavotte"], best_of=3, rounds=1
        )
        finals = await run_bots([a, b], doc.code, 5, host, doc.id)
        record = await host.request(GetTournamentRecord(tournament=doc.id), TournamentRecord)
        await host.close()

    final = finals[0]
    assert final.status == "finished"
    entrants = [e.player for e in final.entrants]
    first = final.bracket[0]
    # Seeds 1, 2 and 3 have byes; 4 meets 5.
    byes = [m for m in first if m.a is None or m.b is None]
    assert {m.winner for m in byes} == set(entrants[:3])
    played = [m for m in first if m not in byes]
    assert [{played[0].a, played[0].b}] == [{entrants[3], entrants[4]}]
    assert [len(r) for r in final.bracket] == [4, 2, 1]
    for matches in final.bracket:
        for match in matches:
            if match.a is not None and match.b is not None:
                assert max(match.wins) == 2 and match.winner is not None
    final_match = final.bracket[-1][0]
    champion = final_match.winner
    assert final.champion == champion
    assert final.standings[0].player == champion
    runner_up = ({final_match.a, final_match.b} - {champion}).pop()
    assert final.standings[1].player == runner_up
    assert verify(record.record) == []


async def test_node_killed_mid_tournament(node_processes: ProcessFactory) -> None:
    """SIGKILL of a node in round two: its entrants carry on from the other, the schedule
    goes on, every round scores every entrant, and the record verifies."""
    a, b = await asyncio.to_thread(node_processes, 2)
    host, doc = await host_tournament(
        b.url, format="rounds", variants=["gavotte"], rounds=3, time_limit=60
    )
    bots = [
        TournamentBot(
            first.url, name=f"Bot {i}", speed=40, seed=i, patience=QUICK, fallbacks=[other.url]
        )
        for i, (first, other) in enumerate([(a, b), (b, a)] * 3)
    ]
    tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*(bot.joined.wait() for bot in bots))
    await host.request(
        ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
    )
    async with asyncio.timeout(4 * TIMEOUT):
        while True:
            pushed = await host.next(TournamentInfo, timeout=TIMEOUT)
            if len(pushed.tournament.stages) == 2:
                break
    await asyncio.to_thread(a.kill)

    async with asyncio.timeout(8 * TIMEOUT):
        finals = await asyncio.gather(*tasks)
    record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
    await host.close()
    final = finals[0]
    assert final.status == "finished"
    assert [s.status for s in final.stages] == ["done"] * 3
    for stage in final.stages:
        assert len(stage.results) == 6
        assert "resigned" not in {r.status for r in stage.results.values()}
    assert verify(record.record) == []


async def test_export_and_verify_from_the_command_line(
    make_node: NodeFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str], store: Store
) -> None:
    """`ballroom tournament export` writes JSON that `verify` accepts, and CSV with a row
    per racer per race; a record with a forged seed or log fails to verify."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(url, format="rounds", variants=["quadrille"], rounds=2)
        await run_bots([url], doc.code, 3, host, doc.id)
        await host.close()
        json_path, csv_path = tmp_path / "record.json", tmp_path / "record.csv"
        for fmt, path in (("json", json_path), ("csv", csv_path)):
            args = ["tournament", "export", doc.code, "--server", url, "--format", fmt]
            assert await asyncio.to_thread(main, [*args, "-o", str(path)]) == 0
        # A file it cannot write: said in one line, no traceback.
        nowhere = tmp_path / "no" / "such" / "record.json"
        args = ["tournament", "export", doc.code, "--server", url, "-o", str(nowhere)]
        assert await asyncio.to_thread(main, args) == 1
        err = capsys.readouterr().err
        assert f"cannot write {nowhere}: No such file or directory" in err
        assert "Traceback" not in err

    # Kept for a while once over, then Redis lets it go: the tournament and every race.
    keep = Timeouts().keep_finished
    race = next(iter(json.loads(json_path.read_text())["races"]))
    for key in (keys.tournament_meta(doc.id), keys.race_meta(race), keys.race_events(race)):
        assert 0 < await store.redis.ttl(key) <= keep
    assert main(["tournament", "verify", str(json_path)]) == 0
    assert "verified: 2 races" in capsys.readouterr().out
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == 6 and {r["stage"] for r in rows} == {"1", "2"}
    assert all(r["seed"] and len(r["commitment"]) == 64 for r in rows)

    record = json.loads(json_path.read_text())
    race = next(iter(record["races"].values()))
    race["seed"] += 1
    json_path.write_text(json.dumps(record))
    assert main(["tournament", "verify", str(json_path)]) == 1
    race["seed"] -= 1
    player, log = next((p, log) for p, log in race["logs"].items() if log)
    race["logs"][player] = log[:-1]
    json_path.write_text(json.dumps(record))
    assert main(["tournament", "verify", str(json_path)]) == 1
    assert "log gives" in capsys.readouterr().out


async def test_bot_command_enters_a_tournament_and_prints_its_standings(
    make_node: NodeFactory,
) -> None:
    """`ballroom bot --tournament CODE` enters, races its seats to the end, then prints
    the final standings, a line per entrant in place order."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(url, format="rounds", variants=["quadrille"], rounds=1)
        command = [
            sys.executable, "-m", "client.cli", "bot",
            "--tournament", doc.code, "--server", url, "--speed", "0", "--name", "Robo",
        ]  # fmt: skip
        process = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:
            finals = await run_bots([url], doc.code, 1, host, doc.id, entrants=2)
            async with asyncio.timeout(3 * TIMEOUT):
                out, err = await process.communicate()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            await host.close()
    assert process.returncode == 0, err.decode()
    standings = finals[0].standings
    assert sorted(s.name for s in standings) == ["Bot 0", "Robo"]
    lines = out.decode().splitlines()
    assert len(lines) == len(standings)
    for line, row in zip(lines, standings, strict=True):
        assert line.startswith(f"{row.place:>2}. {row.name} ") and f" {row.points:g} pts " in line

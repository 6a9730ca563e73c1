"""Arenas over real websockets on two nodes, played to the end by bots (docs/tournaments.md)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from client.session import ClientSession, RequestFailed
from client.tournament_bot import TournamentBot
from protocol.cli import main
from protocol.exceptions import ErrorCode
from protocol.messages import (
    GetTournamentRecord,
    JoinTournament,
    ManageTournament,
    PauseArena,
    TournamentAction,
    TournamentInfo,
    TournamentRecord,
)
from protocol.tournaments import Record, StageStatus, Tournament
from server.rules.arena import replayed_points
from server.rules.record import verify
from tests.processes import ROOT
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK, host_tournament, run_bots, whole_record

pytestmark = pytest.mark.slow

ARENA = {
    "format": "arena",
    "variants": ["quadrille"],
    "duration": 10,
    "cutoff": 2,
    "table_size": 3,
    "time_limit": 30,
}


def never_in_two_races(doc: Tournament) -> None:
    """No entrant sits in two races under way at once."""
    seats = [p for stage in doc.running_stages for t in stage.races for p in t.players]
    assert len(seats) == len(set(seats)), seats


async def test_arena_with_bots_on_two_nodes_to_its_end(make_node: NodeFactory) -> None:
    """Five bots race a 10 s arena on two nodes, a sixth enters late, a seventh pauses
    before the start and never races: groups of at most 3, nobody in two races, every
    race scored by place and streak, standings by points, and the record verifies."""
    async with make_node(timeouts=FAST) as a, make_node(timeouts=FAST) as b:
        host, doc = await host_tournament(a, **ARENA)
        bots = [
            TournamentBot((a, b)[i % 2], name=f"Bot {i}", speed=0, seed=i, patience=QUICK)
            for i in range(6)
        ]
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots[:5]]
        away = await ClientSession.connect(b, "Away")
        await away.request(JoinTournament(code=doc.code), TournamentInfo)
        paused = await away.request(PauseArena(tournament=doc.id, paused=True), TournamentInfo)
        assert paused.tournament.entrant(away.player).paused  # type: ignore[union-attr]
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(bot.joined.wait() for bot in bots[:5]))
        started = await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        assert started.tournament.ends_at is not None
        # Late entry: the sixth bot enters the running arena.
        tasks.append(asyncio.create_task(bots[5].run(code=doc.code)))
        final = None
        async with asyncio.timeout(6 * TIMEOUT):
            while final is None or not final.status.over:
                pushed = await host.next(TournamentInfo, timeout=TIMEOUT)
                never_in_two_races(pushed.tournament)
                final = pushed.tournament
            finals = await asyncio.gather(*tasks)
        raw = await whole_record(host, code=doc.code)
        record = Record.from_data(raw)
        with pytest.raises(RequestFailed) as refused:
            await away.request(PauseArena(tournament=doc.id, paused=False), TournamentInfo)
        assert refused.value.code is ErrorCode.RACE_OVER
        await away.close()
        await host.close()

    assert final.status == "finished" and finals[0].status == "finished"
    # Every race, the ones the document archived too (it keeps the newest scored ones).
    stages = record.tournament.stages
    assert len(stages) == final.stages_played >= 2
    assert all(s.status is StageStatus.DONE for s in stages)
    assert all(2 <= len(s.races[0].players) <= 3 for s in stages)
    assert len({s.races[0].seed for s in stages}) == len(stages)  # fresh deals
    raced = {p for s in stages for p in s.races[0].players}
    assert away.player not in raced
    assert bots[5].player in raced  # the late entrant raced
    # Every entrant's points: the sum over their races by the table, streaks included.
    points = replayed_points((s.n, {p: r.place for p, r in s.results.items()}) for s in stages)
    totals = {e.player: 0 for e in final.entrants}
    for (_, player), earned in points.items():
        totals[player] += earned
    assert {s.player: s.points for s in final.standings} == totals
    ranks = [(-s.points, -s.wins) for s in final.standings]
    assert ranks == sorted(ranks)
    assert verify(raw) == []
    assert len(record.races) == len(stages)


async def test_bot_command_races_an_arena_and_prints_its_standings(
    make_node: NodeFactory, tmp_path: Path
) -> None:
    """`ballroom bot --tournament CODE` enters an arena, races every race it is grouped
    into, and prints the final standings with each entrant's races and wins; `tournament
    export` writes the record and `tournament verify` accepts it, points included."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(url, **{**ARENA, "table_size": 2})
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
            record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)
            exported = tmp_path / "arena.json"
            args = ["tournament", "export", doc.code, "--server", url, "-o", str(exported)]
            assert await asyncio.to_thread(main, args) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            await host.close()
    assert process.returncode == 0, err.decode()
    final = finals[0]
    assert final.arena and final.status == "finished"
    robo = next(s for s in final.standings if s.name == "Robo")
    assert robo.races >= 1
    lines = out.decode().splitlines()
    assert len(lines) == len(final.standings)
    for line, row in zip(lines, final.standings, strict=True):
        assert line.startswith(f"{row.place:>2}. {row.name} ")
        assert f" {row.points:g} pts {row.races:>3} races {row.wins:>3} won" in line
    assert verify(record.record) == []
    assert main(["tournament", "verify", str(exported)]) == 0
    # A forged total fails: verify works every entrant's points out again.
    forged = json.loads(exported.read_text())
    forged["tournament"]["standings"][0]["points"] += 1
    exported.write_text(json.dumps(forged))
    assert main(["tournament", "verify", str(exported)]) == 1


async def test_away_entrants_are_paused_and_a_bot_comes_back(make_node: NodeFactory) -> None:
    """An entrant whose connection went away past the grace period is paused and grouped
    into no race after; a bot found paused asks to race again by itself."""
    async with make_node(timeouts=FAST) as url:
        host, doc = await host_tournament(url, **{**ARENA, "duration": 60, "grace": 1})
        bots = [
            TournamentBot(url, name=f"Bot {i}", speed=0, seed=i, patience=QUICK) for i in (0, 1)
        ]
        tasks = [asyncio.create_task(bot.run(code=doc.code)) for bot in bots]
        gone = await ClientSession.connect(url, "Gone")
        await gone.request(JoinTournament(code=doc.code), TournamentInfo)
        await gone.close()
        try:
            async with asyncio.timeout(TIMEOUT):
                await asyncio.gather(*(bot.joined.wait() for bot in bots))
            await host.request(
                ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
            )
            paused = await host.next(
                TournamentInfo,
                lambda m: bool((e := m.tournament.entrant(gone.player)) and e.paused),
                timeout=TIMEOUT,
            )
            last = max((s.n for s in paused.tournament.stages), default=0)
            # The bot's own player pauses it from another connection: it comes back.
            assert bots[0].token is not None
            other = await ClientSession.connect(url, "Bot 0", bots[0].token)
            pause = PauseArena(tournament=doc.id, paused=True)
            at_pause = (await other.request(pause, TournamentInfo)).tournament
            await other.close()
            assert at_pause.entrant(bots[0].player).paused  # type: ignore[union-attr]
            raced = max((s.n for s in at_pause.stages), default=0)

            def back(m: TournamentInfo) -> bool:
                """Not paused, and grouped into a race made after the pause. (The host may
                never see the paused document itself: a watcher is sent the newest.)"""
                entrant = m.tournament.entrant(bots[0].player)
                again = [s for s in m.tournament.running_stages if s.n > raced]
                seated = any(bots[0].player in s.races[0].players for s in again)
                return entrant is not None and not entrant.paused and seated

            await host.next(TournamentInfo, back, timeout=TIMEOUT)
        finally:
            cancelled = await host.request(
                ManageTournament(tournament=doc.id, action=TournamentAction.CANCEL), TournamentInfo
            )
            async with asyncio.timeout(2 * TIMEOUT):
                await asyncio.gather(*tasks, return_exceptions=True)
            await host.close()
    # Paused, the away entrant was grouped into no race after (a race of theirs under way
    # when they went away resigned them and scored).
    later = [s for s in cancelled.tournament.stages if s.n > last]
    assert all(gone.player not in s.races[0].players for s in later)

"""The soak, run short against real processes; and its verifier, shown to catch tampering."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.soak import RaceRecord, results_digest, verify_race
from protocol.messages import deal_commitment
from server.engine import find_variant
from server.services.moves import Moves
from server.storage.keys import BoardField
from server.storage.packing import pack, unpack

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_soak_holds_every_promise(tmp_path: Path) -> None:
    """Two nodes, races replaced as they end, some racers logged in and in quick races: no
    error, every race verified, memory bounded."""
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--seconds", "12", "--racers", "32",
         "--races", "4", "--spectators", "16", "--quick", "8", "--nodes", "2",
         "--report-every", "4",
         "--give-up", "4", "--strict", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    total, check = report["total"], report["verification"]
    assert total["errors"] == {}
    assert total["moves"] > 0 and total["boards"] > 0
    assert total["races"] > 4, "no race was replaced when it ended"
    assert check["failures"] == []
    quick = total["quick_races"]
    assert quick > 0, "no quick race was played"
    assert check["races"] == total["races"]
    assert check["logs"] == 8 * (total["races"] - quick) + 2 * quick
    assert all(report["memory"][f"node{i}"]["held"] for i in range(2))
    assert len(report["samples"]) == 3
    assert "verified" in done.stdout and "PASS" in done.stdout


# ----------------------------------------------------------------------
# The verifier on a race built here, as the server stores one.

RACE, SEED = "feedc0ffee", 31337
SNAPSHOT_EVERY = Moves.SNAPSHOT_EVERY
Stored = tuple[RaceRecord, dict[bytes, bytes], dict[bytes, bytes], dict[str, list[str]]]


def stored_race() -> Stored:
    """A finished two-racer quadrille race: what the soak saw, and what Redis holds."""
    game = find_variant("quadrille")
    commitment = deal_commitment(game.id, 1, SEED, RACE)
    boards: dict[bytes, bytes] = {}
    logs: dict[str, list[str]] = {}
    standings: list[dict[str, Any]] = []
    for player, moves in (("a1", 40), ("b2", 200)):
        rng, state, log = random.Random(player), game.deal(SEED, 1), list[str]()
        for _ in range(moves):
            legal = game.legal_moves(state)
            if not legal:
                break
            move = legal[rng.randrange(len(legal))]
            state, log = game.apply(state, move), [*log, move.text()]
            if len(log) % SNAPSHOT_EVERY == 0:  # as the server stores one now and then
                boards[BoardField.STATE.of(player).encode()] = pack(state.to_data())
                boards[BoardField.SNAP.of(player).encode()] = str(len(log)).encode()
        status = "won" if game.is_won(state) else "stuck" if game.is_over(state) else "resigned"
        boards |= {
            BoardField.SEQ.of(player).encode(): str(len(log)).encode(),
            BoardField.STATUS.of(player).encode(): status.encode(),
            BoardField.HOME.of(player).encode(): str(game.home(state)).encode(),
        }
        logs[player] = log
        standings.append(
            {"player": player, "status": status, "home": game.home(state), "moves": len(log)}
        )
    results: dict[str, Any] = {
        "standings": standings,
        "seed": SEED,
        "commitment": commitment,
        "deal_version": 1,
        "variant": game.id,
        "logs": logs,
    }
    meta = {
        b"status": b"finished",
        b"variant": game.id.encode(),
        b"seed": str(SEED).encode(),
        b"deal_version": b"1",
        b"results": pack(results),
    }
    record = RaceRecord(
        race=RACE,
        commitment=commitment,
        deal_version=1,
        opening=unpack(pack(game.view(game.deal(SEED, 1)))),  # as the racers decoded it
        moves={player: len(log) for player, log in logs.items()},
        resigned={s["player"] for s in standings if s["status"] == "resigned"},
        results=results_digest(results),
    )
    return record, meta, boards, logs


def test_the_verifier_passes_a_sound_race() -> None:
    """A race stored as the server stores one has nothing to report."""
    assert verify_race(*stored_race()) == []


def _lose_the_last_move(race: Stored) -> None:
    race[3]["a1"].pop()


def _reveal_another_seed(race: Stored) -> None:
    race[1][b"seed"] = str(SEED + 1).encode()


def _store_another_snapshot(race: Stored) -> None:
    race[2][b"state:a1"] = race[2][b"state:b2"]


def _forget_an_acknowledged_move(race: Stored) -> None:
    race[0].moves["b2"] += 1


def _send_other_results(race: Stored) -> None:
    race[0].results = b"not what Redis holds"


def _leave_the_race_running(race: Stored) -> None:
    race[1][b"status"] = b"started"


@pytest.mark.parametrize(
    ("tamper", "reported"),
    [
        (_lose_the_last_move, "stored move count differs from the log"),
        (_reveal_another_seed, "does not prove the commitment"),
        (_store_another_snapshot, "replay differs from the stored snapshot"),
        (_forget_an_acknowledged_move, "moves logged"),
        (_send_other_results, "did not get these results"),
        (_leave_the_race_running, "not finished"),
    ],
)
def test_the_verifier_catches_tampering(tamper: Callable[[Stored], None], reported: str) -> None:
    """Any one disagreement between the racers, the results and Redis is reported."""
    race = stored_race()
    tamper(race)
    assert any(reported in failure for failure in verify_race(*race))

"""The ``ballroom`` command's offline subcommands (deal and odds), and serve's options."""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from protocol.cards import card_text
from protocol.cli import main
from server import cli
from server.engine import VARIANTS, Game, find_variant
from server.rules.expert import BUDGETS, ExpertBudget, budget_for
from server.supervisor import worker_count


def test_deal_prints_the_face_up_cards_and_hides_the_stock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`ballroom deal` shows every face-up card of the opening and only a count for the stock."""
    assert main(["deal", "royal-cotillion", "--seed", "42"]) == 0
    out = capsys.readouterr().out
    game = find_variant("royal-cotillion")
    state = game.deal(42)
    assert "Royal Cotillion, deal 42" in out
    assert "[68]" in out
    lords = [state.piles[game.index[f"r{n}"]][0] for n in range(1, 17)]
    for card in lords:
        assert card_text(card) in out


def test_deal_legal_line_splits_back_into_the_legal_moves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The `legal:` line gives one item per move, even for Virginia Reel's swaps with spaces."""
    assert main(["deal", "virginia-reel", "--seed", "10"]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("legal: ")]
    game = find_variant("virginia-reel")
    legal = game.legal_moves(game.deal(10)).texts()
    assert any(" " in move for move in legal)  # the case the separator is for
    assert line.removeprefix("legal: ").split(", ") == legal


def test_odds_plays_every_variant_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    """The greedy bot finishes deals of all twelve variants and reports a rate with an interval."""
    assert main(["odds", "all", "-n", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(VARIANTS) == 12
    assert all("of 3" in line and "95% CI" in line for line in lines)


def test_odds_gives_the_expert_its_rule_sets_budget_and_the_samples_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`ballroom odds --strategy expert` measures the expert that hints and bots play:
    the rule set's own budget, with only what the command line says changed."""
    budgets: dict[str, ExpertBudget] = {}

    def measure(game: Game, *args: object, budget: ExpertBudget, **kwargs: object) -> Any:
        budgets[game.id] = budget
        return SimpleNamespace(summary=lambda: game.id)

    monkeypatch.setattr(cli, "measure_odds", measure)
    for variant in ("parisienne", "gavotte"):
        assert main(["odds", variant, "--strategy", "expert", "-n", "1"]) == 0
        assert budgets[variant] == budget_for(variant)
    assert main(["odds", "parisienne", "--strategy", "expert", "-n", "1", "--samples", "4"]) == 0
    assert budgets["parisienne"] == dataclasses.replace(BUDGETS["parisienne"], samples=4)


def test_unknown_variant_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown variant exits with argparse's usage error, not a traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(["deal", "whist", "--seed", "1"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("workers", ["0", "-1", "many", "2.5", "1025", "100000"])
def test_a_bad_worker_count_is_a_usage_error(
    workers: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ballroom serve --workers` takes a whole number from 1 to 1,024 or `auto`; anything
    else is said in argparse's usage error (exit 2) before anything starts (100,000 once
    ran out of file descriptors opening their sockets, in a traceback)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--workers", workers])
    assert exit_info.value.code == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["deal", "quadrille", "--seed", "-1"], "--seed: a seed must be 0..18446744073709551615"),
        (["deal", "quadrille", "--seed", "1", "--deal-version", "9"], "unknown deal version 9"),
        (["solve", "quadrille", "--seed", "x"], "--seed: a seed is a whole number, not 'x'"),
        (["solve", "quadrille", "--seed", "1", "--limit", "0"], "--limit: the limit must be"),
        (["solve", "quadrille", "--seed", "1", "--nodes", "0"], "--nodes: the node limit must"),
        (["odds", "quadrille", "-n", "-3"], "-n: the number of deals must be 1 or more"),
        (["odds", "quadrille", "--solver", "--jobs", "0"], "--jobs: the number of processes"),
        (
            ["winnable", "quadrille", "--draw", "-1", "--pick", "0", "--seed", "0"],
            "--draw: a draw must be 0..",
        ),
        (
            ["winnable", "quadrille", "--draw", "1", "--pick", "99999999", "--seed", "0"],
            "--pick: a pick must be 0..63",
        ),
        (["serve", "--port", "99999"], "--port: a port must be 0..65535"),
        (["bot", "--race", "ABC", "--speed", "-5"], "--speed: the speed must be 0"),
        (["bot", "--race", "ABC", "--server", "notaurl"], "is not a websocket URL"),
        (["tournament", "export", "ABC", "--server", "http://x/"], "is a web address"),
        (["bot", "--race", "A" * 500], "--race: must be 1..12 characters long, not 500"),
        (["bot", "--race", ""], "--race: must be 1..12 characters long, not 0"),
        (["bot", "--race-id", "r" * 41], "--race-id: must be 1..40 characters long"),
        (["bot", "--tournament", "T" * 13], "--tournament: must be 1..12 characters long"),
        (
            ["bot", "--tournament", "ABC", "--password", "p" * 5000],
            "--password: must be 1..64 characters long, not 5000",
        ),
        (["tournament", "export", "T" * 50], "code: must be 1..12 characters long, not 50"),
        (["odds", "quadrille", "--strategy", "expert", "--samples", "0"], "--samples: the number"),
        (["serve", "--allowed-origin", "not an origin"], "--allowed-origin: an origin is http(s)"),
        (["serve", "--allowed-origin", "https://x.org/page"], "--allowed-origin: an origin is"),
        (["serve", "--allowed-origin", "watch.example.org"], "--allowed-origin: an origin is"),
        (["serve", "--allowed-origin", "https://x.org:99999"], "--allowed-origin: an origin is"),
    ],
)
def test_a_value_out_of_its_range_is_a_usage_error(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeds, draws, picks, deal versions, counts, limits, ports, speeds, server URLs, and
    codes, ids and passwords past the wire's limits are said in argparse's usage error
    (exit 2), before any work: a negative count of deals once printed a share of -0.0%, a
    pick of 99,999,999 solved candidates for ever, port 99999 was said to be listened on,
    a bot retried a URL that was none seven times, and a join code of 500 letters ended
    the bot in a traceback when it built its request."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert said in capsys.readouterr().err


def test_a_line_file_that_cannot_be_read_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`solve --verify --line-file` names a file it cannot read (exit 2), no traceback."""
    missing = tmp_path / "missing.txt"
    args = ["solve", "--verify", "quadrille", "--seed", "0", "--line-file", str(missing)]
    assert main(args) == 2
    assert f"cannot read {missing}" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["odds", "quadrille", "-n", "2", "--seed-base", "18446744073709551615"],
        ["odds", "quadrille", "--solver", "-n", "1", "--seed-base", "18446744073709551000"],
    ],
    ids=["bot", "solver's greedy column"],
)
def test_seeds_past_the_last_are_a_usage_error(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`odds` from a seed whose run of deals (``-n``, or ``--bot-n`` for the solver's
    greedy column, 1,000 by default) passes the last seed says so (exit 2): it once ended
    in a traceback from the engine at the first seed past it."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "run past the last seed, 18446744073709551615" in err and "Traceback" not in err


@pytest.mark.parametrize("made", ["missing", "a folder"])
def test_a_named_expert_table_that_cannot_be_read_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], made: str
) -> None:
    """`odds --solver --keep-expert FILE` names a file it cannot read (exit 2) rather than
    printing a table whose expert column is silently empty; only the default, docs/odds.md,
    may be absent."""
    kept = tmp_path / "odds.md"
    if made == "a folder":
        kept.mkdir()
    args = ["odds", "quadrille", "--solver", "-n", "1", "--bot-n", "1", "--keep-expert", str(kept)]
    assert main(args) == 2
    said = capsys.readouterr()
    assert f"cannot read --keep-expert {kept}" in said.err and said.out == ""


def test_an_export_from_what_is_no_websocket_server_is_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`tournament export --server` at a port where something else answers (here, bytes
    that are no HTTP): one line naming the server and why (exit 1), no traceback."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def answer_garbage() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(b"garbage\r\n\r\n")

        thread = threading.Thread(target=answer_garbage)
        thread.start()
        url = f"ws://127.0.0.1:{port}/"
        assert main(["tournament", "export", "ABCD", "--server", url]) == 1
        thread.join()
    err = capsys.readouterr().err
    assert f"ballroom tournament export: cannot reach {url}:" in err and "Traceback" not in err


def test_auto_workers_is_one_per_usable_core() -> None:
    """`--workers auto` counts the cores this process may run on."""
    assert worker_count("auto") == len(os.sched_getaffinity(0))
    assert worker_count("3") == 3

"""``ballroom solve``, ``ballroom solve --verify`` and ``ballroom odds --solver``."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.cli import main
from server.engine import find_variant
from server.solve_command import parse_line


def solved_line(capsys: pytest.CaptureFixture[str], variant: str, seed: int) -> list[str]:
    assert main(["solve", variant, "--seed", str(seed), "--nodes", "100000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "winnable"
    assert out[1].startswith("line (")
    assert out[2].startswith("nodes ")
    return parse_line(out[1].split(": ", 1)[1])


def test_solve_prints_a_winning_line_the_engine_replays(capsys: pytest.CaptureFixture[str]) -> None:
    """A winnable deal prints `winnable`, a line that wins when replayed, and the nodes and time."""
    line = solved_line(capsys, "grand-duchess", 1)
    game = find_variant("grand-duchess")
    assert game.is_won(game.replay(1, line))


def test_solve_says_proved_for_a_lost_deal(capsys: pytest.CaptureFixture[str]) -> None:
    """Royal Parade deal 2 has no move but the deals: it is proved unwinnable."""
    assert main(["solve", "royal-parade", "--seed", "2", "--nodes", "1000"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "unwinnable (proved)"


def test_solve_within_a_tiny_node_limit_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    """A node limit too small to decide prints `unknown within limits`."""
    assert main(["solve", "royal-parade", "--seed", "0", "--nodes", "20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "unknown within limits"
    assert out[1].startswith("nodes 21,")


def test_verify_accepts_the_solver_line_from_text_and_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--verify` says `wins` for the solver's line, given inline or as a file of lines."""
    line = solved_line(capsys, "quadrille", 0)
    args = ["solve", "--verify", "quadrille", "--seed", "0"]
    assert main([*args, "--line", ", ".join(line)]) == 0
    assert capsys.readouterr().out.startswith("wins: ")
    path = tmp_path / "line.txt"
    path.write_text("\n".join(line) + "\n", encoding="utf-8")
    assert main([*args, "--line-file", str(path)]) == 0
    assert capsys.readouterr().out.startswith("wins: ")


def test_verify_refuses_short_and_illegal_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """A line that stops early or plays an illegal move does not win, and says why (exit 1)."""
    line = solved_line(capsys, "quadrille", 0)
    args = ["solve", "--verify", "quadrille", "--seed", "0", "--line"]
    assert main([*args, ", ".join(line[:-1])]) == 1
    assert "does not win" in capsys.readouterr().out
    assert main([*args, "deal, p1>f2"]) == 1
    assert "move 2 ('p1>f2') is refused: p1>f2: there is no pile p1" in capsys.readouterr().out
    assert main([*args, "deal, bogus"]) == 1
    assert "move 2 ('bogus') is refused" in capsys.readouterr().out


def test_verify_needs_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """--verify without a line, or --line without --verify, is a usage error (exit 2)."""
    assert main(["solve", "--verify", "quadrille", "--seed", "0"]) == 2
    assert main(["solve", "quadrille", "--seed", "0", "--line", "deal"]) == 2


def test_line_text_is_split_on_commas_and_newlines() -> None:
    """Moves with spaces (swaps) survive; blanks are dropped."""
    assert parse_line("deal, swap p3 p9 p17,\n p1>x\n\n") == ["deal", "swap p3 p9 p17", "p1>x"]


def test_odds_with_the_solver_reports_share_interval_and_unknowns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`odds --solver` prints the winnable share with its interval and the unknown share."""
    assert main(["odds", "quadrille", "--solver", "-n", "10", "--nodes", "5000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("quadrille: winnable ")
    assert "of 10" in out and "95% CI" in out and "unknown 0 = 0.0%" in out


def test_odds_solver_limits_are_exclusive() -> None:
    """--limit and --nodes cannot both be given."""
    with pytest.raises(SystemExit):
        main(["odds", "quadrille", "--solver", "--limit", "1", "--nodes", "5"])

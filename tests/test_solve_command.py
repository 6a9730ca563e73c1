"""``ballroom solve``, ``ballroom solve --verify`` and ``ballroom odds --solver``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cli import main
from server.engine import VARIANTS, find_variant
from server.engine.solver import line_fault
from server.rules.solver_odds import ODDS_HEADER, expert_cells
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


def test_odds_with_the_solver_prints_the_table_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`odds --solver` prints docs/odds.md's table: solver counts and share, greedy rate."""
    args = ["odds", "quadrille", "--solver", "-n", "10", "--nodes", "5000", "--bot-n", "20"]
    no_table = tmp_path / "odds.md"
    no_table.write_text("# No table yet\n", encoding="utf-8")
    assert main([*args, "--keep-expert", str(no_table)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("solver: 10 deals per rule set from seed 0, 5000 positions")
    assert lines[1].startswith("| rule set | solver n |")
    cells = [cell.strip() for cell in lines[3].strip("|").split("|")]
    assert cells[0] == "quadrille" and cells[1] == "10"
    winnable, unwinnable, unknown = int(cells[2]), int(cells[3]), int(cells[4])
    assert winnable + unwinnable == 10 and unknown == 0  # Quadrille is always decided
    assert cells[5].startswith(f"{10 * winnable:.1f}% (")
    assert cells[7] == "20" and cells[9] == "not yet measured"


def test_odds_with_the_solver_keeps_the_measured_expert_cells(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A new run of the table keeps the expert bot's cells of the table it replaces: the
    expert is measured apart, and the solver's run must not print it as not measured."""
    before = tmp_path / "odds.md"
    before.write_text(
        "# The odds\n\n"
        f"{ODDS_HEADER}\n"
        "| gavotte | 50 | 48 | 1 | 1 | 96.0% (86.5-98.9%) | 86.5-99.6% | 1000 | 80.1% "
        "(77.5-82.5%) | not yet measured |  |\n"
        "| quadrille | 50 | 33 | 17 | 0 | 66.0% (52.2-77.6%) | 52.2-77.6% | 1000 | 56.2% "
        "(53.1-59.2%) | 70.0% (54.6-81.9%), n 40 | more than half |\n"
        "\nAfter the table.\n",
        encoding="utf-8",
    )
    assert expert_cells(before.read_text(encoding="utf-8")) == {
        "quadrille": "70.0% (54.6-81.9%), n 40"
    }
    args = ["odds", "quadrille", "--solver", "-n", "2", "--nodes", "2000", "--bot-n", "2"]
    assert main([*args, "--keep-expert", str(before)]) == 0
    row = capsys.readouterr().out.splitlines()[3]
    assert [cell.strip() for cell in row.strip("|").split("|")][9] == "70.0% (54.6-81.9%), n 40"


def test_docs_odds_expert_cells_are_read_back() -> None:
    """docs/odds.md's table is the one the command keeps: every rule set's expert cell is
    found (each measured, none "not yet measured")."""
    text = (Path(__file__).parents[1] / "docs" / "odds.md").read_text(encoding="utf-8")
    cells = expert_cells(text)
    assert set(cells) == set(VARIANTS)
    assert all(", n " in cell for cell in cells.values())


def test_odds_with_the_solver_in_several_processes_agrees(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--jobs spreads the deals over processes and gives the same counts."""
    args = ["odds", "quadrille", "--solver", "-n", "6", "--nodes", "5000", "--bot-n", "5"]
    assert main(args) == 0
    alone = capsys.readouterr().out.splitlines()[3]
    assert main([*args, "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[3] == alone


def test_odds_solver_limits_are_exclusive() -> None:
    """--limit and --nodes cannot both be given."""
    with pytest.raises(SystemExit):
        main(["odds", "quadrille", "--solver", "--limit", "1", "--nodes", "5"])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_line_text_is_checked_without_raising(text: str) -> None:
    """Whatever text a person gives as a line, checking it answers in words or wins."""
    game = find_variant("quadrille")
    fault = line_fault(game, game.deal(0), parse_line(text))
    assert fault is None or fault.startswith("move ") or " moves leave " in fault

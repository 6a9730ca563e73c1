"""``ballroom tournament verify`` on a file that is not a record: one clear line, exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.cli import main


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "cannot read"),
        ("{}", "is not a tournament record"),
        ('{"tournament": {"stages": [{"races": [{"race": "r1"}]}]}}', "not a tournament record"),
        ("[1, 2]", "is not a tournament record"),
        ("{not json", "is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "is not JSON"),
        ('{"tournament": ' + "[" * 100_000 + "]" * 100_000 + "}", "is not JSON"),
    ],
    ids=["missing", "empty map", "no races", "a list", "not json", "nested deep", "deep field"],
)
def test_verify_refuses_a_file_that_is_no_record_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, said: str
) -> None:
    """A missing file, a map without the record's fields, or non-JSON: no traceback."""
    path = tmp_path / "record.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    assert main(["tournament", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1

"""bench/write_floor.py: a tiny real run over loopback, and its arguments."""

from __future__ import annotations

import pytest

from bench.write_floor import main, measure


async def test_a_small_run_writes_to_every_socket() -> None:
    """Twenty sockets, three events: a write costs some CPU, and an event takes some time."""
    floor = await measure(sockets=20, events=3, size=100)
    assert floor.user_us + floor.system_us > 0
    assert 0 < floor.event_ms_median <= floor.event_ms_max


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--sockets", "0"], "sockets must be 1 or more"),
        (["--events", "-2"], "events must be 1 or more"),
        (["--size", "70000"], "a frame's bytes must be 1..65535"),
        (["--size", "many"], "many"),
    ],
)
def test_a_bad_argument_is_a_usage_error(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said in one line before any socket is opened."""
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    captured = capsys.readouterr()
    assert said in captured.err and captured.out == ""

"""Hashes as Redis returns them read into typed values at the storage edge: a race's
boards (racer_boards) and an account's stats (AccountStats), no Redis needed."""

from __future__ import annotations

from protocol.profiles import Tally
from protocol.results import RacerStatus
from server.engine import find_variant
from server.rules.ratings import Skill
from server.storage.boards import racer_boards
from server.storage.packing import pack
from server.storage.players import AccountStats


def test_a_boards_hash_is_read_racer_by_racer() -> None:
    """Each racer's seq:, status:, home:, at:, ver:, state: and snap: fields make one
    RacerBoard; a snapshot comes back as the State it was."""
    after = find_variant("quadrille").deal(3, 1)
    raw = {
        b"seq:p1": b"12", b"status:p1": b"won", b"home:p1": b"52", b"at:p1": b"1700000000.5",
        b"ver:p1": b"v12", b"state:p1": pack(after.to_data()), b"snap:p1": b"10",
        b"seq:p2": b"0", b"status:p2": b"playing", b"home:p2": b"0",
    }  # fmt: skip
    boards = racer_boards(raw)
    assert set(boards) == {"p1", "p2"}
    won = boards["p1"]
    assert (won.seq, won.status, won.home, won.finished_at) == (
        12,
        RacerStatus.WON,
        52,
        1700000000.5,
    )
    assert (won.version, won.snapshot_seq) == ("v12", 10)
    assert won.snapshot is not None and won.snapshot.to_data() == after.to_data()
    fresh = boards["p2"]
    assert (fresh.seq, fresh.status, fresh.finished_at, fresh.snapshot) == (
        0, RacerStatus.PLAYING, None, None,
    )  # fmt: skip


def test_an_accounts_stats_hash_is_read_by_scope() -> None:
    """played:/won:/best: make a Tally per scope, mu:/sigma:/n: a Skill per scope."""
    stats = AccountStats.from_fields({
        "played:overall": "3", "won:overall": "2",
        "played:quadrille": "3", "won:quadrille": "2", "best:quadrille": "41.5",
        "mu:overall": "27.5", "sigma:overall": "6.25", "n:overall": "3",
    })  # fmt: skip
    assert stats.counts == {"overall": Tally(3, 2), "quadrille": Tally(3, 2, 41.5)}
    assert stats.skills == {"overall": Skill(27.5, 6.25, 3)}
    assert AccountStats.from_fields({}) == AccountStats({}, {})

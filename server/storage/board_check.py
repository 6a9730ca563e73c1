"""The check that a racer's stored board agrees with their log, for the tests
and the soak that hold Redis to the promise that the log is the truth."""

from __future__ import annotations

from server.engine import Game
from server.storage.boards import RacerBoard

__all__ = ["stored_board_faults"]


def stored_board_faults(
    game: Game, seed: int, deal_version: int, board: RacerBoard, log: list[str]
) -> list[str]:
    """How a racer's stored ``board`` disagrees with their log (none: []).

    The move count and the cards home must be the log's, and a snapshot (when
    one was taken) must be the log replayed up to the move it was taken after.
    """
    faults = []
    state = game.replay(seed, log, deal_version)
    if board.seq != len(log) or state.moves != len(log):
        faults.append("stored move count differs from the log")
    if board.home != game.home(state):
        faults.append("stored cards home differ from the replay")
    if board.snapshot is not None:
        replayed = game.replay(seed, log[: board.snapshot_seq], deal_version)
        if replayed.to_data() != board.snapshot.to_data():
            faults.append("replay differs from the stored snapshot")
    return faults

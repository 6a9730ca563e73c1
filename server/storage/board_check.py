"""The check that a racer's stored board agrees with their log, for the tests
and the soak that hold Redis to the promise that the log is the truth."""

from __future__ import annotations

from collections.abc import Mapping

from server.engine import Game
from server.engine.state import State
from server.storage.keys import BoardField
from server.storage.store import unpack

__all__ = ["stored_board_faults"]


def stored_board_faults(
    game: Game,
    seed: int,
    deal_version: int,
    boards: Mapping[str, bytes],
    player: str,
    log: list[str],
) -> list[str]:
    """How ``player``'s fields in a race's boards hash disagree with their log (none: []).

    The move count and the cards home must be the log's, and a snapshot (when
    one was taken) must be the log replayed up to the move it was taken after.
    """
    faults = []
    state = game.replay(seed, log, deal_version)
    if int(boards[BoardField.SEQ.of(player)]) != len(log) or state.moves != len(log):
        faults.append("stored move count differs from the log")
    if int(boards[BoardField.HOME.of(player)]) != game.home(state):
        faults.append("stored cards home differ from the replay")
    snapshot = boards.get(BoardField.STATE.of(player))
    if snapshot is not None:
        at = int(boards[BoardField.SNAP.of(player)])
        stored = State.from_data(unpack(snapshot))
        if game.replay(seed, log[:at], deal_version).to_data() != stored.to_data():
            faults.append("replay differs from the stored snapshot")
    return faults

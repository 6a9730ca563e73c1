"""One racer's standing as the client shows it: name, cards home, moves, status.

The progress values the server sends are turned into :class:`RacerLine` values
here, once, so that the panels, the one-line summary and the results all read
the same fields the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len

from client.models.names import cut
from protocol.results import RacerStatus
from protocol.views import Progress

__all__ = ["RacerLine", "progress_summary", "racer_line", "status_word"]


@dataclass(frozen=True, slots=True)
class RacerLine:
    """One racer as the panel shows them."""

    name: str
    home: int
    target: int
    moves: int
    status: str  # racing, won, stuck, resigned, left, timeout, waiting
    me: bool = False
    #: Since when (unix seconds) their connection is gone; None while connected.
    away: float | None = None

    def presence(self, now: float) -> str:
        """``away 12s`` while their connection is gone (and their game still on), else ""."""
        if self.away is None or self.status != "racing":
            return ""
        return f"away {max(0, int(now - self.away))}s"


def status_word(progress: Progress) -> str:
    """How a racer stands, in the panel's words: ``racing`` while their game is on."""
    status = progress.status
    return "racing" if status is RacerStatus.PLAYING else status.value


def racer_line(
    name: str, progress: Progress, *, me: bool = False, away: float | None = None
) -> RacerLine:
    return RacerLine(
        name=name,
        home=progress.home,
        target=progress.target,
        moves=progress.moves,
        status=status_word(progress),
        me=me,
        away=away,
    )


def progress_summary(
    racers: Sequence[RacerLine], width: int, now: float = 0.0, lines: int = 1
) -> str:
    """Every racer in at most ``lines`` lines, for a terminal with no room for the racers
    panel.

    "Ann* 12/104 · Bot 15/104 won · Cy 3/104 resigned": the player is
    starred. What gives way, in order, until it fits ``width``: the targets
    ("/104", the same for all), then a line (a racer's part moves to the next
    one, whole), and only when ``lines`` are full, the names, cut (never the
    numbers). So five racers at 80 or 60 columns keep their whole names on
    two lines where the board leaves a line spare.
    """

    def parts(room: int, targets: bool) -> list[str]:
        out = []
        for racer in racers:
            name = cut(racer.name, max(2, room))
            score = f"{racer.home}/{racer.target}" if targets else str(racer.home)
            score = score if racer.target else "waiting"
            status = "" if racer.status == "racing" else f" {racer.status}"
            if racer.presence(now):
                status += f" {racer.presence(now)}"
            out.append(f"{name}{'*' if racer.me else ''} {score}{status}")
        return out

    def packed(room: int, targets: bool, most: int) -> str | None:
        """The parts in as few lines as they fit, or None past ``most`` lines."""
        rows: list[str] = []
        for part in parts(room, targets):
            if rows and cell_len(rows[-1] + " · " + part) <= width:
                rows[-1] += " · " + part
            elif cell_len(part) <= width and len(rows) < most:
                rows.append(part)
            else:
                return None
        return "\n".join(rows)

    # Names and widths in terminal columns (a wide name takes two a character).
    room = max((cell_len(racer.name) for racer in racers), default=0)
    for most in range(1, max(1, lines) + 1):
        for targets in (True, False):
            if (text := packed(room, targets, most)) is not None:
                return text
    while room > 2:
        room -= 1
        if (text := packed(room, False, max(1, lines))) is not None:
            return text
    return " · ".join(parts(2, False))

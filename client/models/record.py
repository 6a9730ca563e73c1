"""What the client remembers of one race: who races, how far, and the boards it was shown.

The client has no engine, so it cannot rebuild a position from a move log.
A replay can only show positions the server sent: the racer's own views
(the start and each ``moved`` reply) and, when spectating, every ``board``.
All racers share one deal, so the opening view is everyone's step 0. Each
view says how many moves led to it (``moves``), which is its step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.models.racers import RacerLine, racer_line
from protocol.layout import Layout
from protocol.messages import RaceFinished, deal_commitment

__all__ = ["RaceRecord", "Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the revealed seed proves the commitment published at the start."""

    text: str  # the hashed string
    digest: str
    commitment: str

    @property
    def ok(self) -> bool:
        return self.digest == self.commitment


@dataclass(slots=True)
class RaceRecord:
    """One race as this client saw it."""

    race: str
    info: dict[str, Any]
    me: str | None = None  # our player id, when we race in it
    layout: Layout | None = None
    opening: dict[str, Any] | None = None
    #: player → step (moves made) → the view after that many moves
    views: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    #: player → seq → the move text the server logged, as far as this client saw it
    moves: dict[str, dict[int, str]] = field(default_factory=dict)
    progress: dict[str, dict[str, Any]] = field(default_factory=dict)
    finished: RaceFinished | None = None
    #: What to call the race on screen, when its join code will not do (a
    #: tournament's races have none): "Friday dance · round 2, table 1".
    label: str | None = None

    @property
    def target(self) -> int:
        """How many cards a won game has home: from the opening, else from any progress
        seen (a racer who rejoined mid-race never saw the opening)."""
        for known in (self.opening, *self.progress.values()):
            if known and known.get("target"):
                return int(known["target"])
        return 0

    @property
    def called(self) -> str:
        """The race's name on screen: its label, else ``race`` and its join code."""
        if self.label:
            return self.label
        return f"race {self.info.get('code') or self.race}"

    @property
    def variant(self) -> str:
        if self.layout is not None:
            return self.layout.variant
        return str(self.info.get("variant", "?"))

    @property
    def players(self) -> list[str]:
        return [str(player) for player in self.info.get("players", [])]

    def name(self, player: str) -> str:
        names: dict[str, str] = self.info.get("names") or {}
        return str(names.get(player, player))

    def start(self, layout: dict[str, Any], view: dict[str, Any]) -> None:
        """The race began (or we learnt of it late): the layout and a first view."""
        self.layout = Layout.from_data(layout)
        if int(view.get("moves", 0)) == 0:
            self.opening = view

    def remember(self, player: str, view: dict[str, Any]) -> None:
        """A view of ``player``'s board; it also tells their progress."""
        step = int(view.get("moves", 0))
        self.views.setdefault(player, {})[step] = view
        if step == 0 and self.opening is None:
            self.opening = view
        known = self.progress.get(player)
        if known is None or int(known.get("moves", 0)) <= step:
            self.progress[player] = {**(known or {}), **_progress_of(view)}

    def note_move(self, player: str, seq: int, move: str) -> None:
        self.moves.setdefault(player, {})[seq] = move

    def log(self, player: str) -> list[str]:
        """``player``'s moves in order: the race's log once it ended, else what was seen."""
        if self.finished is not None and player in self.finished.logs:
            return list(self.finished.logs[player])
        seen = self.moves.get(player, {})
        steps = max([*seen, *(step - 1 for step in self.views.get(player, {}))], default=-1)
        return [seen.get(seq, "?") for seq in range(steps + 1)]

    def update_progress(self, player: str, progress: dict[str, Any]) -> None:
        known = self.progress.get(player)
        if known is None or int(known.get("moves", 0)) <= int(progress.get("moves", 0)):
            self.progress[player] = dict(progress)

    def finish(self, finished: RaceFinished) -> None:
        """The race is over: its results, and how each racer ended, from the standings
        (a spectator's boards say nothing of a resignation)."""
        self.finished = finished
        for standing in finished.standings:
            player, status = str(standing.get("player")), standing.get("status")
            progress = {**self.progress.get(player, {}), "moves": standing.get("moves", 0)}
            progress["home"] = standing.get("home", progress.get("home", 0))
            if status in ("resigned", "left"):
                progress["resigned"] = True
                progress["left"] = status == "left"
            progress["won"] = status == "won"
            self.progress[player] = progress

    def rewind(self, player: str, moves: int, progress: dict[str, Any] | None = None) -> None:
        """The server lost ``player``'s moves after the first ``moves``: forget them."""
        self.views[player] = {s: v for s, v in self.views.get(player, {}).items() if s <= moves}
        self.moves[player] = {q: m for q, m in self.moves.get(player, {}).items() if q < moves}
        known = self.progress.get(player) or {}
        self.progress[player] = dict(progress) if progress else {**known, "moves": moves}

    def view_at(self, player: str, step: int) -> dict[str, Any] | None:
        """The view of ``player``'s board after ``step`` moves, if the server ever sent it."""
        view = self.views.get(player, {}).get(step)
        if view is None and step == 0:
            return self.opening
        return view

    def latest(self, player: str) -> dict[str, Any] | None:
        """The newest view of ``player``'s board this client has."""
        views = self.views.get(player)
        if not views:
            return self.opening
        return views[max(views)]

    def racer_lines(self) -> list[RacerLine]:
        target = self.target
        lines = []
        for player in self.players:
            progress = self.progress.get(player) or {"home": _opening_home(self), "moves": 0}
            progress = {"target": target, **progress}
            away = self.away.get(player)
            lines.append(racer_line(self.name(player), progress, me=player == self.me, away=away))
        return lines

    def phase(self, now: float) -> str:
        """The race's phase at ``now`` (server time): the info's, moved on by the clock
        (nothing is pushed when a countdown ends or the time runs out)."""
        if self.finished is not None:
            return "finished"
        phase = str(self.info.get("phase", "?"))
        started_at, ends_at = self.info.get("started_at"), self.info.get("ends_at")
        if phase in ("countdown", "running") and started_at is not None and ends_at is not None:
            if now >= float(ends_at):
                return "time up"
            return "running" if now >= float(started_at) else "countdown"
        return phase

    @property
    def away(self) -> dict[str, float]:
        """Player → since when their connection is gone, for the racers away now."""
        return dict(self.info.get("away") or {})

    def set_presence(self, player: str, away: float | None) -> None:
        """``player``'s connection went (at ``away``) or came back (None)."""
        now_away = self.away
        if away is None:
            now_away.pop(player, None)
        else:
            now_away[player] = away
        self.info = {**self.info, "away": now_away}

    def verdict(self) -> Verdict | None:
        """Recompute the commitment from the revealed seed (no server code needed)."""
        if self.finished is None:
            return None
        done = self.finished
        text = f"ballroom-commit/v1/{self.variant}/{done.deal_version}/{done.seed}/{self.race}"
        digest = deal_commitment(self.variant, done.deal_version, done.seed, self.race)
        return Verdict(text, digest, done.commitment)


def _progress_of(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("home", "target", "moves", "won", "over", "resigned", "left")
    return {key: view[key] for key in keys if key in view}


def _opening_home(record: RaceRecord) -> int:
    return int((record.opening or {}).get("home", 0))

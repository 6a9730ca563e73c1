"""What the client remembers of one race: who races, how far, and the boards it was shown.

The client has no engine, so it cannot rebuild a position from a move log.
A replay can only show positions the server sent: the racer's own views
(the start and each ``moved`` reply) and, when spectating, every ``board``.
All racers share one deal, so the opening view is everyone's step 0. Each
view says how many moves led to it (``moves``), which is its step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from client.models.racers import RacerLine, racer_line
from protocol.layout import Layout
from protocol.lobby import RacePhase, RaceSummary
from protocol.messages import RaceFinished, deal_commitment
from protocol.results import RaceAnalysis, RacerStatus, Standing
from protocol.views import Progress, View

__all__ = ["DAILY_HOST", "RaceRecord", "Verdict"]

#: The ``host`` of a daily deal's race in its info (``docs/protocol.md``, ``play_daily``).
DAILY_HOST = "daily"


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
    """One race as this client saw it.

    ``info`` is None until the server has described the race (a spectator's
    record exists before the snapshot that names its racers arrives).
    """

    race: str
    info: RaceSummary | None = None
    me: str | None = None  # our player id, when we race in it
    layout: Layout | None = None
    opening: View | None = None
    #: player → step (moves made) → the view after that many moves
    views: dict[str, dict[int, View]] = field(default_factory=dict)
    #: player → seq → the move text the server logged, as far as this client saw it
    moves: dict[str, dict[int, str]] = field(default_factory=dict)
    progress: dict[str, Progress] = field(default_factory=dict)
    finished: RaceFinished | None = None
    #: What to call the race on screen, when its join code will not do (a
    #: tournament's races have none): "Friday dance · round 2, table 1".
    label: str | None = None
    #: The variant when neither a layout nor a summary names it (a past race
    #: opened from a profile, known by its results alone).
    variant_name: str = "?"

    @property
    def target(self) -> int:
        """How many cards a won game has home: from the opening, else from any progress
        seen (a racer who rejoined mid-race never saw the opening)."""
        seen = list(self.progress.values())
        if self.opening is not None:
            seen.insert(0, self.opening.progress)
        return next((known.target for known in seen if known.target), 0)

    @property
    def called(self) -> str:
        """The race's name on screen: its label, else ``race`` and its join code (a race
        the server made has no code to tell anyone: the daily deal's is named so, a
        quick race's or a rematch's is a quick race)."""
        if self.label:
            return self.label
        if self.info is not None and not self.info.code:
            return "Daily deal" if self.daily else "quick race"
        return f"race {(self.info.code if self.info else '') or self.race}"

    @property
    def variant(self) -> str:
        if self.layout is not None:
            return self.layout.variant
        return self.info.variant if self.info else self.variant_name

    @property
    def players(self) -> list[str]:
        return list(self.info.players) if self.info else []

    @property
    def daily(self) -> bool:
        """Whether this is a daily deal's race (the server makes it, hosted by ``daily``)."""
        return self.info is not None and self.info.host == DAILY_HOST

    @property
    def practice(self) -> bool:
        """Whether this is a practice race, where hints may be asked for."""
        return self.info is not None and self.info.practice

    def name(self, player: str) -> str:
        return self.info.name(player) if self.info else player

    def start(self, layout: Layout, view: View) -> None:
        """The race began (or we learnt of it late): the layout and a first view."""
        self.layout = layout
        if view.moves == 0:
            self.opening = view

    def remember(self, player: str, view: View) -> None:
        """A view of ``player``'s board; it also tells their progress."""
        step = view.moves
        self.views.setdefault(player, {})[step] = view
        if step == 0 and self.opening is None:
            self.opening = view
        known = self.progress.get(player)
        if known is None or known.moves <= step:
            seen = view.progress
            if known is not None:  # a view says nothing of a resignation seen before
                seen = seen._replace(
                    resigned=seen.resigned or known.resigned, left=seen.left or known.left
                )
            self.progress[player] = seen

    def note_move(self, player: str, seq: int, move: str) -> None:
        self.moves.setdefault(player, {})[seq] = move

    def log(self, player: str) -> list[str]:
        """``player``'s moves in order: the race's log once it ended, else what was seen."""
        if self.finished is not None and player in self.finished.logs:
            return list(self.finished.logs[player])
        seen = self.moves.get(player, {})
        steps = max([*seen, *(step - 1 for step in self.views.get(player, {}))], default=-1)
        return [seen.get(seq, "?") for seq in range(steps + 1)]

    def update_progress(self, player: str, progress: Progress) -> None:
        known = self.progress.get(player)
        if known is None or known.moves <= progress.moves:
            self.progress[player] = progress

    def resigned(self, player: str) -> None:
        """``player`` resigned: their progress says so from now on."""
        self.progress[player] = self.progress_of(player)._replace(resigned=True)

    @property
    def standings(self) -> tuple[Standing, ...]:
        """The results' lines, best first; none before the race finished."""
        if self.finished is None:
            return ()
        return tuple(self.finished.standings)

    def analysed(self, analysis: RaceAnalysis) -> None:
        """The post-race analysis came (it follows the results): kept with them."""
        if self.finished is not None:
            self.finished = replace(self.finished, analysis=analysis)

    @property
    def analysis(self) -> RaceAnalysis | None:
        """The post-race analysis, once the server sent it."""
        return None if self.finished is None else self.finished.analysis

    def finish(self, finished: RaceFinished) -> None:
        """The race is over: its results, and how each racer ended, from the standings
        (a spectator's boards say nothing of a resignation)."""
        self.finished = finished
        for standing in self.standings:
            known = self.progress_of(standing.player)
            self.progress[standing.player] = known._replace(
                moves=standing.moves,
                home=standing.home,
                won=standing.won,
                resigned=standing.status.gave_up or known.resigned,
                left=standing.status is RacerStatus.LEFT or known.left,
            )

    def rewind(self, player: str, moves: int, progress: Progress | None = None) -> None:
        """The server lost ``player``'s moves after the first ``moves``: forget them."""
        self.views[player] = {s: v for s, v in self.views.get(player, {}).items() if s <= moves}
        self.moves[player] = {q: m for q, m in self.moves.get(player, {}).items() if q < moves}
        self.progress[player] = progress or self.progress_of(player)._replace(moves=moves)

    def view_at(self, player: str, step: int) -> View | None:
        """The view of ``player``'s board after ``step`` moves, if the server ever sent it."""
        view = self.views.get(player, {}).get(step)
        if view is None and step == 0:
            return self.opening
        return view

    def latest(self, player: str) -> View | None:
        """The newest view of ``player``'s board this client has."""
        views = self.views.get(player)
        if not views:
            return self.opening
        return views[max(views)]

    def racer_lines(self) -> list[RacerLine]:
        lines = []
        for player in self.players:
            progress = self.progress_of(player)
            away = self.away.get(player)
            lines.append(racer_line(self.name(player), progress, me=player == self.me, away=away))
        return lines

    def phase(self, now: float) -> str:
        """The race's phase at ``now`` (server time): the info's, moved on by the clock
        (nothing is pushed when a countdown ends or the time runs out)."""
        if self.finished is not None:
            return RacePhase.FINISHED.value
        if self.info is None:
            return "?"
        info = self.info
        running = info.phase in (RacePhase.COUNTDOWN, RacePhase.RUNNING)
        if running and info.started_at is not None and info.ends_at is not None:
            if now >= info.ends_at:
                return "time up"
            return (RacePhase.RUNNING if now >= info.started_at else RacePhase.COUNTDOWN).value
        return info.phase.value

    @property
    def away(self) -> dict[str, float]:
        """Player → since when their connection is gone, for the racers away now."""
        return dict(self.info.away) if self.info else {}

    def set_presence(self, player: str, away: float | None) -> None:
        """``player``'s connection went (at ``away``) or came back (None)."""
        if self.info is None:
            return
        now_away = self.away
        if away is None:
            now_away.pop(player, None)
        else:
            now_away[player] = away
        self.info = replace(self.info, away=now_away)

    def verdict(self) -> Verdict | None:
        """Recompute the commitment from the revealed seed (no server code needed)."""
        if self.finished is None:
            return None
        done = self.finished
        text = f"ballroom-commit/v1/{self.variant}/{done.deal_version}/{done.seed}/{self.race}"
        digest = deal_commitment(self.variant, done.deal_version, done.seed, self.race)
        return Verdict(text, digest, done.commitment)

    def progress_of(self, player: str) -> Progress:
        """``player``'s progress as far as seen; before any, where the opening stands."""
        known = self.progress.get(player)
        if known is not None:
            return known if known.target else known._replace(target=self.target)
        home = self.opening.progress.home if self.opening else 0
        return Progress(home=home, target=self.target, moves=0, won=False, over=False)

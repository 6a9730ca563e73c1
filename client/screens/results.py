"""The results: standings, the revealed seed, and the check of the deal commitment."""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Footer, Static

from client import routes
from client.models.catalogue import title_of
from client.models.ratings import rating_change
from client.models.record import RaceRecord
from client.screens.base import ServerScreen
from client.widgets.status import TopBar
from protocol.accounts import is_guest
from protocol.messages import RaceAnalysed, RematchOffer, ServerMessage
from protocol.results import DecidedBy

__all__ = ["ResultsScreen", "analysis_text", "rematch_offer_text", "results_text"]


def analysis_text(record: RaceRecord) -> Text:
    """The post-race analysis, a line per racer; empty until the server sent it."""
    analysis = record.analysis
    text = Text()
    if analysis is None:
        return text
    text.append("\nAnalysis (the solver, knowing the stock):", "bold")
    for racer in analysis.racers:
        text.append(f"\n  {record.name(racer.player)}: {racer.describe(analysis.par)}")
    return text


def results_text(record: RaceRecord) -> Group:
    """Standings (with par on a winnable deal), the seed and whether it proves the commitment."""
    finished = record.finished
    assert finished is not None
    par = finished.par
    target = record.target
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column, justify in (
        ("#", "right"),
        ("Racer", "left"),
        ("Status", "left"),
        ("Home", "right"),
        ("Moves", "right"),
        ("Time", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    standings = record.standings
    rated = any(standing.rated for standing in standings)
    if rated:
        table.add_column("Rating", justify="right")
    # Guests are marked once accounts race: a guest may call itself by an account's name.
    marked = any(not is_guest(s.player) for s in standings)
    for standing in standings:
        player = standing.player
        me = player == record.me
        tied = standing.by is DecidedBy.TIE or any(
            other.by is DecidedBy.TIE and other.place == standing.place for other in standings
        )
        guest = " (guest)" if marked and is_guest(player) else ""
        cells = [
            f"={standing.place}" if tied else str(standing.place),
            standing.name + guest + (" (you)" if me else ""),
            standing.status.value,
            f"{standing.home}/{target}" if target else str(standing.home),
            str(standing.moves) + ("" if par is None else f" (par {par})"),
            f"{standing.time:.1f}s",
        ]
        if rated:
            cells.append(rating_change(standing))
        table.add_row(*cells, style="bold" if me else "")
    verdict = record.verdict()
    assert verdict is not None
    deal = record.info.deal if record.info else None
    proof = Text()
    if any(standing.by is DecidedBy.TIE for standing in standings):
        proof.append(
            "\n=: tied (games not won: the same cards home; wins: the same time to a tenth)"
        )
    kind = f"public deal #{deal}" if deal is not None else "secret deal"
    proof.append(f"\n{kind} · seed {finished.seed} · deal version {finished.deal_version}\n")
    proof.append("Commitment published at the start:\n")
    proof.append(f"  {finished.commitment}\n", "dim")
    proof.append(f'SHA-256 of "{verdict.text}":\n')
    proof.append(f"  {verdict.digest}\n", "dim")
    if verdict.ok:
        proof.append("✓ verified: every racer got the deal fixed before the start", "bold green")
    else:
        proof.append("✗ MISMATCH: the seed does not prove the commitment", "bold red")
    if par is not None and finished.line:
        proof.append(
            f"\nA winnable deal: the solver's winning line has {par} moves (par; the line "
            "it found, not a proved shortest one). Check it with ballroom solve --verify:\n"
        )
        proof.append(", ".join(finished.line), "dim")
    if finished.draw is not None and finished.pick is not None:
        chosen = (
            f"its candidate {finished.pick}, the first the solver proves winnable"
            if finished.line
            else "its candidate 0, a plain deal (none was proved winnable in time)"
        )
        proof.append(
            f"\nChosen from the secret draw {finished.draw} as {chosen}: "
            "check it with ballroom winnable."
        )
    if record.analysis is None:
        return Group(table, proof)
    return Group(table, analysis_text(record), proof)


def rematch_offer_text(offer: RematchOffer) -> Text:
    """The line that tells a racer of another's rematch offer (a name is never markup)."""
    if offer.rematch is not None:
        return Text(f"{offer.name} accepted the rematch: it starts now.", "bold")
    line = Text()
    line.append(f"{offer.name} offers a rematch — press n to accept", "bold")
    line.append(f" ({offer.accepted} of {offer.racers} racers accepted)")
    return line


class ResultsScreen(ServerScreen):
    """Shown when a race ends, to racers and spectators alike."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "replay", "Replay"),
        Binding("n", "rematch", "Rematch"),
        Binding("n", "play_again", "Play again"),
        Binding("escape,enter,q", "back", "Back"),
    ]

    #: A line under the results; a tournament's screen says there what comes next.
    notice: reactive[str] = reactive("")

    def __init__(self, record: RaceRecord) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        yield Static(results_text(self.record), id="results")
        yield Static("", id="notice")
        yield Static("", id="offer")
        yield Footer()

    def server_message(self, message: ServerMessage) -> None:
        """Another racer offered a rematch of this race: say so, and how to accept; the
        post-race analysis came: show it."""
        if isinstance(message, RematchOffer) and message.race == self.record.race and self.composed:
            self.query_one("#offer", Static).update(rematch_offer_text(message))
        elif isinstance(message, RaceAnalysed) and message.race == self.record.race:
            self.record.analysed(message.analysis)
            if self.composed:
                self.query_one("#results", Static).update(results_text(self.record))

    def tournament_says(self, races: Collection[str], text: str) -> None:
        """Under the results of a tournament's race, what comes next in the tournament."""
        if self.record.race in races:
            self.notice = text

    def watch_notice(self, text: str) -> None:
        if self.composed:
            self.query_one("#notice", Static).update(text)

    def on_mount(self) -> None:
        title = title_of(self.record.variant)
        self.query_one(TopBar).text = f"Results · {title} · {self.record.called}"

    def action_replay(self) -> None:
        self.ballroom.show(routes.Replay(self.record))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` offers what can start: against the practice bot, a new race at once (the
        bot never accepts a rematch); between people, a rematch; in a tournament, nothing
        (the tournament decides the next race)."""
        info = self.record.info
        in_tournament = info is not None and info.tournament is not None
        racer = self.record.me is not None and self.record.finished is not None
        if action == "rematch":
            return racer and not in_tournament and not self.record.practice
        if action == "play_again":
            return racer and self.record.practice
        return True

    def action_play_again(self) -> None:
        """A new practice race against the bot, on the same variant and a fresh deal."""
        self.ballroom.practise(self.record.variant)

    def action_rematch(self) -> None:
        """Offer the same racers a new race on a fresh deal (docs/players.md)."""
        finished = self.record.finished
        if self.record.me is None or finished is None:
            return
        racers = len(finished.standings)
        self.ballroom.show_instead(routes.Rematch(self.record.race, self.record.variant, racers))

    def action_back(self) -> None:
        """To the lobby, or to the tournament this race belongs to."""
        self.ballroom.back_home()

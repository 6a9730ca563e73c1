"""A tournament's final results: the standings, and every race's revealed seed checked.

Each race of a tournament publishes a commitment when its stage starts (it
is in the document) and reveals its seed when it closes. The screen asks
for the tournament's record (``get_tournament_record``) and recomputes each
commitment from the revealed seed with :func:`protocol.messages.deal_commitment`,
as the results of a single race do: no server code and no trust needed. In
the rounds format it also checks that every table of a round had one deal.
"""

from __future__ import annotations

import time
from typing import ClassVar, NamedTuple

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from client.models.catalogue import title_of
from client.net import Offline
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from client.widgets.tournament import bracket_text, standings_table, status_line
from protocol.exceptions import InvalidField
from protocol.messages import GetTournamentRecord, TournamentRecord, deal_commitment
from protocol.record import RecordPage, joined_record
from protocol.tournaments import Record, Tournament

__all__ = ["RaceCheck", "TournamentResultsScreen", "check_record", "final_text"]


class RaceCheck(NamedTuple):
    """One race of the tournament and whether its revealed seed proves its commitment."""

    stage: str  # "R1" or, in a knockout of several games, "R1 G2"
    table: int
    variant: str
    race: str
    seed: int | None  # None: the race has not closed (or was never played)
    ok: bool


def check_record(record: Record) -> list[RaceCheck]:
    """Every race of the record, its seed, and whether the seed proves what was published."""
    doc = record.tournament
    several = doc.best_of > 1 and doc.knockout
    checks = []
    for stage in doc.stages:
        label = f"R{stage.round}" + (f" G{stage.game}" if several else "")
        for entry in stage.races:
            race = entry.race
            result = record.races.get(race)
            if result is None:
                checks.append(RaceCheck(label, entry.table, stage.variant, race, None, False))
                continue
            seed = result.seed
            digest = deal_commitment(result.variant, result.deal_version, seed, race)
            ok = digest == entry.commitment == result.commitment
            checks.append(RaceCheck(label, entry.table, result.variant, race, seed, ok))
    return checks


def _one_deal_per_round(checks: list[RaceCheck]) -> bool:
    seeds: dict[str, set[int | None]] = {}
    for check in checks:
        seeds.setdefault(check.stage, set()).add(check.seed)
    return all(len(found) == 1 for found in seeds.values())


def final_text(doc: Tournament, record: Record | None, me: str | None, now: float) -> Group:
    """The verdict on every deal, the standings (and bracket), then each race's seed."""
    checks = check_record(record) if record is not None else []
    parts: list[RenderableType] = [
        Text(f"{doc.name} · {status_line(doc, now)}", style="bold"),
        _verdict(doc, record, checks),
        Text(""),
        standings_table(doc, me),
    ]
    if doc.knockout:
        parts += [Text(""), bracket_text(doc, me)]
    parts.append(Text("\nThe races and their deals", style="bold"))
    if record is None:
        return Group(*parts)
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column, justify in (
        ("Stage", "left"),
        ("Table", "right"),
        ("Variant", "left"),
        ("Seed", "right"),
        ("", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for check in checks:
        seed = "not revealed" if check.seed is None else str(check.seed)
        mark = ("✓", "green") if check.ok else ("–", "dim") if check.seed is None else ("✗", "red")
        table.add_row(check.stage, str(check.table), title_of(check.variant), seed, Text(*mark))
    parts.append(table)
    return Group(*parts)


def _verdict(doc: Tournament, record: Record | None, checks: list[RaceCheck]) -> Text:
    """Whether every revealed seed proves its commitment, in a line or three."""
    verdict = Text()
    if record is None:
        return verdict.append("Asking the server for the revealed seeds…", "dim")
    closed = [check for check in checks if check.seed is not None]
    bad = [check.race for check in closed if not check.ok]
    if not checks:
        verdict.append("No race was played.", "dim")
    elif bad:
        verdict.append(
            f"✗ MISMATCH: the seed of {', '.join(bad)} does not prove its commitment", "bold red"
        )
    elif not closed:
        verdict.append("No race has revealed its seed yet.", "dim")
    else:
        verdict.append(
            f"✓ verified: all {len(closed)} revealed seeds prove the commitments published"
            " when their races started",
            "bold green",
        )
        if doc.arena:
            if len({check.seed for check in closed}) == len(closed):
                verdict.append("\n✓ a fresh deal per race: no two races shared a seed")
        elif not doc.knockout and _one_deal_per_round(closed):
            verdict.append("\n✓ one deal per round: every table of a round raced the same seed")
    if len(closed) < len(checks):
        verdict.append(f"\n{len(checks) - len(closed)} race(s) not closed: no seed yet.", "dim")
    return verdict


class TournamentResultsScreen(ServerScreen):
    """The end of a tournament (or where it stands): standings and the proof of every deal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
    ]

    AUTO_FOCUS = "#t-final-scroll"

    def __init__(self, tournament: str, doc: Tournament) -> None:
        super().__init__()
        self.tournament = tournament
        #: The newest document: the record's once it comes.
        self.doc = doc
        self.record: Record | None = None

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        with VerticalScroll(id="t-final-scroll"):
            yield Static("", id="t-final")
        yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TopBar).text = f"Final results · {self.doc.name}"
        self._draw()
        self.fetch()

    def _draw(self) -> None:
        self.query_one("#t-final", Static).update(
            final_text(self.doc, self.record, self.link.player, time.time())
        )

    @work(exclusive=True, group="record")
    async def fetch(self) -> None:

        async def page(start: int | None) -> RecordPage:
            asked = GetTournamentRecord(tournament=self.tournament, from_stage=start)
            reply = await self.link.request(asked, TournamentRecord)
            return reply.record, reply.next_stage

        try:
            record = Record.from_data(await joined_record(page))
        except (RequestFailed, Offline, InvalidField) as exc:
            self.query_one("#notice", Static).update(f"✗ Could not fetch the record: {exc}")
            return
        self.record = record
        self.doc = self.record.tournament
        self._draw()

    def link_online(self) -> None:
        if self.record is None:
            self.fetch()

    def action_back(self) -> None:
        self.app.pop_screen()

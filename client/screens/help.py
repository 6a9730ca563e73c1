"""Help and rules: a page of text over the screen it was opened from.

The lobby's ``?`` says which server this is (so its address can be passed on
to a friend, or to ``ballroom tournament export``) and which keys do what;
the game's ``?`` gives the variant's rules in the engine's own words
(:mod:`client.models.rules`), the piles as the layout names them, and how
to type a move.
"""

from __future__ import annotations

from collections import defaultdict
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from client.models.rules import RULES
from protocol.layout import Layout, Role

__all__ = ["HelpScreen", "lobby_help", "rules_text"]

#: How each role is called in a list of piles.
_ROLE_NAMES = {
    Role.FOUNDATION: "Foundations",
    Role.PARADE: "Parade",
    Role.TABLEAU: "Tableau",
    Role.RESERVE: "Reserve",
    Role.DEPOT: "Depots",
    Role.STOCK: "Stock",
    Role.WASTE: "Waste",
    Role.DISCARD: "Discard",
}

_MOVE_TEXT = """\
Moves as text (press : in a race): SOURCE>DEST, e.g. w>f3 (the waste's top
card to f3); SOURCE:N>DEST takes card N of a spread pile (r:4>f2); swap A B
swaps two piles where the variant allows it; deal, redeal, deal-reversed."""

_GAME_KEYS = """\
Arrows move the cursor · Space picks a card, then drops it · Tab/n cycles the
legal moves, Enter plays the highlighted one · d deals, D deals reversed ·
f finishes: plays every move to a foundation while there is one · : types a
move · v shows or hides the racers panel · h hints the next move of a winning
line, H the expert's move from what you see (practice races) · x x resigns ·
? this page"""


def rules_text(layout: Layout) -> Text:
    """The rules page of a race: the variant's rules, its piles, the keys, move text."""
    out = Text()
    out.append(f"{layout.title}\n\n", style="bold")
    out.append(RULES.get(layout.variant, "This client has no rules text for this variant."))
    out.append("\n\nPiles\n", style="bold")
    by_role: defaultdict[Role, list[str]] = defaultdict(list)
    for spec in layout.piles:
        by_role[spec.role].append(f"{spec.id} {spec.label}".strip() if spec.label else spec.id)
    for role, piles in by_role.items():
        out.append(f"  {_ROLE_NAMES.get(role, role.value)}: ", style="bold")
        out.append(", ".join(piles) + "\n")
    out.append("\nKeys\n", style="bold")
    out.append(_GAME_KEYS + "\n\n")
    out.append(_MOVE_TEXT)
    return out


def lobby_help(server_url: str, name: str) -> Text:
    """The lobby's help page: where this client is connected, as whom, and the keys."""
    out = Text()
    out.append("Ballroom\n\n", style="bold")
    out.append("Server  ", style="bold")
    out.append(f"{server_url}\n")
    out.append("        (give this address to others: ballroom play --server URL)\n", "dim")
    out.append("Name    ", style="bold")
    out.append(f"{name}\n\n")
    out.append("Lobby keys\n", style="bold")
    out.append(
        # Lines short enough for an 80-column terminal, inside the dialog's frame.
        "p practise against a bot on the highlighted variant\n"
        "c or Enter creates a race · j joins by code · g rejoins the race you left\n"
        "Enter on a listed race joins it · w watches it · i watches by id\n"
        "t shows tournaments instead of races (and back) · r refreshes · q quits\n"
        "a logs in or registers · k waits for a quick race · m shows your profile\n"
        "l shows the leaderboards · d the daily deal\n"
        "b sets the practice bot's speed · o its level: greedy, or solver\n"
        "(which plays the winning line the server finds, on a deal proved winnable)\n\n"
    )
    out.append("In a race\n", style="bold")
    out.append(_GAME_KEYS + "\n\n")
    out.append(_MOVE_TEXT)
    return out


class HelpScreen(ModalScreen[None]):
    """One page of text; Escape, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(self.body)
        yield Footer()

    def on_mount(self) -> None:
        # Opened as the app quits, it may be taken down before its widgets come.
        for box in self.query("#help").results(VerticalScroll):
            box.border_title = self.title_text

    def action_close(self) -> None:
        self.dismiss(None)

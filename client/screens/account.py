"""Log in, register, log out: the account screen (``a`` in the lobby).

A login is remembered per server the way a guest session already is: the
account's token goes into the client's session file (owner-only, in the
user's state directory, :mod:`client.models.saved`), so the next
``ballroom play`` against that server says hello with it and is logged in.
The password itself is never kept.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Input, Label, Static

from client.net import Offline, ServerLink
from client.screens.base import ServerScreen
from client.session import RequestFailed
from client.widgets.status import TopBar
from protocol.accounts import is_guest
from protocol.exceptions import LocalProtocolError
from protocol.messages import Account, Login, Logout, Register

__all__ = ["AccountScreen", "adopt"]


def adopt(link: ServerLink, account: Account) -> None:
    """From now on the link speaks as ``account``: its token is the one to resume with."""
    link.speak_as(account.name, account.player, account.token, guest=account.guest)


class AccountScreen(ServerScreen):
    """Who this client is on the server, and the form to change it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def compose(self) -> ComposeResult:
        yield TopBar(id="top")
        with Vertical(id="account"):
            yield Static("", id="who")
            yield Label("Name")
            yield Input(placeholder="your account's name", id="name")
            yield Label("Password")
            yield Input(placeholder="8 characters or more", password=True, id="password")
            with Horizontal(id="account-buttons"):
                yield Button("Log in", id="login", variant="primary")
                yield Button("Register", id="register")
                yield Button("Log out", id="logout")
                yield Button("Log out everywhere", id="logout-all")
            yield Static("", id="notice")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TopBar).text = "Account"
        self._show_who()
        # The name this client plays as (--name) is filled in: the password comes next.
        name = self.query_one("#name", Input)
        name.value = self.ballroom.player_name
        self.query_one("#password", Input).focus()

    def _show_who(self) -> None:
        player = self.link.player
        if player is None or is_guest(player):
            who = "You play as a guest. Log in or register to keep a rating and a profile."
        else:
            who = f"Logged in as {self.ballroom.player_name} (this server remembers you here)."
        self.query_one("#who", Static).update(Text(who))  # a name is never markup

    def say(self, text: str) -> None:
        self.query_one("#notice", Static).update(Text(text))

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self._send("login")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self._send(event.button.id or "")

    def _send(self, what: str) -> None:
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value
        try:
            if what == "login":
                request: Login | Register | Logout = Login(name=name, password=password)
            elif what == "register":
                request = Register(name=name, password=password)
            else:
                request = Logout(everywhere=what == "logout-all")
        except LocalProtocolError as exc:  # a typo: said under the form, nothing sent
            self.say(f"✗ {exc.field}: {exc.reason}")
            return
        self._ask(request)

    @work(exclusive=True, group="account")
    async def _ask(self, request: Login | Register | Logout) -> None:
        try:
            account = await self.link.request(request, Account)
        except RequestFailed as exc:
            wait = f" (try again in {exc.retry_after:.0f} s)" if exc.retry_after else ""
            self.say(f"✗ {exc.message}{wait}")
            return
        except Offline as exc:
            self.say(f"✗ {exc}")
            return
        adopt(self.link, account)
        self.query_one("#password", Input).value = ""
        self._show_who()
        self.say("✓ logged out: you play as a guest" if account.guest else f"✓ {account.name}")

    def action_back(self) -> None:
        self.app.pop_screen()

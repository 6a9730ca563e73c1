"""The Ballroom terminal client: a Textual app that renders what the server sends.

It knows no rules. The server sends each variant's layout, the player's
views and the legal moves as text; the app draws them and sends back the
moves the player picks. Screens: the lobby (the default screen), a race's
waiting room, the game, the results, spectating and replays, and a
tournament's screen with its final results. Screens open one another by
route (:mod:`client.routes`): the app builds the page through
:mod:`client.navigation` and is, to its screens, the narrow
:class:`~client.screens.base.Host` they are given.

Run it with ``BallroomApp("ws://127.0.0.1:8765/", "Ann").run()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

from textual import work
from textual.app import App
from textual.reactive import reactive
from textual.screen import Screen

from client import navigation, terminal
from client.bot import Bot, Patience
from client.models.names import clean_name
from client.models.record import RaceRecord
from client.models.saved import SessionFile
from client.net import (
    LinkChanged,
    LinkState,
    RaceLost,
    ServerLink,
    ServerPushed,
    TournamentLost,
)
from client.routes import Results, Route
from client.screens.base import ServerScreen
from client.tournament_bot import TournamentBot
from protocol.messages import RaceFinished

__all__ = ["BOT_LEVELS", "BOT_SPEEDS", "BallroomApp"]

#: Seconds between two looks at whether the terminal is still there (client/terminal.py).
HANGUP_CHECK_EVERY = 1.0
#: The practice bot's speeds a player can choose (``b``), in moves per second.
BOT_SPEEDS: dict[str, float] = {"slow": 1.0, "normal": 2.0, "fast": 5.0}
#: The practice bot's levels (``l``): greedy play, the server's winning line (which
#: sees the stock), or the expert's search from the bot's own view.
BOT_LEVELS = ("greedy", "solver", "expert")


class BallroomApp(App[None]):
    """Lobby, races, spectating and replays against one server."""

    CSS_PATH = Path(__file__).with_name("ballroom.tcss")
    TITLE = "Ballroom"
    ENABLE_COMMAND_PALETTE = False

    #: The link's state in a few words, shown on every screen's top bar.
    link_text: reactive[str] = reactive("⟳ connecting…")

    def __init__(
        self,
        server_url: str,
        name: str,
        *,
        bot_speed: float = 2.0,
        state_dir: Path | None = None,
        restore_last: bool = False,
    ) -> None:
        """``bot_speed``: moves per second of the bots this app brings into races.

        ``state_dir``: where the session token and the races under way are
        kept, so that a restarted client can rejoin them (None: kept nowhere,
        as in tests; ``ballroom play`` gives the user's state directory).
        Logins are kept there per server and per name: ``name``'s is taken up,
        or with ``restore_last`` (no ``--name``) the one used last there.
        """
        super().__init__()
        self.server_url = server_url
        self.bot_speed = bot_speed
        #: The level of the bots this app brings into races (``client/bot.py``'s strategies).
        self.bot_level = BOT_LEVELS[0]
        #: The bots this app brought into races and that still play (their speed follows ours).
        self.bots: list[Bot] = []
        saved = SessionFile(state_dir) if state_dir is not None else None
        self.link = ServerLink(self, server_url, clean_name(name), saved, restore_last=restore_last)
        self._said_who = False  # whose login this client restored is said once
        self._who_text = ""  # whose login this client took up, for the lobby to say once
        #: Entry passwords this app gave or chose, by tournament id: its bots need them.
        self.passwords: dict[str, str] = {}
        self._bots = 0  # bots brought into tournaments so far, to name them apart
        #: Races whose player finished and went back to the lobby: their results
        #: are shown when they come (:meth:`on_server_pushed`).
        self.awaiting: dict[str, RaceRecord] = {}

    @property
    def player_name(self) -> str:
        """Who this client is, as the server last said: one name for the top bar, the
        account screen, the profile and the seat (they all follow the link's)."""
        return self.link.name

    def take_who(self) -> str:
        """Whose login this client took up, for the lobby to say: once, then empty."""
        who, self._who_text = self._who_text, ""
        return who

    def results_later(self, record: RaceRecord) -> None:
        """The player left a race whose game is over: its results open when they come."""
        self.awaiting[record.race] = record

    def show(self, route: Route) -> None:
        """Open the page ``route`` names over the current screen."""
        self.push_screen(navigation.page(route))

    def show_instead(self, route: Route) -> None:
        """Open the page ``route`` names in place of the current screen."""
        self.switch_screen(navigation.page(route))

    def practise(self, variant: str) -> None:
        """Back to the lobby, and a new practice race on ``variant`` (``n`` on the results)."""
        self.back_to_lobby()
        screen = self.screen
        if isinstance(screen, ServerScreen):
            screen.practice_on(variant)

    def action_keys(self) -> None:
        """The page of every key the screen takes (``f1``): the footer cuts them at 80."""
        keys = navigation.keys_page(self.screen)
        if keys is not None:
            self.push_screen(keys)

    def get_default_screen(self) -> Screen[None]:
        return navigation.first_page()

    def on_mount(self) -> None:
        # A polite kill (SIGTERM, or SIGHUP with the terminal still there) ends the app
        # the normal way, so the launcher behind it can stop its local server. A terminal
        # that went away, with a signal or without one, ends the process at once
        # (client/terminal.py says why): it is looked at every HANGUP_CHECK_EVERY seconds.
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._end)
        if not self.is_headless:
            self.set_interval(HANGUP_CHECK_EVERY, self._end_if_hung_up)
        self.keep_linked()

    def _end(self) -> None:
        self._end_if_hung_up()
        self.exit()

    def _end_if_hung_up(self) -> None:
        if terminal.hung_up():
            terminal.leave_now()

    @work(group="link", exclusive=True)
    async def keep_linked(self) -> None:
        """The link's loop runs as long as the app (the worker is cancelled at exit)."""
        await self.link.run()

    def _screens(self) -> list[ServerScreen]:
        return [screen for screen in self.screen_stack if isinstance(screen, ServerScreen)]

    def on_server_pushed(self, event: ServerPushed) -> None:
        message = event.message
        for screen in self._screens():
            screen.server_message(message)
        if isinstance(message, RaceFinished) and message.race in self.awaiting:
            self._results_came(self.awaiting.pop(message.race), message)

    def _results_came(self, record: RaceRecord, finished: RaceFinished) -> None:
        """The results of a race the player left once their game was over."""
        record.finish(finished)
        self.link.forget(record.race)
        screen = self.screen
        if isinstance(screen, ServerScreen) and (screen.HOME or len(self.screen_stack) == 1):
            self.show(Results(record))
        else:  # busy in another race, say: not pulled away from it
            place = next((s.place for s in finished.standings if s.player == record.me), "?")
            self.notify(f"{record.called} is over: you placed {place}.", timeout=10)

    def on_link_changed(self, event: LinkChanged) -> None:
        self.link_text = event.text
        if event.state is LinkState.ONLINE:
            if not self._said_who:
                self._said_who = True
                self._who_text = self._who()
            for screen in self._screens():
                screen.link_online()

    def _who(self) -> str:
        """Which login this client took up, in words the lobby says once (so that nobody
        plays on under another's login unawares); empty where nothing is kept."""
        link = self.link
        kind = "a guest" if link.guest else "an account"
        if link.restored:
            return f"Restored the saved login of {link.name} ({kind}) on this server."
        if link.saved is not None:
            return f"No saved login for {link.name} on this server: a new guest. a logs in."
        return ""

    def on_race_lost(self, event: RaceLost) -> None:
        for screen in self._screens():
            screen.race_lost(event.race, event.reason)

    def on_tournament_lost(self, event: TournamentLost) -> None:
        for screen in self._screens():
            screen.tournament_lost(event.tournament, event.reason)

    def back_to_lobby(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def back_home(self) -> None:
        """Back to the nearest screen that races return to: a tournament's, else the lobby."""
        while len(self.screen_stack) > 1:
            screen = self.screen
            if isinstance(screen, ServerScreen) and screen.HOME:
                return
            self.pop_screen()

    @property
    def bot_speed_name(self) -> str:
        """The bot speed's name ("slow", "normal", "fast"), or moves per second if none fits."""
        for name, speed in BOT_SPEEDS.items():
            if speed == self.bot_speed:
                return name
        return f"{self.bot_speed:g} moves/s"

    @property
    def bot_speed_text(self) -> str:
        """The bot speed in moves a second, in words: "1 move a second", "2.5 moves a second"."""
        speed = self.bot_speed
        return f"{speed:g} move{'' if speed == 1 else 's'} a second"

    def next_bot_speed(self) -> str:
        """Switch to the next speed (slow → normal → fast → slow), bots at play included.

        Returns the new speed's name. A bot reads its speed before each move,
        so a practice race already under way speeds up or slows down at once.
        """
        names = list(BOT_SPEEDS)
        now = self.bot_speed_name
        name = names[(names.index(now) + 1) % len(names)] if now in names else "normal"
        self.bot_speed = BOT_SPEEDS[name]
        for bot in self.bots:
            bot.speed = self.bot_speed
        return name

    def next_bot_level(self) -> str:
        """Switch the level of the bots brought in from now on (greedy ↔ solver); the new one."""
        self.bot_level = BOT_LEVELS[(BOT_LEVELS.index(self.bot_level) + 1) % len(BOT_LEVELS)]
        return self.bot_level

    def start_bot(self, code: str) -> None:
        """Bring a bot player into the race with join code ``code``."""
        self.run_worker(self._bot(code), group="bots", exit_on_error=False)

    async def _bot(self, code: str) -> None:
        # It keeps trying as long as this app does: a bot that gave up during
        # an outage would sit in the race while its human played on.
        bot = Bot(
            self.server_url,
            name="Bot",
            strategy=self.bot_level,
            speed=self.bot_speed,
            patience=Patience(reconnects=None),
        )
        self.bots.append(bot)
        try:
            await bot.run(code=code)
        except Exception as exc:
            self.notify(f"The bot stopped: {exc}", severity="error")
            raise
        finally:
            self.bots.remove(bot)

    def start_tournament_bot(self, tournament: str) -> None:
        """Enter a bot (``Bot 1``, ``Bot 2``…) in ``tournament``; it races every seat it gets."""
        self._bots += 1
        self.run_worker(
            self._tournament_bot(tournament, self._bots), group="bots", exit_on_error=False
        )

    async def _tournament_bot(self, tournament: str, number: int) -> None:
        bot = TournamentBot(
            self.server_url,
            name=f"Bot {number}",
            speed=self.bot_speed,
            seed=number,
            password=self.passwords.get(tournament),
        )
        try:
            await bot.run(tournament=tournament)
        except Exception as exc:
            self.notify(f"Bot {number} stopped: {exc}", severity="error")
            raise

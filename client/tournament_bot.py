"""A bot entrant: joins a tournament and races every seat it is given.

It follows the tournament over one connection (``watch_tournament`` after
each reconnect, which also keeps its grace clock from running) and, each
time the pushed document seats it in a race, starts a :class:`~client.bot.Bot`
on that race with the same session token. It stops when the tournament is
over and returns the final document.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Sequence

from client.bot import _CONNECTION_ERRORS, Bot, Patience
from client.session import ClientSession, RequestFailed
from protocol.messages import (
    JoinTournament,
    PauseArena,
    Ping,
    RaceFinished,
    TournamentInfo,
    WatchTournament,
)
from protocol.tournaments import Tournament

__all__ = ["TournamentBot"]

log = logging.getLogger(__name__)


class TournamentBot:
    """One bot entrant. ``await TournamentBot(url).run(code=...)`` returns the final document."""

    def __init__(
        self,
        url: str,
        *,
        name: str = "Bot",
        strategy: str = "greedy",
        speed: float = 2.0,
        seed: int = 0,
        password: str | None = None,
        patience: Patience | None = None,
        fallbacks: Sequence[str] = (),
    ) -> None:
        self.urls = [url, *fallbacks]  # as Bot.urls: the one in use first
        self.name = name
        self.strategy = strategy
        self.speed = speed
        self.seed = seed
        self.password = password
        self.patience = patience or Patience()
        self.token: str | None = None
        self.player: str | None = None
        self.tournament: str | None = None
        #: The newest document (the final one is what ``run`` returns).
        self.doc: Tournament | None = None
        #: Set once the bot has entered: a host may start the tournament then.
        self.joined = asyncio.Event()
        self.races: dict[str, asyncio.Task[RaceFinished | None]] = {}
        self._rng = random.Random(seed)

    async def run(self, *, code: str | None = None, tournament: str | None = None) -> Tournament:
        """Enter, race every seat until the tournament is over, and return its document.

        Raises:
            RequestFailed: the server refused the entry (wrong password, started).
            ConnectionError: the server could not be reached again within the patience.
        """
        failures = 0
        try:
            while not self.over:
                try:
                    session = await ClientSession.connect(self.urls[0], self.name, self.token)
                except (*_CONNECTION_ERRORS, RequestFailed) as exc:
                    failures += 1
                    self.urls.append(self.urls.pop(0))
                    if self.patience.gives_up(failures):
                        servers = ", ".join(self.urls)
                        raise ConnectionError(f"cannot reach {servers}: {exc}") from exc
                    await asyncio.sleep(self.patience.backoff(failures, self._rng))
                    continue
                failures = 0
                try:
                    await self._follow(session, code, tournament)
                except _CONNECTION_ERRORS as exc:
                    log.info("tournament bot %s: %s; reconnecting", self.name, exc)
                finally:
                    with contextlib.suppress(*_CONNECTION_ERRORS):
                        await session.close()
            assert self.doc is not None  # over: a document said so
            return self.doc
        finally:
            for task in self.races.values():
                task.cancel()
            await asyncio.gather(*self.races.values(), return_exceptions=True)

    async def _follow(
        self, session: ClientSession, code: str | None, tournament: str | None
    ) -> None:
        assert session.welcome is not None
        self.token, self.player = session.welcome.token, session.player
        if self.tournament is None:
            reply = await session.request(
                JoinTournament(code=code, tournament=tournament, password=self.password),
                TournamentInfo,
            )
            self.tournament = reply.tournament.id
            self.joined.set()
        else:
            reply = await session.request(
                WatchTournament(tournament=self.tournament), TournamentInfo
            )
        self._take(reply.tournament)
        await self._come_back(session)
        while not self.over:
            try:
                message = await session.next(TournamentInfo, timeout=self.patience.keepalive)
            except TimeoutError:
                await session.send(Ping())  # servers close connections that stay silent
                continue
            self._take(message.tournament)
            await self._come_back(session)
        await asyncio.gather(*self.races.values(), return_exceptions=True)

    async def _come_back(self, session: ClientSession) -> None:
        """In an arena, a bot the server paused (away past the grace period while its node
        was down) asks to race again: a bot is always ready for its next race."""
        doc = self.doc
        entrant = None if doc is None else doc.entrant(self.player)
        if doc is None or not doc.arena or doc.status.over or entrant is None:
            return
        if entrant.paused and not entrant.removed:
            with contextlib.suppress(RequestFailed):
                await session.request(PauseArena(tournament=doc.id, paused=False), TournamentInfo)

    @property
    def over(self) -> bool:
        """Whether the tournament has ended, as far as the bot has heard."""
        return self.doc is not None and self.doc.status.over

    def _take(self, doc: Tournament) -> None:
        self.doc = doc
        assert self.player is not None and self.token is not None
        table = self.doc.seat_of(self.player)
        if table is None or table.race in self.races:
            return
        race = table.race
        bot = Bot(
            self.urls[0], name=self.name, strategy=self.strategy, speed=self.speed,
            seed=self.seed, patience=self.patience, fallbacks=self.urls[1:],
        )  # fmt: skip
        self.races[race] = asyncio.get_running_loop().create_task(
            bot.play_seat(race, self.token), name=f"{self.name} in {race}"
        )

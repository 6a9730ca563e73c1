"""The daily deal: one secret deal per variant per day, the same for every account.

The day's seed is drawn by the first request of the day (``HSETNX``, any
node) and committed to at once: :meth:`DailyDeals.info` publishes the
SHA-256 of ``ballroom-commit/v1/{variant}/{deal_version}/{seed}/daily-{day}``
all day, and the seed the next day (once the day's last race is over:
:data:`~server.rules.daily.REVEAL_AFTER` past midnight), so anyone can check
that everyone got the deal fixed in the morning. An account plays it once:
its race's id is made from the day, the variant and the player, so a second
try finds the first. Its results (which hold the seed) wait until the day is
revealed, like a tournament table's; the day's leaderboard of times is open
all day.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Callable

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.messages import deal_commitment
from protocol.profiles import DailyDeal, DailyEntry, RevealedDeal
from server.engine import DEAL_VERSION, Game
from server.exceptions import RequestRefused
from server.rules.daily import DAY, TIME_LIMIT, DailyScore, day_of, revealed
from server.rules.races import RaceSettings, Spectate
from server.rules.winnable import WinnableChoice
from server.services.lobby import Lobby
from server.services.refusals import variant_or_refusal
from server.services.results import Results
from server.storage.daily import DailyStore
from server.storage.players import PlayerStore

__all__ = ["DAILY_HOST", "DailyDeals"]

#: The host of every daily race: no player has this id, so none can start one.
DAILY_HOST = "daily"


def _entry(place: int, player: str, name: str, score: float) -> DailyEntry:
    """A line of a day's board: a win's time, or the cards home of a game not won."""
    line = DailyScore.from_score(score)
    if line.won:
        return DailyEntry(place, player, name, won=True, time=line.time)
    return DailyEntry(place, player, name, won=False, home=line.home)


class DailyDeals:
    """Today's deals, their races and boards, and yesterday's reveal."""

    def __init__(
        self,
        store: DailyStore,
        players: PlayerStore,
        lobby: Lobby,
        results: Results,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.players = players
        self.lobby = lobby
        self.results = results
        self.clock = clock
        #: The searches for a day's winnable deal under way on this node, by (day, variant).
        self._searches: dict[tuple[str, str], asyncio.Future[WinnableChoice]] = {}

    async def play(self, player: str, name: str, variant: str) -> str:
        """The account's race on today's deal of ``variant``: made and started, or refused if
        it was played to the end already."""
        if is_guest(player):
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, "log in to play the daily deal: one try per account"
            )
        game = variant_or_refusal(variant)
        day = day_of(self.clock())
        seed, choice = await self._deal(day, game)
        tag = hashlib.sha256(f"{game.id}|{player}".encode()).hexdigest()[:16]
        race = f"d{day.replace('-', '')}-{tag}"
        settings = RaceSettings(
            variant=game.id, seed=seed, deal_version=DEAL_VERSION, time_limit=TIME_LIMIT,
            spectate=Spectate.AFTER, hold_results=True, unrated=True, daily=f"{day}:{game.id}",
        )  # fmt: skip
        if choice is not None:  # the results reveal how the deal was chosen, as any race's
            settings = dataclasses.replace(
                settings, winnable="proved" if choice.proved else "fallback", line=choice.line,
                draw=choice.draw, pick=choice.pick,
            )  # fmt: skip
        if await self.lobby.create_seated(race, DAILY_HOST, {player: name}, settings):
            await self.store.add_race(day, game.id, race)
        elif await self.results.has_results(race):
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, "you played today's deal; its results open tomorrow"
            )
        with contextlib.suppress(RequestRefused):  # started already: it is resumed
            await self.lobby.start(DAILY_HOST, race)
        return race

    async def info(self, variant: str) -> DailyDeal:
        """Today's commitment and leaderboard, and yesterday's revealed seed."""
        game = variant_or_refusal(variant)
        now = self.clock()
        today, yesterday = day_of(now), day_of(now - DAY)
        seed, _ = await self._deal(today, game)
        board = await self.store.board(today, game.id)
        names = await self.players.names([player for player, _ in board])
        entries = tuple(
            _entry(place, player, name or "?", score)
            for place, ((player, score), name) in enumerate(zip(board, names, strict=True), 1)
        )
        # Not before the last race of yesterday's deal is over (one may run past midnight).
        known = None
        if revealed(yesterday, now):
            known = await self.store.known_seed(yesterday, game.id)
        reveal = None
        if known is not None:
            proof = deal_commitment(game.id, DEAL_VERSION, known, f"daily-{yesterday}")
            reveal = RevealedDeal(yesterday, known, DEAL_VERSION, proof)
        return DailyDeal(
            variant=game.id,
            day=today,
            commitment=deal_commitment(game.id, DEAL_VERSION, seed, f"daily-{today}"),
            board=entries,
            yesterday=reveal,
        )

    async def _deal(self, day: str, game: Game) -> tuple[int, WinnableChoice | None]:
        """The day's seed of ``game`` and the winnable choice it came from: chosen by the
        day's first request, on any node (the first one stored stands), as a race that asks
        for a winnable deal chooses one (docs/protocol.md, "Winnable deals")."""
        known = await self.store.chosen(day, game.id)
        if known is not None:
            return known
        key = (day, game.id)
        search = self._searches.get(key)
        if search is None:  # one search per node, however many ask at once
            search = asyncio.ensure_future(self.lobby.winnable.choose(game, DEAL_VERSION))
            self._searches[key] = search
            search.add_done_callback(lambda _: self._searches.pop(key, None))
        return await self.store.choose(day, game.id, await asyncio.shield(search))

    async def tick(self) -> None:
        """Announce the results of every earlier day's races, once the day is revealed
        (its last race is over, so its seed is public now).

        A day stays pending while one of its races still lacks results (Redis
        was away when its clock ran out, say): announced when it has them.
        """
        now = self.clock()
        for day, variant in await self.store.pending_days():
            if not revealed(day, now):
                continue
            waiting = False
            for race in await self.store.races(day, variant):
                if await self.results.has_results(race):
                    await self.results.announce_held_results(race)
                elif await self.lobby.meta(race) is not None:
                    waiting = True  # not closed yet: its results come, held, later
            if not waiting:
                await self.store.announced(day, variant)

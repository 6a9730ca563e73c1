"""Several nodes on one Redis in the tests: connect to one, open a race on the public deal,
start it, and check a node's log for errors."""

from __future__ import annotations

import asyncio

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    RaceInfo,
    RaceStarted,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import GreedyPolicy
from protocol.views import View
from server.rules.events import MoveMade
from server.storage.event_codec import decode_event
from server.storage.store import Store
from tests.server.conftest import TIMEOUT

VARIANT = "royal-cotillion"


DEAL = 1  # the greedy bot wins this public deal in 142 moves


class Racer:
    """One racer's client and its game as the server last showed it."""

    def __init__(self, session: ClientSession, race: str, started: RaceStarted) -> None:
        self.session = session
        self.race = race
        self.commitment = started.commitment
        self.policy = GreedyPolicy(started.layout)
        self.view: View = started.view
        self.legal: list[str] = list(started.legal)
        self.replies: dict[int, Moved] = {}

    @property
    def seq(self) -> int:
        """How many moves this racer has made: the next move's ``seq``."""
        return self.view.moves

    def choose(self) -> str:
        return self.policy.choose(self.view, [Move.parse(t) for t in self.legal]).text()

    def took(self, reply: Moved) -> None:
        self.replies[reply.seq] = reply
        self.view, self.legal = reply.view, list(reply.legal)

    async def play(self, limit: int | None = None) -> None:
        """Play greedy moves until the game is over, or ``limit`` more moves."""
        done = 0
        while self.legal and (limit is None or done < limit):
            move = SubmitMove(race=self.race, seq=self.seq, move=self.choose())
            self.took(await self.session.request(move, Moved))
            done += 1


async def connect(url: str, name: str, token: str | None = None) -> ClientSession:
    async with asyncio.timeout(TIMEOUT):
        return await ClientSession.connect(url, name, token)


async def open_race(host: ClientSession, others: list[ClientSession], players: int) -> str:
    """A race on the public deal with ``host`` and ``others`` in it, not started yet."""
    created = await host.request(
        CreateRace(
            variant=VARIANT,
            max_players=players,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=DEAL,
        ),
        RaceInfo,
    )
    for other in others:
        await other.request(JoinRace(code=created.race.code), RaceInfo)
    race: str = created.race.id
    return race


async def start(host: ClientSession, sessions: list[ClientSession], race: str) -> list[Racer]:
    await host.request(StartRace(race=race), RaceInfo)
    return [Racer(s, race, await s.next(RaceStarted, timeout=TIMEOUT)) for s in sessions]


async def move_events(store: Store, race: str) -> list[tuple[int, MoveMade]]:
    """Every move event in the race's stream, oldest first."""
    events = [(n, decode_event(p)) for n, p in await store.events.since(race, 0)]
    return [(n, event) for n, event in events if isinstance(event, MoveMade)]


async def check_log(store: Store, race: str, player: str, log: list[str]) -> None:
    """Each applied move of ``player`` is logged once, in order, and announced once."""
    assert await store.boards.log(race, player) == log
    announced = [
        (event.seq, event.move)
        for _, event in await move_events(store, race)
        if event.player == player
    ]
    assert announced == list(enumerate(log))


__all__ = ["DEAL", "VARIANT", "Racer", "check_log", "connect", "move_events", "open_race", "start"]

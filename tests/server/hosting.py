"""Tournaments hosted over the protocol in the tests: quick settings, a host, and bots that
play its races."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from client.bot import Patience
from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    CreateTournament,
    GetTournamentRecord,
    JoinTournament,
    ManageTournament,
    RaceInfo,
    Resign,
    TournamentAction,
    TournamentInfo,
    TournamentRecord,
)
from protocol.record import RecordPage, joined_record
from protocol.tournaments import Tournament
from tests.server.conftest import FAST, TIMEOUT

QUICK = Patience(request=TIMEOUT, keepalive=TIMEOUT)


async def host_tournament(url: str, **settings: Any) -> tuple[ClientSession, Tournament]:
    """A new connection "Host" and the tournament it created (breaks of 0 s, live spectating)."""
    host = await ClientSession.connect(url, "Host")
    return host, await host_tournament_as(host, **settings)


async def host_tournament_as(host: ClientSession, **settings: Any) -> Tournament:
    defaults: dict[str, Any] = {
        "name": "Friday dance",
        "time_limit": 120,
        "spectate": "live",
        "delay": 0,
        "break_seconds": 0,
    }
    reply = await host.request(CreateTournament(**{**defaults, **settings}), TournamentInfo)
    return reply.tournament


async def whole_record(
    session: ClientSession, *, tournament: str | None = None, code: str | None = None
) -> dict[str, object]:
    """The tournament's record (named by its id or its code), joined from its pages."""

    async def page(start: int | None) -> RecordPage:
        asked = GetTournamentRecord(tournament=tournament, code=code, from_stage=start)
        reply = await session.request(asked, TournamentRecord)
        return reply.record, reply.next_stage

    return await joined_record(page)


async def run_bots(
    urls: Sequence[str],
    code: str,
    count: int,
    host: ClientSession,
    tournament: str,
    *,
    entrants: int = 0,
) -> list[Tournament]:
    """``count`` bot entrants spread over ``urls``; the host starts once all are in
    (and the tournament has at least ``entrants``, for others entering meanwhile)."""
    bots = [
        TournamentBot(urls[i % len(urls)], name=f"Bot {i}", speed=0, seed=i, patience=QUICK)
        for i in range(count)
    ]
    tasks = [asyncio.create_task(bot.run(code=code)) for bot in bots]
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*(bot.joined.wait() for bot in bots))
        if entrants:
            await host.next(TournamentInfo, lambda m: len(m.tournament.entrants) >= entrants)
    await host.request(
        ManageTournament(tournament=tournament, action=TournamentAction.START), TournamentInfo
    )
    async with asyncio.timeout(6 * TIMEOUT):
        return list(await asyncio.gather(*tasks))


async def resigner(session: ClientSession, code: str, joined: asyncio.Event) -> None:
    """An arena entrant who resigns every race it is seated in at once: races that end as
    soon as the other racer is done (the terminal and web tests of the arena)."""
    reply = await session.request(JoinTournament(code=code), TournamentInfo)
    joined.set()
    done: set[str] = set()
    doc = reply.tournament
    while not doc.status.over:
        seat = doc.seat_of(session.player)
        if seat is not None and seat.race not in done:
            done.add(seat.race)
            await session.request(Resign(race=seat.race), RaceInfo)
        doc = (await session.next(TournamentInfo, timeout=4 * TIMEOUT)).tournament


__all__ = ["FAST", "QUICK", "host_tournament", "host_tournament_as", "resigner", "run_bots"]

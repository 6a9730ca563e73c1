"""A race before it runs: creating it, finding it by code, joining, leaving,
getting ready and starting, and what anyone may know of it."""

from __future__ import annotations

import time

from protocol.exceptions import ErrorCode
from protocol.lobby import RaceSummary, Winnable
from protocol.messages import CreateRace
from server.engine import DEAL_VERSION, find_variant
from server.exceptions import RequestRefused
from server.rules.events import Starting
from server.rules.races import (
    Phase,
    RaceSettings,
    commitment,
    phase_at,
)
from server.services.codes import id_or_code
from server.services.refusals import refusal, variant_or_refusal
from server.services.solving import SolverPool
from server.services.winnable_deals import WinnableDeals
from server.settings import Settings
from server.storage.draws import draw_secret_seed
from server.storage.races import RaceMeta
from server.storage.store import Store

__all__ = ["DEFAULT_GRACE", "Lobby", "next_phase_change", "public_info"]

#: Seconds a racer may be away (disconnected) before the server resigns them as "left".
DEFAULT_GRACE = 60


def public_info(race: str, meta: RaceMeta, players: dict[str, str], now: float) -> RaceSummary:
    """A race's summary from its meta and players hashes: never the seed before the results."""
    settings = meta.settings
    return RaceSummary(
        id=race,
        code=meta.code,
        variant=settings.variant,
        host=meta.host,
        players=tuple(players),
        names=players,
        ready=tuple(p for p in players if p in meta.ready),
        phase=phase_at(meta.status, now, meta.started_at or 0.0, meta.ends_at or 0.0),
        max_players=len(players) if settings.max_players is None else settings.max_players,
        time_limit=settings.time_limit,
        spectate=settings.spectate,
        delay=settings.delay,
        grace=settings.grace or DEFAULT_GRACE,
        commitment=commitment(settings.variant, settings.deal_version, settings.seed, race),
        # A tournament's table: its tournament, whose code and name stand in
        # for the join code it has not and the host who is not a player.
        tournament=settings.tournament,
        tournament_code=settings.tournament_code,
        host_name=settings.host_name or players.get(meta.host, ""),
        away={p: meta.away[p] for p in players if p in meta.away},
        deal=settings.deal,
        # Asked for a winnable deal: "proved", or "fallback" when none was found in time.
        winnable=Winnable(settings.winnable) if settings.winnable else None,
        practice=settings.practice,
        started_at=meta.started_at,
        ends_at=meta.ends_at,
    )


def next_phase_change(listed: list[RaceSummary]) -> float | None:
    """When the next listed race changes phase by its clock alone (a countdown ends, a
    race's time runs out), Unix seconds; None if none will.

    Those changes are no event and write nothing, so the node that pushes the
    list to its followers (``list_races.follow``) reads it again at that time.
    """
    times = [
        info.started_at if info.phase is Phase.COUNTDOWN else info.ends_at
        for info in listed
        if info.phase in (Phase.COUNTDOWN, Phase.RUNNING)
    ]
    return min((t for t in times if t is not None), default=None)


class Lobby:
    """Race requests before the start, and the public picture of any race."""

    def __init__(
        self, store: Store, settings: Settings, solver: SolverPool, winnable: WinnableDeals
    ) -> None:
        self.store = store
        self.settings = settings
        #: The node's solver pool (the results' analysis runs in it too).
        self.solver = solver
        #: Where a race that asks for a winnable deal gets one.
        self.winnable = winnable

    async def create(self, player: str, name: str, request: CreateRace) -> str:
        """A new open race hosted by ``player``; returns its id."""
        game = variant_or_refusal(request.variant)
        limit = self.settings.limits.open_races_per_player
        if await self.store.lobby.open_races_hosted_by(player) >= limit:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, f"you already host {limit} open races; start or leave one"
            )
        deal = request.deal
        seed = draw_secret_seed() if deal is None else deal
        winnable, line, draw, pick = "", tuple[str, ...](), None, None
        if request.winnable and deal is None:
            # The first winnable candidate of a secret draw (docs/protocol.md, "Winnable deals").
            choice = await self.winnable.choose(game, DEAL_VERSION)
            seed, winnable = choice.seed, "proved" if choice.proved else "fallback"
            line, draw, pick = choice.line, choice.draw, choice.pick
        settings = RaceSettings(
            variant=game.id,
            deal=deal,
            seed=seed,
            deal_version=DEAL_VERSION,
            max_players=request.max_players,
            time_limit=request.time_limit,
            spectate=request.spectate,
            delay=request.spectate_delay,
            grace=request.grace or DEFAULT_GRACE,
            winnable=winnable,
            line=line,
            draw=draw,
            pick=pick,
            practice=bool(request.practice),
            unrated=bool(request.unrated),
        )
        race = await self.store.races.create(player, name, settings)
        await self.store.lobby.changed()
        return race

    async def create_seated(
        self, race: str, host: str, racers: dict[str, str], settings: RaceSettings
    ) -> bool:
        """Store a race made for its racers (a tournament's table, a quick race, a
        rematch, a daily deal): an open race with them seated (safe to repeat)."""
        return await self.store.races.create_seated(race, host, racers, settings)

    async def resolve(self, race: str | None, code: str | None) -> str:
        """A race id from an id or a join code."""
        return await id_or_code(race, code, self.store.races.id_for_code, "race")

    async def info(self, race: str) -> RaceSummary:
        """What anyone may know about a race: never the seed before the results."""
        [(meta, players)] = await self.store.races.metas_and_players([race])
        if meta is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        return public_info(race, meta, players, time.time())

    async def meta(self, race: str) -> RaceMeta | None:
        """The race's stored settings and state, seed included (for the server's own use);
        None if there is no such race."""
        return await self.store.races.meta(race)

    async def players(self, race: str) -> dict[str, str]:
        """The race's racers: player -> name, in the order they joined."""
        return await self.store.races.players(race)

    async def tournament_of(self, race: str) -> str | None:
        """The tournament a race belongs to, if any."""
        meta = await self.store.races.meta(race)
        return None if meta is None else meta.settings.tournament

    async def listed_races(self) -> list[RaceSummary]:
        """Races open to join, then races under way (to spectate); never a finished one,
        even one whose clock ran out a moment before the sweeper closed it."""
        # A race started between the two reads is in both: listed once.
        lobby = self.store.lobby
        races = list(dict.fromkeys([*await lobby.open_races(), *await lobby.live_races()]))
        now = time.time()
        infos = [
            public_info(race, meta, players, now)
            for race, (meta, players) in zip(
                races, await self.store.races.metas_and_players(races), strict=True
            )
            if meta is not None  # else closed between the two reads
        ]
        return [info for info in infos if info.phase is not Phase.FINISHED]

    async def join(self, player: str, name: str, race: str) -> None:
        status, _ = await self.store.races.join(race, player, name)
        if status != "ok":
            raise refusal(status)
        await self.store.lobby.changed()

    async def leave(self, player: str, race: str) -> None:
        status, _ = await self.store.races.leave(race, player)
        if status != "ok":
            raise refusal(status)
        await self.store.lobby.changed()

    async def set_ready(self, player: str, race: str, ready: bool) -> None:
        """Say whether ``player`` is ready; the race starts once every racer is."""
        status, _, everyone = await self.store.races.set_ready(race, player, ready)
        if status != "ok":
            raise refusal(status)
        if everyone:
            await self.start(player, race, force=False)

    async def start(self, player: str, race: str, *, force: bool = True) -> None:
        """Fix the deal and start the clock after the countdown."""
        meta = await self.store.races.meta(race)
        if meta is None:
            raise RequestRefused(ErrorCode.NOT_FOUND, f"no race {race!r}")
        game = find_variant(meta.settings.variant)
        deal_version, seed = meta.settings.deal_version, meta.settings.seed
        opening = game.deal(seed, deal_version)
        started_at = time.time() + self.settings.timeouts.countdown
        ends_at = started_at + meta.settings.time_limit
        starting = Starting(
            started_at=started_at,
            ends_at=ends_at,
            commitment=commitment(game.id, deal_version, seed, race),
            deal_version=deal_version,
            layout=game.layout.to_data(),
            view=game.view(opening),
            legal=game.legal_moves(opening).texts(),
        )
        status, _ = await self.store.races.start(
            race, player, starting, force=force, home=game.home(opening)
        )
        if status != "ok" and force:
            raise refusal(status)
        if status == "ok":
            await self.store.lobby.changed()

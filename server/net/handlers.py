"""One function per client message type: check who may ask, call the service, reply.

Each handler returns the reply (or None) and raises
:class:`~server.exceptions.RequestRefused` to refuse; the connection turns
that into an ``error`` frame carrying the request's id. A handler sees its
connection only as a :class:`~server.net.peer.Peer` (what it may ask of it),
so this module does not know the connection class that dispatches to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from protocol.accounts import is_guest
from protocol.codec import encode_trusted
from protocol.exceptions import ErrorCode
from protocol.lobby import RacePhase
from protocol.messages import (
    Account,
    ClientMessage,
    CreateRace,
    CreateTournament,
    Daily,
    Featured,
    FeaturedRace,
    GetDaily,
    GetHint,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    GetResults,
    GetTournamentRecord,
    Hello,
    Hinted,
    JoinRace,
    JoinTournament,
    Leaderboard,
    LeaveQueue,
    LeaveRace,
    LeaveTournament,
    ListRaces,
    ListTournaments,
    Login,
    Logout,
    ManageTournament,
    Matched,
    Moved,
    PauseArena,
    Ping,
    PlayDaily,
    Pong,
    Profile,
    Queued,
    QuickRace,
    RaceInfo,
    Races,
    Ready,
    Register,
    Rematch,
    RematchState,
    Replay,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    StartRace,
    SubmitMove,
    TournamentInfo,
    TournamentRecord,
    Tournaments,
    WatchTournament,
    Welcome,
)
from protocol.tournaments import Tournament
from protocol.version import PROTOCOL_VERSION
from protocol.views import View
from server.exceptions import RequestRefused, StateLost
from server.fanout.feeds import Role
from server.net.peer import Peer
from server.rules.ratings import OVERALL
from server.services.boards import RacerBoard
from server.services.matchmaking import Waiter
from server.services.moves import MoveResult
from server.services.players import Identity, is_account_token
from server.services.refusals import variant_or_refusal
from server.services.results import race_finished
from server.storage.exceptions import StoreUnavailable

if TYPE_CHECKING:
    from server.fanout.feeds import RaceWatch

__all__ = ["HANDLERS", "move_now", "moved"]

log = logging.getLogger(__name__)

#: A handler's reply: a message, a frame already encoded, or nothing.
Reply = ServerMessage | bytes | None
Handler = Callable[[Peer, Any], Awaitable[Reply]]


async def _race_info(conn: Peer, request: int | None, race: str) -> RaceInfo:
    """The ``race`` reply: the race's summary as it stands now."""
    return RaceInfo(id=request, race=await conn.services.lobby.info(race))


def _me(conn: Peer) -> str:
    assert conn.player is not None  # the connection lets nothing else through
    return conn.player


async def on_hello(conn: Peer, msg: Hello) -> ServerMessage | None:
    sessions = conn.services.sessions
    if conn.player is not None:
        raise RequestRefused(ErrorCode.NOT_ALLOWED, "already said hello")
    guest = True
    if msg.token is not None:
        await sessions.admit_token(conn.address)  # tokens are guessed no faster than logins
        if is_account_token(msg.token):
            session = await conn.services.accounts.resume(msg.token)
            guest = False
        else:
            session = await sessions.find(msg.token)
        if session is None:
            await sessions.unknown_token(conn.address)
            raise RequestRefused(ErrorCode.BAD_TOKEN, "unknown, expired or revoked session token")
        token, (player, name) = msg.token, session
    else:
        name = msg.name
        token, player = await sessions.open(name, conn.address)
    conn.player, conn.name, conn.token = player, name, token
    welcome = Welcome(
        id=msg.id,
        v=PROTOCOL_VERSION,
        token=token,
        player=player,
        name=name,
        node=conn.node,
        now=time.time(),
        guest=guest,
    )
    if msg.token is None:
        return welcome  # a new guest has no match
    conn.send(welcome)
    await _match_waiting(conn)
    return None


# -- accounts ------------------------------------------------------------------


def _speak_for(conn: Peer, msg: Register | Login | Logout, who: Identity) -> Account:
    """From now on the connection speaks for ``who``: every connection of an account is one
    player, so none of them can spectate a race the account is racing in."""
    conn.player, conn.name, conn.token = who.player, who.name, who.token
    return Account(id=msg.id, token=who.token, player=who.player, name=who.name, guest=who.guest)


async def on_register(conn: Peer, msg: Register) -> ServerMessage:
    who = await conn.services.accounts.register(msg.name, msg.password, conn.address)
    return _speak_for(conn, msg, who)


async def on_login(conn: Peer, msg: Login) -> None:
    who = await conn.services.accounts.login(msg.name, msg.password, conn.address)
    conn.send(_speak_for(conn, msg, who))
    await _match_waiting(conn)


async def on_logout(conn: Peer, msg: Logout) -> ServerMessage:
    """Revoke the account's token (or all of them); the connection goes on as a new guest."""
    if conn.token is None or not is_account_token(conn.token):
        raise RequestRefused(ErrorCode.NOT_ALLOWED, "a guest has nothing to log out of")
    await conn.services.accounts.logout(conn.token, everywhere=msg.everywhere)
    name = conn.name or "guest"
    token, player = await conn.services.sessions.open(name, conn.address)
    return _speak_for(conn, msg, Identity(token, player, name, guest=True))


async def on_list_races(conn: Peer, msg: ListRaces) -> ServerMessage:
    if msg.follow is not None:
        conn.follows_lobby = msg.follow  # the node pushes the list as it changes
    return Races(id=msg.id, races=await conn.services.lobby.listed_races())


async def on_create_race(conn: Peer, msg: CreateRace) -> None:
    race = await conn.services.lobby.create(_me(conn), conn.name or "", msg)
    await _reply_then_follow(conn, msg.id, race, since=0)


async def on_join_race(conn: Peer, msg: JoinRace) -> None:
    lobby = conn.services.lobby
    race = await lobby.resolve(msg.race, msg.code)
    before = await conn.services.boards.event_count(race)
    await lobby.join(_me(conn), conn.name or "", race)
    await _reply_then_follow(conn, msg.id, race, since=before)


async def _reply_then_follow(conn: Peer, request: int | None, race: str, since: int) -> None:
    """Reply ``race``, then push the race's events after ``since`` to its new racer.

    A client learns which race it is in from this reply (a join code names
    none), so no event of the race may go before it: the watch holds them.
    The race's summary is read before the watch starts, so that a failed read
    cannot leave a watch holding events with no reply to release them.
    """
    reply = await _race_info(conn, request, race)
    watch = await conn.watch(race, Role.RACER, since=since, held=True)
    _reply_then_release(conn, reply, watch)


async def on_leave_race(conn: Peer, msg: LeaveRace) -> ServerMessage:
    lobby = conn.services.lobby
    await lobby.leave(_me(conn), msg.race)
    await conn.stop_following(msg.race)
    return await _race_info(conn, msg.id, msg.race)


async def on_ready(conn: Peer, msg: Ready) -> ServerMessage:
    lobby = conn.services.lobby
    await lobby.set_ready(_me(conn), msg.race, msg.ready)
    return await _race_info(conn, msg.id, msg.race)


async def on_start_race(conn: Peer, msg: StartRace) -> ServerMessage:
    lobby = conn.services.lobby
    await lobby.start(_me(conn), msg.race)
    return await _race_info(conn, msg.id, msg.race)


async def on_move(conn: Peer, msg: SubmitMove) -> bytes:
    told = _acknowledged(conn, msg)
    try:
        result = await conn.services.moves.move(
            _me(conn), msg.race, msg.seq, msg.move, acknowledged=told
        )
    except StateLost as lost:
        watch = conn.watch_of(msg.race)
        # A watch rewound to what Redis holds already was told this loss (one loss,
        # one rewind): only a move sent before that rewind reached it is refused here.
        if watch is None or watch.acknowledged > lost.seq:
            conn.rewind(msg.race, f"{lost.player} has {lost.seq} of {lost.acknowledged}")
        raise
    return moved(conn, msg, result)


def move_now(conn: Peer, msg: SubmitMove) -> asyncio.Future[MoveResult | None] | None:
    """:func:`on_move` without a task, in the usual case (see ``Moves.move_now``).

    The connection answers the future's result with :func:`moved`; None
    (here or as the result) sends the move down :func:`on_move` instead.
    """
    told = _acknowledged(conn, msg)
    return conn.services.moves.move_now(_me(conn), msg.race, msg.seq, msg.move, acknowledged=told)


def _acknowledged(conn: Peer, msg: SubmitMove) -> int:
    """How many of the racer's moves this connection was told are stored; spectators are refused."""
    watch = conn.watch_of(msg.race)
    if watch is None:
        return 0
    if watch.role is Role.SPECTATOR:
        raise RequestRefused(ErrorCode.NOT_ALLOWED, "spectators cannot move")
    if watch.replaced:  # one seat, one live connection: resume takes it back
        raise RequestRefused(ErrorCode.SEAT_TAKEN, "this race continues in another window")
    return watch.acknowledged


def moved(conn: Peer, msg: SubmitMove, result: MoveResult) -> bytes:
    """The frame of the reply to a stored move (the racer's watch learns it is acknowledged)."""
    watch = conn.watch_of(msg.race)
    if watch is not None:
        watch.acknowledged = max(watch.acknowledged, result.seq + 1)
    # Every field is the engine's output or the checked request's: encoded unchecked.
    return encode_trusted(
        Moved,
        id=msg.id,
        race=msg.race,
        seq=result.seq,
        move=result.move,
        view=result.view,
        legal=result.legal,
        progress=result.progress.to_data(),
        event=result.event,
    )


async def on_resign(conn: Peer, msg: Resign) -> ServerMessage:
    await conn.services.moves.resign(_me(conn), msg.race)
    return await _race_info(conn, msg.id, msg.race)


async def on_spectate(conn: Peer, msg: Spectate) -> None:
    await _spectate(conn, msg.id, msg.race, upto=None)


async def _spectate(conn: Peer, request: int | None, race: str, upto: int | None) -> None:
    """Reply ``spectating`` with the boards as of event ``upto`` (None: as late as the
    policy allows), then push every later event, each once, in order."""
    snapshot = await conn.services.boards.spectator_snapshot(
        race, conn.player, upto=upto, newest_here=conn.newest_here(race)
    )
    # Before anything is sent: the snapshot's summary says the race's tournament.
    await conn.services.tournaments.check_onlooker_of(race, snapshot.race.tournament, conn.player)
    watch = await conn.watch(
        race,
        Role.SPECTATOR,
        since=snapshot.event,
        policy=snapshot.race.spectate,
        delay=float(snapshot.race.delay),
        held=True,
    )
    _reply_then_release(conn, snapshot.message(request), watch)


def _reply_then_release(conn: Peer, reply: ServerMessage, watch: RaceWatch) -> None:
    """Send the reply, then the events the watch held meanwhile: the reply always comes first."""
    conn.send(reply)
    watch.release()


async def on_resume(conn: Peer, msg: Resume) -> None:
    """The client's picture of the race now, then every event after ``since`` it missed."""
    boards = conn.services.boards
    info = await conn.services.lobby.info(msg.race)
    racer = _me(conn) in info.players
    since, events = msg.since, await boards.event_count(msg.race)
    if since > events:  # the client saw events that Redis no longer has
        log.warning(
            "redis lost the latest writes of race %s: a client resumes from event %d of %d",
            msg.race, since, events,
        )  # fmt: skip
        now = RacerBoard(msg.race, events)
        if racer:
            with contextlib.suppress(RequestRefused):
                now = await boards.board_now(msg.race, _me(conn))
        conn.send(now.message())
        since = now.event
    if not racer:
        # A spectator's picture is the boards as of ``since``: every later
        # board then comes as a push, the move of each event included. One
        # that saw nothing (0) is answered as ``spectate`` is: the boards now.
        await _spectate(conn, msg.id, msg.race, upto=since or None)
        return
    reply: ServerMessage = RaceInfo(id=msg.id, race=info)
    if info.phase in (RacePhase.RUNNING, RacePhase.FINISHED):
        reply = (await boards.racer_snapshot(msg.race, _me(conn))).message(msg.id)
    elif info.phase is RacePhase.COUNTDOWN:
        # No board before race_started, even to a racer (docs/protocol.md, *Spectators*):
        # the watch goes on from before the start, whose push gives the deal when it is due.
        start = await boards.start_event(msg.race)
        if start is not None:
            since = min(since, start - 1)
    watch = await conn.watch(msg.race, Role.RACER, since=since, held=True)
    _reply_then_release(conn, reply, watch)


async def on_replay(conn: Peer, msg: GetReplay) -> ServerMessage:
    """Every position of a racer's game, once the race is over and the seed is public."""
    await conn.services.tournaments.check_onlooker(msg.race, conn.player)
    moves, views = await conn.services.results.replay(msg.race, msg.player)
    views_data = [View.from_data(view) for view in views]
    return Replay(id=msg.id, race=msg.race, player=msg.player, moves=moves, views=views_data)


async def on_hint(conn: Peer, msg: GetHint) -> ServerMessage:
    """The next move of a winning line, for a racer in a practice race."""
    hint = await conn.services.hints.hint(_me(conn), msg.race, msg.level)
    return Hinted(id=msg.id, race=msg.race, seq=hint.seq, outcome=hint.outcome, move=hint.move)


async def on_ping(conn: Peer, msg: Ping) -> ServerMessage:
    return Pong(id=msg.id)


# -- tournaments -------------------------------------------------------------


async def _follow(conn: Peer, tournament: str) -> Tournament:
    """The tournament now, with every later change pushed to this connection."""
    director = conn.services.tournaments
    since = await director.event_count(tournament)
    doc = await director.info(tournament)
    entrant = doc.entrant(conn.player) is not None
    await conn.follow_tournament(tournament, since, entrant=entrant)
    return doc


async def on_create_tournament(conn: Peer, msg: CreateTournament) -> ServerMessage:
    doc = await conn.services.tournaments.create(_me(conn), conn.name or "", msg)
    return TournamentInfo(id=msg.id, tournament=await _follow(conn, doc.id))


async def on_list_tournaments(conn: Peer, msg: ListTournaments) -> ServerMessage:
    listed = await conn.services.tournaments.listed()
    return Tournaments(id=msg.id, tournaments=listed)


async def on_join_tournament(conn: Peer, msg: JoinTournament) -> ServerMessage:
    director = conn.services.tournaments
    tournament = await director.resolve(msg.tournament, msg.code)
    await director.join(_me(conn), conn.name or "", tournament, msg.password, conn.address)
    return TournamentInfo(id=msg.id, tournament=await _follow(conn, tournament))


async def on_leave_tournament(conn: Peer, msg: LeaveTournament) -> ServerMessage:
    doc = await conn.services.tournaments.leave(_me(conn), msg.tournament)
    follower = conn.tournament_watch(msg.tournament)
    if follower is not None:
        follower.entrant = False
    return TournamentInfo(id=msg.id, tournament=doc)


async def on_watch_tournament(conn: Peer, msg: WatchTournament) -> ServerMessage:
    """Follow a tournament: anyone may, and an entrant coming back resets their grace clock."""
    director = conn.services.tournaments
    tournament = await director.resolve(msg.tournament, msg.code)
    doc = await _follow(conn, tournament)
    follower = conn.tournament_watch(tournament)
    if follower is not None and follower.entrant:
        await director.heartbeat({tournament: {_me(conn)}})
    return TournamentInfo(id=msg.id, tournament=doc)


async def on_manage_tournament(conn: Peer, msg: ManageTournament) -> ServerMessage:
    doc = await conn.services.tournaments.manage(_me(conn), msg.tournament, msg.action, msg.player)
    return TournamentInfo(id=msg.id, tournament=doc)


async def on_pause_arena(conn: Peer, msg: PauseArena) -> ServerMessage:
    """An arena's entrant steps out or comes back."""
    doc = await conn.services.tournaments.pause_arena(_me(conn), msg.tournament, msg.paused)
    return TournamentInfo(id=msg.id, tournament=doc)


async def on_get_tournament_record(conn: Peer, msg: GetTournamentRecord) -> ServerMessage:
    director = conn.services.tournaments
    tournament = await director.resolve(msg.tournament, msg.code)
    page = await director.record(tournament, msg.from_stage or 0)
    return TournamentRecord(id=msg.id, record=page.to_data(), next_stage=page.next_stage)


# -- quick races -----------------------------------------------------------------


def _alive(conn: Peer) -> Callable[[], bool]:
    """Whether the connection is still open, for services that tell it things later."""
    return lambda: conn.is_open


def _join_race_found(conn: Peer) -> Callable[[str], Awaitable[None]]:
    """Tell the connection a race was found for it (``matched``), then follow it as a racer."""

    async def matched(race: str) -> None:
        info = await conn.services.lobby.info(race)
        conn.send(Matched(race=race, variant=info.variant, info=info))
        await conn.watch(race, Role.RACER, since=0)

    return matched


class _QueueLink:
    """A connection as the matchmaker sees it: what it tells a waiting player."""

    def __init__(self, conn: Peer) -> None:
        self.conn = conn

    def open(self) -> bool:
        return self.conn.is_open

    async def matched(self, race: str) -> None:
        await _join_race_found(self.conn)(race)

    async def unfollow(self, race: str) -> None:
        await self.conn.stop_following(race)

    def requeued(self, waiter: Waiter) -> None:
        self.conn.send(_queued(None, waiter))

    def dropped(self) -> None:
        self.conn.send(Queued(queued=False))


def _queued(request: int | None, waiter: Waiter) -> Queued:
    return Queued(
        id=request, queued=True, variant=waiter.variant, size=waiter.size, rating=waiter.rating
    )


async def on_quick_race(conn: Peer, msg: QuickRace) -> None:
    """Queue for a quick race (moving the player's place if they wait elsewhere); ``matched``
    is pushed when one is found, then its events. A match of theirs for this queue that did
    not start yet is this connection's now: ``matched`` follows the reply."""
    matchmaker = conn.services.matchmaker
    waiter, race = await matchmaker.join(
        _me(conn), conn.name or "", msg.variant, msg.size, _QueueLink(conn)
    )
    conn.send(_queued(msg.id, waiter))
    if race is not None:
        await matchmaker.tell(waiter, race)


async def on_leave_queue(conn: Peer, msg: LeaveQueue) -> ServerMessage:
    """Give the player's place up, or their match that did not start yet (its other racers
    wait again)."""
    await conn.services.matchmaker.leave(_me(conn))
    return Queued(id=msg.id, queued=False)


async def _match_waiting(conn: Peer) -> None:
    """After ``welcome`` or ``account``, before the reply to anything else: ``matched`` for
    the player's quick race that is not over for them (one made while they were away
    included), else ``queue`` for their place (docs/protocol.md, *Reconnecting*)."""
    assert conn.player is not None
    try:
        await conn.services.matchmaker.came_back(conn.player, conn.name or "", _QueueLink(conn))
    except (StoreUnavailable, OSError) as exc:  # the reply went: a match waits its grace out
        log.info("could not tell %s what they have in quick races: %s", conn.player, exc)


async def on_rematch(conn: Peer, msg: Rematch) -> ServerMessage:
    """Accept a rematch; ``matched`` is pushed when every racer has (maybe before the reply)."""
    state = await conn.services.rematches.accept(
        _me(conn), msg.race, notify=_join_race_found(conn), alive=_alive(conn)
    )
    return RematchState(
        id=msg.id,
        race=msg.race,
        accepted=state.accepted,
        racers=state.racers,
        rematch=state.rematch,
    )


async def on_get_daily(conn: Peer, msg: GetDaily) -> ServerMessage:
    return Daily(id=msg.id, daily=await conn.services.daily.info(msg.variant))


async def on_play_daily(conn: Peer, msg: PlayDaily) -> None:
    """Today's deal: ``matched`` answers, then the race's events follow as to a racer."""
    race = await conn.services.daily.play(_me(conn), conn.name or "", msg.variant)
    info = await conn.services.lobby.info(race)
    conn.send(Matched(id=msg.id, race=race, variant=info.variant, info=info))  # first
    await conn.watch(race, Role.RACER, since=0)


async def on_get_results(conn: Peer, msg: GetResults) -> ServerMessage:
    """A finished race's results, once they are public (never a held table's or day's)."""
    await conn.services.tournaments.check_onlooker(msg.race, conn.player)
    results = await conn.services.results.public_results(msg.race)
    return race_finished(msg.race, results, id=msg.id)


async def on_featured_race(conn: Peer, msg: FeaturedRace) -> ServerMessage:
    """The race the /tv page follows now (server/services/tv.py says how it is chosen)."""
    return Featured(id=msg.id, race=await conn.services.tv.featured(conn.player))


# -- profiles and leaderboards -------------------------------------------------------


async def on_get_profile(conn: Peer, msg: GetProfile) -> ServerMessage:
    player = msg.player or _me(conn)
    if is_guest(player):
        raise RequestRefused(ErrorCode.NOT_FOUND, "guests have no profile; register to keep one")
    return Profile(id=msg.id, profile=await conn.services.records.profile(player))


async def on_get_leaderboard(conn: Peer, msg: GetLeaderboard) -> ServerMessage:
    records = conn.services.records
    if msg.fastest:
        if msg.variant == OVERALL:  # docs/protocol.md, get_leaderboard
            raise RequestRefused(
                ErrorCode.INVALID_FIELD,
                "fastest wins are kept per variant (times of different games do not "
                "compare): name a variant",
            )
        variant = variant_or_refusal(msg.variant).id
        fastest = await records.fastest_wins(variant)
        return Leaderboard(id=msg.id, variant=variant, entries=fastest, fastest=True)
    scope = msg.variant if msg.variant == OVERALL else variant_or_refusal(msg.variant).id
    entries = await records.leaderboard(scope)
    return Leaderboard(id=msg.id, variant=scope, entries=entries)


HANDLERS: dict[type[ClientMessage], Handler] = {
    Hello: on_hello,
    ListRaces: on_list_races,
    CreateRace: on_create_race,
    JoinRace: on_join_race,
    LeaveRace: on_leave_race,
    Ready: on_ready,
    StartRace: on_start_race,
    SubmitMove: on_move,
    Resign: on_resign,
    Spectate: on_spectate,
    Resume: on_resume,
    GetReplay: on_replay,
    GetHint: on_hint,
    Ping: on_ping,
    CreateTournament: on_create_tournament,
    ListTournaments: on_list_tournaments,
    JoinTournament: on_join_tournament,
    LeaveTournament: on_leave_tournament,
    WatchTournament: on_watch_tournament,
    ManageTournament: on_manage_tournament,
    PauseArena: on_pause_arena,
    GetTournamentRecord: on_get_tournament_record,
    Register: on_register,
    Login: on_login,
    Logout: on_logout,
    QuickRace: on_quick_race,
    LeaveQueue: on_leave_queue,
    GetProfile: on_get_profile,
    GetLeaderboard: on_get_leaderboard,
    Rematch: on_rematch,
    GetDaily: on_get_daily,
    PlayDaily: on_play_daily,
    GetResults: on_get_results,
    FeaturedRace: on_featured_race,
}

"""The authorization matrix: who may send each client message, and what the others get.

One row per (message, role) says what the server must answer: the reply's
type when allowed, the error code when refused. Every row builds a small
world on a fresh node: race A (hosted by Alice, with Bob and Carol racing;
Bob has made one move once it runs), race B (Dave's lobby), Sam spectating A,
Olive signed in but in no race, and a connection that has not said hello.
A refusal must also leave Redis exactly as it was.

The roles:

=============  ==========================================================
anonymous      a connection before hello
host           Alice, who created race A and races in it
racer          Bob, racing in A (not the host); moves are sent as his
other_racer    Carol, racing in A too, sending Bob's next move
rival          Dave, racing in another race (B)
spectator      Sam, spectating A
non_host       Olive, signed in, in no race at all
=============  ==========================================================

Tournaments have a matrix of their own, below the races', and so do
accounts (register, login, logout, and spectating as one identity): their
worlds, roles and rows are described there. Between them the tables cover
every client message type.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable

import pytest

from client.session import ClientSession
from protocol.exceptions import ErrorCode
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
    RaceStarted,
    Ready,
    Register,
    Rematch,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
    TournamentAction,
    TournamentFormat,
    TournamentInfo,
    TournamentRecord,
    Tournaments,
    WatchTournament,
    Welcome,
)
from protocol.version import PROTOCOL_VERSION
from server.engine import DEAL_VERSION
from server.rules.races import RaceSettings
from server.settings import Timeouts
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients, NodeFactory
from tests.server.refusals import DEAL, VARIANT, alive, refused, unchanged

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

ROLES = ("anonymous", "host", "racer", "other_racer", "rival", "spectator", "non_host")
ANON, HOST, RACER, OTHER, RIVAL, SPECTATOR, NON_HOST = ROLES


@dataclasses.dataclass
class World:
    """Race A with its people, race B, and who plays each role."""

    race: str
    bob_next: str  # Bob's next legal move once A runs
    bob: str
    sessions: dict[str, ClientSession]


Build = Callable[[World], ClientMessage]
Outcome = type[ServerMessage] | ErrorCode


async def _create(session: ClientSession, max_players: int) -> RaceInfo:
    return await session.request(
        CreateRace(
            variant=VARIANT,
            max_players=max_players,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=DEAL,
        ),
        RaceInfo,
    )


async def build_world(url: str, clients: Clients, *, running: bool) -> World:
    """Race A open (or running, with Bob one move in), B open, everyone in place."""
    alice = await clients.hello(url, "Alice")
    bob = await clients.hello(url, "Bob")
    carol = await clients.hello(url, "Carol")
    dave = await clients.hello(url, "Dave")
    sam = await clients.hello(url, "Sam")
    olive = await clients.hello(url, "Olive")
    anonymous = await clients.raw(url)
    race = (await _create(alice, max_players=4)).race.id
    for racer in (bob, carol):
        await racer.request(JoinRace(race=race), RaceInfo)
    await _create(dave, max_players=2)
    bob_next = "deal"
    if running:
        await alice.request(StartRace(race=race), RaceInfo)
        started = await bob.next(RaceStarted, timeout=TIMEOUT)
        moved = await bob.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
        bob_next = moved.legal[0]
    await sam.request(Spectate(race=race), Spectating)
    sessions = {
        ANON: anonymous, HOST: alice, RACER: bob, OTHER: carol,
        RIVAL: dave, SPECTATOR: sam, NON_HOST: olive,
    }  # fmt: skip
    return World(race, bob_next, bob.player, sessions)


# What each message is, and in which phase of race A it is asked.
MESSAGES: dict[str, tuple[bool, Build]] = {
    "hello": (False, lambda w: Hello(v=PROTOCOL_VERSION, name="Eve")),
    "list_races": (False, lambda w: ListRaces()),
    "create_race": (
        False,
        lambda w: CreateRace(
            variant=VARIANT, max_players=2, time_limit=60, spectate=SpectatePolicy.LIVE
        ),
    ),
    "join_race": (False, lambda w: JoinRace(race=w.race)),
    "leave_race": (False, lambda w: LeaveRace(race=w.race)),
    "ready": (False, lambda w: Ready(race=w.race, ready=True)),
    "start_race": (False, lambda w: StartRace(race=w.race)),
    "move": (True, lambda w: SubmitMove(race=w.race, seq=1, move=w.bob_next)),
    "resign": (True, lambda w: Resign(race=w.race)),
    "spectate": (True, lambda w: Spectate(race=w.race)),
    "resume": (True, lambda w: Resume(race=w.race, since=0)),
    "replay": (True, lambda w: GetReplay(race=w.race, player=w.bob)),
    "hint": (True, lambda w: GetHint(race=w.race)),
    "ping": (False, lambda w: Ping()),
}

UNAUTH, DENIED = ErrorCode.NOT_AUTHENTICATED, ErrorCode.NOT_ALLOWED
OUTSIDER, NOT_HOST, BAD_SEQ = ErrorCode.NOT_A_RACER, ErrorCode.NOT_HOST, ErrorCode.BAD_SEQUENCE
INFO, STARTED, WATCHING = RaceInfo, RaceStarted, Spectating

# message: outcome for each role, in the order of ROLES (OUTSIDER is not_a_racer).
MATRIX: dict[str, tuple[Outcome, ...]] = {
    #               anonymous host      racer     other     rival     spectator non_host
    "hello":       (Welcome,  DENIED,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED),
    "list_races":  (UNAUTH,   Races,    Races,    Races,    Races,    Races,    Races),
    "create_race": (UNAUTH,   INFO,     INFO,     INFO,     INFO,     INFO,     INFO),
    "join_race":   (UNAUTH,   INFO,     INFO,     INFO,     INFO,     INFO,     INFO),
    "leave_race":  (UNAUTH,   INFO,     INFO,     INFO,     OUTSIDER, OUTSIDER, OUTSIDER),
    "ready":       (UNAUTH,   INFO,     INFO,     INFO,     OUTSIDER, OUTSIDER, OUTSIDER),
    "start_race":  (UNAUTH,   INFO,     NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "move":        (UNAUTH,   BAD_SEQ,  Moved,    BAD_SEQ,  OUTSIDER, DENIED,   OUTSIDER),
    "resign":      (UNAUTH,   INFO,     INFO,     INFO,     OUTSIDER, OUTSIDER, OUTSIDER),
    "spectate":    (UNAUTH,   DENIED,   DENIED,   DENIED,   WATCHING, WATCHING, WATCHING),
    "resume":      (UNAUTH,   STARTED,  STARTED,  STARTED,  WATCHING, WATCHING, WATCHING),
    # Nobody sees a racer's positions while the race runs (the stock would show).
    "replay":      (UNAUTH,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED),
    "ping":        (UNAUTH,   Pong,     Pong,     Pong,     Pong,     Pong,     Pong),
    # Race A is no practice race: no hints for anyone (tests/server/test_solver_races.py).
    "hint":        (UNAUTH,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED),
}  # fmt: skip

ROWS = [
    pytest.param(message, role, outcome, id=f"{message}-{role}")
    for message, outcomes in MATRIX.items()
    for role, outcome in zip(ROLES, outcomes, strict=True)
]


def test_matrix_covers_every_client_message() -> None:
    """The tables have a row for every client message type and an outcome for every role."""
    from protocol.messages import CLIENT_MESSAGES

    placeholder = Cup("T1", "CODE", "T2", "r1", "deal", "r2", "p1", "p2", {})
    tournament_types = {build(placeholder).t for _, build in CUP_MESSAGES.values()}
    account_types = {build("r1").t for build in ACCOUNT_MESSAGES.values()}
    assert set(MATRIX) == set(MESSAGES)
    assert set(MATRIX) | tournament_types | account_types == set(CLIENT_MESSAGES)
    assert set(ACCOUNT_MATRIX) == set(ACCOUNT_MESSAGES)
    assert all(len(outcomes) == len(ACCOUNT_ROLES) for outcomes in ACCOUNT_MATRIX.values())
    assert {t for t in CLIENT_MESSAGES if "tournament" in t} <= tournament_types
    assert all(len(outcomes) == len(ROLES) for outcomes in MATRIX.values())
    assert set(CUP_MATRIX) == set(CUP_MESSAGES)
    assert all(len(outcomes) == len(CUP_ROLES) for outcomes in CUP_MATRIX.values())


async def _answered(
    session: ClientSession, request: ClientMessage, outcome: Outcome, store: Store
) -> None:
    """The reply is of the outcome's type, or the refusal has its code and changes nothing."""
    if isinstance(outcome, ErrorCode):
        async with unchanged(store):
            await refused(session, request, outcome)
    else:
        reply = await asyncio.wait_for(session.request(request, ServerMessage), TIMEOUT)
        assert isinstance(reply, outcome), reply


@pytest.mark.parametrize(("message", "role", "outcome"), ROWS)
async def test_authorization(
    node: str, clients: Clients, store: Store, message: str, role: str, outcome: Outcome
) -> None:
    """Each role's request is answered with the table's reply type or refused with its code."""
    running, build = MESSAGES[message]
    world = await build_world(node, clients, running=running)
    session = world.sessions[role]
    await _answered(session, build(world), outcome, store)
    if role != ANON or outcome is Welcome:
        await alive(session)


# -- tournaments ---------------------------------------------------------------
#
# The tournament world, built afresh for every row on a node whose sweeper
# never runs, so that no grace clock or schedule writes to Redis while a
# refusal is checked. Hana hosts tournament T (rounds, tables of two) without
# entering it; Ann, Bo, Cy and Di enter it in that order, so that once it runs
# Ann races Cy at table 1 and Bo races Di at table 2, both tables on one deal.
# Hana also hosts U, which has an entry password and only Ann in it. A row
# asks for T open, running or paused. Once T runs, the world also holds a race
# of T's second stage seated but not started: what a node leaves behind if it
# dies between seating a stage and starting it (the next node starts it).
#
# =============  ==========================================================
# anonymous      a connection before hello
# host           Hana, who created T and U and entered neither
# entrant        Ann, in T (and U); at table 1 once T runs
# other_entrant  Bo, in T; at table 2 once T runs
# rival          Dave, racing in an ordinary race of his own
# watcher        Sam, following T; spectating table 1 once T runs
# outsider       Olive, signed in, in no race and no tournament
# =============  ==========================================================

CUP_ROLES = ("anonymous", "host", "entrant", "other_entrant", "rival", "watcher", "outsider")
OPEN, RUNNING, PAUSED = "open", "running", "paused"
PASSWORD = "waltz"


@dataclasses.dataclass
class Cup:
    """Tournament T in the phase a row asks for, and who plays each role."""

    tournament: str
    code: str
    alone: str  # U: Hana's, with a password and one entrant
    table: str  # Ann's race once T runs, else ""
    ann_first: str  # Ann's first legal move at her table
    seated: str  # T's race seated and not started, once T runs, else ""
    bo: str
    olive: str
    sessions: dict[str, ClientSession]


CupBuild = Callable[[Cup], ClientMessage]


def _cup_settings(name: str, password: str | None = None) -> CreateTournament:
    return CreateTournament(
        name=name,
        format=TournamentFormat.ROUNDS,
        variants=[VARIANT],
        time_limit=600,
        rounds=2,
        table_size=2,
        spectate=SpectatePolicy.LIVE,
        delay=0,
        break_seconds=0,
        grace=3600,
        password=password,
    )


async def build_cup(url: str, clients: Clients, store: Store, phase: str) -> Cup:
    """T open, running (tables dealt, Ann's first move known) or paused; everyone in place."""
    hana = await clients.hello(url, "Hana")
    ann, bo, cy, di = [await clients.hello(url, name) for name in ("Ann", "Bo", "Cy", "Di")]
    dave = await clients.hello(url, "Dave")
    sam = await clients.hello(url, "Sam")
    olive = await clients.hello(url, "Olive")
    anonymous = await clients.raw(url)
    doc = (await hana.request(_cup_settings("Cup"), TournamentInfo)).tournament
    tournament = doc.id
    for entrant in (ann, bo, cy, di):
        await entrant.request(JoinTournament(tournament=tournament), TournamentInfo)
    alone = (await hana.request(_cup_settings("Solo", PASSWORD), TournamentInfo)).tournament
    await ann.request(JoinTournament(code=alone.code, password=PASSWORD), TournamentInfo)
    await _create(dave, max_players=2)
    await sam.request(WatchTournament(tournament=tournament), TournamentInfo)
    table = ann_first = seated = ""
    if phase != OPEN:
        start = ManageTournament(tournament=tournament, action=TournamentAction.START)
        running = (await hana.request(start, TournamentInfo)).tournament
        tables = {p: r.race for r in running.stages[0].races for p in r.players}
        table = tables[ann.player]
        assert tables[cy.player] == table != tables[bo.player] == tables[di.player]
        ann_first = (await ann.request(Resume(race=table, since=0), RaceStarted)).legal[0]
        await sam.request(Spectate(race=table), Spectating)
        seated = f"{tournament.lower()}-2-1"
        settings = RaceSettings(
            variant=VARIANT, seed=DEAL, deal_version=DEAL_VERSION, time_limit=600,
            spectate=SpectatePolicy.LIVE, tournament=tournament,
        )  # fmt: skip
        racers = {ann.player: "Ann", cy.player: "Cy"}
        assert await store.races.create_seated(seated, tournament, racers, settings)
        if phase == PAUSED:
            pause = ManageTournament(tournament=tournament, action=TournamentAction.PAUSE)
            await hana.request(pause, TournamentInfo)
    sessions = {
        ANON: anonymous, "host": hana, "entrant": ann, "other_entrant": bo,
        "rival": dave, "watcher": sam, "outsider": olive,
    }  # fmt: skip
    return Cup(
        tournament, doc.code, alone.id, table, ann_first, seated, bo.player, olive.player,
        sessions,
    )  # fmt: skip


def _manage(action: TournamentAction, player: Callable[[Cup], str] | None = None) -> CupBuild:
    return lambda c: ManageTournament(
        tournament=c.tournament, action=action, player=None if player is None else player(c)
    )


Action = TournamentAction
# What each row sends, and in which phase of T; a row is named by what it does.
CUP_MESSAGES: dict[str, tuple[str, CupBuild]] = {
    "create": (
        OPEN,
        lambda c: CreateTournament(
            name="Another", format=TournamentFormat.KNOCKOUT, variants=[VARIANT], time_limit=60
        ),
    ),
    "list": (RUNNING, lambda c: ListTournaments()),
    "join": (OPEN, lambda c: JoinTournament(code=c.code)),
    "join/wrong_password": (OPEN, lambda c: JoinTournament(tournament=c.alone, password="tango")),
    "join/started": (RUNNING, lambda c: JoinTournament(tournament=c.tournament)),
    "leave": (OPEN, lambda c: LeaveTournament(tournament=c.tournament)),
    "leave/started": (RUNNING, lambda c: LeaveTournament(tournament=c.tournament)),
    "watch": (RUNNING, lambda c: WatchTournament(code=c.code)),
    "start": (OPEN, _manage(Action.START)),
    "start/alone": (OPEN, lambda c: ManageTournament(tournament=c.alone, action=Action.START)),
    "pause": (RUNNING, _manage(Action.PAUSE)),
    "resume": (PAUSED, _manage(Action.RESUME)),
    "cancel": (RUNNING, _manage(Action.CANCEL)),
    "remove": (RUNNING, _manage(Action.REMOVE, lambda c: c.bo)),
    "remove/stranger": (RUNNING, _manage(Action.REMOVE, lambda c: c.olive)),
    "record": (RUNNING, lambda c: GetTournamentRecord(tournament=c.tournament)),
    "pause_arena": (RUNNING, lambda c: PauseArena(tournament=c.tournament, paused=True)),
    # Race messages aimed at a tournament's races.
    "move/table": (RUNNING, lambda c: SubmitMove(race=c.table, seq=0, move=c.ann_first)),
    "join_race/table": (RUNNING, lambda c: JoinRace(race=c.table)),
    "start_race/table": (RUNNING, lambda c: StartRace(race=c.table)),
    "spectate/table": (RUNNING, lambda c: Spectate(race=c.table)),
    "join_race/seated": (RUNNING, lambda c: JoinRace(race=c.seated)),
    "leave_race/seated": (RUNNING, lambda c: LeaveRace(race=c.seated)),
    "ready/seated": (RUNNING, lambda c: Ready(race=c.seated, ready=True)),
    "start_race/seated": (RUNNING, lambda c: StartRace(race=c.seated)),
}

CUP, CUPS, RECORD = TournamentInfo, Tournaments, TournamentRecord
CLOSED, FULL, MISSING = ErrorCode.RACE_NOT_OPEN, ErrorCode.RACE_FULL, ErrorCode.NOT_FOUND

# row: outcome for each role, in the order of CUP_ROLES.
CUP_MATRIX: dict[str, tuple[Outcome, ...]] = {
    #                     anonymous host      entrant   other     rival     watcher   outsider
    "create":              (UNAUTH,  CUP,      CUP,      CUP,      CUP,      CUP,      CUP),
    "list":                (UNAUTH,  CUPS,     CUPS,     CUPS,     CUPS,     CUPS,     CUPS),
    "join":                (UNAUTH,  CUP,      CUP,      CUP,      CUP,      CUP,      CUP),
    "join/wrong_password": (UNAUTH,  DENIED,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED),
    # An entrant asking again is answered with the tournament; nobody new gets in.
    "join/started":        (UNAUTH,  CLOSED,   CUP,      CUP,      CLOSED,   CLOSED,   CLOSED),
    "leave":               (UNAUTH,  CUP,      CUP,      CUP,      CUP,      CUP,      CUP),
    "leave/started":       (UNAUTH,  CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED),
    "watch":               (UNAUTH,  CUP,      CUP,      CUP,      CUP,      CUP,      CUP),
    "start":               (UNAUTH,  CUP,      NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    # U has one entrant: a tournament needs two.
    "start/alone":         (UNAUTH,  DENIED,   NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "pause":               (UNAUTH,  CUP,      NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "resume":              (UNAUTH,  CUP,      NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "cancel":              (UNAUTH,  CUP,      NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "remove":              (UNAUTH,  CUP,      NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "remove/stranger":     (UNAUTH,  MISSING,  NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
    "record":              (UNAUTH,  RECORD,   RECORD,   RECORD,   RECORD,   RECORD,   RECORD),
    # T is a rounds tournament: only an arena's entrants pause, and nobody here.
    "pause_arena":         (UNAUTH,  DENIED,   DENIED,   DENIED,   DENIED,   DENIED,   DENIED),
    # Only the racer seated at a table moves there; a spectator never does.
    "move/table":          (UNAUTH,  OUTSIDER, Moved,    OUTSIDER, OUTSIDER, DENIED,   OUTSIDER),
    # The tournament starts its races as soon as it has seated them.
    "join_race/table":     (UNAUTH,  CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED),
    "start_race/table":    (UNAUTH,  CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED),
    # Every table of a stage races one deal: no entrant of the stage watches another.
    "spectate/table":      (UNAUTH,  WATCHING, DENIED,   DENIED,   WATCHING, WATCHING, WATCHING),
    # Seated, not started: created full, hosted by the tournament, no seat to give up.
    "join_race/seated":    (UNAUTH,  FULL,     INFO,     FULL,     FULL,     FULL,     FULL),
    "leave_race/seated":   (UNAUTH,  CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED,   CLOSED),
    "ready/seated":        (UNAUTH,  OUTSIDER, INFO,     OUTSIDER, OUTSIDER, OUTSIDER, OUTSIDER),
    "start_race/seated":   (UNAUTH,  NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST, NOT_HOST),
}  # fmt: skip

CUP_ROWS = [
    pytest.param(row, role, outcome, id=f"{row}-{role}")
    for row, outcomes in CUP_MATRIX.items()
    for role, outcome in zip(CUP_ROLES, outcomes, strict=True)
]


@pytest.fixture
async def quiet_node(make_node: NodeFactory) -> AsyncIterator[str]:
    """A node whose sweeper does not run during a test: nothing changes Redis unasked."""
    async with make_node(timeouts=Timeouts(countdown=0.0, sweep=3600.0)) as url:
        yield url


@pytest.mark.parametrize(("row", "role", "outcome"), CUP_ROWS)
async def test_tournament_authorization(
    quiet_node: str, clients: Clients, store: Store, row: str, role: str, outcome: Outcome
) -> None:
    """Each role's tournament request, or race request in a tournament's race, gets the
    table's reply type or is refused with its code, changing nothing."""
    phase, build = CUP_MESSAGES[row]
    cup = await build_cup(quiet_node, clients, store, phase)
    await _answered(cup.sessions[role], build(cup), outcome, store)
    if role != ANON:
        await alive(cup.sessions[role])


# -- accounts and quick races -----------------------------------------------------
#
# The accounts' world: Alice (a guest) hosts race A on a live policy; Vera
# registered an account and races in A from her first connection; her second
# connection logged in to the same account; Sam (a guest) spectates A; Olive
# is a guest in no race. One account is one player on every connection, so
# Vera's second connection can no more spectate A than her first.
#
# =============  ==========================================================
# anonymous      a connection before hello
# guest          Olive, a guest in no race
# account        Vera's first connection, racing in A
# twin           Vera's second connection, logged in, in no race of its own
# spectator      Sam, a guest spectating A
# =============  ==========================================================

ACCOUNT_ROLES = ("anonymous", "guest", "account", "twin", "spectator")
ACCOUNT_PASSWORD = "a long enough password"


async def build_accounts(url: str, clients: Clients) -> tuple[str, dict[str, ClientSession]]:
    """Race A with Vera racing and Sam spectating; each role's connection."""
    alice = await clients.hello(url, "Alice")
    race = (await _create(alice, max_players=4)).race.id
    vera = await clients.hello(url, "Vera")
    await vera.request(Register(name="Vera", password=ACCOUNT_PASSWORD), Account)
    await vera.request(JoinRace(race=race), RaceInfo)
    twin = await clients.hello(url, "Vera")
    await twin.request(Login(name="Vera", password=ACCOUNT_PASSWORD), Account)
    sam = await clients.hello(url, "Sam")
    await sam.request(Spectate(race=race), Spectating)
    sessions = {
        ANON: await clients.raw(url), "guest": await clients.hello(url, "Olive"),
        "account": vera, "twin": twin, "spectator": sam,
    }  # fmt: skip
    return race, sessions


ACCOUNT_MESSAGES: dict[str, Callable[[str], ClientMessage]] = {
    "register": lambda race: Register(name="Eve", password=ACCOUNT_PASSWORD),
    "register/taken": lambda race: Register(name="VERA", password=ACCOUNT_PASSWORD),
    "login": lambda race: Login(name="vera", password=ACCOUNT_PASSWORD),
    "login/wrong": lambda race: Login(name="Vera", password="not the password"),
    "logout": lambda race: Logout(),
    "logout/everywhere": lambda race: Logout(everywhere=True),
    "spectate/own": lambda race: Spectate(race=race),
    "quick_race": lambda race: QuickRace(variant=VARIANT, size=3),
    "leave_queue": lambda race: LeaveQueue(),
    "get_profile": lambda race: GetProfile(),
    "get_leaderboard": lambda race: GetLeaderboard(variant=VARIANT),
    "rematch": lambda race: Rematch(race=race),
    "get_daily": lambda race: GetDaily(variant=VARIANT),
    "play_daily": lambda race: PlayDaily(variant=VARIANT),
    "get_results": lambda race: GetResults(race=race),
    "featured_race": lambda race: FeaturedRace(),
}

ACCT, TAKEN, WRONG = Account, ErrorCode.NAME_TAKEN, ErrorCode.BAD_CREDENTIALS
QUEUED, PROFILE, BOARD = Queued, Profile, Leaderboard
DAILY, MATCHED = Daily, Matched

# row: outcome for each role, in the order of ACCOUNT_ROLES.
ACCOUNT_MATRIX: dict[str, tuple[Outcome, ...]] = {
    #                    anonymous guest     account   twin      spectator
    "register":          (UNAUTH,   ACCT,     ACCT,     ACCT,     ACCT),
    "register/taken":    (UNAUTH,   TAKEN,    TAKEN,    TAKEN,    TAKEN),
    "login":             (UNAUTH,   ACCT,     ACCT,     ACCT,     ACCT),
    "login/wrong":       (UNAUTH,   WRONG,    WRONG,    WRONG,    WRONG),
    # A guest has no account to log out of.
    "logout":            (UNAUTH,   DENIED,   ACCT,     ACCT,     DENIED),
    "logout/everywhere": (UNAUTH,   DENIED,   ACCT,     ACCT,     DENIED),
    # The twin is the racer Vera: no connection of hers watches her race.
    "spectate/own":      (UNAUTH,   WATCHING, DENIED,   DENIED,   WATCHING),
    # Anyone signed in may queue; nobody here is queued, so nobody can leave a queue.
    "quick_race":        (UNAUTH,   QUEUED,   QUEUED,   QUEUED,   QUEUED),
    "leave_queue":       (UNAUTH,   DENIED,   DENIED,   DENIED,   DENIED),
    # One's own profile: guests have none.
    "get_profile":       (UNAUTH,   MISSING,  PROFILE,  PROFILE,  MISSING),
    "get_leaderboard":   (UNAUTH,   BOARD,    BOARD,    BOARD,    BOARD),
    # A is not over: its racers must wait; nobody else is ever asked.
    "rematch":           (UNAUTH,   OUTSIDER, DENIED,   DENIED,   OUTSIDER),
    "get_daily":         (UNAUTH,   DAILY,    DAILY,    DAILY,    DAILY),
    # The daily deal is an account's, once a day; guests may not play it.
    "play_daily":        (UNAUTH,   DENIED,   MATCHED,  MATCHED,  DENIED),
    # A is not over: it has no results to give anyone yet.
    "get_results":       (UNAUTH,   MISSING,  MISSING,  MISSING,  MISSING),
    # Anyone signed in may ask which race /tv features (none here: A is not running).
    "featured_race":     (UNAUTH,   Featured, Featured, Featured, Featured),
}  # fmt: skip

ACCOUNT_ROWS = [
    pytest.param(row, role, outcome, id=f"{row}-{role}")
    for row, outcomes in ACCOUNT_MATRIX.items()
    for role, outcome in zip(ACCOUNT_ROLES, outcomes, strict=True)
]


@pytest.mark.parametrize(("row", "role", "outcome"), ACCOUNT_ROWS)
async def test_account_authorization(
    node: str, clients: Clients, store: Store, row: str, role: str, outcome: Outcome
) -> None:
    """Each role's account request gets the table's reply type or is refused with its code,
    changing nothing (but the login rate counters, which count refusals)."""
    race, sessions = await build_accounts(node, clients)
    await _answered(sessions[role], ACCOUNT_MESSAGES[row](race), outcome, store)
    if role != ANON:
        await alive(sessions[role])


# -- the daily deal before its reveal ----------------------------------------------
#
# Vera (an account) played today's deal and resigned: her race is over, its
# results held until the day is over. Until then its boards, moves and replay
# reach only her; her profile shows anyone that she played it. On a node whose
# sweeper does not run, so that nothing reveals the day meanwhile.
#
# =============  ==========================================================
# anonymous      a connection before hello
# player         Vera, whose daily race it is
# account        Wes, another account, who has not played today's deal
# guest          Olive, a guest
# =============  ==========================================================

DAILY_ROLES = ("anonymous", "player", "account", "guest")
DAILY_VARIANT = "royal-cotillion"


async def build_daily(url: str, clients: Clients) -> tuple[str, str, dict[str, ClientSession]]:
    """Vera's finished daily race, recorded on the day's board; each role's connection."""
    vera, wes = [await clients.hello(url, name) for name in ("Vera", "Wes")]
    accounts = [
        await session.request(Register(name=name, password=ACCOUNT_PASSWORD), Account)
        for session, name in ((vera, "Vera"), (wes, "Wes"))
    ]
    race = (await vera.request(PlayDaily(variant=DAILY_VARIANT), Matched)).race
    started = await vera.next(RaceStarted, timeout=TIMEOUT)
    await vera.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
    await vera.request(Resign(race=race), RaceInfo)
    async with asyncio.timeout(TIMEOUT):  # polled: the record is written after the results
        while not (await vera.request(GetProfile(), Profile)).profile.recent:
            await asyncio.sleep(0.02)
        while not (await vera.request(GetDaily(variant=DAILY_VARIANT), Daily)).daily.board:
            await asyncio.sleep(0.02)
    sessions = {
        ANON: await clients.raw(url), "player": vera, "account": wes,
        "guest": await clients.hello(url, "Olive"),
    }  # fmt: skip
    return race, accounts[0].player, sessions


DAILY_MESSAGES: dict[str, Callable[[str, str], ClientMessage]] = {
    "spectate": lambda race, vera: Spectate(race=race),
    "resume": lambda race, vera: Resume(race=race, since=0),
    "replay": lambda race, vera: GetReplay(race=race, player=vera),
    "get_results": lambda race, vera: GetResults(race=race),
    "get_profile/player": lambda race, vera: GetProfile(player=vera),
    "play_daily": lambda race, vera: PlayDaily(variant=DAILY_VARIANT),
}

# row: outcome for each role, in the order of DAILY_ROLES.
DAILY_MATRIX: dict[str, tuple[Outcome, ...]] = {
    #                     anonymous player    account   guest
    # Nobody watches a daily race before the reveal; its player never watches her own.
    "spectate":           (UNAUTH,   DENIED,   DENIED,   DENIED),
    # Its player gets her board back; anyone else would be a spectator.
    "resume":             (UNAUTH,   STARTED,  DENIED,   DENIED),
    # Replays and results hold the deal: they wait for the next day, for everyone.
    "replay":             (UNAUTH,   DENIED,   DENIED,   DENIED),
    "get_results":        (UNAUTH,   DENIED,   DENIED,   DENIED),
    # The profile says she played it (and how it went): nothing of the deal.
    "get_profile/player": (UNAUTH,   PROFILE,  PROFILE,  PROFILE),
    "play_daily":         (UNAUTH,   DENIED,   MATCHED,  DENIED),
}  # fmt: skip

DAILY_ROWS = [
    pytest.param(row, role, outcome, id=f"daily-{row}-{role}")
    for row, outcomes in DAILY_MATRIX.items()
    for role, outcome in zip(DAILY_ROLES, outcomes, strict=True)
]


def test_daily_matrix_is_whole() -> None:
    """The daily table has a row for each message it names and an outcome for every role."""
    assert set(DAILY_MATRIX) == set(DAILY_MESSAGES)
    assert all(len(outcomes) == len(DAILY_ROLES) for outcomes in DAILY_MATRIX.values())


@pytest.mark.parametrize(("row", "role", "outcome"), DAILY_ROWS)
async def test_daily_authorization(
    quiet_node: str, clients: Clients, store: Store, row: str, role: str, outcome: Outcome
) -> None:
    """Before the day's deal is revealed, each role's request about a played daily race gets
    the table's reply type or is refused with its code, changing nothing."""
    race, vera, sessions = await build_daily(quiet_node, clients)
    async with asyncio.timeout(TIMEOUT):  # polled: the post-race analysis follows the results
        while (results := await store.results.load(race)) is None or results.analysis is None:
            await asyncio.sleep(0.02)
    await _answered(sessions[role], DAILY_MESSAGES[row](race, vera), outcome, store)
    if role != ANON:
        await alive(sessions[role])

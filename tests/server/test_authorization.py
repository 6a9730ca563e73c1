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
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

import pytest

from client.session import ClientSession
from protocol.exceptions import ErrorCode
from protocol.messages import (
    ClientMessage,
    CreateRace,
    GetReplay,
    Hello,
    JoinRace,
    LeaveRace,
    ListRaces,
    Moved,
    Ping,
    Pong,
    RaceInfo,
    Races,
    RaceStarted,
    Ready,
    Resign,
    Resume,
    ServerMessage,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
    Welcome,
)
from protocol.version import PROTOCOL_VERSION
from server.store import Store
from tests.server.conftest import TIMEOUT, Clients
from tests.server.test_abuse import DEAL, VARIANT, alive, refused, unchanged

pytestmark = pytest.mark.usefixtures("no_errors_logged")

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
    race = (await _create(alice, max_players=4)).race["id"]
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
}  # fmt: skip

ROWS = [
    pytest.param(message, role, outcome, id=f"{message}-{role}")
    for message, outcomes in MATRIX.items()
    for role, outcome in zip(ROLES, outcomes, strict=True)
]


def test_matrix_covers_every_client_message() -> None:
    """The table has a row for every client message type and every role."""
    from protocol.messages import CLIENT_MESSAGES

    assert set(MATRIX) == set(CLIENT_MESSAGES) == set(MESSAGES)
    assert all(len(outcomes) == len(ROLES) for outcomes in MATRIX.values())


@pytest.mark.parametrize(("message", "role", "outcome"), ROWS)
async def test_authorization(
    node: str, clients: Clients, store: Store, message: str, role: str, outcome: Outcome
) -> None:
    """Each role's request is answered with the table's reply type or refused with its code."""
    running, build = MESSAGES[message]
    world = await build_world(node, clients, running=running)
    session = world.sessions[role]
    request = build(world)
    if isinstance(outcome, ErrorCode):
        async with unchanged(store):
            await refused(session, request, outcome)
    else:
        reply = await asyncio.wait_for(session.request(request, ServerMessage), TIMEOUT)
        assert isinstance(reply, outcome), reply
    if role != ANON or outcome is Welcome:
        await alive(session)

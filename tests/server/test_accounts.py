"""Accounts over the protocol, on real nodes: register, log in, rate limits, revoke,
and one identity across every connection of an account."""

from __future__ import annotations

import asyncio
import logging

import pytest

from client.session import ClientSession, RequestFailed
from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Account,
    Board,
    CreateRace,
    JoinRace,
    Login,
    Logout,
    Moved,
    RaceInfo,
    RaceStarted,
    Register,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
    SubmitMove,
)
from server.net.connection import CLOSE_POLICY
from server.settings import LoginLimits
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.refusals import DEAL, VARIANT, alive, close_code, refused

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

PASSWORD = "correct horse battery"


async def register(session: ClientSession, name: str, password: str = PASSWORD) -> Account:
    return await session.request(Register(name=name, password=password), Account)


async def login(session: ClientSession, name: str, password: str = PASSWORD) -> Account:
    return await session.request(Login(name=name, password=password), Account)


async def test_register_then_resume_on_another_connection(node: str, clients: Clients) -> None:
    """A new account is not a guest, and its token resumes the same player anywhere."""
    guest = await clients.hello(node, "Alice")
    assert guest.welcome is not None and guest.welcome.guest is True
    assert is_guest(guest.player)
    account = await register(guest, "Alice")
    assert not account.guest and not is_guest(account.player) and account.name == "Alice"
    again = await clients.hello(node, "whatever", token=account.token)
    assert again.welcome is not None
    assert (again.player, again.welcome.name, again.welcome.guest) == (
        account.player,
        "Alice",
        False,
    )


@pytest.mark.parametrize(
    "look_alike",
    [
        "Alice", "alice", "ＡＬＩＣＥ", "\u0410lice", "A1ice", "Ali\u0301ce", "AIice", "Alicе",
        "\u0391lice", "\u0410l\u0456c\u0435", "\U0001d400lice",
    ],
)  # fmt: skip
async def test_taken_and_look_alike_names_are_refused(
    node: str, clients: Clients, store: Store, look_alike: str
) -> None:
    """A name that is taken, or reads like one that is, cannot be registered."""
    first = await clients.hello(node, "First")
    await register(first, "Alice")
    other = await clients.hello(node, "Other")
    await refused(other, Register(name=look_alike, password=PASSWORD), ErrorCode.NAME_TAKEN)


async def test_a_different_name_beside_a_taken_one_is_accepted(node: str, clients: Clients) -> None:
    """The look-alike check refuses forgeries, not neighbours: Alicia may join Alice."""
    await register(await clients.hello(node, "First"), "Alice")
    made = await register(await clients.hello(node, "Other"), "Alicia")
    assert made.name == "Alicia" and not made.guest


async def test_login_right_and_wrong(node: str, clients: Clients) -> None:
    """The right password logs in to the same player; a wrong one or an unknown name does not,
    with the same answer."""
    made = await register(await clients.hello(node, "x"), "Bob")
    session = await clients.hello(node, "y")
    logged = await login(session, "bob")  # names fold case
    assert logged.player == made.player
    wrong = await refused(
        session, Login(name="Bob", password="not it at all"), ErrorCode.BAD_CREDENTIALS
    )
    unknown = await refused(
        session, Login(name="Nobody", password=PASSWORD), ErrorCode.BAD_CREDENTIALS
    )
    assert wrong == unknown
    conn = next(c for c in NODES[node].connections if c.token == logged.token)
    assert conn.player == made.player  # a failed login changes nothing


async def test_failed_logins_to_a_name_are_rate_limited(
    make_node: NodeFactory, clients: Clients
) -> None:
    """After the failures a window allows, even the right password waits, told how long."""
    async with make_node(logins=LoginLimits(failures_per_name=2)) as url:
        await register(await clients.hello(url, "x"), "Carol")
        session = await clients.hello(url, "y")
        guess = Login(name="Carol", password="a wrong guess")
        for _ in range(2):
            await refused(session, guess, ErrorCode.BAD_CREDENTIALS)
        with pytest.raises(RequestFailed) as failed:
            await login(session, "Carol")
        assert failed.value.code is ErrorCode.RATE_LIMITED
        assert failed.value.retry_after is not None and 0 < failed.value.retry_after <= 900


async def test_logins_from_one_address_are_rate_limited(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Registrations and logins from one address share one allowance per window."""
    async with make_node(logins=LoginLimits(attempts_per_address=3)) as url:
        session = await clients.hello(url, "x")
        await register(session, "Dave")
        await login(session, "Dave")
        await refused(session, Login(name="Dave", password="nope" * 3), ErrorCode.BAD_CREDENTIALS)
        with pytest.raises(RequestFailed) as failed:
            await login(session, "Dave")
        assert failed.value.code is ErrorCode.RATE_LIMITED and failed.value.retry_after


async def test_logout_revokes_the_token_and_everywhere_revokes_all(
    node: str, clients: Clients
) -> None:
    """Logout leaves a guest behind and its token dead; logout everywhere kills every token."""
    first = await clients.hello(node, "a")
    made = await register(first, "Erin")
    second = await clients.hello(node, "b")
    other_token = (await login(second, "Erin")).token
    left = await first.request(Logout(), Account)
    assert left.guest and is_guest(left.player) and left.player != made.player
    with pytest.raises(RequestFailed) as failed:
        await clients.hello(node, "c", token=made.token)
    assert failed.value.code is ErrorCode.BAD_TOKEN
    await clients.hello(node, "d", token=other_token)  # the other device is still in
    await second.request(Logout(everywhere=True), Account)
    third = await clients.hello(node, "e")
    fresh = await login(third, "Erin")
    await third.request(Logout(everywhere=True), Account)
    for token in (other_token, fresh.token):
        with pytest.raises(RequestFailed):
            await clients.hello(node, "f", token=token)
    await refused(third, Logout(), ErrorCode.NOT_ALLOWED)  # a guest now


async def test_secrets_are_neither_stored_nor_logged(
    node: str, clients: Clients, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis holds an argon2 hash and token digests only; no log line holds either secret."""
    caplog.set_level(logging.DEBUG)
    made = await register(await clients.hello(node, "x"), "Fay")
    await login(await clients.hello(node, "y"), "Fay")
    account: dict[bytes, bytes] = await store.redis.hgetall(keys.account(made.player))  # type: ignore[assignment]
    assert account[b"password"].startswith(b"$argon2id$")
    tokens: list[bytes] = await store.redis.hkeys(keys.account_tokens(made.player))  # type: ignore[assignment]
    dump = b"".join([*account.values(), *tokens])
    assert PASSWORD.encode() not in dump and made.token.encode() not in dump
    assert PASSWORD not in repr(Login(name="Fay", password=PASSWORD))
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert PASSWORD not in text and made.token.split(".")[1] not in text


async def _race(host: ClientSession, spectate: SpectatePolicy = SpectatePolicy.LIVE) -> str:
    created = CreateRace(
        variant=VARIANT, max_players=2, time_limit=600, spectate=spectate, deal=DEAL
    )
    return str((await host.request(created, RaceInfo)).race.id)


async def test_no_connection_of_a_racer_spectates_their_race(node: str, clients: Clients) -> None:
    """A second connection of a logged-in racer is refused as a spectator of the race."""
    racing = await clients.hello(node, "a")
    await register(racing, "Gus")
    race = await _race(racing)
    other = await clients.hello(node, "b")
    await login(other, "Gus")
    await refused(other, Spectate(race=race), ErrorCode.NOT_ALLOWED)


async def test_a_spectator_connection_loses_the_race_its_account_joins(
    node: str, clients: Clients
) -> None:
    """Spectating a lobby, then joining it from another connection: no board ever reaches
    the spectating connection, which stops following the race at the start."""
    host = await clients.hello(node, "Host")
    race = await _race(host)
    watching = await clients.hello(node, "w")
    made = await register(watching, "Hal")
    await watching.request(Spectate(race=race), Spectating)
    racing = await clients.hello(node, "r")
    await login(racing, "Hal")
    await racing.request(JoinRace(race=race), RaceInfo)
    await host.request(StartRace(race=race), RaceInfo)
    started = await host.next(RaceStarted, timeout=TIMEOUT)
    await host.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
    conn = next(c for c in NODES[node].connections if c.token == made.token)
    async with asyncio.timeout(TIMEOUT):
        while race in conn.watches:  # polled: the start reaches it on its own time
            await asyncio.sleep(0.01)
    pushed = [m for m in watching.received if isinstance(m, Board | Spectating)]
    assert not pushed, pushed


async def test_log_out_everywhere_closes_the_other_devices(node: str, clients: Clients) -> None:
    """Connections open on other devices are closed once their token is revoked."""
    first = await clients.hello(node, "a")
    await register(first, "Ivy")
    other = await clients.hello(node, "b")
    await login(other, "Ivy")
    await first.request(Logout(everywhere=True), Account)
    assert await close_code(other) == CLOSE_POLICY
    assert other.ws.close_reason == "logged out everywhere"
    await alive(first)  # a guest now, still connected

"""Hostile input (issue 29): each attack is bounded, and costs nobody but the attacker.

Every test starts a real node process with the default per-client limits,
connects an honest client from 127.0.0.1 that pings it every 40 ms, and
runs one attack from :mod:`bench.attacks` in a process of its own from
another loopback address (:func:`bench.hostile.siege`, the bench that
prints the same figures as a table). What must hold, besides what each
attack's test says: the node's RSS grows by less than :data:`RSS_GROWTH`
MiB, the node logs no traceback, the honest client stays connected, gets
its answers at its pace, and its p99 round trip stays under :data:`P99`.
That is 50 ms where the machine is the node's own (bench.hostile measures
it: docs/reliability.md has the figures); on a machine whose two cores
other work shares, the honest client's p99 reaches 90 ms with no attack at
all, so the tests hold it to 250 ms, which the attacks that stalled the
node (1 to 3 s before) still fail by far.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Iterator

import pytest
import redis

from bench.attacks import AFTER_HEAD
from bench.hostile import PING_EVERY, Siege, host_tournament, session_keys, siege
from client.session import ClientSession
from protocol.messages import Hello, Welcome
from protocol.version import PROTOCOL_VERSION
from server.settings import Limits, LoginLimits, Timeouts
from server.storage.embedded import EmbeddedRedis
from tests.server.conftest import (
    NODE_ENV,
    TIMEOUT,
    Clients,
    NodeFactory,
    ProcessFactory,
    ServerProcess,
)

pytestmark = pytest.mark.slow

#: The node's own limits, not the test suite's raised ones (tests/server/conftest.py's NODE_ENV).
DEFAULTS = {"BALLROOM_RATE": str(Limits().rate), "BALLROOM_BURST": str(Limits().burst)}
#: MiB the node's RSS may grow by during an attack (before: 18 to 700 MiB in seconds).
RSS_GROWTH = 20
#: The honest client's p99 round trip during an attack, ms (see the module's docstring).
P99 = 250 * TIMEOUT / 10
SECONDS = 1.5  # of each attack
CLOSE_POLICY, CLOSE_TOO_BIG = 1008, 1009


@pytest.fixture(scope="module")
def node(
    redis_server: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One node process with the default per-client limits for the module's attacks (each
    attacks from an address of its own, so that no per-address counter carries over)."""
    process = ServerProcess(
        tmp_path_factory.mktemp("hostile"), ["--redis", redis_server.url], {**NODE_ENV, **DEFAULTS}
    )
    yield process.wait_ready()
    process.stop(TIMEOUT)


async def attacked(node: ServerProcess, attack: str, source: str, **options: str) -> Siege:
    """Run ``attack`` on ``node`` from ``source``; check what must hold of every attack."""
    result = await siege(attack, node.pid, node.port, seconds=SECONDS, source=source, **options)
    growth = result.rss_peak - result.rss_before
    assert growth < RSS_GROWTH, f"{attack}: the node grew by {growth:.0f} MiB"
    assert result.honest_connected, f"{attack}: the honest client was disconnected"
    expected = result.seconds / PING_EVERY
    assert result.pings >= expected / 3, f"{attack}: {result.pings} pings, not {expected:.0f}"
    assert result.p99 < P99, f"{attack}: the honest client's p99 was {result.p99:.0f} ms"
    assert "Traceback" not in node.output(), node.output()
    return result


async def test_unread_pongs_are_bounded(node: ServerProcess) -> None:
    """1. A ping flood whose pongs are never read is closed before they pile up."""
    await attacked(node, "unread_pongs", "127.0.0.11")
    assert "too many frames" in node.output()


async def test_unread_pongs_meet_the_unsent_bound_on_their_own(
    node_processes: ProcessFactory,
) -> None:
    """1. With the frame rate out of the way, the bound on unsent bytes still ends it."""
    # The suite's raised rate: the frame bucket never empties, and every ping is parsed
    # (the honest client waits for them, so its p99 is not this test's business).
    (node,) = node_processes(1)
    result = await siege("unread_pongs", node.pid, node.port, seconds=SECONDS + 3)
    assert result.rss_peak - result.rss_before < RSS_GROWTH
    assert result.honest_connected
    # It reads nothing, so it sees the end only when the node aborts the connection,
    # ``close_timeout`` (2 s) after the close frame it never reads.
    assert result.outcome["closed"], result.outcome
    assert "too slow: read your messages" in node.output()


async def test_an_unfinished_message_in_tiny_fragments_is_closed(node: ServerProcess) -> None:
    """2. One-byte and empty continuation frames count: past 16 frames a message is 1009."""
    result = await attacked(node, "fragments", "127.0.0.12")
    assert result.outcome["close_code"] == CLOSE_TOO_BIG, result.outcome


async def test_a_ping_flood_is_rate_limited(node: ServerProcess) -> None:
    """3. Control frames take tokens like messages: a ping flood that reads its pongs is 1008."""
    result = await attacked(node, "ping_flood", "127.0.0.13")
    assert result.outcome["close_code"] == CLOSE_POLICY, result.outcome
    limits = Limits()
    # The burst, at most one slice of a read (1 KiB of 10-byte pings) past it, and the
    # frames counted 8 at a time.
    assert result.outcome["counts"]["pongs"] <= limits.frame_burst + 103 + 8, result.outcome
    assert result.cpu < 50, f"the node spent {result.cpu:.0f}% of a core"


async def test_entry_password_guesses_are_throttled_per_address(node: ServerProcess) -> None:
    """4. 16 connections guessing at 4 tournaments get at most the address's allowance
    checked (fewer than the tournaments' together), then ``rate_limited`` with a
    retry-after."""
    hosts, tournaments = await host_tournament(node.url, 4)
    try:
        result = await attacked(node, "guess_passwords", "127.0.0.14", tournament=tournaments)
    finally:
        for host in hosts:
            await host.close()
    counts, logins = result.outcome["counts"], LoginLimits()
    assert 4 * logins.password_failures_per_tournament > logins.passwords_per_address
    assert 0 < counts.get("not_allowed", 0) <= logins.passwords_per_address + 2, counts
    assert counts["retry_after"] > 0, counts  # the message rate's own have none


async def test_entry_password_guesses_are_throttled_per_tournament(node: ServerProcess) -> None:
    """4. Guesses from many addresses meet the tournament's own limit of wrong guesses."""
    hosts, tournament = await host_tournament(node.url)
    logins, checked = LoginLimits(), 0
    try:
        for source in ("127.0.0.3", "127.0.0.4", "127.0.0.5"):
            result = await siege(
                "guess_passwords", node.pid, node.port, seconds=0.5, tournament=tournament,
                source=source,
            )  # fmt: skip
            checked += result.outcome["counts"].get("not_allowed", 0)
    finally:
        for host in hosts:
            await host.close()
    assert 0 < checked <= logins.password_failures_per_tournament + 2


async def test_guest_sessions_are_bounded_per_address(
    node_processes: ProcessFactory, redis_url: str
) -> None:
    """5. connect, hello, close in a loop: an address opens a bounded number of guest
    sessions, each expiring within minutes unless used."""
    allowed = 30  # of the 120 by default: what 2 s of this attack reaches on a busy machine
    (node,) = node_processes(1, **DEFAULTS, BALLROOM_GUESTS_PER_ADDRESS=str(allowed))
    result = await attacked(node, "mint_sessions", "127.0.0.15")
    counts = result.outcome["counts"]
    assert counts.get("welcome", 0) <= allowed, counts
    assert counts.get("rate_limited", 0) > 0, counts
    sessions, longest = session_keys(redis_url)
    assert sessions <= allowed + 2  # and the honest client's two
    assert longest <= Timeouts().guest_unused


async def test_session_token_guesses_are_throttled_per_address(node: ServerProcess) -> None:
    """Tokens are secrets too: past the address's unknown tokens, ``hello`` with a token is
    refused ``rate_limited`` before any lookup."""
    seconds = 0.045 * (LoginLimits().bad_tokens_per_address + 10)  # hellos 40 ms apart
    result = await siege("guess_tokens", node.pid, node.port, seconds=seconds, source="127.0.0.7")
    counts = result.outcome["counts"]
    assert counts.get("bad_token", 0) <= LoginLimits().bad_tokens_per_address, counts
    assert counts.get("rate_limited", 0) > 0, counts
    assert result.honest_connected


async def test_rate_limited_answers_come_before_the_close(node: ServerProcess) -> None:
    """6. 200 pings in one write after a full bucket: the burst answered, then 49
    ``rate_limited``, then the close (1008), as docs/protocol.md says."""
    result = await attacked(node, "burst_of_pings", "127.0.0.16")
    counts, limits = result.outcome["counts"], Limits()
    assert result.outcome["close_code"] == CLOSE_POLICY, result.outcome
    assert counts.get("pong", 0) >= limits.burst - 1, counts  # hello took a token
    assert counts.get("rate_limited", 0) >= limits.flood_strikes - 1, counts


async def test_bytes_after_a_request_head_end_the_connection_quietly(
    node: ServerProcess,
) -> None:
    """7. A request with bytes after its head gets its one answer, then the connection ends,
    and the node logs no traceback."""
    result = await attacked(node, "after_head", "127.0.0.17")
    counts = result.outcome["counts"]
    expected = {
        "page_then_crlf": "HTTP/1.1 200 OK",
        "pipelined": "HTTP/1.1 200 OK",
        "upgrade_then_crlf": "HTTP/1.1 101 Switching Protocols",
    }
    assert set(expected) == set(AFTER_HEAD)
    for name, status in expected.items():
        assert counts.get(f"{name}: {status}", 0) > 0, counts
    assert not [answer for answer in counts if answer.endswith("no answer")], counts


@contextlib.contextmanager
def _sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def _raw(port: int, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(TIMEOUT)
    sock.connect(("127.0.0.1", port))
    return sock


def _answer(sock: socket.socket) -> bytes:
    answer = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


async def test_pending_handshakes_are_capped_per_address(node: ServerProcess) -> None:
    """Per-address caps hold before the upgrade too: past 64 connections that have not
    finished their handshake, one more from that address is answered 503 at once."""
    cap = Limits().connections_per_address
    with _sockets() as held:
        for _ in range(cap):
            held.append(_raw(node.port, "127.0.0.6"))
        await asyncio.sleep(0.2)  # let the node accept them all
        with _raw(node.port, "127.0.0.6") as extra:
            answer = await asyncio.to_thread(_answer, extra)
        assert answer.startswith(b"HTTP/1.1 503"), answer
        honest = await ClientSession.connect(node.url, "Honest")  # another address: welcome
        await honest.close()


async def test_a_request_head_is_bounded(make_node: NodeFactory, clients: Clients) -> None:
    """A request head past 16 KiB is answered 431 and the connection closed, however
    short its lines (websockets alone allows 128 lines of 8 KiB)."""
    lines = b"".join(b"X-Padding-%d: %s\r\n" % (i, b"x" * 200) for i in range(100))
    async with make_node() as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with _raw(port, "127.0.0.2") as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + lines + b"\r\n")
            answer = await asyncio.to_thread(_answer, sock)
        assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
        await clients.hello(url, "Honest")


async def test_a_used_guest_session_gets_the_full_lease(
    make_node: NodeFactory, clients: Clients, redis_url: str
) -> None:
    """A guest session starts short-lived; it gets the full lease once its connection has
    lasted half of ``guest_unused``, or once it is resumed."""
    timeouts = Timeouts(countdown=0.0, guest_unused=1.0, sweep=0.05)
    async with make_node(timeouts=timeouts) as url:
        staying = await clients.hello(url, "Stays")
        leaving = await clients.hello(url, "Leaves")
        assert staying.welcome is not None and leaving.welcome is not None
        client = redis.Redis.from_url(redis_url)
        try:
            assert client.ttl(f"session:{staying.welcome.token}") <= timeouts.guest_unused
            await leaving.close()
            deadline = time.monotonic() + TIMEOUT
            while client.ttl(f"session:{staying.welcome.token}") <= timeouts.guest_unused:
                assert time.monotonic() < deadline, "the connected guest never got the lease"
                await asyncio.sleep(0.05)
            assert client.ttl(f"session:{staying.welcome.token}") > timeouts.session - 60
            # The one that left is resumed: that is a use too.
            back = await clients.raw(url)
            welcome = await back.request(
                Hello(v=PROTOCOL_VERSION, name="Leaves", token=leaving.welcome.token), Welcome
            )
            assert welcome.player == leaving.welcome.player
            assert client.ttl(f"session:{leaving.welcome.token}") > timeouts.session - 60
        finally:
            client.close()

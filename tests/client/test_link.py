"""Clear errors about the server: a bad address at once, a failing one named while retrying,
and a clock that does not tick on while the server is away."""

from __future__ import annotations

import socket
import subprocess
import sys
from http import HTTPStatus

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from client.app import BallroomApp
from client.launcher import BadServerURL, server_url
from client.net import LinkState, connect_error_text
from client.screens.game import GameScreen
from client.widgets.status import TopBar
from server.storage.embedded import free_port
from tests.client.play import solo_race
from tests.client.screen import on_screen, until
from tests.server.conftest import TIMEOUT

pytestmark = pytest.mark.slow

NOWHERE = "ws://127.0.0.1:9/"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("foo", "try ws://foo/"),
        ("127.0.0.1:8765", "try ws://127.0.0.1:8765/"),
        ("http://127.0.0.1:8765/", "ws://127.0.0.1:8765/"),
        ("https://dance.example/", "wss://dance.example/"),
        ("ws://host:99999/", "not a URL"),
        ("", "ws://HOST:PORT/"),
    ],
)
def test_a_bad_server_url_is_refused_with_what_would_do(given: str, said: str) -> None:
    """Each malformed address is refused, and the message says what to type instead."""
    with pytest.raises(BadServerURL, match=said.replace(".", r"\.").replace("?", r"\?")):
        server_url(given)


def test_good_server_urls_pass() -> None:
    """ws:// and wss:// URLs with a host go through unchanged."""
    for url in ("ws://127.0.0.1:8765/", "wss://dance.example/ballroom", "ws://[::1]:80/"):
        assert server_url(url) == url


@pytest.mark.parametrize("given", ["foo", "http://127.0.0.1:1/"])
def test_ballroom_play_with_a_bad_server_exits_2_at_once(given: str) -> None:
    """``ballroom play --server foo``: one clear line on stderr and exit status 2, no client."""
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "play", "--server", given],
        capture_output=True,
        text=True,
        timeout=TIMEOUT * 3,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("ballroom play: --server: ")
    assert "ws://" in done.stderr and "Traceback" not in done.stderr


def test_connect_errors_read_as_words() -> None:
    """Refused, unknown host and a timeout each get their own words."""
    assert connect_error_text(ConnectionRefusedError(111, "Connection refused")).startswith(
        "refused"
    )
    assert "no such host" in connect_error_text(socket.gaierror(-2, "Name or service not known"))
    assert connect_error_text(TimeoutError()) == "timed out"


async def test_a_refused_connection_is_named_while_the_app_keeps_trying() -> None:
    """Nothing listens: after a few attempts the top bar says "refused" and it goes on."""
    app = BallroomApp(f"ws://127.0.0.1:{free_port()}/", "Ann")
    async with app.run_test(size=(120, 24)) as pilot:
        await on_screen(pilot, "refused: is a server running there?")
        await on_screen(pilot, "✗ Cannot reach ws://127.0.0.1:", "(still trying)")
        seen = app.link.last_error
        bar = app.screen.query_one(TopBar)
        attempt = bar.link
        await until(pilot, lambda: bar.link != attempt, "another attempt")
        assert app.link.state is LinkState.CONNECTING and app.link.last_error == seen


async def test_a_rejected_handshake_is_named() -> None:
    """A web server that is not Ballroom answers the handshake with 403: the bar says so."""

    def refuse(connection: ServerConnection, request: Request) -> Response:
        return connection.respond(HTTPStatus.FORBIDDEN, "not here\n")

    async def handler(connection: ServerConnection) -> None:
        await connection.close()

    async with serve(handler, "127.0.0.1", 0, process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        app = BallroomApp(f"ws://127.0.0.1:{port}/", "Ann")
        async with app.run_test(size=(120, 24)) as pilot:
            await on_screen(pilot, "handshake rejected (HTTP 403)")


async def test_the_clock_waits_for_the_server_and_resyncs_on_reconnect(node: str) -> None:
    """While the link is down the HUD says reconnecting; back, the server's end time returns."""
    app = BallroomApp(node, "Ann")
    async with app.run_test(size=(100, 24)) as pilot:
        game = await solo_race(pilot)
        await on_screen(pilot, "⏱ ")
        ends_at = game.ends_at
        url, session = app.link.url, app.link.session
        assert session is not None
        app.link.url = NOWHERE
        await session.ws.close()
        shown = await on_screen(pilot, "⟳ reconnecting · home")
        assert "⏱" not in shown
        game.ends_at = 0.0  # a clock that drifted while away: the server's time must win
        app.link.url = url
        await until(pilot, lambda: app.link.online, "the app is back")
        await until(pilot, lambda: game.ends_at == ends_at, "the end time comes from the server")
        await on_screen(pilot, "⏱ ")
        assert isinstance(app.screen, GameScreen)

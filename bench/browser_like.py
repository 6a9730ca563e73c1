"""What a browser watching a race costs a node beyond a terminal spectator's frames.

A browser opening a shared link first loads the page and every file it
imports over plain HTTP (one request per file: the node closes each HTTP
connection after its answer), then opens the websocket with an ``Origin``
header and browser headers, which the node checks before the handshake.
From then on it receives exactly the frames any spectator does. A
browser-like bench client does those two things and is otherwise the bench's
lean spectator; ``bench.race_load --scenario human --browser-like N`` makes N
of the human scenario's spectators so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from urllib.parse import urlsplit

from server.net.web import Site

__all__ = ["browser_headers", "load_page", "page_paths"]

#: A current desktop Chrome's headers on a websocket handshake, less cookies.
_CHROME = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131 Safari/537.36"
)


def page_paths() -> list[str]:
    """Every path a browser fetches to show the page: itself, then each file it loads."""
    return ["/", *(f"/assets/{name}" for name in Site.load().names() if name != "index.html")]


def browser_headers(url: str) -> Mapping[str, str]:
    """The websocket handshake headers a browser on the node's own page sends."""
    parts = urlsplit(url)
    return {
        "Origin": f"http://{parts.netloc}",
        "User-Agent": _CHROME,
        "Accept-Language": "en-GB,en;q=0.9",
        "Cache-Control": "no-cache",
        "Pragma": "no-cache",
    }


async def _get(host: str, port: int, path: str, timeout: float) -> int:
    """One HTTP GET; returns the bytes of the answer (raises unless it is 200)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: {_CHROME}\r\n"
            "Accept: */*\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n".encode()
        )
        answer = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    if not answer.startswith(b"HTTP/1.1 200 "):
        raise ConnectionError(f"GET {path}: {answer[:40]!r}")
    return len(answer)


async def load_page(url: str, paths: list[str], timeout: float = 30) -> int:
    """Load the page the way a browser does, six requests at a time; returns bytes read."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    semaphore = asyncio.Semaphore(6)  # a browser's connections per host

    async def one(path: str) -> int:
        async with semaphore:
            return await _get(host, port, path, timeout)

    return sum(await asyncio.gather(*(one(path) for path in paths)))

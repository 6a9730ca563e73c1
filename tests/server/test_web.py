"""The watching page's HTTP rules: what is served, as what, with which headers, to whom."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from http import HTTPStatus
from pathlib import Path

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from server.net.web import (
    CONTENT_SECURITY_POLICY,
    MAX_HEADER_BYTES,
    MAX_PATH,
    STATIC_ROOT,
    Site,
    WebResponse,
    origin_allowed,
)
from server.serve import page_url
from tests.server.conftest import TIMEOUT, NodeFactory, ProcessFactory

pytestmark = pytest.mark.slow

SITE = Site.load()
HOST = ("Host", "127.0.0.1:8765")
UPGRADE = [HOST, ("Upgrade", "websocket"), ("Connection", "Upgrade")]


def get(path: str, *headers: tuple[str, str], method: str = "GET") -> WebResponse:
    answer = SITE.answer(method, path, [HOST, *headers])
    assert answer is not None
    return answer


def test_every_answer_carries_the_strict_policy() -> None:
    """Pages, files and refusals alike: a CSP with no inline script, nosniff, no framing."""
    for answer in (get("/"), get("/assets/app.css"), get("/nowhere"), get("/", method="POST")):
        assert answer.header("Content-Security-Policy") == CONTENT_SECURITY_POLICY
        assert answer.header("X-Content-Type-Options") == "nosniff"
        assert answer.header("X-Frame-Options") == "DENY"
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe" not in CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY


def test_the_page_has_no_inline_script_or_style() -> None:
    """index.html loads its script and style from files; nothing the policy would block."""
    html = (STATIC_ROOT / "index.html").read_text()
    assert '<script type="module" src="/assets/js/main.js"></script>' in html
    assert html.count("<script") == 1 and "<style" not in html and "style=" not in html
    for script in STATIC_ROOT.glob("js/*.js"):
        text = script.read_text()
        assert "innerHTML" not in text and "eval(" not in text, script.name


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/assets/app.css", "text/css; charset=utf-8"),
        ("/assets/js/main.js", "text/javascript; charset=utf-8"),
        ("/assets/vendor/msgpack/index.mjs", "text/javascript; charset=utf-8"),
        ("/assets/vendor/msgpack/LICENSE.txt", "text/plain; charset=utf-8"),
    ],
)
def test_content_types(path: str, content_type: str) -> None:
    """Each file is served as its kind, with its length."""
    answer = get(path)
    assert answer.status is HTTPStatus.OK
    assert answer.header("Content-Type") == content_type
    assert answer.header("Content-Length") == str(len(answer.body))


@pytest.mark.parametrize(
    "path", ["/race/KQ7HXM", "/tournament/T3f9a01bc2d", "/replay/r41d/p3a9", "/tv", "/?x=1"]
)
def test_shared_links_open_the_page(path: str) -> None:
    """Every shareable address answers with the page itself, so it opens cold."""
    assert get(path).body == get("/").body


@pytest.mark.parametrize(
    "path",
    [
        "/assets/../web.py",
        "/assets/../../settings.py",
        "/assets/%2e%2e/web.py",
        "/assets/js/../js/main.js",
        "/assets//etc/passwd",
        "/assets/js\\main.js",
        "/assets/",
        "/assets/vendor/SHA256SUMS",
        "/race/../../etc/passwd",
        "/race/a/b",
        "/tv/x",
        "/index.html/..",
        "/web.py",
    ],
)
def test_no_path_reaches_beyond_the_files_read_at_start(path: str) -> None:
    """Traversal, encoded dots, doubled slashes and unknown kinds are all 404."""
    assert get(path).status is HTTPStatus.NOT_FOUND


def test_only_regular_files_of_known_kinds_are_read(tmp_path: Path) -> None:
    """A symbolic link (to anything) and a file of an unknown kind are never served."""
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "secret.py").write_text("TOKEN = 1")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.css"
    outside.write_text("body{}")
    (tmp_path / "linked.css").symlink_to(outside)
    assert Site.load(tmp_path).names() == ["index.html"]


def test_methods_head_and_revalidation() -> None:
    """GET and HEAD only; HEAD has the headers and no body; a known ETag gets 304."""
    refused = get("/", method="POST")
    assert refused.status is HTTPStatus.METHOD_NOT_ALLOWED
    assert refused.header("Allow") == "GET, HEAD"
    head = get("/assets/app.css", method="HEAD")
    assert head.status is HTTPStatus.OK and head.body == b""
    assert head.header("Content-Length") == str(len(get("/assets/app.css").body))
    etag = head.header("ETag")
    assert etag is not None
    again = get("/assets/app.css", ("If-None-Match", etag))
    assert again.status is HTTPStatus.NOT_MODIFIED and again.body == b""


def test_request_sizes_are_bounded() -> None:
    """An overlong path is 414, overlong headers 431, a repeated Host or Origin 400."""
    assert get("/race/" + "a" * MAX_PATH).status is HTTPStatus.REQUEST_URI_TOO_LONG
    big = ("X-Filler", "x" * MAX_HEADER_BYTES)
    assert get("/", big).status is HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
    assert get("/", HOST).status is HTTPStatus.BAD_REQUEST


@pytest.mark.parametrize(
    ("origin", "host", "allowed", "ok"),
    [
        ("http://127.0.0.1:8765", "127.0.0.1:8765", (), True),
        ("https://watch.example.org", "watch.example.org", (), True),
        ("https://watch.example.org", "watch.example.org:443", (), True),
        ("http://watch.example.org", "watch.example.org:80", (), True),
        ("http://127.0.0.1:8766", "127.0.0.1:8765", (), False),
        ("https://evil.example", "watch.example.org", (), False),
        ("null", "watch.example.org", (), False),
        ("file://", "watch.example.org", (), False),
        ("https://club.example", "node1:8765", ("https://club.example",), True),
        ("https://CLUB.example", "node1:8765", ("https://club.example/",), True),
        ("https://other.example", "node1:8765", ("https://club.example",), False),
    ],
)
def test_origin_rule(origin: str, host: str, allowed: tuple[str, ...], ok: bool) -> None:
    """The page's own origin (by Host) and the allowed list may connect; no one else."""
    assert origin_allowed(origin, host, allowed) is ok


def test_websocket_upgrades_pass_only_from_allowed_origins() -> None:
    """An upgrade without Origin (not a browser) or from this origin passes; others 403."""
    assert SITE.answer("GET", "/", UPGRADE) is None
    assert SITE.answer("GET", "/", [*UPGRADE, ("Origin", "http://127.0.0.1:8765")]) is None
    refused = SITE.answer("GET", "/", [*UPGRADE, ("Origin", "https://evil.example")])
    assert refused is not None and refused.status is HTTPStatus.FORBIDDEN
    club = Site.load(allowed_origins=["https://club.example"])
    assert club.answer("GET", "/", [*UPGRADE, ("Origin", "https://club.example")]) is None


def test_vendored_libraries_are_as_published() -> None:
    """Every vendored file matches the checksum recorded when it was taken from npm."""
    vendor = STATIC_ROOT / "vendor"
    listed = (vendor / "SHA256SUMS").read_text().splitlines()
    assert listed
    names = set()
    for line in listed:
        digest, name = line.split(maxsplit=1)
        assert hashlib.sha256((vendor / name).read_bytes()).hexdigest() == digest, name
        names.add(name)
    shipped = {
        path.relative_to(vendor).as_posix()
        for path in vendor.rglob("*")
        if path.is_file() and path.parent != vendor
    }
    assert shipped == names
    assert {"msgpack/LICENSE.txt", "noble-hashes/LICENSE.txt"} <= names


def test_page_url() -> None:
    """serve prints a browsable address, even when bound to every interface."""
    assert page_url("127.0.0.1", 8765) == "http://127.0.0.1:8765/"
    assert page_url("0.0.0.0", 80) == "http://localhost:80/"
    assert page_url("::1", 8765) == "http://[::1]:8765/"


async def _http(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        async with asyncio.timeout(TIMEOUT):
            return await reader.read()
    finally:
        writer.close()


async def test_a_node_serves_the_page_and_guards_its_websocket(make_node: NodeFactory) -> None:
    """On a real node: GET gets the page, a foreign origin's upgrade is refused, its own passes."""
    async with make_node() as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        reply = await _http(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK")
        assert b"Content-Security-Policy: default-src 'none'" in head
        assert body == get("/").body
        with pytest.raises(InvalidStatus) as refused:
            await ws_connect(url, origin=Origin("https://evil.example"))
        assert refused.value.response.status_code == HTTPStatus.FORBIDDEN
        own = await ws_connect(url, origin=Origin(f"http://127.0.0.1:{port}"))
        await own.close()


async def test_serve_prints_the_page_url(node_processes: ProcessFactory) -> None:
    """`ballroom serve` says where to watch, and that address answers with the page."""
    [served] = node_processes(1)
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    line = f"watch in a browser: http://127.0.0.1:{served.port}/"
    while line not in served.output():
        assert asyncio.get_running_loop().time() < deadline, served.output()
        await asyncio.sleep(0.05)
    reply = await _http(
        served.port, f"GET /race/AB12CD HTTP/1.1\r\nHost: x:{served.port}\r\n\r\n".encode()
    )
    assert reply.startswith(b"HTTP/1.1 200 OK") and reply.endswith(get("/").body)


def test_text_files_go_gzipped_to_clients_that_take_it() -> None:
    """With Accept-Encoding: gzip a file comes compressed, with its own ETag; without, as is."""
    plain = get("/assets/vendor/msgpack/Decoder.mjs")
    packed = get("/assets/vendor/msgpack/Decoder.mjs", ("Accept-Encoding", "gzip, deflate, br"))
    assert packed.header("Content-Encoding") == "gzip" and plain.header("Content-Encoding") is None
    assert gzip.decompress(packed.body) == plain.body and len(packed.body) < len(plain.body) / 2
    assert packed.header("Vary") == "Accept-Encoding"
    assert packed.header("ETag") != plain.header("ETag")
    etag = packed.header("ETag")
    assert etag is not None
    again = get(
        "/assets/vendor/msgpack/Decoder.mjs", ("Accept-Encoding", "gzip"), ("If-None-Match", etag)
    )
    assert again.status is HTTPStatus.NOT_MODIFIED

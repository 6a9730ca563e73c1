"""The watching page over plain HTTP, on the node's own port, beside the websocket.

A node answers every HTTP request itself before websockets' handshake: a
websocket upgrade goes on to the protocol (once its ``Origin`` passed the
check below), and a plain ``GET`` gets the page or one of its files. Nothing
here does I/O: :class:`Site` reads the page's files once, when the node
starts, and :meth:`Site.answer` turns a request into a :class:`WebResponse`
(or None: "carry on with the websocket handshake"), so the rules are tested
without a socket and survive any change of websocket driver.

Why each rule:

* **Only files read at start are served**, looked up by their exact path in a
  table: no path from a request ever reaches the file system, so ``..``,
  encoded slashes and symbolic links cannot reach anything else.
* **Content types come from a short list** of known extensions, with
  ``nosniff``; a file of another kind is not served at all.
* **A strict Content-Security-Policy**: scripts, styles and connections only
  from this origin, no inline script or style, no frames, no forms. A page
  that can never run injected script cannot be turned against its viewers.
* **Bounded requests**: websockets already refuses bodies, long lines and
  more than 128 headers; the page refuses paths over :data:`MAX_PATH` and
  headers over :data:`MAX_HEADER_BYTES` in all, far above what a browser sends.
* **Origins**: a browser sends ``Origin`` with every websocket upgrade; one
  from another site is refused (403) unless the host allowed it, so no other
  page can open a spectator (or player) session in a visitor's name. Clients
  that are not browsers send no ``Origin`` and are not affected.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "CONTENT_TYPES",
    "MAX_HEADER_BYTES",
    "MAX_PATH",
    "STATIC_ROOT",
    "Site",
    "WebResponse",
    "origin_allowed",
]

#: Where the page's files live, in the package (served under ``/assets/``).
STATIC_ROOT = Path(__file__).with_name("static")

#: The longest request path answered (a browser's own limit is far higher,
#: but no page of ours needs more than a race id and a player id).
MAX_PATH = 1024

#: The most bytes of header names and values in one request.
MAX_HEADER_BYTES = 16 * 1024

#: Extensions served, and the type each is served as.
CONTENT_TYPES: Mapping[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        # 'self' covers ws:// and wss:// to this origin in CSP level 3.
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)

#: Headers on every answer the page gives.
_SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)

#: Page routes that open the page itself (it reads the address to know what to show):
#: watching views (/tv among them), and /play, /play/RACE and /play/tournament/CODE for racing.
_PAGE_ROUTES = re.compile(
    r"/(?:tv|race/[A-Za-z0-9_-]{1,40}|tournament/[A-Za-z0-9_-]{1,40}"
    r"|replay/[A-Za-z0-9_-]{1,40}/[A-Za-z0-9_-]{1,40}|play(?:/[A-Za-z0-9_-]{1,40}|/tournament/[A-Za-z0-9_-]{1,40})?)?"
)

_ASSETS = "/assets/"
_INDEX = "index.html"


@dataclass(frozen=True, slots=True)
class WebResponse:
    """One HTTP answer, before any socket: status, headers and body."""

    status: HTTPStatus
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (any case), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


@dataclass(frozen=True, slots=True)
class _File:
    """One servable file, as it is and gzipped (when that is smaller)."""

    body: bytes
    content_type: str
    etag: str
    gzipped: bytes | None

    @classmethod
    def of(cls, body: bytes, content_type: str) -> _File:
        digest = hashlib.sha256(body).hexdigest()[:32]
        # mtime=0: the same bytes on every node and every start, so one ETag.
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        return cls(body, content_type, f'"{digest}"', packed if len(packed) < len(body) else None)

    def encoded(self, gzip_accepted: bool) -> _Encoded:
        """The bytes to send and their headers: gzipped for a client that takes it."""
        if gzip_accepted and self.gzipped is not None:
            etag = self.etag[:-1] + '-gz"'  # another representation, another tag
            return _Encoded(self.gzipped, etag, (("Content-Encoding", "gzip"),))
        return _Encoded(self.body, self.etag, ())


@dataclass(frozen=True, slots=True)
class _Encoded:
    body: bytes
    etag: str
    extra: tuple[tuple[str, str], ...]


def origin_allowed(origin: str, host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a browser page at ``origin`` may open a websocket to this node.

    The same origin is always allowed: an ``http`` or ``https`` origin whose
    host and port are the request's ``Host`` (behind a reverse proxy that
    keeps ``Host``, the public name). ``allowed`` adds whole origins, such
    as ``https://watch.example.org``, compared without regard to case.
    """
    origin = origin.strip().lower()
    if origin in {item.strip().lower().rstrip("/") for item in allowed}:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    default_port = ":80" if parts.scheme == "http" else ":443"
    return _authority(parts.netloc, default_port) == _authority(host.lower(), default_port)


def _authority(netloc: str, default_port: str) -> str:
    """``host:port`` with the scheme's port written out, for comparing."""
    if netloc.endswith("]") or ":" not in netloc.rsplit("]", 1)[-1]:
        return netloc + default_port
    return netloc


class Site:
    """The page's files, read once, and the rules for answering HTTP with them."""

    def __init__(self, files: Mapping[str, _File], allowed_origins: Iterable[str] = ()) -> None:
        self._files = dict(files)
        self.allowed_origins = tuple(allowed_origins)
        if _INDEX not in self._files:
            raise ValueError(f"the page's folder has no {_INDEX}")

    @classmethod
    def load(cls, root: Path = STATIC_ROOT, allowed_origins: Iterable[str] = ()) -> Site:
        """Read every servable file under ``root`` (regular files of a known type only)."""
        files: dict[str, _File] = {}
        for path in sorted(root.rglob("*")):
            content_type = CONTENT_TYPES.get(path.suffix)
            if content_type is None or path.is_symlink() or not path.is_file():
                continue
            files[path.relative_to(root).as_posix()] = _File.of(path.read_bytes(), content_type)
        return cls(files, allowed_origins)

    def names(self) -> list[str]:
        """The paths (below ``/assets/``) of every file served."""
        return sorted(self._files)

    def answer(
        self, method: str, path: str, headers: Iterable[tuple[str, str]]
    ) -> WebResponse | None:
        """The answer to one request, or None for a websocket upgrade to let through.

        ``headers`` are the request's (name, value) pairs in order, repeats
        included, as received.
        """
        pairs = list(headers)
        if sum(len(name) + len(value) for name, value in pairs) > MAX_HEADER_BYTES:
            return _plain(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large")
        if len(path) > MAX_PATH:
            return _plain(HTTPStatus.REQUEST_URI_TOO_LONG, "request path too long")
        values: dict[str, list[str]] = {}
        for name, value in pairs:
            values.setdefault(name.lower(), []).append(value)
        if any(len(values.get(name, ())) > 1 for name in ("host", "origin")):
            return _plain(HTTPStatus.BAD_REQUEST, "repeated Host or Origin header")
        host = values.get("host", [None])[0]
        if any("websocket" in value.lower() for value in values.get("upgrade", ())):
            origin = values.get("origin", [None])[0]
            if origin is None or origin_allowed(origin, host, self.allowed_origins):
                return None  # on to the websocket handshake
            return _plain(HTTPStatus.FORBIDDEN, "websocket from this origin not allowed")
        if method not in ("GET", "HEAD"):
            response = _plain(HTTPStatus.METHOD_NOT_ALLOWED, "only GET and HEAD")
            return _with(response, ("Allow", "GET, HEAD"))
        route = path.split("?", 1)[0]
        if _PAGE_ROUTES.fullmatch(route):
            name = _INDEX
        elif route.startswith(_ASSETS) and route[len(_ASSETS) :] in self._files:
            name = route[len(_ASSETS) :]
        else:
            return _plain(HTTPStatus.NOT_FOUND, "not found")
        return _file_answer(self._files[name], method, values)


def _file_answer(file: _File, method: str, request: Mapping[str, list[str]]) -> WebResponse:
    """One file, gzipped if the client takes it; 304 if it has this version already."""
    accepted = ",".join(request.get("accept-encoding", ())).lower()
    sent = file.encoded(gzip_accepted="gzip" in accepted)
    headers = (
        *_SECURITY_HEADERS,
        ("Content-Type", file.content_type),
        ("Content-Length", str(len(sent.body))),
        *sent.extra,
        ("Vary", "Accept-Encoding"),
        ("ETag", sent.etag),
        # Always ask again (a cheap 304): a node's upgrade is seen at once.
        ("Cache-Control", "no-cache"),
    )
    if sent.etag in request.get("if-none-match", ()):
        return WebResponse(HTTPStatus.NOT_MODIFIED, headers, b"")
    return WebResponse(HTTPStatus.OK, headers, b"" if method == "HEAD" else sent.body)


def _plain(status: HTTPStatus, text: str) -> WebResponse:
    body = f"{status.value} {status.phrase}: {text}\n".encode()
    return WebResponse(
        status,
        (
            *_SECURITY_HEADERS,
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ),
        body,
    )


def _with(response: WebResponse, header: tuple[str, str]) -> WebResponse:
    return WebResponse(response.status, (*response.headers, header), response.body)

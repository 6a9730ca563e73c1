"""Hostile clients on raw sockets, one attack a process: what issue 29's probe sent a node.

Run: ``.venv/bin/python -m bench.attacks NAME --port PORT [--seconds S]
[--source 127.0.0.2] [--tournament ID[,ID…]]``; it prints ``ready`` once it has
started (so that a measurement need not count its start), then one JSON
line of what it saw. :mod:`bench.hostile` and ``tests/server/test_hostile_input.py`` run
these in a process of their own (so the attacker's CPU never slows the
honest client's event loop in theirs) from another loopback address than
the honest client's, so that per-address limits tell the two apart.

Every attack writes frames built once, ahead, in big writes, and stops at
its deadline or when the node closes its connection. Only the standard
library and msgpack are imported: the process starts fast.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

import msgpack

__all__ = ["ATTACKS", "Outcome", "frame", "handshake", "main"]

PING, CLOSE, BINARY, CONT, TEXT = 0x9, 0x8, 0x2, 0x0, 0x1


@dataclass
class Outcome:
    """What an attack saw: how long it ran, whether and how the node closed it, counts."""

    attack: str
    seconds: float = 0.0
    #: The close code of the node's close frame, None if none came (or the attack stopped first).
    close_code: int | None = None
    #: Whether the node ended the attacker's connection (close frame, EOF or reset).
    closed: bool = False
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n


def frame(opcode: int, payload: bytes = b"", *, fin: bool = True) -> bytes:
    """One masked client frame (the mask is zero: masking is then a no-op, and fast)."""
    head = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", head, 0x80 | size)
    elif size < 65536:
        header = struct.pack("!BBH", head, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", head, 0x80 | 127, size)
    return header + b"\0\0\0\0" + payload


def message(value: dict[str, object]) -> bytes:
    """A msgpack map as one binary frame."""
    return frame(BINARY, msgpack.packb(value, use_bin_type=True))


def hello(name: str = "Mallory") -> bytes:
    return message({"t": "hello", "v": 4, "name": name, "id": 1})


def connect(port: int, source: str, *, rcvbuf: int | None = None) -> socket.socket:
    """A TCP connection to the node from ``source`` (a loopback address)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:  # set before connecting, so the window stays small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    return sock


def handshake(port: int, source: str, *, rcvbuf: int | None = None) -> socket.socket:
    """A websocket past its opening handshake (the 101 read, nothing after it)."""
    sock = connect(port, source, rcvbuf=rcvbuf)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: nothing past the head is taken
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    return sock


class Reader:
    """Reads a websocket's server frames from a blocking socket: (opcode, payload)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def next(self) -> tuple[int, bytes]:
        first, second = self._exactly(2)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", self._exactly(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", self._exactly(8))
        return first & 0x0F, self._exactly(size)

    def frames(self) -> Iterator[tuple[int, bytes]]:
        """Frames until the node closes the stream (a close frame ends it too)."""
        with contextlib.suppress(EOFError, OSError):
            while True:
                opcode, payload = self.next()
                yield opcode, payload
                if opcode == CLOSE:
                    return


def _close_code(payload: bytes) -> int | None:
    return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None


def _flood(sock: socket.socket, batch: bytes, deadline: float, outcome: Outcome) -> None:
    """Write ``batch`` again and again until ``deadline`` or until the node ends the connection."""
    sock.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            sock.sendall(batch)
            outcome.count("batches")
        except TimeoutError:
            continue  # the node does not read: it has paused, or stopped, reading
        except OSError:
            outcome.closed = True
            return


def _closed_by_node(sock: socket.socket, outcome: Outcome, wait: float = 1.0) -> None:
    """Read what is left: a close frame's code, and whether the stream ended."""
    sock.settimeout(wait)
    for opcode, payload in Reader(sock).frames():
        if opcode == CLOSE:
            outcome.close_code = _close_code(payload)
            outcome.closed = True
    with contextlib.suppress(OSError):
        if sock.recv(1) == b"":
            outcome.closed = True


# -- the attacks -------------------------------------------------------------


def unread_pongs(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 1: ping frames in a flood, the pongs never read (a tiny receive window)."""
    outcome = Outcome("unread_pongs")
    sock = handshake(port, source, rcvbuf=4096)
    sock.sendall(hello())
    batch = frame(PING, b"p" * 125) * 2000  # 262 KB a write
    started = time.monotonic()
    _flood(sock, batch, started + seconds, outcome)
    outcome.seconds = time.monotonic() - started
    sock.close()  # without reading: the pongs are what it never wants
    return outcome


def fragments(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 2: a message begun (fin=0) and never ended: one-byte and empty continuations."""
    outcome = Outcome("fragments")
    sock = handshake(port, source)
    sock.sendall(hello())
    sock.sendall(frame(BINARY, b"\x81", fin=False))
    batch = (frame(CONT, b"x", fin=False) + frame(CONT, b"", fin=False)) * 10_000
    started = time.monotonic()
    _flood(sock, batch, started + seconds, outcome)
    outcome.seconds = time.monotonic() - started
    if outcome.closed or time.monotonic() >= started + seconds:
        _closed_by_node(sock, outcome)
    sock.close()
    return outcome


def ping_flood(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 3: ping frames as fast as they go, every pong read."""
    outcome = Outcome("ping_flood")
    sock = handshake(port, source)
    sock.sendall(hello())
    done = threading.Event()

    def read() -> None:
        sock.settimeout(None)
        for opcode, payload in Reader(sock).frames():
            if opcode == 0xA:
                outcome.count("pongs")
            elif opcode == CLOSE:
                outcome.close_code = _close_code(payload)
        outcome.closed = True
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    batch = frame(PING, b"ping") * 5000
    started = time.monotonic()
    _flood(sock, batch, started + seconds, outcome)
    outcome.seconds = time.monotonic() - started
    done.wait(1.0)
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    return outcome


def guess_passwords(port: int, source: str, seconds: float, tournament: str | None) -> Outcome:
    """Item 4: 16 connections guess the entry passwords of tournaments (comma-separated ids,
    dealt out to the connections in turn), each waiting for its answer."""
    assert tournament is not None, "--tournament: ids of tournaments with a password"
    targets = tournament.split(",")
    outcome = Outcome("guess_passwords")
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def guesser(n: int) -> None:
        with contextlib.suppress(OSError, EOFError):
            sock = handshake(port, source)
            reader = Reader(sock)
            sock.sendall(hello(f"Guesser{n}"))
            reader.next()  # welcome
            guess = 0
            while time.monotonic() < deadline:
                guess += 1
                target = targets[n % len(targets)]
                join = {"t": "join_tournament", "tournament": target, "id": guess}
                sock.sendall(message({**join, "password": f"guess-{n}-{guess}"}))
                while True:  # the reply to this guess (pushed messages may come between)
                    opcode, payload = reader.next()
                    if opcode == CLOSE:
                        raise EOFError
                    reply = msgpack.unpackb(payload, raw=False)
                    if reply.get("id") == guess:
                        break
                what = reply.get("code", reply.get("t"))
                with lock:
                    outcome.count(str(what))
                if what == "rate_limited":  # a guess's limit (retry_after), or the message rate's
                    with lock:
                        outcome.count("retry_after" if reply.get("retry_after") else "no_retry")
            sock.close()

    started = time.monotonic()
    threads = [threading.Thread(target=guesser, args=(n,), daemon=True) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 10)
    outcome.seconds = time.monotonic() - started
    return outcome


def mint_sessions(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 5: connect, hello, read the welcome, close; again and again."""
    outcome = Outcome("mint_sessions")
    started = time.monotonic()
    while time.monotonic() < started + seconds:
        try:
            sock = handshake(port, source)
        except (OSError, ConnectionError):
            outcome.count("refused_connection")
            continue
        with contextlib.suppress(OSError, EOFError), sock:
            sock.sendall(hello())
            payload = Reader(sock).next()[1]
            answer = msgpack.unpackb(payload, raw=False)
            outcome.count(str(answer.get("code", answer.get("t"))))
    outcome.seconds = time.monotonic() - started
    return outcome


def guess_tokens(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Every guessable secret: ``hello`` with made-up session tokens, guest-like and
    account-like, one after another on one connection."""
    outcome = Outcome("guess_tokens")
    sock = handshake(port, source)
    reader = Reader(sock)
    started = time.monotonic()
    guess = 0
    with contextlib.suppress(OSError, EOFError):
        while time.monotonic() < started + seconds:
            guess += 1
            token = base64.urlsafe_b64encode(os.urandom(24)).decode()
            if guess % 2:
                token = f"u{os.urandom(6).hex()}.{token}"
            sock.sendall(
                message({"t": "hello", "v": 4, "name": "Mallory", "token": token, "id": guess})
            )
            opcode, payload = reader.next()
            if opcode == CLOSE:
                outcome.close_code, outcome.closed = _close_code(payload), True
                break
            answer = msgpack.unpackb(payload, raw=False)
            outcome.count(str(answer.get("code", answer.get("t"))))
            time.sleep(0.04)  # under the message rate: only the tokens' limit may refuse
    outcome.seconds = time.monotonic() - started
    sock.close()
    return outcome


def burst_of_pings(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 6: 200 ping messages in one write, after hello: what comes back, in what order."""
    outcome = Outcome("burst_of_pings")
    sock = handshake(port, source)
    reader = Reader(sock)
    sock.sendall(hello())
    reader.next()  # welcome
    started = time.monotonic()
    sock.sendall(b"".join(message({"t": "ping", "id": i}) for i in range(1, 201)))
    sock.settimeout(seconds)
    for opcode, payload in reader.frames():
        if opcode == CLOSE:
            outcome.close_code = _close_code(payload)
            outcome.closed = True
        elif opcode == BINARY:
            reply = msgpack.unpackb(payload, raw=False)
            outcome.count(str(reply.get("code", reply.get("t"))))
    outcome.seconds = time.monotonic() - started
    sock.close()
    return outcome


#: Requests with bytes after their head: each should get one answer, then the end.
AFTER_HEAD = {
    "page_then_crlf": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n\r\n",
    "pipelined": b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /app.js HTTP/1.1\r\nHost: x\r\n\r\n",
    "upgrade_then_crlf": (
        b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n\r\n"
    ),
}


def after_head(port: int, source: str, seconds: float, _: str | None) -> Outcome:
    """Item 7: a request with bytes after its head; the answer is counted by its status line."""
    outcome = Outcome("after_head")
    started = time.monotonic()
    while time.monotonic() < started + seconds:
        for name, request in AFTER_HEAD.items():
            with contextlib.suppress(OSError), connect(port, source) as sock:
                sock.settimeout(2)
                sock.sendall(request)
                answer = b""
                with contextlib.suppress(OSError):
                    while chunk := sock.recv(65536):
                        answer += chunk
                status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
                outcome.count(f"{name}: {status or 'no answer'}")
    outcome.seconds = time.monotonic() - started
    return outcome


ATTACKS: dict[str, Callable[[int, str, float, str | None], Outcome]] = {
    "unread_pongs": unread_pongs,
    "fragments": fragments,
    "ping_flood": ping_flood,
    "guess_passwords": guess_passwords,
    "mint_sessions": mint_sessions,
    "guess_tokens": guess_tokens,
    "burst_of_pings": burst_of_pings,
    "after_head": after_head,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("attack", choices=sorted(ATTACKS))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--source", default="127.0.0.2", help="the attacker's loopback address")
    parser.add_argument("--tournament", help="guess_passwords: tournament ids, comma-separated")
    args = parser.parse_args()
    print("ready", flush=True)  # imported: the measured window may start
    outcome = ATTACKS[args.attack](args.port, args.source, args.seconds, args.tournament)
    print(json.dumps(asdict(outcome)), flush=True)


if __name__ == "__main__":
    main()

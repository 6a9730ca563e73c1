"""websockets' server connection, handing each message to a callback as it is parsed.

websockets' asyncio connection queues every incoming message for ``recv()``,
which wakes the task reading the connection, once per message. A busy node
paid for that queue and that wake-up on every move. :class:`PushConnection`
keeps everything else of websockets (the handshake, keepalive pings, the
close handshake and its timeouts, the frame size cap, flow control of
writes) and changes one thing: a whole message goes straight to the
callback given to :meth:`PushConnection.attach`, from ``data_received``.

The callback runs in the event loop's protocol callback, so it must not
block; what it cannot do at once it hands to a task of its own, and it
pauses reading (:meth:`PushConnection.hold`) while such work piles up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import BINARY, CONT, TEXT, CloseCode, Frame
from websockets.protocol import Event

__all__ = ["PushConnection", "Sink"]

#: Receives one whole message: ``bytes`` from a binary one, ``str`` from a text one.
Sink = Callable[[bytes | str], None]


class PushConnection(ServerConnection):
    """A websockets server connection whose messages are pushed to a callback, not queued.

    ``recv()`` and iterating the connection do not work on it: nothing is
    queued for them. Messages parsed before :meth:`attach` (between the
    handshake and the handler's start) are kept and handed over by it.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Few attributes, made when needed: every idle connection carries them.
        self._sink: Sink | None = None
        self._early: list[bytes | str] | None = None  # before attach
        self._fragments: tuple[bool, list[bytes]] | None = None  # (text?, parts so far)
        self._held = False

    def attach(self, sink: Sink) -> None:
        """Send every message, from now and from before, to ``sink``."""
        self._sink = sink
        early, self._early = self._early or [], None
        for message in early:
            sink(message)

    def lost(self) -> asyncio.Future[None]:
        """A future done once the TCP connection is gone: ``wait_closed`` made lighter.

        ``wait_closed`` shields websockets' own future from the waiter's
        cancellation, which cost 1.4 KiB for every idle connection. A future
        of our own is as safe to cancel and costs one future.
        """
        lost: asyncio.Future[None] = self.loop.create_future()

        def tell(_: object) -> None:
            if not lost.done():
                lost.set_result(None)

        self.connection_lost_waiter.add_done_callback(tell)
        return lost

    def hold(self, held: bool) -> None:
        """Stop (True) or restart (False) reading from the socket: flow control for the sink."""
        if held is self._held or self.transport.is_closing():
            return
        self._held = held
        if held:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def process_event(self, event: Event) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        opcode = event.opcode
        if opcode is BINARY and event.fin:
            self._deliver(bytes(event.data))  # the usual case: one frame, one message
            return
        if opcode is BINARY or opcode is TEXT:
            self._fragments = (opcode is TEXT, [bytes(event.data)])
        elif opcode is CONT and self._fragments is not None:
            self._fragments[1].append(bytes(event.data))
        else:
            super().process_event(event)  # pongs acknowledge keepalive pings
            return
        if event.fin:
            text, parts = self._fragments
            self._fragments = None
            self._deliver(b"".join(parts), text=text)

    def _deliver(self, data: bytes, *, text: bool = False) -> None:
        message: bytes | str = data
        if text:
            try:
                message = data.decode()
            except UnicodeDecodeError:
                self.protocol.fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text message")
                self.send_data()
                return
        if self._sink is not None:
            self._sink(message)
        elif self._early is None:
            self._early = [message]
        else:
            self._early.append(message)

"""The protocol version, and what changing it means.

A client names the version it speaks in ``hello``; the server answers in
that version or refuses with ``unsupported_version``. Both ends reject
unknown message types and unknown fields, so *any* change to the messages
(a new type, a new field, a new error code, a changed range) is a new
version. What may never change, so that peers of different versions can
still tell each other so: the framing (one msgpack map per binary frame,
type under ``"t"``), the ``hello`` fields ``v``, ``name``, ``token``, and the
``error`` message with the code ``unsupported_version``.
"""

from __future__ import annotations

__all__ = ["PROTOCOL_VERSION", "SUPPORTED_VERSIONS"]

#: The version this code writes.
PROTOCOL_VERSION = 4

#: Every version this code reads and answers, oldest first.
SUPPORTED_VERSIONS: tuple[int, ...] = (4,)

"""The limits of the protocol and the field types that messages share.

A field type is ``Annotated[python type, check]``: the type for mypy, the
check (:mod:`protocol.validation`) for the message that holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from protocol.validation import Float, Hex, Int, ListOf, Opt, Str

__all__ = [
    "MAX_EVENT",
    "MAX_ID",
    "MAX_LEGAL",
    "MAX_PLAYERS",
    "MAX_RACES",
    "MAX_ROUNDS",
    "MAX_SEED",
    "MAX_SEQ",
    "PlayerName",
    "check_player_name",
]

MAX_ID = 2**31 - 1  # request ids, versions, deal versions
MAX_SEQ = 100_000  # a player's move index
MAX_EVENT = 2**63 - 1  # a race's event numbers
MAX_SEED = 2**64 - 1  # deal numbers and seeds
MAX_PLAYERS = 8
MAX_RACES = 1000  # race summaries in one ``races`` reply
MAX_LEGAL = 10_000  # legal moves listed in one message
MAX_ROUNDS = 50  # rounds of one tournament, and variants listed for them
MAX_STAGE = 2**31 - 1  # a tournament's stage numbers (an arena's race numbers)


# Field types shared by several messages: the type for mypy, the check for us.
RequestId = Annotated[int | None, Opt(Int(0, MAX_ID))]
Version = Annotated[int, Int(0, MAX_ID)]
RaceId = Annotated[str, Str(1, 40)]
PlayerId = Annotated[str, Str(1, 40)]
#: The rule for a display name, shared by the wire, the dialogs and the command line.
check_player_name = Str(1, 24, stripped=True)
PlayerName = Annotated[str, check_player_name]
Token = Annotated[str, Str(1, 64)]
Seq = Annotated[int, Int(0, MAX_SEQ)]
EventNumber = Annotated[int, Int(0, MAX_EVENT)]
#: The event a push about a race reports; absent from a reply that reports none.
PushedEvent = Annotated[int | None, Opt(Int(0, MAX_EVENT))]
MoveString = Annotated[str, Str(1, 40)]
LegalMoves = Annotated[Sequence[str], ListOf(Str(1, 40), MAX_LEGAL)]
Digest = Annotated[str, Hex(64)]
DealVersion = Annotated[int, Int(1, MAX_ID)]
Timestamp = Annotated[float, Float()]
TournamentId = Annotated[str, Str(1, 40)]
#: A new account's password: long enough to resist guessing, short enough to hash cheaply.
NewPassword = Annotated[str, Str(8, 128)]
#: A password given to log in: any length a password could have had.
GivenPassword = Annotated[str, Str(1, 128)]


#: ``delay``: 1..600 under ``delayed``, 0 otherwise; left out, the policy's default.
SpectateDelay = Annotated[int | None, Opt(Int(0, 600))]

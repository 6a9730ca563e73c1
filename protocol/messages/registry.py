"""Which class each ``t`` names, and reading a peer's decoded map into its message."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeVar

from protocol.exceptions import InvalidField, NotAMap, RemoteProtocolError, UnknownType
from protocol.messages.base import ClientMessage, Message, ServerMessage
from protocol.messages.fields import MAX_ID
from protocol.messages.replies import (
    Account,
    Board,
    Countdown,
    Daily,
    ErrorMessage,
    Featured,
    Hinted,
    Leaderboard,
    Matched,
    Moved,
    Pong,
    Presence,
    Profile,
    Progress,
    Queued,
    RaceAnalysed,
    RaceFinished,
    RaceInfo,
    Races,
    RaceStarted,
    RaceState,
    RematchOffer,
    RematchState,
    Replay,
    Rewound,
    SeatTaken,
    Service,
    Spectating,
    Spectators,
    TournamentInfo,
    TournamentRecord,
    Tournaments,
    Welcome,
)
from protocol.messages.requests import (
    CreateRace,
    CreateTournament,
    FeaturedRace,
    GetDaily,
    GetHint,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    GetResults,
    GetTournamentRecord,
    Hello,
    JoinRace,
    JoinTournament,
    LeaveQueue,
    LeaveRace,
    LeaveTournament,
    ListRaces,
    ListTournaments,
    Login,
    Logout,
    ManageTournament,
    PauseArena,
    Ping,
    PlayDaily,
    QuickRace,
    Ready,
    Register,
    Rematch,
    Resign,
    Resume,
    Spectate,
    StartRace,
    SubmitMove,
    WatchTournament,
)
from protocol.validation import is_int, kind

__all__ = ["CLIENT_MESSAGES", "SERVER_MESSAGES", "client_from_wire", "server_from_wire"]

CLIENT_MESSAGES: Mapping[str, type[ClientMessage]] = MappingProxyType(
    {
        cls.t: cls
        for cls in (
            Hello,
            ListRaces,
            CreateRace,
            JoinRace,
            LeaveRace,
            Ready,
            StartRace,
            SubmitMove,
            Resign,
            Spectate,
            Resume,
            GetReplay,
            GetHint,
            Ping,
            CreateTournament,
            ListTournaments,
            JoinTournament,
            LeaveTournament,
            WatchTournament,
            ManageTournament,
            PauseArena,
            GetTournamentRecord,
            Register,
            Login,
            Logout,
            QuickRace,
            LeaveQueue,
            GetProfile,
            GetLeaderboard,
            Rematch,
            GetDaily,
            PlayDaily,
            GetResults,
            FeaturedRace,
        )
    }
)

SERVER_MESSAGES: Mapping[str, type[ServerMessage]] = MappingProxyType(
    {
        cls.t: cls
        for cls in (
            Welcome,
            Races,
            RaceInfo,
            RaceState,
            Countdown,
            RaceStarted,
            Moved,
            Progress,
            Presence,
            SeatTaken,
            Board,
            Spectating,
            Spectators,
            RaceFinished,
            RaceAnalysed,
            Replay,
            Hinted,
            Pong,
            ErrorMessage,
            TournamentInfo,
            Tournaments,
            TournamentRecord,
            Service,
            Rewound,
            Account,
            Queued,
            Matched,
            Profile,
            Leaderboard,
            RematchState,
            RematchOffer,
            Daily,
            Featured,
        )
    }
)

M = TypeVar("M", bound=Message)


def _from_wire(data: object, registry: Mapping[str, type[M]]) -> M:
    if not isinstance(data, dict):
        raise NotAMap(kind(data))
    request_id = data.get("id")
    try:
        if "t" not in data:
            raise InvalidField("t", "missing")
        t = data["t"]
        if not isinstance(t, str):
            raise InvalidField("t", f"must be a string, not {kind(t)}")
        cls = registry.get(t)
        if cls is None:
            raise UnknownType(t)
        return cls.from_wire(data)
    except RemoteProtocolError as exc:
        # Let the error reply carry the request's id whenever it was readable.
        if is_int(request_id) and 0 <= request_id <= MAX_ID:
            exc.request_id = request_id
        raise


def client_from_wire(data: object) -> ClientMessage:
    """The client message a decoded map holds; raises :class:`RemoteProtocolError`."""
    return _from_wire(data, CLIENT_MESSAGES)


def server_from_wire(data: object) -> ServerMessage:
    """The server message a decoded map holds; raises :class:`RemoteProtocolError`."""
    return _from_wire(data, SERVER_MESSAGES)

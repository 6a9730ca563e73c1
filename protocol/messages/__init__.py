"""Every message of the protocol as a frozen dataclass that validates itself.

The package's modules, from the bottom up: :mod:`~protocol.messages.enums`
(the choices fields carry), :mod:`~protocol.messages.fields` (limits and the
field types messages share), :mod:`~protocol.messages.base` (what every
message is and does), :mod:`~protocol.messages.requests` (client to server),
:mod:`~protocol.messages.replies` (server to client),
:mod:`~protocol.messages.registry` (``t`` to class, and a peer's map to a
message) and :mod:`~protocol.messages.commitment` (the deal commitment). The
checks themselves are :mod:`protocol.validation`'s. This module re-exports
their public names for code outside ``protocol/``; inside it, import from the
module that defines a name.

One deliberate exception: :func:`protocol.codec.encode_trusted` packs a
server message straight from values the server computed itself (the engine's
views and legal moves, progress, event numbers) without checking them again,
because on the path of every move those checks cost more than the rest of
building the frame. It gives the same bytes as encoding the checked message;
a peer's map always goes through :meth:`Message.from_wire`, which checks
everything.

Client to server (``t`` → class)::

    hello        Hello          list_races   ListRaces      create_race  CreateRace
    join_race    JoinRace       leave_race   LeaveRace      ready        Ready
    start_race   StartRace      move         SubmitMove     resign       Resign
    spectate     Spectate       resume       Resume         ping         Ping
    replay       GetReplay      hint         GetHint
    create_tournament  CreateTournament      list_tournaments       ListTournaments
    join_tournament    JoinTournament        leave_tournament       LeaveTournament
    watch_tournament   WatchTournament       manage_tournament      ManageTournament
    get_tournament_record  GetTournamentRecord   pause_arena            PauseArena
    register     Register       login        Login          logout       Logout
    quick_race   QuickRace      leave_queue  LeaveQueue
    get_profile  GetProfile     get_leaderboard  GetLeaderboard
    rematch      Rematch        get_daily    GetDaily       play_daily   PlayDaily
    get_results  GetResults     featured_race  FeaturedRace

Server to client::

    welcome      Welcome        races        Races          race         RaceInfo
    race_state   RaceState      countdown    Countdown      race_started RaceStarted
    moved        Moved          progress     Progress       board        Board
    spectating   Spectating     race_finished RaceFinished  pong         Pong
    replay_views Replay         error        ErrorMessage   hinted       Hinted
    tournament   TournamentInfo tournaments  Tournaments    tournament_record TournamentRecord
    account      Account        queue        Queued         matched      Matched
    profile      Profile        leaderboard  Leaderboard    spectators   Spectators
    rematch_state RematchState  rematch_offer RematchOffer  daily  Daily
    race_analysis RaceAnalysed  featured     Featured

Optional fields default to ``None`` (``spectate`` to ``delayed``); a missing optional
field and an explicit nil mean the same, and :meth:`Message.to_wire` leaves
``None`` out. Lists arrive as tuples. ``docs/protocol.md`` describes each
message in words; the classes here are the authority.
"""

from __future__ import annotations

from protocol.messages.base import (
    ClientMessage,
    Message,
    ServerMessage,
)
from protocol.messages.commitment import (
    deal_commitment,
)
from protocol.messages.enums import (
    DEFAULT_DELAY,
    HintLevel,
    HintOutcome,
    ServiceState,
    SpectatePolicy,
    TournamentAction,
    TournamentFormat,
    spectate_delay,
)
from protocol.messages.fields import (
    MAX_EVENT,
    MAX_ID,
    MAX_LEGAL,
    MAX_PLAYERS,
    MAX_RACES,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_SEQ,
    PlayerName,
    check_player_name,
)
from protocol.messages.registry import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    client_from_wire,
    server_from_wire,
)
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

__all__ = [
    "CLIENT_MESSAGES",
    "DEFAULT_DELAY",
    "MAX_EVENT",
    "MAX_ID",
    "MAX_LEGAL",
    "MAX_PLAYERS",
    "MAX_RACES",
    "MAX_ROUNDS",
    "MAX_SEED",
    "MAX_SEQ",
    "SERVER_MESSAGES",
    "Account",
    "Board",
    "ClientMessage",
    "Countdown",
    "CreateRace",
    "CreateTournament",
    "Daily",
    "ErrorMessage",
    "Featured",
    "FeaturedRace",
    "GetDaily",
    "GetHint",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "GetResults",
    "GetTournamentRecord",
    "Hello",
    "HintLevel",
    "HintOutcome",
    "Hinted",
    "JoinRace",
    "JoinTournament",
    "Leaderboard",
    "LeaveQueue",
    "LeaveRace",
    "LeaveTournament",
    "ListRaces",
    "ListTournaments",
    "Login",
    "Logout",
    "ManageTournament",
    "Matched",
    "Message",
    "Moved",
    "PauseArena",
    "Ping",
    "PlayDaily",
    "PlayerName",
    "Pong",
    "Presence",
    "Profile",
    "Progress",
    "Queued",
    "QuickRace",
    "RaceAnalysed",
    "RaceFinished",
    "RaceInfo",
    "RaceStarted",
    "RaceState",
    "Races",
    "Ready",
    "Register",
    "Rematch",
    "RematchOffer",
    "RematchState",
    "Replay",
    "Resign",
    "Resume",
    "Rewound",
    "SeatTaken",
    "ServerMessage",
    "Service",
    "ServiceState",
    "Spectate",
    "SpectatePolicy",
    "Spectating",
    "Spectators",
    "StartRace",
    "SubmitMove",
    "TournamentAction",
    "TournamentFormat",
    "TournamentInfo",
    "TournamentRecord",
    "Tournaments",
    "WatchTournament",
    "Welcome",
    "check_player_name",
    "client_from_wire",
    "deal_commitment",
    "server_from_wire",
    "spectate_delay",
]

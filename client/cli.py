"""The client's ``ballroom`` commands: play, bot and tournament export.

Registered under the ``ballroom.commands`` entry point (see
:mod:`protocol.cli`); ``python -m client.cli`` runs these commands alone.
The modules that load websockets (the bots, the session) and Textual (the
app, which the launcher loads itself) are imported inside the command that
needs them: ``ballroom`` loads every registered command's module, and
``ballroom deal`` must stay quick.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable

from client.launcher import BadServerURL, default_name, play, server_url
from client.models.winners import final_standings_lines
from protocol.cli import Commands, main, player_name
from protocol.exceptions import InvalidField, LocalProtocolError
from protocol.messages import (
    ClientMessage,
    GetTournamentRecord,
    JoinRace,
    JoinTournament,
    TournamentRecord,
)
from protocol.policy import STRATEGIES
from protocol.record import RecordPage, joined_record, to_csv, to_json
from protocol.tournaments import Record

__all__ = ["register"]

#: Where the commands look for a server when none is named.
DEFAULT_SERVER = "ws://127.0.0.1:8765/"


def _bot(args: argparse.Namespace) -> int:
    # websockets loads with these: only when a bot runs (the module's docstring says why).
    from client.bot import run_bot, standings_text
    from client.session import RequestFailed

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.tournament is not None:
        return _tournament_bot(args)
    try:
        results = asyncio.run(
            run_bot(
                args.server,
                race=args.race_id,
                code=args.race,
                name=args.name,
                strategy=args.strategy,
                speed=args.speed,
                seed=args.seed,
            )
        )
    except RequestFailed as exc:
        print(f"ballroom bot: the server refused: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if results is None:
        print(
            "ballroom bot: no results: the server could not be reached, or was lost, before the"
            " race finished",
            file=sys.stderr,
        )
        return 1
    print(standings_text(list(results.standings)), flush=True)
    return 0


def _tournament_bot(args: argparse.Namespace) -> int:
    # websockets loads with these: only when a bot runs (the module's docstring says why).
    from client.session import RequestFailed
    from client.tournament_bot import TournamentBot

    bot = TournamentBot(
        args.server, name=args.name, strategy=args.strategy, speed=args.speed, seed=args.seed,
        password=args.password,
    )  # fmt: skip
    try:
        final = asyncio.run(bot.run(code=args.tournament))
    except RequestFailed as exc:
        print(f"ballroom bot: the server refused: {exc}", file=sys.stderr)
        return 1
    except ConnectionError as exc:
        print(f"ballroom bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    for line in final_standings_lines(final):
        print(line)
    return 0


def _tournament_export(args: argparse.Namespace) -> int:
    # websockets loads with these: only when an export runs (the module's docstring says why).
    from websockets.exceptions import WebSocketException

    # The session is built on websockets too.
    from client.session import ClientSession, RequestFailed

    async def fetch() -> dict[str, object]:
        session = await ClientSession.connect(args.server, "exporter")

        async def page(start: int | None) -> RecordPage:
            asked = GetTournamentRecord(code=args.code, from_stage=start)
            reply = await session.request(asked, TournamentRecord)
            return reply.record, reply.next_stage

        try:
            return await joined_record(page)
        finally:
            await session.close()

    try:
        record = asyncio.run(fetch())
    except RequestFailed as exc:
        print(f"ballroom tournament export: the server refused: {exc}", file=sys.stderr)
        return 1
    except InvalidField as exc:
        print(f"ballroom tournament export: the server sent a bad record: {exc}", file=sys.stderr)
        return 1
    except (OSError, WebSocketException) as exc:  # refused, timed out, or no websocket there
        print(f"ballroom tournament export: cannot reach {args.server}: {exc}", file=sys.stderr)
        return 1
    text = to_json(record) if args.format == "json" else to_csv(Record.from_data(record))
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            out.write(text)
    except OSError as exc:
        print(
            f"ballroom tournament export: cannot write {args.output}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1
    return 0


def _play(args: argparse.Namespace) -> int:
    server = args.server
    if server is not None:
        try:
            server = server_url(server)
        except BadServerURL as exc:
            print(f"ballroom play: --server: {exc}", file=sys.stderr)
            return 2
    # Without a terminal the client would draw into the void, its input thread spinning
    # on end-of-file (client/terminal.py): say so before anything starts.
    for what, stream in (("input", sys.stdin), ("output", sys.stdout)):
        if stream is None or not stream.isatty():
            print(
                f"ballroom play: needs a terminal (its {what} is not one); "
                "to race from a script, see `ballroom bot`",
                file=sys.stderr,
            )
            return 2
    try:
        return play(
            server,
            args.name or default_name(),
            restore_last=args.name is None,
            profile=args.profile,
        )
    except KeyboardInterrupt:
        return 130
    except (RuntimeError, TimeoutError) as exc:
        print(f"ballroom play: {exc}", file=sys.stderr)
        return 1


def _profile_name(text: str) -> str:
    """A ``--profile``: a plain folder name (letters, digits, ``-``, ``_``, ``.``)."""
    if (
        not text
        or len(text) > 40
        or text.startswith(".")
        or not all(ch.isalnum() or ch in "-_." for ch in text)
    ):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a profile is a short name of letters, digits, '-', '_' or '.'"
        )
    return text


def _speed(text: str) -> float:
    """A bot's moves per second: 0 (as fast as replies come) or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a speed is a number, not {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError("the speed must be 0 (no waiting) or more moves a second")
    return value


def _sent_as(request: Callable[[str], ClientMessage]) -> Callable[[str], str]:
    """argparse's check of a value that goes to the server in ``request(value)``: the
    wire's own rule, so a value the protocol forbids is a usage error, not a traceback."""

    def parse(text: str) -> str:
        try:
            request(text)
        except LocalProtocolError as exc:
            raise argparse.ArgumentTypeError(exc.reason or str(exc)) from None
        return text

    return parse


_join_code = _sent_as(lambda text: JoinRace(code=text))
_race_id = _sent_as(lambda text: JoinRace(race=text))
_tournament_code = _sent_as(lambda text: JoinTournament(code=text))
_password = _sent_as(lambda text: JoinTournament(code="CODE", password=text))


def register(commands: Commands) -> None:
    """Add the client's commands to ``ballroom``."""
    bot = commands.top.add_parser("bot", help="race a bot in a race, over the protocol")
    which = bot.add_mutually_exclusive_group(required=True)
    which.add_argument("--race", metavar="CODE", type=_join_code, help="the race's join code")
    which.add_argument("--race-id", metavar="ID", type=_race_id, help="the race's id")
    which.add_argument(
        "--tournament",
        metavar="CODE",
        type=_tournament_code,
        help="enter a tournament and race every seat",
    )
    bot.add_argument(
        "--password", type=_password, default=None, help="the tournament's entry password"
    )
    bot.add_argument("--server", type=server_url, default=DEFAULT_SERVER, help="server URL")
    bot.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="greedy",
        help="solver: follows the server's hints (practice races only), else plays greedy",
    )
    bot.add_argument(
        "--speed", type=_speed, default=2.0, help="moves per second; 0: as fast as replies come"
    )
    bot.add_argument("--name", type=player_name, default="Bot")
    bot.add_argument("--seed", type=int, default=0, help="seed of the random strategy")
    bot.set_defaults(run=_bot)

    export = commands.tournament.add_parser("export", help="write a tournament's whole record")
    export.add_argument("code", type=_tournament_code, help="the tournament's join code")
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--server", type=server_url, default=DEFAULT_SERVER, help="server URL")
    export.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")
    export.set_defaults(run=_tournament_export)

    play = commands.top.add_parser(
        "play", help="the terminal client (a local server if none given)"
    )
    play.add_argument("--server", default=None, help="server URL (default: start a local one)")
    play.add_argument(
        "--name",
        type=player_name,
        default=None,
        help="play as this account or guest: its saved login on that server, or a new one"
        " (default: the login used last there, else your OS login name)",
    )
    play.add_argument(
        "--profile",
        type=_profile_name,
        default=None,
        help="keep saved logins in a profile of their own, for two people on one OS account",
    )
    play.set_defaults(run=_play)


if __name__ == "__main__":
    sys.exit(main(registers=[register]))

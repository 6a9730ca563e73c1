"""The ``ballroom`` command: one subcommand per job, parsed by argparse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from client.text import render_view
from server import solve_command
from server.engine import DEAL_VERSION, VARIANTS, find_variant
from server.engine.prng import MAX_SEED
from server.odds import measure_odds

__all__ = ["main"]


def _seed(text: str) -> int:
    value = int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"seed must be in 0..{MAX_SEED}")
    return value


def _deal(args: argparse.Namespace) -> int:
    game = find_variant(args.variant)
    state = game.deal(args.seed, args.deal_version)
    print(f"{game.title}, deal {args.seed} (deal version {args.deal_version})")
    print(render_view(game.layout, game.view(state)))
    print("legal:", " ".join(game.legal_moves(state).texts()))
    return 0


def _odds(args: argparse.Namespace) -> int:
    names = sorted(VARIANTS) if args.variant == "all" else [args.variant]
    if args.solver:
        return solve_command.run_odds(args, names)
    for name in names:
        result = measure_odds(find_variant(name), args.n, args.seed_base, args.strategy)
        print(result.summary(), flush=True)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from server.serve import run_server
    from server.settings import Settings

    settings = Settings.from_env(
        host=args.host, port=args.port, redis_url=args.redis, data_dir=args.data_dir
    )
    run_server(settings)
    return 0


def _bot(args: argparse.Namespace) -> int:
    import asyncio
    import logging

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
        print("ballroom bot: lost the server before the race finished", file=sys.stderr)
        return 1
    print(standings_text(results["standings"]), flush=True)
    return 0


def _tournament_export(args: argparse.Namespace) -> int:
    import asyncio

    from client.session import ClientSession, RequestFailed
    from protocol.messages import GetTournamentRecord, TournamentRecord
    from server.tournament_record import to_csv, to_json

    async def fetch() -> dict[str, object]:
        session = await ClientSession.connect(args.server, "exporter")
        try:
            reply = await session.request(GetTournamentRecord(code=args.code), TournamentRecord)
        finally:
            await session.close()
        return reply.record

    try:
        record = asyncio.run(fetch())
    except RequestFailed as exc:
        print(f"ballroom tournament export: the server refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"ballroom tournament export: cannot reach {args.server}: {exc}", file=sys.stderr)
        return 1
    text = to_json(record) if args.format == "json" else to_csv(record)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            out.write(text)
    return 0


def _tournament_verify(args: argparse.Namespace) -> int:
    import json

    from server.tournament_record import verify

    with open(args.file, encoding="utf-8") as source:
        record = json.load(source)
    problems = verify(record)
    for problem in problems:
        print(problem)
    races = len(record["races"])
    if problems:
        print(f"{len(problems)} problem(s) in {races} races", file=sys.stderr)
        return 1
    print(f"verified: {races} races, every seed matches its commitment and every log replays")
    return 0


def _tournament_bot(args: argparse.Namespace) -> int:
    import asyncio

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
    for row in final["standings"]:
        print(f"{row['place']:>2}. {row['name']:<24} {row['points']:>4} pts {row['home']:>5} home")
    return 0


def _play(args: argparse.Namespace) -> int:
    from client.launcher import default_name, play

    try:
        return play(args.server, args.name or default_name())
    except KeyboardInterrupt:
        return 130
    except (RuntimeError, TimeoutError) as exc:
        print(f"ballroom play: {exc}", file=sys.stderr)
        return 1


def _name(text: str) -> str:
    if not 1 <= len(text) <= 24 or not text.isprintable() or text.strip() != text:
        raise argparse.ArgumentTypeError("a name is 1..24 printable characters, no outer spaces")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ballroom", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    variants = sorted(VARIANTS)

    deal = commands.add_parser("deal", help="print the opening layout of a deal")
    deal.add_argument("variant", choices=variants)
    deal.add_argument("--seed", type=_seed, required=True)
    deal.add_argument("--deal-version", type=int, default=DEAL_VERSION)
    deal.set_defaults(run=_deal)

    odds = commands.add_parser("odds", help="win rate of the bot over N seeded deals")
    odds.add_argument("variant", choices=[*variants, "all"])
    odds.add_argument("-n", type=int, default=1000, help="number of deals (default 1000)")
    odds.add_argument("--seed-base", type=_seed, default=0, help="first seed (default 0)")
    odds.add_argument("--strategy", choices=["greedy", "random"], default="greedy")
    solve_command.add_odds_options(odds)
    odds.set_defaults(run=_odds)
    solve_command.add_parser(commands)

    serve = commands.add_parser("serve", help="run a server node")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--redis", default=None, help="Redis URL (default: $REDIS_URL or embedded)")
    serve.add_argument("--data-dir", default="var/redis", help="embedded Redis data directory")
    serve.set_defaults(run=_serve)

    bot = commands.add_parser("bot", help="race a bot in a race, over the protocol")
    which = bot.add_mutually_exclusive_group(required=True)
    which.add_argument("--race", metavar="CODE", help="the race's join code")
    which.add_argument("--race-id", metavar="ID", help="the race's id")
    which.add_argument(
        "--tournament", metavar="CODE", help="enter a tournament and race every seat"
    )
    bot.add_argument("--password", default=None, help="the tournament's entry password")
    bot.add_argument("--server", default="ws://127.0.0.1:8765/", help="server URL")
    bot.add_argument("--strategy", choices=["greedy", "random"], default="greedy")
    bot.add_argument(
        "--speed", type=float, default=2.0, help="moves per second; 0: as fast as replies come"
    )
    bot.add_argument("--name", type=_name, default="Bot")
    bot.add_argument("--seed", type=int, default=0, help="seed of the random strategy")
    bot.set_defaults(run=_bot)

    tournament = commands.add_parser("tournament", help="a tournament's record")
    jobs = tournament.add_subparsers(dest="job", required=True, metavar="JOB")
    export = jobs.add_parser("export", help="write a tournament's whole record")
    export.add_argument("code", help="the tournament's join code")
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--server", default="ws://127.0.0.1:8765/", help="server URL")
    export.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")
    export.set_defaults(run=_tournament_export)
    check = jobs.add_parser("verify", help="check an exported JSON record: seeds and logs")
    check.add_argument("file")
    check.set_defaults(run=_tournament_verify)

    play = commands.add_parser("play", help="the terminal client (a local server if none given)")
    play.add_argument("--server", default=None, help="server URL (default: start a local one)")
    play.add_argument("--name", type=_name, default=None, help="display name (default: login)")
    play.set_defaults(run=_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

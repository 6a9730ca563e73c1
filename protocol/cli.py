"""The ``ballroom`` command: one entry point for the commands of both ends.

The server's commands (``serve``, ``deal``, ``odds``, ``tournament verify``)
live in :mod:`server.cli`, the client's (``play``, ``bot``,
``tournament export``) in :mod:`client.cli`. Each package names its
``register`` function under the ``ballroom.commands`` entry point group, so
this dispatcher, which both ends sit above, imports neither of them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points

from protocol.messages.fields import check_player_name

__all__ = ["Commands", "Register", "build_parser", "main", "player_name"]

#: The entry point group where each end names its ``register`` function.
GROUP = "ballroom.commands"

DESCRIPTION = "Race the dance family of patience games: serve, play, watch, check."

#: argparse's handle for adding subcommands (it has no public name).
Subcommands = argparse._SubParsersAction


@dataclass(frozen=True, slots=True)
class Commands:
    """Where a package adds its subcommands: the top level and ``tournament``."""

    top: Subcommands[argparse.ArgumentParser]
    tournament: Subcommands[argparse.ArgumentParser]


#: A package's hook: adds its subcommands, each with ``set_defaults(run=...)``.
Register = Callable[[Commands], None]


def registered() -> list[Register]:
    """Every installed package's ``register``, in a stable order."""
    found = sorted(entry_points(group=GROUP), key=lambda point: point.name)
    return [point.load() for point in found]


def player_name(text: str) -> str:
    """argparse's check of a ``--name``: the same rule as the wire's."""
    try:
        return check_player_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"a name {exc}") from None


def build_parser(registers: Iterable[Register] | None = None) -> argparse.ArgumentParser:
    """The whole command line: the given packages' commands, else every installed one's."""
    parser = argparse.ArgumentParser(prog="ballroom", description=DESCRIPTION)
    top = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tournament = top.add_parser("tournament", help="a tournament's record")
    jobs = tournament.add_subparsers(dest="job", required=True, metavar="JOB")
    commands = Commands(top, jobs)
    for register in registered() if registers is None else registers:
        register(commands)
    return parser


def main(argv: Sequence[str] | None = None, registers: Iterable[Register] | None = None) -> int:
    """Run one ``ballroom`` command; the exit status."""
    args = build_parser(registers).parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

"""What the client keeps on disk between runs: its session per server, and its races.

A racer whose client exits (Ctrl-C, a closed terminal, a crash) must be able
to start it again and carry on. The server already allows it: a session
token lives for days after its connection closes, and a racer who says
hello with it is the same player, whose ``resume`` of a race answers their
board as it stands. So the client keeps, per server URL and per login (an
account, or a guest's display name), the token and the races it was
racing in, in one small JSON file in the user's state
directory (``platformdirs``), readable by the user alone since a token lets
anyone play as them. A missing or damaged file is an empty one: nothing
here may stop the client from starting.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_state_dir

from protocol.exceptions import InvalidField
from protocol.lobby import RaceSummary
from protocol.validation import Shape

__all__ = [
    "FILE_NAME",
    "SavedRace",
    "SavedSession",
    "SessionFile",
    "default_state_dir",
    "login_key",
    "profile_dir",
]

log = logging.getLogger(__name__)

FILE_NAME = "sessions.json"
_VERSION = 2


def default_state_dir() -> Path:
    """Where a user's client state lives on this platform (``~/.local/state/ballroom``…)."""
    return Path(user_state_dir("ballroom", appauthor=False))


def profile_dir(profile: str | None, base: Path | None = None) -> Path:
    """The state directory of a named profile (``--profile``), under the user's own.

    Two people sharing one OS account each keep their logins in a profile
    of their own; no profile is the user's state directory itself.
    """
    root = default_state_dir() if base is None else base
    return root if not profile else root / "profiles" / profile


@dataclass(frozen=True, slots=True)
class SavedRace:
    """A race this client was racing in, as the waiting room last described it."""

    race: str
    code: str
    variant: str
    #: The race's summary (players, names, settings) when it started.
    info: RaceSummary | None = None

    def to_data(self) -> dict[str, object]:
        info = None if self.info is None else self.info.to_data()
        return {"race": self.race, "code": self.code, "variant": self.variant, "info": info}

    @classmethod
    def from_data(cls, data: object) -> SavedRace:
        """A race read back from the file; a summary the file mangled is dropped, not fatal."""
        shape = Shape(data, "saved race")
        try:
            info = RaceSummary.from_data(shape.value("info"))
        except InvalidField:
            info = None
        return cls(
            race=shape.text("race"),
            code=shape.text("code", "") or "",
            variant=shape.text("variant", "?") or "?",
            info=info,
        )


@dataclass(frozen=True, slots=True)
class SavedSession:
    """One login on one server: its name, the token to say hello with, the races to offer back."""

    token: str | None = None
    races: tuple[SavedRace, ...] = ()
    #: The name the login was kept under (the account's, or the guest's display name).
    name: str | None = None


def login_key(name: str) -> str:
    """How a login is filed: its name without case (the server's accounts ignore case too)."""
    return name.casefold()


class SessionFile:
    """The JSON file of every server's logins, read and rewritten whole (it is tiny).

    Each server keeps one entry per login (an account, or a guest's display
    name), each with its own token and races, and which login was used last:
    ``ballroom play --name Ann`` takes Ann's and nobody else's, a client with
    no ``--name`` takes the last one. Two clients of one OS user can so play
    two accounts side by side without taking each other's seat. A file of the
    first version (one token per server) reads as that server's last login.
    """

    def __init__(self, directory: Path) -> None:
        self.path = directory / FILE_NAME

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            # RecursionError: nested deeper than the JSON decoder recurses.
            log.warning("ignoring the unreadable session file %s: %s", self.path, exc)
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        return servers if isinstance(servers, dict) else {}

    def _write(self, servers: Mapping[str, object]) -> None:
        """Replace the file at once (a crash leaves the old one or the new one), owner-only."""
        temp: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".sessions-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"version": _VERSION, "servers": servers}, out, indent=1)
            os.chmod(temp, 0o600)
            os.replace(temp, self.path)
        except OSError as exc:
            log.warning("could not save the session file %s: %s", self.path, exc)
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp)

    def _server(self, server: str) -> tuple[str | None, dict[str, dict[str, object]]]:
        """The server's last login's key and its logins by key (a version-1 entry: one, "")."""
        entry = self._read().get(server)
        if not isinstance(entry, dict):
            return None, {}
        if "accounts" not in entry:  # version 1: one token per server, no name
            return "", {"": dict(entry)}
        accounts = entry.get("accounts")
        logins = {
            key: dict(value)
            for key, value in (accounts.items() if isinstance(accounts, dict) else ())
            if isinstance(key, str) and isinstance(value, dict)
        }
        last = entry.get("last")
        return (last if isinstance(last, str) else None), logins

    def last_name(self, server: str) -> str | None:
        """The name of the login used last on ``server`` (None: none, or not known)."""
        last, logins = self._server(server)
        name = logins.get(last or "", {}).get("name") if last is not None else None
        return name if isinstance(name, str) else None

    def load(self, server: str, name: str | None = None) -> SavedSession:
        """The login kept for ``name`` on ``server``; None: the last one used (empty if none)."""
        last, logins = self._server(server)
        key = last if name is None else login_key(name)
        entry = logins.get(key) if key is not None else None
        if entry is None:
            return SavedSession(name=name)
        races = []
        saved = entry.get("races")
        for data in saved.values() if isinstance(saved, dict) else ():
            try:
                races.append(SavedRace.from_data(data))
            except InvalidField:
                continue
        token = entry.get("token")
        kept = entry.get("name")
        return SavedSession(
            token if isinstance(token, str) else None,
            tuple(races),
            kept if isinstance(kept, str) else name,
        )

    def _update(
        self, server: str, name: str, token: str | None, races: Mapping[str, object]
    ) -> None:
        """Keep ``name``'s login on ``server`` (and make it the last used), or drop it."""
        servers = self._read()
        last, logins = self._server(server)
        logins.pop("", None)  # a version-1 login is filed under its name once known
        key = login_key(name)
        if token is None and not races:
            logins.pop(key, None)
            last = None if last == key else last
        else:
            logins[key] = {"name": name, "token": token, "races": dict(races)}
            last = key
        if logins:
            servers[server] = {"last": last, "accounts": logins}
        else:
            servers.pop(server, None)
        self._write(servers)

    def _races(self, server: str, name: str) -> dict[str, object]:
        _, logins = self._server(server)
        races = logins.get(login_key(name), {}).get("races")
        return dict(races) if isinstance(races, dict) else {}

    def save_token(self, server: str, name: str, token: str | None) -> None:
        """Keep ``token`` as ``name``'s login on ``server``; None forgets it and its races."""
        races = self._races(server, name) if token is not None else {}
        self._update(server, name, token, races)

    def add_race(self, server: str, name: str, race: SavedRace) -> None:
        races = self._races(server, name)
        races.pop(race.race, None)
        races[race.race] = race.to_data()  # the newest last
        self._update(server, name, self.load(server, name).token, races)

    def drop_race(self, server: str, name: str, race: str) -> None:
        races = self._races(server, name)
        if races.pop(race, None) is not None:
            self._update(server, name, self.load(server, name).token, races)

"""What the client keeps on disk between runs: its session per server, and its races.

A racer whose client exits (Ctrl-C, a closed terminal, a crash) must be able
to start it again and carry on. The server already allows it: a session
token lives for days after its connection closes, and a racer who says
hello with it is the same player, whose ``resume`` of a race answers their
board as it stands. So the client keeps, per server URL, the token and the
races it was racing in, in one small JSON file in the user's state
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

from protocol.exceptions import InvalidField
from protocol.lobby import RaceSummary
from protocol.shapes import Shape

__all__ = ["FILE_NAME", "SavedRace", "SavedSession", "SessionFile", "default_state_dir"]

log = logging.getLogger(__name__)

FILE_NAME = "sessions.json"
_VERSION = 1


def default_state_dir() -> Path:
    """Where a user's client state lives on this platform (``~/.local/state/ballroom``…)."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("ballroom", appauthor=False))


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
    """One server's session: the token to say hello with, and the races to offer back."""

    token: str | None = None
    races: tuple[SavedRace, ...] = ()


class SessionFile:
    """The JSON file of every server's session, read and rewritten whole (it is tiny)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / FILE_NAME

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
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

    def load(self, server: str) -> SavedSession:
        """The session kept for ``server`` (an empty one if none)."""
        entry = self._read().get(server)
        if not isinstance(entry, dict):
            return SavedSession()
        races = []
        saved = entry.get("races")
        for data in saved.values() if isinstance(saved, dict) else ():
            try:
                races.append(SavedRace.from_data(data))
            except InvalidField:
                continue
        token = entry.get("token")
        return SavedSession(token if isinstance(token, str) else None, tuple(races))

    def _update(self, server: str, token: str | None, races: Mapping[str, object]) -> None:
        servers = self._read()
        if token is None and not races:
            servers.pop(server, None)
        else:
            servers[server] = {"token": token, "races": dict(races)}
        self._write(servers)

    def _races(self, server: str) -> dict[str, object]:
        entry = self._read().get(server)
        races = entry.get("races") if isinstance(entry, dict) else None
        return dict(races) if isinstance(races, dict) else {}

    def save_token(self, server: str, token: str | None) -> None:
        """Keep ``token`` for ``server``; None forgets the session and its races."""
        self._update(server, token, self._races(server) if token is not None else {})

    def add_race(self, server: str, race: SavedRace) -> None:
        races = self._races(server)
        races.pop(race.race, None)
        races[race.race] = race.to_data()  # the newest last
        self._update(server, self.load(server).token, races)

    def drop_race(self, server: str, race: str) -> None:
        races = self._races(server)
        if races.pop(race, None) is not None:
            self._update(server, self.load(server).token, races)

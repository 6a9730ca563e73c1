"""``ballroom play``: the terminal client, with a private server when none is given.

With ``--server`` the client connects there, once :func:`server_url` has
checked the address (a typo such as ``foo`` or ``http://…`` is said at once,
with exit status 2, rather than retried forever). Without it, a new user
still gets a game: the launcher starts ``ballroom serve`` as a background
child process on a free loopback port, with its embedded Redis, waits until
it accepts connections, runs the client, and stops the server whatever way
the client ends (a normal exit, an exception, Ctrl-C, SIGTERM or SIGHUP).

The server's data lives in a fresh temporary directory, removed on exit: a
practice server has nothing worth keeping, and two ``make play`` sessions
must never share one Redis data directory. Its output goes to a log file
there (never to the terminal, which the client owns), and the last lines of
that log are in the error if the server fails to start. ``REDIS_URL`` is not
passed on: a local practice server never touches a shared Redis.

The server runs in its own session (process group), so Ctrl-C in the
terminal reaches only the launcher, which then stops the server in order;
if the server does not stop in time, the whole group (its redis-server too)
is killed. If the launcher itself is killed (``kill -9``, where no clean-up
runs), the server learns it from the kernel (``--parent``), stops its
redis-server and removes its temporary directory itself
(``--temporary-dir``).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, TracebackType
from urllib.parse import urlsplit

from client.models.names import clean_name
from client.models.saved import profile_dir
from protocol.processes import free_port, start_child, stop_child, wait_ready

__all__ = [
    "AppRunner",
    "BadServerURL",
    "LocalServer",
    "default_name",
    "play",
    "run_terminal_app",
    "server_url",
]

#: Runs the client against a server URL under a display name, until it exits.
AppRunner = Callable[[str, str], object]

#: Where ``python -m server.cli`` finds the packages, however this one was installed.
_PACKAGES_ROOT = Path(__file__).resolve().parents[1]


class BadServerURL(ValueError, argparse.ArgumentTypeError):
    """``--server`` is not a websocket URL; ``str()`` says what is wrong and what would do.

    Also an ``ArgumentTypeError``, so that :func:`server_url` can be an
    argparse ``type=``: argparse then prints the message and exits with 2.
    """


def server_url(text: str) -> str:
    """``text`` if it is a ``ws://`` or ``wss://`` URL with a host; raises :class:`BadServerURL`.

    ``host:port`` alone gets the ``ws://`` it lacks suggested; ``http(s)://``
    the websocket scheme it means.
    """
    try:
        parts = urlsplit(text.strip())
        port = parts.port  # a port that is not a number in 0..65535 raises ValueError
    except ValueError as exc:
        raise BadServerURL(f"{text!r} is not a URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        ws = "ws" if scheme == "http" else "wss"
        raise BadServerURL(
            f"{text!r} is a web address; the server speaks websockets: "
            f"{ws}://{parts.netloc}{parts.path or '/'}"
        )
    if scheme not in ("ws", "wss") or not parts.hostname:
        hint = f"ws://{text.strip()}/" if "//" not in text and text.strip() else "ws://HOST:PORT/"
        raise BadServerURL(f"{text!r} is not a websocket URL: try {hint}")
    if port == 0:
        raise BadServerURL(f"{text!r}: port 0 names no server")
    return text.strip()


def run_terminal_app(
    server_url: str,
    name: str,
    *,
    keep_session: bool = True,
    restore_last: bool = False,
    profile: str | None = None,
) -> None:
    """The Textual client; imported only here, so the launcher loads without Textual.

    With ``keep_session``, its logins and races are kept in the user's state
    directory (a ``profile``'s own, if named), so that ``ballroom play``
    started again offers the race it left. A private local server dies with
    the client: nothing to keep then. ``restore_last``: no ``--name`` was
    given, so the login used last on that server is taken up, if any.
    """
    # Textual loads with the app: only here, when the client runs (not for the launcher's
    # own checks, nor for ``ballroom`` commands that never play).
    from client.app import BallroomApp

    state_dir = profile_dir(profile) if keep_session else None
    BallroomApp(server_url, name, state_dir=state_dir, restore_last=restore_last).run()


def default_name() -> str:
    """The login name, made a valid display name (the protocol's rule), else ``Player``."""
    try:
        login = getpass.getuser()
    except (OSError, KeyError):
        return "Player"
    return clean_name(login, fallback="Player")


class LocalServer:
    """``ballroom serve`` with its embedded Redis, as a background child process.

    Use as a context manager, or :meth:`start` and :meth:`stop`, from a thread
    that lives as long as the server should (the main one): the server ends
    when the thread that started it does, which is how it ends when this
    process is killed.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        start_timeout: float = 30.0,
        stop_timeout: float = 10.0,
        remove_data_dir: bool = False,
    ) -> None:
        """``remove_data_dir``: if this process is killed, the server removes
        ``data_dir`` when it stops (else the caller does)."""
        self.data_dir = Path(data_dir)
        self.remove_data_dir = remove_data_dir
        self.port = port or free_port()
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.log_path = self.data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def command_line(self) -> list[str]:
        return [
            sys.executable, "-m", "server.cli", "serve",
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--data-dir", str(self.data_dir / "redis"),
            "--parent", str(os.getpid()),  # it stops when we die, however we die
            *(["--temporary-dir", str(self.data_dir)] if self.remove_data_dir else []),
        ]  # fmt: skip

    def _environment(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        paths = [str(_PACKAGES_ROOT), *filter(None, [env.get("PYTHONPATH")])]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        return env

    def start(self) -> LocalServer:
        """Start the server and wait (bounded) until it accepts connections."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = start_child(
            self.command_line(),
            own_group=True,  # Ctrl-C is for the launcher, which stops the server in order
            output=self.log_path,
            env=self._environment(),
        )
        try:
            wait_ready(
                self._accepts,
                timeout=self.start_timeout,
                what="the local server to listen",
                children=[self.process],
                detail=self.output,
            )
        except BaseException:
            self.stop()
            raise
        return self

    def _accepts(self) -> bool:
        socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
        return True

    def output(self) -> str:
        """The end of the server's log, for error messages."""
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return "(no server log)"

    def stop(self) -> int | None:
        """SIGTERM, wait, then SIGKILL the server's whole group; returns its exit status."""
        process, self.process = self.process, None
        if process is None:
            return None
        # SIGTERM: the server shuts its redis-server down itself.
        return stop_child(process, timeout=self.stop_timeout, group=True)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@contextlib.contextmanager
def _exit_on_termination() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into SystemExit, so clean-up runs when the terminal goes away.

    Only the first signal counts: a second one must not cut the clean-up short.
    """
    leaving = False

    def leave(signum: int, frame: FrameType | None) -> None:
        nonlocal leaving
        if not leaving:
            leaving = True
            raise SystemExit(128 + signum)

    if sys.platform == "win32" or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, leave) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def play(
    server: str | None,
    name: str,
    *,
    run_app: AppRunner = run_terminal_app,
    data_dir: str | os.PathLike[str] | None = None,
    start_timeout: float = 30.0,
    restore_last: bool = False,
    profile: str | None = None,
) -> int:
    """Run the client against ``server``, or against a private local server.

    Args:
        server: a ``ws://`` URL, or None to start a local server. A malformed
            one is refused at once: a message on stderr, exit status 2.
        name: the player's display name.
        run_app: runs the client until it exits; tests put a stand-in here.
        data_dir: where the local server keeps its data (default: a
            temporary directory, removed afterwards).
        start_timeout: seconds the local server may take to listen.
        restore_last: no name was asked for: take up the login used last on
            ``server`` (its saved logins are per server and per name).
        profile: whose saved logins to use, for two people on one OS account.

    Returns:
        The exit status for the command line.
    """
    if server is not None:
        try:
            url = server_url(server)
        except BadServerURL as exc:
            print(f"ballroom play: --server: {exc}", file=sys.stderr)
            return 2
        if run_app is run_terminal_app:
            run_terminal_app(url, name, restore_last=restore_last, profile=profile)
        else:
            run_app(url, name)
        return 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(_exit_on_termination())  # entered first, so it covers every clean-up
        temporary = data_dir is None
        if data_dir is None:  # the server removes it too, if we are killed before we can
            data_dir = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="ballroom-play-", ignore_cleanup_errors=True)
            )
        print("Starting a local Ballroom server…", file=sys.stderr, flush=True)
        local = stack.enter_context(
            LocalServer(data_dir, start_timeout=start_timeout, remove_data_dir=temporary)
        )
        if run_app is run_terminal_app:
            run_terminal_app(local.url, name, keep_session=False)
        else:
            run_app(local.url, name)
    return 0

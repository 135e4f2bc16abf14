"""`memidx mcp` over stdio through one shared server per memory. An agent starts `memidx mcp`
for every session; instead of importing the SDK (~1 s) and loading the model in each, this
front connects to the memory's shared server on a Unix socket (in `.memidx/mcp/`, mode 0700),
starting it in the background when none runs, and copies bytes between its stdio and the
socket. It never imports the SDK, asyncio, numpy or the model, and writes nothing of its own
on stdout.

The server greets each connection with one line before any byte of the protocol: GREETING
when it took the session, BUSY when it is full. A connection let go without either (a server
exiting) is tried again; one held without either for GREET_WAIT s (a server stopped or hung)
is reported to memidx/mcp/hung.py, which ends the server on a second such finding, and the
session is served in this process when no server greets it. A server that
exits (idle, stopped) closes its listener, removes its socket and lets its lock go last: a
front that finds it holding its lock without answering looks at that lock every LOOK_EVERY s
and starts a new server as soon as it is let go.

The socket's name is a stamp of the configuration and of memidx's code, so a server started
before an upgrade or under another configuration is never reused: it goes idle and exits."""

from __future__ import annotations

import hashlib
import os
import socket
import sys
import time
from pathlib import Path

from memidx.config import Config
from memidx.frozen import replace
from memidx.state_folder import ensure_folder

SHARED_VARIABLE = "MEMIDX_MCP_SHARED"  # false: every session serves itself (no shared server)
START_WAIT = 60.0  # seconds a front waits for a server it started (the SDK and the model load)
START_GRACE = 5.0  # seconds a started server has to take its lock before it is looked for
LOOK_EVERY = 0.05  # seconds between looks at the lock of a server found holding it
# Seconds a front waits for a connected server's greeting (and for its connect, a full
# backlog blocking it). Its event loop greets at once however long a tool call runs (on a
# thread): 10 s here held each session of a stopped server for 60 s, 3 tries of 2 waits.
GREET_WAIT = 2.0
UNGREETED = "it took the connection and did not greet it"  # a server stopped or hung
ATTEMPTS = 3  # connections (and starts) tried before the session is served in this process
MAX_SOCKET_PATH = 100  # below the 104-108 bytes a Unix socket's path may have
GREETING = b"memidx-mcp 1\n"
BUSY = b"busy\n"


def socket_for(config: Config) -> Path | None:
    """The shared server's socket for this configuration and this code: in the memory's
    `.memidx/mcp/`, or where that path is too long for a socket, in the user's runtime folder
    (`$XDG_RUNTIME_DIR/memidx`, else `memidx-<uid>` in the temporary folder). None where there
    can be none (no Unix sockets)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    name = f"mcp-{_stamp(config)}.sock"
    local = config.state_dir / "mcp" / name
    if len(str(local)) <= MAX_SOCKET_PATH:
        return local
    from memidx.sockets import runtime_dir

    runtime = runtime_dir()
    if len(str(runtime / name)) > MAX_SOCKET_PATH:
        return None
    return runtime / name


def _stamp(config: Config) -> str:
    """A digest of what the server would be: the configuration (however the memory was
    found), memidx's version and the newest change to its code."""
    from memidx.code_stamp import code_stamp

    seen = f"{replace(config, found_by='flag')!r}|{code_stamp()}"
    return hashlib.sha256(seen.encode("utf-8")).hexdigest()[:16]


def wanted(own: bool) -> bool:
    """Whether this session goes through the shared server."""
    from memidx.settings import flag  # the spellings of every memidx yes-or-no setting

    given = os.environ.get(SHARED_VARIABLE, "").strip()
    return not own and (not given or flag(given, SHARED_VARIABLE, "environment"))


def front(config: Config) -> int | None:
    """Serve this session through the shared server: its exit code, or None when no server
    can be had (no private socket folder, the server did not come up or stayed busy), and
    the caller serves the session in this process. SIGTERM or SIGHUP ends it as the end of
    stdin does, but with 128 + the signal: the connection closed (the server ends only this
    session), no traceback."""
    from memidx.stopping import stopped_by_signals

    with stopped_by_signals() as stop:
        return _front(config)
    return stop.code


def _front(config: Config) -> int | None:
    path = socket_for(config)
    if path is None or not _private_folder(path.parent):
        return None
    try:
        conn, why = _reach(config, path)
    except OSError as exc:  # its lock no file (a link there): as when none can be had
        conn, why = None, str(exc)
    if conn is None:
        print(f"memidx: warning: no shared MCP server ({why}); serving this session here (see "
              f"{config.state_dir / 'mcp.log'} and mcp-daemon.out)", file=sys.stderr)  # fmt: skip
        return None
    from memidx.mcp.relay import relay

    with conn:
        ended = relay(config, path, conn, sys.stdin.buffer.fileno(), sys.stdout.buffer.fileno())
    if ended:
        return 0
    what = "closed the session" if ended is False else "stopped answering (hung): it was ended"
    print(f"memidx: error: the shared MCP server {what}; start a new session (see "
          f"{config.state_dir / 'mcp.log'})", file=sys.stderr)  # fmt: skip
    return 1


def _reach(config: Config, path: Path) -> tuple[socket.socket | None, str]:
    """A greeted connection to the server on `path`, starting one when none runs; else None
    and why (it stayed busy, did not greet, or did not come up in ATTEMPTS tries)."""
    from memidx.mcp.hung import look_again

    why = "it did not start"
    for _ in range(ATTEMPTS):
        conn, why = _session(path)
        if conn is None and why not in ("none", "busy"):
            # one holds its lock without answering: starting, or going (idle, stopped), which
            # lets its lock go last: waited for START_GRACE s before its lock was looked at
            # again, a front arriving then waited 5 s for nothing
            conn, why = _session(path, wait=START_WAIT, grace=0.0, every=LOOK_EVERY)
        if conn is not None and why == UNGREETED:  # stopped or hung: ended on a 2nd finding
            why = look_again(config, path, conn)
            conn = None
            if why == UNGREETED:
                return None, why  # not provably this memory's server: never ended
        if conn is None and why == "none":
            refused = _start(config, path)
            if refused is not None:  # no server can start: not waited for, three times over
                return None, refused
            conn, why = _session(path, wait=START_WAIT)
            if conn is not None and why == UNGREETED:
                conn.close()
                return None, why
        if conn is not None or why == "busy":
            return conn, why
    return None, UNGREETED if why == "again" else why


def knock(path: Path) -> tuple[socket.socket | None, str]:
    """A look at the server on `path` on a new connection, as a session's start looks (the
    caller closes it): greeted; None and why; or held without a greeting (UNGREETED)."""
    return _session(path)


def _private_folder(folder: Path) -> bool:
    """The socket's folder, made when missing; only a folder of this user that no one else
    can enter will do."""
    from memidx.portable import private_dir

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        print(f"memidx: warning: no shared MCP server: {exc}", file=sys.stderr)
        return False
    if private_dir(folder):
        return True
    print(f"memidx: warning: no shared MCP server: {folder} is not a private folder of this "
          "user (it must be yours, mode 0700)", file=sys.stderr)  # fmt: skip
    return False


def _session(
    path: Path, wait: float = 0.0, grace: float = START_GRACE, every: float = 2.0
) -> tuple[socket.socket | None, str]:
    """A greeted connection to the server, waiting up to `wait` for one that starts; else
    None and why: "none" (no server runs nor starts), "busy", or another reason; or, with why
    UNGREETED, the connection a server took and did not greet within GREET_WAIT s, for the
    caller to look at and close. While it waits it looks at the server's lock every `every`
    s after `grace` s: the server a front started may not have taken it yet, and a starting
    server waits only daemon.LOCK_WAIT s for a front holding it; one found holding it keeps
    it until it exits."""
    started = time.monotonic()
    looked = started
    while True:
        began = time.monotonic()
        conn, held = _connect(path)
        if conn is not None:
            return (conn, UNGREETED) if held else _greeted(conn, path, began)
        now = time.monotonic()
        if now - started >= wait:
            return (None, "none") if _nobody_serves(path) else (None, "it did not answer")
        if now - started >= grace and now - looked >= every:
            looked = now
            if _nobody_serves(path):
                return None, "none"
        time.sleep(0.02)


def _nobody_serves(path: Path) -> bool:
    from memidx.portable import file_lock

    with file_lock(lock_for(path), wait=False) as free:
        return free


def _connect(path: Path) -> tuple[socket.socket | None, bool]:
    """A connection to `path` (None when refused or missing), and whether the connect was
    held GREET_WAIT s by a server's full backlog (stopped, it accepts none: it blocked for ever)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(GREET_WAIT)
    try:
        conn.connect(str(path))
    except TimeoutError:
        return conn, True
    except OSError:
        conn.close()
        return None, False
    return conn, False


def _greeted(conn: socket.socket, path: Path, began: float) -> tuple[socket.socket | None, str]:
    """`conn`, greeted (a connection begun at `began`); else None and "busy" or "no greeting"
    (let go: a server exiting), or `conn` itself and UNGREETED (held: stopped or hung)."""
    from memidx.mcp.hung import greeted

    conn.settimeout(GREET_WAIT)
    line = b""
    try:
        while not line.endswith(b"\n") and len(line) < 64:
            chunk = conn.recv(1)
            if not chunk:
                break
            line += chunk
    except TimeoutError:
        return conn, UNGREETED
    except OSError:
        pass
    if line == GREETING:
        greeted(path, began)
        conn.settimeout(None)
        return conn, ""
    conn.close()
    return None, "busy" if line == BUSY else "no greeting"


def lock_for(path: Path) -> Path:
    """The lock the serving server holds (one server per socket)."""
    return path.with_suffix(".lock")


def _start(config: Config, path: Path) -> str | None:
    """Start a server for `path` in the background (it leaves at once if another one took
    the lock meanwhile): a detached copy of this process, which has memidx imported already
    (a new interpreter where there is no fork). Why none can start when its output has no
    file of memidx's to go to (a link, a FIFO or a folder there): the front waited 15 s for
    a server that never came, then said only that there was none."""
    from memidx.children import fork_detached, start_detached
    from memidx.drafts import NOT_OWN, not_own, open_to_append

    argv = [sys.executable, "-m", "memidx", "-C", str(config.root), "mcp", "--daemon", str(path)]
    out_path = config.state_dir / "mcp-daemon.out"
    try:
        ensure_folder(config.state_dir)
        # what escapes the log; a FIFO there fails at once: it hung the MCP client's start
        with open_to_append(out_path) as out:
            forked = fork_detached(out)
            if forked:
                _serve_copy(config, path)
            elif forked is None:  # pragma: no cover - Windows
                start_detached(argv, out)
    except OSError as exc:
        if exc.errno in NOT_OWN:
            return not_own(out_path)
    return None


def _serve_copy(config: Config, path: Path) -> None:
    """In the copy fork_detached made: serve, and never return to the front's code."""
    code = 1
    try:
        import signal

        from memidx.mcp.daemon import serve_shared
        from memidx.portable_signals import stop_signals

        for number in stop_signals():  # not the front's: as a new process has, until it serves
            signal.signal(number, signal.SIG_DFL)

        code = serve_shared(config, path)
    except BaseException:  # noqa: BLE001  # whatever it is, it goes to mcp-daemon.out
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

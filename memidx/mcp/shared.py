"""`memidx mcp` over stdio through one shared server per memory. An agent starts `memidx mcp`
for every session; instead of importing the SDK (~1 s) and loading the model in each, this
front connects to the memory's shared server on a Unix socket (in `.memidx/mcp/`, mode 0700),
starting it in the background when none runs, and copies bytes between its stdio and the
socket. It never imports the SDK, numpy or the model, and writes nothing of its own on stdout.

The socket's name is a stamp of the configuration and of memidx's code, so a server started
before an upgrade or under another configuration is never reused: it goes idle and exits."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

from memidx.config import Config
from memidx.frozen import replace

SHARED_VARIABLE = "MEMIDX_MCP_SHARED"  # "0": every session serves itself (no shared server)
START_WAIT = 60.0  # seconds a front waits for a server it started (the SDK and the model load)
MAX_SOCKET_PATH = 100  # below the 104-108 bytes a Unix socket's path may have
CHUNK = 65536


def socket_for(config: Config) -> Path | None:
    """The shared server's socket for this configuration and this code: in the memory's
    `.memidx/mcp/`, or where that path is too long for a socket, in the user's runtime folder
    (`$XDG_RUNTIME_DIR/memidx`, else a private `memidx-<uid>` in the temporary folder). None
    where there can be none (no Unix sockets, no private folder)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    name = f"mcp-{_stamp(config)}.sock"
    local = config.state_dir / "mcp" / name
    if len(str(local)) <= MAX_SOCKET_PATH:
        return local
    runtime = _runtime_dir()
    if runtime is None or len(str(runtime / name)) > MAX_SOCKET_PATH:
        return None
    return runtime / name


def _runtime_dir() -> Path | None:
    """A folder only this user can use, or None."""
    import tempfile

    given = os.environ.get("XDG_RUNTIME_DIR", "")
    folder = (
        Path(given) / "memidx"
        if given and Path(given).is_dir()
        else Path(tempfile.gettempdir()) / f"memidx-{os.getuid()}"
    )
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(found.st_mode) and not found.st_mode & 0o077
    return folder if private and found.st_uid == os.getuid() else None


def _stamp(config: Config) -> str:
    """A digest of what the server would be: the configuration (however the memory was
    found) and the newest change to memidx's code."""
    package = Path(__file__).resolve().parents[1]
    newest = max((p.stat().st_mtime_ns for p in package.rglob("*.py")), default=0)
    seen = f"{replace(config, found_by='flag')!r}|{package}|{newest}|{sys.executable}"
    return hashlib.sha256(seen.encode("utf-8")).hexdigest()[:16]


def wanted(own: bool) -> bool:
    """Whether this session goes through the shared server."""
    return not own and os.environ.get(SHARED_VARIABLE, "1").strip() != "0"


def front(config: Config) -> bool:
    """Serve this session through the shared server; False when none can be had (the socket
    path is too long, the state folder is read-only, the server did not come up), and the
    caller serves it in this process."""
    path = socket_for(config)
    if path is None:
        return False
    conn = _connect(path)
    if conn is None:
        try:
            started = _start(config, path)
        except OSError as exc:
            print(f"memidx: warning: no shared MCP server: {exc}", file=sys.stderr)
            return False
        conn = _wait(path, started, START_WAIT)
    if conn is None:
        print("memidx: warning: the shared MCP server did not start; serving here (see "
              f"{config.state_dir / 'mcp.log'})", file=sys.stderr)  # fmt: skip
        return False
    with conn:
        pump(conn, sys.stdin.buffer.fileno(), sys.stdout.buffer.fileno())
    return True


def _connect(path: Path) -> socket.socket | None:
    if not path.exists():
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


def lock_for(path: Path) -> Path:
    """The lock the serving server holds (one server per socket)."""
    return path.with_suffix(".lock")


def _start(config: Config, path: Path) -> subprocess.Popen[bytes]:
    from memidx.portable import start_detached

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    config.state_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "memidx", "-C", str(config.root), "mcp", "--daemon", str(path)]
    with (config.state_dir / "mcp-daemon.out").open("ab") as out:  # what escapes the log
        return start_detached(argv, out)


def _wait(path: Path, started: subprocess.Popen[bytes], timeout: float) -> socket.socket | None:
    """The server's connection once it listens; None when it gave up or `timeout` passed.
    The server this front started may exit at once because another one took the lock: then
    the wait goes on while that one holds it."""
    from memidx.portable import file_lock

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        conn = _connect(path)
        if conn is not None:
            return conn
        if started.poll() is not None:
            with file_lock(lock_for(path), wait=False) as free:
                if free:
                    return _connect(path)  # nobody serves nor starts: a last look
        time.sleep(0.02)
    return None


def pump(conn: socket.socket, stdin: int, stdout: int) -> None:
    """Copy stdin to the socket and the socket to stdout until the server closes; stdin's end
    is passed on as the end of the socket's writing half, so the server ends the session."""

    def upstream() -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(stdin, CHUNK):
                conn.sendall(chunk)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)

    threading.Thread(target=upstream, name="memidx-mcp-stdin", daemon=True).start()
    with contextlib.suppress(OSError):
        while chunk := conn.recv(CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(stdout, view) :]

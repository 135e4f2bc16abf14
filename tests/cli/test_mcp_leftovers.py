"""What a shared MCP server leaves when it cannot stop as it should: a stop past its limit
removes the socket and the record before it exits at once (it left them, and the detached
server, which lost the stop's watcher thread at its last fork, never exited at all), and the
next server to start removes the sockets of servers that were killed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import memidx.portable
from memidx.mcp.leftovers import clear_stale
from memidx.mcp.shared import lock_for
from memidx.portable import file_lock
from tests.cli import mcp_client as mc
from tests.helpers import NotesRepo

# The shared server as a session starts it (its last fork included), with no index, model nor
# SDK, whose stop never ends: its one task swallows the stop and never yields.
STUCK = """
import sys, time, types
import memidx.stopping as stopping
stopping.LIMIT = 0.5
import memidx.mcp.daemon as daemon

class Workers:
    def __init__(self, config): pass
    def settle(self): pass
    def close(self): pass

async def watch(self, idle, path, bound, scope):
    while True:
        try:
            time.sleep(0.05)
        except BaseException:
            pass

daemon.Workers = Workers
daemon._Sessions.watch = watch
stub = types.ModuleType("memidx.mcp.server")
stub.build_server = lambda workers: types.SimpleNamespace(_lowlevel_server=None)
sys.modules["memidx.mcp.server"] = stub
from memidx.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.fixture
def short() -> Iterator[Path]:
    """A folder with a short path, so a socket's path in it stays short enough."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for(*paths: Path) -> None:
    for _ in range(400):  # at most 20 s
        if all(p.exists() for p in paths):
            return
        time.sleep(0.05)
    raise AssertionError(f"not all of {paths} appeared")


def test_a_stop_past_its_limit_removes_the_shared_servers_socket_and_record(
    short: Path,
) -> None:
    """Its stop stuck (a thread that never ends, the import machinery), the server exited at
    once after 30 s and left both: status named a server that no longer ran. The server as
    sessions start it never even exited: its last fork left the stop's watcher behind."""
    root = NotesRepo(short / "m").root
    path = root / ".memidx" / "mcp" / "mcp-0123456789abcdef.sock"
    path.parent.mkdir(mode=0o700, parents=True)
    record = root / ".memidx" / "mcp-server.json"
    killed = path.with_name("mcp-fedcba9876543210.sock")  # a killed server's, of other code
    lock_for(killed).touch()
    _socket(killed, listening=False)
    out = short / "daemon.out"
    with out.open("ab") as sink:  # the process started ends at once: the server is its fork
        argv = [sys.executable, "-c", STUCK, "-C", str(root), "mcp", "--daemon", str(path)]
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink,
                       env=mc.isolated_env(root), timeout=30, check=True)  # fmt: skip
    _wait_for(path, record)
    assert not killed.exists() and not lock_for(killed).exists()  # removed as it started
    pid = int(json.loads(record.read_text())["pid"])
    try:
        os.kill(pid, signal.SIGTERM)
        assert _ended(pid, 15), "the stop never ended"
    finally:
        if not _ended(pid, 0.1):
            os.kill(pid, signal.SIGKILL)
    assert (path.exists(), record.exists()) == (False, False)
    assert "did not end within 0.5 s; exiting at once (what it owns removed)" in out.read_text()


def _ended(pid: int, timeout: float) -> bool:
    """Whether process `pid` ends within `timeout` seconds: gone, or a zombie (an orphan, it
    waits for the system's first process to reap it, here up to ~2 s)."""
    end = time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except ProcessLookupError:
            return True
        except OSError:  # no /proc: alive as long as the signal reaches it
            state = ""
        if state == "Z":
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)


def _socket(path: Path, *, listening: bool) -> socket.socket:
    """A Unix socket bound at `path`: as a live server's when listening, else as a killed
    server's (the file stays, a connection is refused)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    if listening:
        server.listen(1)
    else:
        server.close()
    return server


def test_the_next_start_removes_only_the_sockets_of_servers_provably_dead(short: Path) -> None:
    names = [f"mcp-{n:016x}.sock" for n in range(6)]
    dead, listening, locked, no_lock, not_socket, other = (short / n for n in names)
    other = short / "recall.sock"
    for path in (dead, listening, locked, other):
        lock_for(path).touch()
    kept = [_socket(listening, listening=True)]
    for path in (dead, locked, no_lock, other):
        kept.append(_socket(path, listening=False))
    not_socket.write_text("a file of the same name\n")
    lock_for(not_socket).touch()
    try:
        with file_lock(lock_for(locked), wait=False) as held:  # a server starting right now
            assert held
            assert clear_stale(short) == [dead, lock_for(dead)]
    finally:
        for server in kept:
            server.close()
    left = sorted(p.name for p in short.iterdir() if not p.name.endswith(".lock"))
    assert left == sorted(p.name for p in (listening, locked, no_lock, not_socket, other))


def test_the_next_start_removes_only_the_locks_no_server_holds_nor_serves_under(
    short: Path,
) -> None:
    """One lock stayed for ever per upgrade or change of configuration, its server gone."""
    stale, held, serving, dead_serving, folder, linked = (
        short / f"mcp-{n:016x}.lock" for n in range(6)
    )
    others = [short / "recall.lock", short / "mcp-0123.lock"]  # not named as memidx names them
    for path in (stale, held, serving, dead_serving, *others):
        path.touch()
    kept = [_socket(serving.with_suffix(".sock"), listening=True)]
    dead_serving.with_suffix(".sock").write_text("a file of a socket's name\n")  # not proven
    folder.mkdir()
    linked.symlink_to(stale.with_name("elsewhere"))
    try:
        with file_lock(held, wait=False) as taken:  # a server starting or serving right now
            assert taken
            assert clear_stale(short) == [stale]
            assert held.exists()
    finally:
        for server in kept:
            server.close()
    left = {p.name for p in short.iterdir() if p.suffix == ".lock"}
    assert left == {p.name for p in (held, serving, dead_serving, folder, linked, *others)}


def test_a_lock_removed_as_it_is_taken_is_taken_again_never_held_twice(
    short: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that opened the lock just before a stale lock was cleared held the removed
    file, and a second server of its stamp, which made the lock anew, held it too."""
    lock = short / "mcp-0000000000000000.lock"
    taken_by_flock = memidx.portable.lock_open
    cleared: list[Path] = []

    def removed_first(fd: int, timeout: float | None = None) -> bool:
        if not cleared:  # the cleaner's unlink, between this opening and this taking
            lock.unlink()
            cleared.append(lock)
        return taken_by_flock(fd, timeout)

    monkeypatch.setattr(memidx.portable, "lock_open", removed_first)
    with file_lock(lock, wait=False) as first:
        assert first and cleared and lock.exists()
        with file_lock(lock, wait=False) as second:
            assert not second  # the file at the path is held: one holder only


def test_a_lock_whose_folder_was_removed_as_it_was_waited_for_is_made_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its holder removed the whole folder (`rm -rf .memidx`, a purge) and let go: the waiter,
    finding the file it held gone, opened it again without its folder (FileNotFoundError)."""
    lock = tmp_path / "state" / "haystack.lock"
    taken_by_flock = memidx.portable.lock_open
    removed: list[Path] = []

    def folder_removed_first(fd: int, timeout: float | None = None) -> bool:
        if not removed:
            shutil.rmtree(lock.parent)
            removed.append(lock.parent)
        return taken_by_flock(fd, timeout)

    monkeypatch.setattr(memidx.portable, "lock_open", folder_removed_first)
    with file_lock(lock, timeout=5.0) as taken:
        assert taken and removed and lock.is_file()


def test_a_lock_taken_anew_waits_one_timeout_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each try after its file was removed waited the whole `timeout` again: a lock replaced
    under a waiter kept it waiting past the limit it was given."""
    lock = tmp_path / "mcp-0000000000000000.lock"
    taken_by_flock = memidx.portable.lock_open
    waits: list[float | None] = []

    def replaced_after_a_wait(fd: int, timeout: float | None = None) -> bool:
        waits.append(timeout)
        if len(waits) == 1:  # the first file is let go after a wait; another replaced it
            time.sleep(0.3)
            lock.unlink()
            lock.touch()
        return taken_by_flock(fd, timeout)

    monkeypatch.setattr(memidx.portable, "lock_open", replaced_after_a_wait)
    with file_lock(lock, timeout=1.0) as taken:
        assert taken
    assert len(waits) == 2
    assert waits[1] is not None and waits[1] <= 0.75  # what was left of the one second

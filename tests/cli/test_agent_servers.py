"""The suite's stop of the recall servers its agents start (tests/agent_servers.py) stops no
process outside the folder it is given: not a user's own server, whose `-C` is relative to
its own working folder, nor, without /proc, whatever process took a killed server's pid."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.agents import recall_client, recall_server
from memidx.config import Config
from tests import agent_servers
from tests.agent_servers import (
    PID_FILE,
    may_serve,
    servers_under,
    stop_servers_for,
    stop_servers_under,
)
from tests.conftest import _no_recall_server_left  # pyright: ignore[reportPrivateUsage]

SLEEP = "import time; print('up', flush=True); time.sleep(60)"


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The stand-ins this test starts, each stopped (and waited for) at its end."""
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        process.kill()
        process.wait(10)


def stand_in(
    started: list[subprocess.Popen[bytes]], cwd: Path, *args: str
) -> subprocess.Popen[bytes]:
    """A process sleeping a minute whose command line ends in ARGS, started in `cwd`."""
    cwd.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-c", SLEEP, *args], cwd=cwd, stdout=subprocess.PIPE
    )
    started.append(process)
    assert process.stdout is not None and process.stdout.readline() == b"up\n"  # its own now
    return process


def test_a_relative_directory_is_the_servers_own_not_the_tests(
    tmp_path: Path, started: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx -C . agent serve` run by a user in their memory, while a test's process works
    in its own folder: read from there, it was stopped as one of the test's."""
    users = stand_in(started, tmp_path / "user" / "memory", "-C", ".", "agent", "serve")
    tests = stand_in(started, tmp_path / "run" / "memory", "-C", ".", "agent", "serve")
    monkeypatch.chdir(tmp_path / "run")

    stopped = stop_servers_under(tmp_path / "run")

    assert stopped == {tests.pid: (tmp_path / "run" / "memory").resolve()}
    assert users.poll() is None, "the user's server was stopped"
    assert tests.wait(10) != 0


def test_without_proc_a_pid_file_naming_another_process_stops_nothing(
    tmp_path: Path, started: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server killed by SIGKILL leaves its pid file; the pid, taken since by another
    process, was signalled as the server's."""
    monkeypatch.setattr(agent_servers, "PROC", tmp_path / "no-proc")
    other = stand_in(started, tmp_path / "elsewhere")
    memory = (tmp_path / "run" / "memory").resolve()
    server = stand_in(started, tmp_path, "-C", str(memory), "agent", "serve")
    for name, process in (("stale", other), ("memory", server)):
        pid = tmp_path / "run" / name / PID_FILE if name == "stale" else memory / PID_FILE
        pid.parent.mkdir(parents=True)
        pid.write_text(f"{process.pid}\n")

    assert servers_under(tmp_path / "run") == {server.pid: memory}
    assert stop_servers_under(tmp_path / "run") == {server.pid: memory}
    assert other.poll() is None, "a process that is no recall server was stopped"
    assert server.wait(10) != 0


def test_a_hook_makes_the_servers_folder_before_it_starts_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """recall_servers_stopped skips its look at the processes for a test whose folder holds no
    memory with `.memidx/agents`: the hook that starts a server made it before, always."""
    seen: list[bool] = []

    def start(*_: object) -> None:
        seen.append(may_serve(tmp_path))

    monkeypatch.setattr("memidx.children.start_detached", start)
    config = Config(root=tmp_path / "memory", index_path=tmp_path / "memory" / ".memidx" / "x")
    (tmp_path / "memory" / ".git").mkdir(parents=True)
    (tmp_path / "memory" / ".memidx").mkdir()
    assert not may_serve(tmp_path)

    recall_client.start(config)

    assert seen == [True]
    assert recall_server.server_folder(config) == tmp_path / "memory" / PID_FILE.parent


def test_a_server_a_test_starts_is_still_stopped_after_it(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """What recall_servers_stopped does after a test: the server of a memory in its folder
    (with the folder the hook made) is stopped; nothing else is looked for where none is."""
    memory = (tmp_path / "run" / "memory").resolve()
    (memory / PID_FILE.parent).mkdir(parents=True)
    (tmp_path / "quiet").mkdir()
    server = stand_in(started, tmp_path, "-C", str(memory), "agent", "serve")

    assert stop_servers_for(tmp_path / "quiet") == {}
    assert server.poll() is None
    assert stop_servers_for(tmp_path / "run") == {server.pid: memory}
    assert server.wait(10) != 0


class _Session:
    exitstatus: int | pytest.ExitCode = pytest.ExitCode.OK


def test_a_server_left_running_fails_the_run_and_is_stopped(
    tmp_path: Path, started: list[subprocess.Popen[bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest_sessionfinish's check, the safety net for what recall_servers_stopped skips (a
    server whose memory's folder was removed): the run fails, naming it, and it is stopped."""
    memory = (tmp_path / "gone" / "memory").resolve()
    server = stand_in(started, tmp_path, "-C", str(memory), "agent", "serve")
    session = _Session()
    assert not may_serve(tmp_path)

    _no_recall_server_left(session, tmp_path)  # type: ignore[arg-type]

    assert session.exitstatus == pytest.ExitCode.TESTS_FAILED
    assert f"pid {server.pid} ({memory})" in capsys.readouterr().err
    assert server.wait(10) != 0

"""A recall server whose memory is gone: with its socket in the runtime folder (a memory too
deep for one in `.memidx/agents/`), deleting the memory left nothing it looked at, so it kept
answering from the deleted index for its idle hour (the suite's agents left such servers)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.agents import recall_client, recall_loop, recall_server
from memidx.config import Config, load_config
from memidx.paths import file_identity
from tests.cli.test_recall_server import indexed, runtime, serving
from tests.helpers import NotesRepo, clean_env

__all__ = ["runtime"]  # the fixture, used by name below


@pytest.mark.parametrize("deleted", ["memory", ".memidx"])
def test_a_server_whose_memory_was_deleted_exits_within_seconds(
    tmp_path: Path, models_dir: Path, runtime: Path, deleted: str
) -> None:
    """The README promised an exit within 10 s; the pid file was looked at with the code, every
    10 s after an accept's 1 s wait: 0.9-10.1 s, medians of 5 at random moments 8.4 s (memory
    deleted) and 5.7 s (.memidx). Deleted as the server starts, the first look was 10 s on."""
    root = tmp_path / ("deep-" * 12) / "memory"
    config = indexed(root, models_dir)
    served, path = serving(config, 60.0)
    assert served.is_alive() and path.parent == runtime / "memidx", path

    shutil.rmtree(root if deleted == "memory" else config.state_dir)
    gone = time.monotonic()
    served.join(15)

    assert not served.is_alive(), "the server outlived its memory"
    assert time.monotonic() - gone < 2.5
    assert not path.exists()  # its own socket, removed as it exits


def test_a_server_replaced_after_its_index_was_deleted_leaves_the_new_ones_socket_and_pid(
    tmp_path: Path, models_dir: Path, runtime: Path
) -> None:
    """`.memidx` deleted and built again, the next prompt's server takes the socket's name and
    writes its pid: the old one, which no longer finds itself in `recall.pid`, exits without
    taking either with it, and the new one answers."""
    root = tmp_path / ("deep-" * 12) / "memory"
    config = indexed(root, models_dir)
    env = clean_env(XDG_RUNTIME_DIR=str(runtime), MEMIDX_MODELS_DIR=str(models_dir))
    pid = config.state_dir / "agents" / recall_server.PID_NAME
    path = recall_server.socket_path(config)
    assert path is not None and path.parent == runtime / "memidx", path
    asking = load_config(root, env=env)  # as the servers read theirs: another is not answered
    with serving_process(root, env) as old:
        assert listening(old, asking), said(old, root)
        was = file_identity(path)  # held by the old one while it lives: no other file has it
        shutil.rmtree(config.state_dir)
        assert NotesRepo(root).memidx("ingest").code == 0
        with serving_process(root, env) as new:
            assert listening(new, asking, (old, was)), said(new, root)
            bound = file_identity(path)

            assert old.wait(recall_loop.CODE_CHECK + 5) == 0  # at its next look
            assert new.poll() is None
            assert pid.read_text() == f"{new.pid}\n"
            assert file_identity(path) == bound  # the new one's socket, left in place
            assert recall_client.ask(config, {"prompt": "vmmem"}, 30.0) is not None


@contextmanager
def serving_process(root: Path, env: dict[str, str]) -> Generator[subprocess.Popen[bytes]]:
    """`memidx -C root agent serve` as a prompt hook starts it; stopped at the end."""
    argv = [sys.executable, "-m", "memidx", "-C", str(root), "agent", "serve"]
    log = root.parent / "serve.err"  # what it said, for the failure's message (said)
    with log.open("ab") as err:  # in the memory's folder: never the checkout pytest ran in
        process = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)


Replaced = tuple[subprocess.Popen[bytes], object]


def listening(
    process: subprocess.Popen[bytes],
    config: Config,
    replaces: Replaced | None = None,
    seconds: float = 60.0,
) -> bool:
    """Whether, within `seconds`, `recall.pid` names `process` and a server answers a prompt
    at its socket's path (it listens once its model is loaded): not the server it `replaces`
    (that process and its socket's file identity), which it may outlive. Once that one has
    ended, a server that answers at the path is the new one; the file there may be none's (the
    old one leaves its socket file once recall.pid names another), and its inode may be the
    number the old one's had (ext4 gives a freed number again, 47 times in 50 in /tmp here), so
    neither the file nor its identity tells: a leftover file counted as the new one listening."""
    pid = config.state_dir / "agents" / recall_server.PID_NAME
    path = recall_server.socket_path(config)
    end = time.monotonic() + seconds
    for _ in range(int(seconds / 0.05) + 1):  # by count too: a clock that stalls ends it too
        if path is None or time.monotonic() >= end:
            break
        if process.poll() is not None:
            return False
        named = pid.is_file() and pid.read_text() == f"{process.pid}\n"
        if named and path.exists() and (replaces is None or not _holds(path, *replaces)):
            answer = recall_client.ask(
                config, {"prompt": "vmmem"}, max(0.1, end - time.monotonic())
            )
            if answer is not None and "error" not in answer:
                return True
        time.sleep(0.05)
    return False


def _holds(path: Path, old: subprocess.Popen[bytes], identity: object) -> bool:
    """Whether the socket at `path` is still the one `old` bound, which it holds while alive."""
    return old.poll() is None and file_identity(path) == identity


def said(process: subprocess.Popen[bytes], root: Path) -> str:
    """Why a server is not listening: its exit code, if it ended, and what the servers of
    `root` wrote on stderr (serving_process)."""
    log = root.parent / "serve.err"
    text = log.read_text(errors="replace") if log.exists() else ""
    return f"exit code {process.poll()}; stderr: {text[-2000:]!r}"


def test_a_socket_file_no_server_listens_on_is_no_server_listening(
    tmp_path: Path, runtime: Path
) -> None:
    """The check above: a socket file left at the path, recall.pid naming a live process that
    listens on nothing, is not a server listening (it was, by the file alone)."""
    root = tmp_path / ("deep-" * 12) / "memory"
    NotesRepo(root).note("a.md", "A", "a note")
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    path = recall_server.socket_path(config)
    assert path is not None and path.parent == runtime / "memidx", path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as left:
        left.bind(str(path))  # closed without a listen or an unlink: the file stays
    pid = config.state_dir / "agents" / recall_server.PID_NAME
    pid.parent.mkdir(parents=True)
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        pid.write_text(f"{idle.pid}\n")

        assert not listening(idle, config, seconds=1.0)
    finally:
        idle.kill()
        idle.wait(15)


def test_the_wait_for_a_listening_server_is_bounded_by_count_as_well_as_time(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that does not move (a suspended VM, a patched monotonic) held `listening` for
    ever: it was bounded by time alone."""
    import threading

    config = load_config(repo.root)
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    answered: list[bool] = []
    with subprocess.Popen(["sleep", "30"]) as process:  # alive, no server: never listening
        try:
            waiting = threading.Thread(
                target=lambda: answered.append(listening(process, config, seconds=0.2)),
                daemon=True,
            )
            waiting.start()
            waiting.join(10)
        finally:
            process.kill()
    assert answered == [False]


def test_a_server_whose_memory_was_moved_leaves_no_socket_nor_pid_in_it(models_dir: Path) -> None:
    """A memory moved (`mv`) while its server runs: the server exits within seconds (its
    socket is no longer at its path), but it removed its socket and pid file by their old
    paths, where they were no longer: the moved memory kept a dead socket and a pid file
    naming a process that had ended (or, later, another's). They go with the server."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="mx-"))  # short enough for the socket to be its own
    try:
        config = indexed(top / "m", models_dir)
        served, path = serving(config, 60.0)
        assert served.is_alive() and path.parent == config.state_dir / "agents", path

        (top / "m").rename(top / "moved")
        served.join(15)

        assert not served.is_alive(), "the server outlived its memory's move"
        left = sorted(p.name for p in (top / "moved" / ".memidx" / "agents").iterdir())
        assert recall_server.SOCKET_NAME not in left and recall_server.PID_NAME not in left, left
    finally:
        shutil.rmtree(top)

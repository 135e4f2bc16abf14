"""Which part of a `pre-commit run` says what concerns every part (memidx.githooks.run_parts),
read in a real git repository: the framework's parent process is stood in for (the test's is
pytest's), and a new part is a fresh answer (each part is a process of its own)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import staged
from memidx.githooks import listed_names, run_parts
from tests.helpers import NotesRepo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/a.md", "# A\n\nThe espresso machine needs descaling.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "a")
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.delenv("MEMIDX_CHECK_NAMES", raising=False)
    monkeypatch.delenv("GIT_INDEX_FILE", raising=False)
    monkeypatch.setattr(run_parts, "_framework", framework)
    return repo


def framework(pid: int) -> bool:
    """The test's parent stands for the framework's process."""
    return True


def next_part(monkeypatch: pytest.MonkeyPatch) -> None:
    """The framework's next part: a new process, which has answered nothing yet."""
    monkeypatch.setattr(run_parts, "_answers", {})


def test_a_name_staged_while_the_first_part_read_is_said_by_the_next(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first part read the staged names, then stamped its marker with the index as it was
    after: a file staged (and deleted) in between, by an agent's commit beside the run, was in
    no part's share and the next part took the marker as its run's and said nothing of it."""
    config = load_config(repo.root, {})
    read = staged.staged_names

    def read_then_staged_beside(at: staged.GitRepo) -> list[str]:
        names = read(at)
        repo.write("notes/deploy.md", "# Deploy\n\ngithub_token: x\n")
        repo.git("add", "notes/deploy.md")
        (repo.root / "notes" / "deploy.md").unlink()
        return names

    monkeypatch.setattr(staged, "staged_names", read_then_staged_beside)
    assert listed_names.framework_files(config, ["notes/a.md"]) == ["notes/a.md"]
    monkeypatch.setattr(staged, "staged_names", read)
    next_part(monkeypatch)

    assert listed_names.framework_files(config, []) == ["notes/deploy.md"]


def test_a_fifo_named_pre_commit_is_not_waited_on(tmp_path: Path) -> None:
    """Telling the framework's script by what it imports opened the script Python runs: a
    FIFO named pre-commit, with no writer, held the check forever."""
    fifo = tmp_path / "pre-commit"
    os.mkfifo(fifo)
    answers: list[bool] = []
    ask = run_parts._imports_the_framework  # pyright: ignore[reportPrivateUsage]
    reader = threading.Thread(target=lambda: answers.append(ask(os.getpid(), str(fifo))))
    reader.daemon = True
    reader.start()
    reader.join(5)
    try:
        assert answers == [False]
    finally:  # a reader still waiting is let go
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)


def _started(argv: list[str], program: str) -> subprocess.Popen[bytes]:
    """A process run as `argv`, once its command line names `program` (bounded: 5 s)."""
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    for _ in range(100):
        if Path(f"/proc/{process.pid}/cmdline").read_bytes().startswith(program.encode()):
            break
        time.sleep(0.05)
    return process


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="no /proc")
@pytest.mark.parametrize("options", [["-X", "utf8"], ["-W", "ignore", "-X", "dev"], ["-E"]])
def test_python_with_options_running_the_console_script_is_the_framework(
    tmp_path: Path, options: list[str]
) -> None:
    """`python -X utf8 .../bin/pre-commit`: the option's value was taken for the script,
    so each part of the run repeated a refusal."""
    script = tmp_path / "bin" / "pre-commit"
    script.parent.mkdir()
    script.write_text("import time  # the console script imports pre_commit\ntime.sleep(30)\n")
    process = _started([sys.executable, *options, str(script)], sys.executable)
    try:
        assert run_parts._framework(process.pid)  # pyright: ignore[reportPrivateUsage]
    finally:
        process.kill()
        process.wait(5)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="no /proc")
def test_prek_is_the_framework() -> None:
    """prek, the framework rewritten, runs the hooks of .pre-commit-config.yaml in parts too."""
    process = _started(["bash", "-c", "exec -a prek sleep 30"], "prek")
    try:
        assert run_parts._framework(process.pid)  # pyright: ignore[reportPrivateUsage]
    finally:
        process.kill()
        process.wait(5)

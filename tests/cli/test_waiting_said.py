"""A commit's check that waits for a lock (an index build, up to LOCK_WAIT) says so on the
controlling terminal: the pre-commit framework holds a hook's output (a pipe, or a pty of its
own) until the hook ends, so a line on stderr showed only after the wait, if ever. Nowhere
when there is no controlling terminal, in CI, or when the commit's output goes to none."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from memidx import waited_lock as module
from tests.helpers import NotesRepo, clean_env

PROJECT = Path(__file__).resolve().parents[2]
# the framework's view of the shim's mark, from a hook of its own
SEEING = """repos:
  - repo: local
    hooks:
      - id: seeing
        name: what the checks are told
        entry: sh -c 'printf "%s" "${MEMIDX_CHECKS_UNSEEN:-}" > .git/unseen'
        language: system
        pass_filenames: false
        always_run: true
        stages: [pre-commit]
"""

# A hook process: its stderr a pipe, as the framework gives it; the lock held by another open
# file of its own (flock conflicts within one process too), so the wait times out quickly.
CHILD = """
import os, sys
from pathlib import Path
if sys.argv[1]:  # a session leader opening a terminal makes it its controlling terminal
    os.open(sys.argv[1], os.O_RDWR)
from memidx import waited_lock
from memidx.errors import MemidxError
from memidx.portable import file_lock
waited_lock.SAY_AFTER = 0.05
lock = Path(sys.argv[2])
with file_lock(lock):
    try:
        with waited_lock.waited_lock(lock, 0.15, "a build"):
            raise SystemExit("taken")
    except MemidxError:
        pass
"""


def run_hook(
    lock: Path, env: dict[str, str], *, terminal: bool, watched: bool, stopped: bool = False
) -> tuple[str, bytes]:
    """What the hook run with `env` said on the pty it has as its controlling terminal (or has
    not), and on its stderr. `watched`: its output is a pty of its own, as pre-commit gives a
    hook when its own stderr is a terminal (else a pipe); `stopped`: the terminal's output
    stopped, as Ctrl-S stops it."""
    master, slave = os.openpty()
    output, output_slave = os.openpty() if watched else (None, None)
    try:
        if stopped:
            termios.tcflow(slave, termios.TCOOFF)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, os.ttyname(slave) if terminal else "", str(lock)],
            env=clean_env(PRE_COMMIT="1", **env),
            stdout=subprocess.PIPE if output_slave is None else output_slave,
            stderr=subprocess.PIPE,
            start_new_session=True,  # no controlling terminal but the pty it opens
            check=False,
            timeout=30,  # a write that blocks holds it until then
        )
        assert done.returncode == 0, done.stderr
        said = b""
        while select.select([master], [], [], 0)[0]:
            said += os.read(master, 4096)
    finally:
        for fd in (slave, master, output_slave, output):
            if fd is not None:
                os.close(fd)
    return said.decode(), done.stderr


@pytest.mark.parametrize(
    ("watched", "env"),
    [
        (True, {}),  # the framework alone: its pty, as its own stderr is a terminal
        (False, {"MEMIDX_CHECKS_UNSEEN": "0"}),  # memidx's shim saw one (pre-commit's TERM=dumb)
    ],
)
def test_a_hook_waiting_says_so_on_the_controlling_terminal(
    tmp_path: Path, watched: bool, env: dict[str, str]
) -> None:
    lock = tmp_path / "index.sqlite.lock"

    said, err = run_hook(lock, {"CI": "", **env}, terminal=True, watched=watched)

    # a new line first: the framework has written `name.....` and waits for the verdict
    assert (
        said.replace("\r\n", "\n") == f"\nmemidx: waiting up to 0.1 s more for {lock} (a build)\n"
    )
    assert err == b""


def test_a_stopped_terminal_never_holds_the_commit(tmp_path: Path) -> None:
    """Output stopped with Ctrl-S: a blocking write held the check, and the commit, until
    someone pressed Ctrl-Q; the line is dropped instead."""
    lock = tmp_path / "index.sqlite.lock"

    said, err = run_hook(lock, {"CI": ""}, terminal=True, watched=True, stopped=True)

    assert said == "" and err == b""


@pytest.mark.parametrize(
    ("terminal", "watched", "env"),
    [
        (False, True, {}),  # no controlling terminal: nothing, no error
        (True, True, {"CI": "true"}),
        (True, True, {"MEMIDX_CHECKS_UNSEEN": "1"}),  # memidx's shim: git's stderr no terminal
        # the framework alone (another repository), its stderr no terminal: an agent's commit,
        # or lazygit's, whose screen the line landed on
        (True, False, {}),
    ],
)
def test_nothing_is_said_without_a_person_watching(
    tmp_path: Path, terminal: bool, watched: bool, env: dict[str, str]
) -> None:
    said, err = run_hook(tmp_path / "index.sqlite.lock", env, terminal=terminal, watched=watched)

    assert said == "" and err == b""


def test_a_lock_taken_at_once_opens_no_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit that waits for nothing pays nothing: the terminal is opened only once the
    wait has lasted SAY_AFTER seconds."""
    opened: list[str] = []
    real_open = os.open

    def recorded(path: str, *args: int) -> int:
        opened.append(str(path))
        return real_open(path, *args)

    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(os, "open", recorded)
    with module.waited_lock(tmp_path / "a.lock", 60.0, "a build"):
        pass

    assert "/dev/tty" not in opened


@pytest.mark.parametrize("terminal", [True, False])
def test_the_shim_marks_a_commit_whose_output_goes_to_no_terminal(
    tmp_path: Path, terminal: bool
) -> None:
    """An agent's `git commit`, its output piped: the person at the controlling terminal is
    not watching that commit, and a line there would land in whatever they are doing."""
    repo = NotesRepo(tmp_path / "memory")
    shutil.copytree(PROJECT / "hooks", repo.root / "hooks")
    (repo.root / ".pre-commit-config.yaml").write_text(SEEING)
    repo.git("add", "-A")
    master, slave = os.openpty()
    try:
        done = subprocess.run(
            ["sh", "hooks/memidx-hook", "pre-commit"],
            cwd=repo.root,
            env=clean_env(MEMIDX_PYTHON=sys.executable, PRE_COMMIT_HOME=str(tmp_path / "pc")),
            stdout=subprocess.PIPE,
            stderr=slave if terminal else subprocess.PIPE,
            check=False,
            timeout=120,
        )
    finally:
        os.close(slave)
        os.close(master)

    assert done.returncode == 0, done
    assert (repo.root / ".git" / "unseen").read_text() == ("0" if terminal else "1")

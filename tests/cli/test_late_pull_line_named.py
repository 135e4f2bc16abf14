"""A late pull that named what it pulls (`git pull upstream main`, a fork's pull from the
project it forked, on a branch that tracks origin/main): its line (memidx.git.late_pull_line)
said it pulled the branch's upstream, which the branch held, so `memidx status` dropped it as
soon as that pull failed, and the person was left with git's advice (`git reset --hard`).
What it pulled is FETCH_HEAD's: the line stays until the branch holds that. Here the pull is
a real `git pull`, held in its fetch (its upload-pack sleeps) while memidx says its line."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import late_pull_line
from memidx.index.failures import pull_trace
from memidx.process_start import running_since
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo, clean_env

REF = "notes/new-lesson.md"
WHY = "its ref's lock held for over 1 s, or HEAD moved since"
HELD = "sleep 120;:"  # the upstream's upload-pack: the pull waits in its fetch


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[NotesRepo, NotesRepo]]:
    """`one` tracks origin/main and has `upstream` too, which has a commit `one` lacks."""
    one, two = clones(tmp_path)
    assert one.memidx("ingest").code == 0
    two.git("remote", "add", "upstream", str(tmp_path / "upstream.git"))
    two.git("init", "-q", "--bare", "-b", "main", str(tmp_path / "upstream.git"))
    two.git("pull", "-q", "--no-rebase", "origin", "main")
    two.note("theirs.md", "Theirs", "a note from the project forked")
    two.commit("theirs")
    two.git("push", "-q", "upstream", "main")  # origin/main: one holds it
    one.git("remote", "add", "upstream", str(tmp_path / "upstream.git"))
    yield one, two


def _pull(one: NotesRepo, *argv: str) -> subprocess.Popen[bytes]:
    """A person's `git <argv>` held in its fetch, its command line readable."""
    one.git("config", "remote.upstream.uploadpack", HELD)
    process = subprocess.Popen(["git", *argv], cwd=one.root, env=clean_env(),
                               stdout=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    until = time.monotonic() + 30
    while not Path(f"/proc/{process.pid}/cmdline").read_bytes().startswith(b"git\0"):
        assert time.monotonic() < until, "the pull did not start"
        time.sleep(0.01)
    return process


def _end(one: NotesRepo, process: subprocess.Popen[bytes]) -> None:
    """The pull ends, failed; its fetch had written FETCH_HEAD (done here, as it would)."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    one.git("config", "--unset", "remote.upstream.uploadpack")
    one.git("fetch", "-q", "upstream", "main")


def _row(repo: NotesRepo) -> str:
    out = repo.memidx_process("status").out
    return next((line for line in out.splitlines() if line.startswith("git pull:")), "")


@pytest.mark.parametrize(
    "argv",
    [
        ["pull", "--no-rebase", "upstream", "main"],
        ["pull", "-s", "ort", "-X", "theirs", "upstream", "main"],
        ["-c", "alias.up=pull --no-rebase upstream", "up", "main"],
    ],
)
def test_a_pull_that_named_its_remote_keeps_its_line_until_its_branch_holds_that(
    pair: tuple[NotesRepo, NotesRepo], argv: list[str]
) -> None:
    one, _ = pair
    config = load_config(one.root, env={})
    pull = _pull(one, *argv)
    try:
        start = running_since(str(pull.pid))
        late_pull_line.say_unhelped(one.root, (str(pull.pid), f"pull {start}"), [REF], WHY,
                                    ref="refs/heads/main", old=one.git("rev-parse", "HEAD").strip(),
                                    unhelped=pull_trace(config))  # fmt: skip
    finally:
        _end(one, pull)

    assert "git pull:" in _row(one), "the pull failed: what it pulled is not in main"
    assert config.pull_error_path.exists()

    one.git("pull", "-q", "--no-rebase", "upstream", "main")

    assert _row(one) == ""
    assert not config.pull_error_path.exists()

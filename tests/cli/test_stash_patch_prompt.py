"""A `git stash -p` at its prompt (memidx/git/still_busy.py) waits for the person, for as long as
they take to answer: a `remember` beside it waited its whole bound (10 s) and then kept the
note pending ("a git command taking the index here is still under way"). memidx must not move
HEAD under it (the stash is built on the HEAD it read), so it now keeps the note pending at
once and says which git it left alone. `git stash -kp` (short options run together) was not
seen as one: memidx waited its whole 10 s for it."""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from memidx.git.hunk_prompts import asks, stash_asks
from tests.alone import memidx_waiting_long
from tests.helpers import GIT_IDENTITY, clean_env, started_memory

BODY = "The build cache lives in the runner's home folder, not in the work tree.\n"


@pytest.mark.parametrize("asked", [["-p"], ["-kp"], ["push", "--patc"]])
def test_remember_beside_a_stash_at_its_prompt_keeps_the_note_pending_at_once(
    tmp_path: Path, asked: list[str]
) -> None:
    """Told by what the remember did, its wait made long (memidx_waiting_long): one that
    waited for the stash is still waiting when given up on."""
    repo = started_memory(tmp_path)
    (repo.root / "notes" / "start.md").write_text("# Start\n\nAn edit of the person's.\n")
    stash = subprocess.Popen(
        ["git", *GIT_IDENTITY, "stash", *asked], cwd=repo.root, env=clean_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert stash.stdout is not None
        prompt = _until_asked(stash.stdout.fileno())  # at the prompt now
        assert b"Stash this hunk" in prompt, prompt
        done = memidx_waiting_long(repo, "remember", "--title", "Build cache", stdin=BODY)
    finally:
        stash.kill()
        stash.wait(timeout=10)
    assert "Traceback" not in done.err, done.err
    assert "`git stash -p` here waits at its prompt" in done.err, done.err
    assert (repo.root / "notes" / "build-cache.md").exists()  # kept, pending: nothing lost


def _until_asked(fd: int) -> bytes:
    """What the stash printed until it asks about the hunk (5 s at most)."""
    said, deadline = b"", time.monotonic() + 5
    while b"Stash this hunk" not in said and time.monotonic() < deadline:
        if select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            said += chunk
    return said


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (["-p"], True),
        (["push", "--patch"], True),
        (["save", "-kp", "wip"], True),
        (["push", "-pm", "wip"], True),
        (["push", "notes/a.md", "-p"], True),  # git takes options after a pathspec
        (["push", "-mp"], False),  # the message is "p"
        (["push", "-m", "-p"], False),  # the message is "-p"
        (["push", "--message", "-p"], False),
        (["push", "--", "-p"], False),  # a pathspec
        (["push", "--pa"], False),  # git says it is ambiguous (--pathspec-from-file)
        (["push", "-k"], False),
        ([], False),
        (["show", "-p"], False),
        (["pop", "-p"], False),
        (["branch", "-p"], False),
    ],
)
def test_a_stash_asks_hunk_by_hunk_as_git_reads_its_options(
    after: list[str], expected: bool
) -> None:
    assert stash_asks(after) is expected


@pytest.mark.parametrize(
    ("command", "after", "expected"),
    [
        ("add", ["-p"], True),
        ("add", ["-vp"], True),
        ("add", ["-Ni"], True),
        ("add", ["--inter"], True),
        ("add", ["-u"], False),
        ("add", ["--", "-p"], False),
        ("reset", ["-qp"], True),
        ("reset", ["-q", "HEAD"], False),
        ("restore", ["-Sp"], True),
        ("restore", ["-s", "-p"], False),  # the tree is named "-p"
        ("restore", ["-sp"], False),  # the tree is "p"
        ("restore", ["-ps", "HEAD"], True),
        ("restore", ["--source=HEAD", "--patch"], True),
    ],
)
def test_a_git_asks_at_its_prompt_as_git_reads_its_options(
    command: str, after: list[str], expected: bool
) -> None:
    assert asks(command, after) is expected

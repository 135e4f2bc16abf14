"""A turn filed while `memidx haystack purge` waits for a person's git: the purge held the
clone writer's lock while it waited for git (10 s, for the rewrite of HEAD's unpushed commits,
then as long again for git's index and for the other writers' commit), so the filing waited
behind it: 10.0 s behind a `git commit -a` in its editor, where an agent's hook has seconds.
The purge waits for git before it takes the lock now, and only briefly under it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_late_merge import wait_for
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, started_memory

HOLD_S = 20  # the person's `git commit -a` keeps its editor open this long: past the purge's
# wait for git (10 s, then 2 s under the lock)
SECRET = "the deploy key is kept in the blue vault, rotated weekly"


def _file(repo: NotesRepo, turn: dict[str, str]) -> tuple[float, dict[str, object]]:
    began = time.monotonic()
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps(turn))
    assert run.code == 0, run.err
    return time.monotonic() - began, run.json()


def _segments(repo: NotesRepo) -> bytes:
    return b"".join(p.read_bytes() for p in (repo.root / "notes" / "haystack").rglob("*.krd"))


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_turn_is_filed_at_once_while_a_purge_waits_for_git(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    # set up in-process (three processes cost ~0.6 s of CPU more): the later filing is timed
    turn = json.dumps({"user": "where is the deploy key", "assistant": SECRET})
    secret = repo.memidx("file-turn", "--json", stdin=turn).json()
    assert repo.memidx("haystack", "commit").code == 0  # unpushed: purge rewrites it
    assert repo.memidx("forget", str(secret["id"])).code == 0
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, edited by a person.\n")
    editor = f"sleep {HOLD_S}; echo 'a person edits start' >"
    person = subprocess.Popen(
        ["git", "commit", "-q", "-a"],
        cwd=repo.root,
        env=clean_env(GIT_EDITOR=editor),
        stderr=subprocess.PIPE,
    )
    purge: subprocess.Popen[str] | None = None
    try:
        wait_for("git's index lock", (repo.root / ".git" / "index.lock").exists)
        purge = subprocess.Popen(
            [str(MEMIDX_BIN), "haystack", "purge"],
            cwd=repo.root,
            env=clean_env(MEMIDX_ROOT=str(repo.root)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)  # the purge is waiting for git
        took, later = _file(repo, {"user": "a later question", "assistant": "a later answer"})
        assert took < 5, took  # it waited 10 s behind the purge
        _, err = purge.communicate(timeout=60)
        assert purge.returncode == 1, err  # git outlasted the purge's wait: nothing changed
        assert "no segment changed (try again" in err and "Traceback" not in err, err
        assert SECRET.encode() in _segments(repo)
    finally:
        if purge is not None and purge.poll() is None:
            purge.kill()
            purge.wait()
        _, person_err = person.communicate(timeout=HOLD_S + 60)
    assert person.returncode == 0, person_err
    again = repo.memidx_process("haystack", "purge")  # once git let go: it finishes
    assert again.code == 0, again.err
    assert SECRET.encode() not in _segments(repo)
    assert SECRET not in repo.git("log", "-p", "--text", "--all")
    shown = repo.memidx_process("show", str(later["id"]))  # the later turn is kept
    assert shown.code == 0 and "a later answer" in shown.out, shown.err

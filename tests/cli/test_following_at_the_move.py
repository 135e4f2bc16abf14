"""A memidx command that moves HEAD holds its `following` lock (memidx/index/following.py: a
search is told the index follows HEAD, a commit's drift check waits up to 10 s for it) only
from HEAD's move on (memidx/head_move.py), not through its wait for a person's git before it:
a `remember` beside a `git commit -- <path>` in its editor held it those 10 s, so a search said
"a memidx command ... is bringing the index to it now" of an index behind for another reason,
and a person's commit whose check found a drift waited for memidx, which waited for it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memidx.config import load_config
from memidx.index.following import followed_now
from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, clean_env, started_memory

BODY = "The build cache lives in the runner's home folder, not in the work tree.\n"


def test_remember_waiting_for_a_person_s_commit_holds_no_following_lock(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    (repo.root / "person.txt").write_text("the person's work\n")
    repo.git("add", "person.txt")
    config = load_config(repo.root, {"MEMIDX_ROOT": str(repo.root)})
    lock = repo.root / ".git" / "index.lock"
    # the person's commit of a path, in its editor for 3 s: it holds git's index all along
    editor = ("-c", "core.editor=sleep 3; true")
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, *editor, "commit", "-q", "-e", "-m", "mine", "--", "person.txt"],
        cwd=repo.root, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    memidx = None
    try:
        for _ in range(100):  # 5 s at most
            if lock.exists():
                break
            time.sleep(0.05)
        assert lock.exists()
        (tmp_path / "body").write_text(BODY)
        with (tmp_path / "body").open() as body:
            memidx = subprocess.Popen(
                [str(MEMIDX_BIN), "remember", "--title", "Build cache"], cwd=repo.root,
                env=clean_env(MEMIDX_ROOT=str(repo.root)), stdin=body,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        held: list[bool] = []
        while person.poll() is None:  # memidx waits for that commit meanwhile (3 s at most)
            held.append(followed_now(config))
            time.sleep(0.05)
        out, err = memidx.communicate(timeout=60)
    finally:
        for process in (person, memidx):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    assert person.returncode == 0 and memidx is not None
    assert memidx.returncode == 0, err
    assert out.strip() == "notes/build-cache.md"
    assert len(held) > 10 and not any(held), held  # never while it waited
    assert repo.git("status", "--porcelain") == ""

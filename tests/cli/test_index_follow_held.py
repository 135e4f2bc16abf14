"""memidx's index follow of a commit on main looked at HEAD, then waited for git's index, which a
person's merge held; the person's `git switch -c side HEAD~1` came next, and the reset that
followed the wait took the note memidx forgot on main out of side's index: its deletion
staged there for the person's next commit, its file untracked, and git refused every switch
back ("untracked working tree files would be removed by checkout"), so the clone never
converged (tests/benchmark/chaos.py, seed 2). The look at HEAD waits for git's index now."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from memidx.git.index_follow import follow
from memidx.git.plumbing import Plumbing
from tests.helpers import NotesRepo, clean_env


def test_a_switch_after_the_index_was_held_gets_no_forgotten_note_staged(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("first.md", "First", "a first note")
    repo.note("gone.md", "Gone", "a note memidx forgets on main")
    repo.commit("both")
    repo.git("branch", "side")  # HEAD~1 once the forget is committed: it holds the note
    repo.git("rm", "-q", "--cached", "notes/gone.md")  # as memidx's plumbing commit does it
    forget = repo.git("commit-tree", repo.git("write-tree").strip(), "-p", "HEAD", "-m", "forget")
    repo.git("reset", "-q", "HEAD", "--", "notes/gone.md")  # git's index as memidx left it
    repo.git("update-ref", "HEAD", forget.strip())
    (repo.root / "notes" / "gone.md").unlink()
    lock = repo.root / ".git" / "index.lock"
    lock.write_text("")  # the person's merge holds git's index
    failed: list[BaseException] = []

    def follow_the_forget() -> None:
        try:
            follow(Plumbing(repo.root), repo.root, ["notes/gone.md"], forget.strip(),
                   branch="refs/heads/main", deadline=time.monotonic() + 20,
                   done="forgotten", shows="it")  # fmt: skip
        except BaseException as exc:  # noqa: BLE001 - said by the assertion below
            failed.append(exc)

    following = threading.Thread(target=follow_the_forget)
    following.start()
    try:
        time.sleep(1.5)  # memidx waits for the index (it looked at HEAD first: main)
        # the person's switch to side once the merge let go, as git writes it: HEAD, then
        # side's index and files (under the lock, renamed into place)
        repo.git("symbolic-ref", "HEAD", "refs/heads/side")
        index = repo.root / ".git" / "index.side"
        env = {**clean_env(), "GIT_INDEX_FILE": str(index)}
        repo_side = Plumbing(repo.root)
        repo_side.git.read_tree("side", env=env)
        repo_side.git.checkout_index("-f", "--", "notes/gone.md", env=env)
        index.replace(repo.root / ".git" / "index")
    finally:
        lock.unlink(missing_ok=True)
        following.join(timeout=60)
    assert not following.is_alive()
    assert failed == []

    assert repo.git("status", "--porcelain") == ""  # it said `D  notes/gone.md`, `?? ...`

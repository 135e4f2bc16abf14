"""A person's git that read memidx's HEAD right after the move and stopped in the midst of its
work (a `git rebase -i` at a `break` or a conflict, a merge with conflicts), beside a late
`git pull` still in its fetch (memidx.git.late_pull): that git ended before memidx put HEAD
back, so it was taken for one that cannot fail any more, and the branch was put back under
the rebase, whose end then failed ("cannot lock ref 'refs/heads/main': is at <old> but
expected <memidx's>"). And another git's ref lock, held a moment as memidx puts HEAD back."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_share_fetch_race import wait_for
from tests.helpers import GIT_IDENTITY, clean_env
from tests.late_pulls import NOTE, commit_beside_a_late_pull


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_branch_is_not_put_back_under_a_rebase_that_read_it_and_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.git import commit as commit_module

    hold = tmp_path / "hold"
    rebases: list[subprocess.Popen[str]] = []
    real = commit_module.committers

    def found(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        if rebases:
            return real(root, *args, **kwargs)
        # the person's `git rebase -i`, at its todo list: HEAD (memidx's) read
        editor = f'touch "{hold}.in"; while [ ! -e "{hold}.go" ]; do sleep 0.02; done; '
        editor += 'echo break >"$1"'
        env = clean_env(GIT_SEQUENCE_EDITOR=f"sh -c '{editor}' editor")
        argv = ["git", *GIT_IDENTITY, "rebase", "-q", "-i", "HEAD"]
        piped = subprocess.PIPE
        rebases.append(subprocess.Popen(argv, cwd=root, env=env, text=True,
                                        stdout=piped, stderr=piped))  # fmt: skip
        assert wait_for(None, Path(f"{hold}.in")), "the rebase never reached its todo list"
        late = real(root, *args, **kwargs)  # the look after the move: the rebase running
        Path(f"{hold}.go").touch()
        rebases[0].communicate(timeout=120)  # stopped at its break: ended
        return late

    monkeypatch.setattr(commit_module, "committers", found)
    one, _ = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md", NOTE.encode())
    assert rebases[0].returncode == 0
    memidx_s = one.git("rev-parse", "HEAD").strip()  # the rebase stopped on memidx's commit

    done = subprocess.run(["git", "rebase", "--continue"], cwd=one.root, env=clean_env(),
                          capture_output=True, text=True, check=False)  # fmt: skip

    assert done.returncode == 0, done.stderr  # was: cannot lock ref 'refs/heads/main'
    assert one.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    one.git("merge-base", "--is-ancestor", memidx_s, "HEAD")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize("lock", ["HEAD.lock", "refs/heads/main.lock"])
def test_a_ref_lock_held_a_moment_does_not_keep_head_from_being_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lock: str
) -> None:
    """Another git held HEAD's or the branch's lock as memidx put HEAD back for the pull (a
    `git gc --auto`'s reflog expire, ~0.3 s): the put-back's `git update-ref` gave up after
    git's 100 ms, nothing was put back, silently, and the pull failed ("run git reset
    --hard"). It waits for that lock as long as it waits for the pull's child in its exec."""
    from memidx.git import commit as commit_module

    real, held = commit_module.committers, list[threading.Timer]()

    def found(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        if not held:  # the look after the move: the lock taken now, let go in 0.3 s
            (root / ".git" / lock).write_text("")
            held.append(threading.Timer(0.3, (root / ".git" / lock).unlink))
            held[0].start()
        return real(root, *args, **kwargs)

    monkeypatch.setattr(commit_module, "committers", found)
    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode())  # fmt: skip
    held[0].join()

    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr
    assert one.git("status", "--porcelain").strip() == ""

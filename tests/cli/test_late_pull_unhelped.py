"""A late `git pull` HEAD was not put back for (memidx.git.late_pull): a ref's lock held past
the put-back's 1 s wait, a rebase of the person's stopped midway, another git beside the pull.
The pull then fails with git's own advice ("run `git reset --hard` to recover", which throws
away the person's work), and nothing reached `memidx status`: a silent failure. Each such
give-up leaves one line in the pull trace that status shows, saying to run `git pull` again;
a pull's merge since clears it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import late_pull
from memidx.githooks.hook import run_hook
from memidx.index.failures import pull_trace
from tests.helpers import NotesRepo, run_in_process, started_memory
from tests.late_pulls import NOTE, pull_at_the_look

REF = "notes/new-lesson.md"
BYTES = b"---\ntitle: New lesson\n---\n\nThe cache broke when the disk filled.\n"
AGAIN = "run `git pull` again"


def _a_pull(_root: Path) -> dict[str, str]:
    """committers' answer: one person's `git pull`, still in its fetch."""
    return {"4242": "pull 1"}


def _none(_late: object) -> list[str]:
    """_pulls_alone's answer beside a person's git: no pull alone."""
    return []


def _status(repo: NotesRepo) -> tuple[str, dict[str, Any]]:
    """`memidx status` and its --json, in process (each process cost ~0.4 s of CPU, 14 here)."""
    said = repo.memidx("status").out
    return said, json.loads(repo.memidx("status", "--json").out)


def _put_back(repo: NotesRepo, commit: str) -> list[str]:
    """put_back_for_a_pull of memidx's `commit` of REF for pid 4242; what it said unhelped."""
    said: list[str] = []
    trace = pull_trace(load_config(repo.root, env={}))

    def unhelped(line: str, about: str) -> None:
        said.append(line)
        trace(line, about)

    late_pull.put_back_for_a_pull(
        repo.root, {"4242": "pull 1"}, commit, [REF], written={REF: BYTES},
        literal=[f":(literal){REF}"], ref=repo.git("symbolic-ref", "HEAD").strip(),
        unhelped=unhelped,
    )  # fmt: skip
    return said


@pytest.mark.parametrize("held", ["refs/heads/main.lock", "HEAD.lock", "rebase-merge"])
def test_a_put_back_given_up_is_said_in_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str
) -> None:
    repo = started_memory(tmp_path)
    (repo.root / REF).write_bytes(BYTES)
    commit = repo.commit("memidx remember: New lesson")  # memidx's move, as committed
    monkeypatch.setattr(late_pull, "_pulls_alone", list)  # each pid a pull still fetching
    monkeypatch.setattr(late_pull, "committers", _a_pull)
    where = repo.root / ".git" / held
    if held.endswith(".lock"):  # another git's, held past the put-back's wait (1 s)
        where.write_text("")
    else:  # a rebase of the person's stopped at a conflict or a `break`
        where.mkdir()
    before, _ = _status(repo)
    assert "git pull:" not in before

    said = _put_back(repo, commit)  # no GitBusy: nothing put back

    assert repo.git("rev-parse", "HEAD").strip() == commit
    assert len(said) == 1 and AGAIN in said[0], said
    assert "pid 4242" in said[0] and REF in said[0]
    out, data = _status(repo)
    line = next(line for line in out.splitlines() if line.startswith("git pull:"))
    assert AGAIN in line and ("rebase-merge" in line if held == "rebase-merge" else True)
    assert data["pull_failure"]["hook"] == "git pull"
    assert AGAIN in data["pull_failure"]["message"]
    assert data["hook_failure"] is None  # the memory is fine: status's exit is not about it


def test_a_pull_beside_a_person_s_git_nothing_was_put_back_for_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    (repo.root / REF).write_bytes(BYTES)
    commit = repo.commit("memidx remember: New lesson")
    monkeypatch.setattr(late_pull, "_pulls_alone", _none)  # a commit beside it
    monkeypatch.setattr(late_pull, "_late_pulls", list)  # the pull, still fetching

    said = _put_back(repo, commit)

    assert len(said) == 1 and "another git of the clone ran beside it" in said[0], said
    assert AGAIN in said[0]


def test_no_late_pull_says_nothing(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    (repo.root / REF).write_bytes(BYTES)
    commit = repo.commit("memidx remember: New lesson")

    assert _put_back(repo, commit) == []  # pid 4242 is no pull running: nothing to say


def test_the_put_back_s_word_is_true_of_a_pull_that_read_head_after_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull that started just after the move read memidx's HEAD and would not have failed;
    it is put back for too (harmless), and the GitBusy said it "would have failed"."""
    repo = started_memory(tmp_path)
    (repo.root / REF).write_bytes(BYTES)
    commit = repo.commit("memidx remember: New lesson")
    monkeypatch.setattr(late_pull, "_pulls_alone", list)
    monkeypatch.setattr(late_pull, "committers", _a_pull)

    with pytest.raises(GitBusy) as raised:
        _put_back(repo, commit)

    said = raised.value.message
    assert "would have failed" not in said
    assert "a pull that read HEAD before that fails on it; one that read it after does not" in said
    assert said.endswith("so memidx put HEAD back")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_remember_beside_a_late_pull_it_could_not_put_back_for_leaves_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real path: `memidx remember` while a person's pull, started in the instant of the
    move, is in its fetch, and another git holds the branch's lock for all of the put-back's
    wait. The pull fails; status names it and what to do; that `git pull` again goes through,
    and its merge's hook clears the line."""
    from memidx.git import commit as commit_module

    late = pull_at_the_look(tmp_path, monkeypatch)
    one, pulls = late.one, late.pulls
    lock = one.root / ".git" / "refs" / "heads" / "main.lock"
    committers = commit_module.committers

    def found(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        if pulls and not lock.exists():  # the look after the move: another git's lock, held
            lock.write_text("")
        return committers(root, *args, **kwargs)

    monkeypatch.setattr(commit_module, "committers", found)
    try:
        run_in_process(one.root, "remember", "--title", "Agent's note", stdin=NOTE)
    finally:
        lock.unlink(missing_ok=True)
        late.go()
    pulled = late.outcome()
    monkeypatch.undo()
    assert pulled.returncode != 0, pulled.stderr  # nothing put back: it failed, as git says

    out, _ = _status(one)
    line = next((line for line in out.splitlines() if line.startswith("git pull:")), out)
    assert AGAIN in line and f"pid {pulls[0].pid}" in line
    again = one.git("pull", "-q", "--no-rebase", "--no-edit")  # as the line says: it goes through
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split(), again
    run_hook(one.root, "post-merge")  # that pull's merge: the line is done with
    assert "git pull:" not in _status(one)[0]

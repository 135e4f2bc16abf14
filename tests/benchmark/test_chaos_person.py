"""The chaos bench's person settles what git stopped on, commits their own edit when it is in
the way, goes home to main, and the bench names each broken promise once by its cause."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.benchmark.chaos_finish import missing, report
from tests.benchmark.chaos_person import home, persist, settle, stopped
from tests.benchmark.fleet import git
from tests.helpers import clean_env

WIP = "notes/person-0.md"


@dataclass(slots=True)
class Clone:
    """A chaos Machine's person-facing part, on a plain git repository."""

    root: Path
    env: dict[str, str]
    index: int = 0
    step: int = 0
    staged: str = ""
    unstaged: str = ""
    settled: dict[str, int] = field(default_factory=dict[str, int])
    broken: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    failures: list[str] = field(default_factory=list[str])

    def fail(self, what: str, text: str) -> None:
        self.failures.append(f"{what}: {text}")


def commit(c: Clone, path: str, text: str) -> None:
    (c.root / path).parent.mkdir(parents=True, exist_ok=True)
    (c.root / path).write_text(text)
    assert git(c.root, c.env, "add", path).code == 0
    assert git(c.root, c.env, "commit", "-q", "-m", f"{path}: {text[:10]}").code == 0


@pytest.fixture
def clone(tmp_path: Path) -> Clone:
    env = clean_env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"))
    c = Clone(tmp_path / "repo", env)
    c.root.mkdir()
    git(c.root, env, "init", "-q", "-b", "main")
    commit(c, WIP, "base\n")
    commit(c, "notes/shared.md", "base\n")
    return c


def diverge(c: Clone) -> None:
    """A side branch and main that change the same line of notes/shared.md."""
    git(c.root, c.env, "switch", "-q", "-c", "side", "HEAD")
    commit(c, "notes/shared.md", "the side's line\n")
    git(c.root, c.env, "switch", "-q", "main")
    commit(c, "notes/shared.md", "main's line\n")


@pytest.mark.parametrize(
    "stop", [("rebase", "-q", "side"), ("merge", "-q", "--no-edit", "side")], ids=lambda s: s[0]
)
@pytest.mark.parametrize("seed", range(6))
def test_a_conflict_git_stopped_on_is_resolved_or_aborted(
    clone: Clone, stop: tuple[str, ...], seed: int
) -> None:
    diverge(clone)
    assert git(clone.root, clone.env, *stop).code != 0
    assert stopped(clone) == stop[0]

    settle(clone, random.Random(seed))

    assert stopped(clone) == ""
    assert git(clone.root, clone.env, "status", "--porcelain").out == ""
    assert "<<<<<<<" not in (clone.root / "notes/shared.md").read_text()
    assert git(clone.root, clone.env, "branch", "--show-current").out.strip() == "main"
    assert sum(clone.settled.values()) >= 1
    assert clone.failures == []


@pytest.mark.parametrize("pull", ["merge", "rebase"])
@pytest.mark.parametrize("seed", range(4))
def test_a_conflicted_autostash_apply_is_settled(clone: Clone, pull: str, seed: int) -> None:
    git(clone.root, clone.env, "switch", "-q", "-c", "side", "HEAD")
    commit(clone, "notes/shared.md", "the side's line\n")
    git(clone.root, clone.env, "switch", "-q", "main")
    (clone.root / "notes/shared.md").write_text("the person's line\n")
    done = git(clone.root, clone.env, pull, "-q", "--autostash", "side")
    assert "Applying autostash resulted in conflicts" in done.err
    assert stopped(clone) == ""  # nothing stopped, yet the file is unmerged

    settle(clone, random.Random(seed))

    assert git(clone.root, clone.env, "diff", "--name-only", "--diff-filter=U").out == ""
    held = (clone.root / "notes/shared.md").read_text()
    assert held in ("the side's line\n", "the person's line\n")
    assert git(clone.root, clone.env, "stash", "list").out.count("\n") == 1  # git kept it
    assert clone.settled == {"autostash conflict resolved": 1}
    assert clone.failures == []


def test_a_switch_back_refused_for_the_persons_edit_goes_on_after_they_commit_it(
    clone: Clone,
) -> None:
    commit(clone, WIP, "main's draft\n")  # the switch to main would overwrite the edit
    git(clone.root, clone.env, "switch", "-q", "-c", "side", "HEAD~1")
    (clone.root / WIP).write_text("the person's edit\n")

    back = persist(clone, random.Random(1), WIP, "switch", "-q", "main")

    assert back.code == 0
    assert git(clone.root, clone.env, "branch", "--show-current").out.strip() == "main"
    assert git(clone.root, clone.env, "show", f"side:{WIP}").out == "the person's edit\n"


def test_a_person_found_on_a_side_branch_goes_home_first(clone: Clone) -> None:
    commit(clone, WIP, "main's draft\n")
    git(clone.root, clone.env, "switch", "-q", "-c", "side", "HEAD~1")
    (clone.root / WIP).write_text("the person's edit\n")

    home(clone, random.Random(1), WIP)

    assert git(clone.root, clone.env, "branch", "--show-current").out.strip() == "main"
    assert clone.settled == {"found on a side branch": 1, "own work committed to go on": 1}


def test_everything_one_place_lacks_for_one_cause_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    refs = {f"notes/n{k}.md" for k in range(300)}
    broken = missing("clone did not converge", "c2", refs, " its HEAD lacks")
    broken += missing("remote lacks note", "c0's", {"notes/a.md"}) + missing("x", "c1", set())

    report(broken)

    out = capsys.readouterr().out
    assert len(broken) == 2
    assert out.splitlines()[0] == "2 promises broken: clone did not converge 1, remote lacks note 1"
    assert "c2: 300 its HEAD lacks (notes/n0.md, notes/n1.md, notes/n10.md, ...)" in out


def test_a_rebase_folder_git_left_without_its_head_name_is_cleared(clone: Clone) -> None:
    folder = clone.root / ".git" / "rebase-merge"  # what `pull --rebase --autostash` left
    folder.mkdir()
    (folder / "onto").write_text(git(clone.root, clone.env, "rev-parse", "HEAD").out)
    assert git(clone.root, clone.env, "rebase", "--abort").code != 0

    settle(clone, random.Random(1))

    assert stopped(clone) == ""
    assert not folder.exists()
    assert clone.settled["stale rebase folder removed"] == 1

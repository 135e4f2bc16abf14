"""memidx's commits run git by name (memidx/git/plumbing.py) in the memory's work tree, whatever
repository an outer git names: a git hook in a linked work tree of the person's project runs
with that work tree's GIT_DIR and GIT_INDEX_FILE, which git follows over `-C`."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import NotesRepo


def test_a_remember_under_a_hook_of_another_repository_commits_in_the_memory_alone(
    repo: NotesRepo, tmp_path: Path
) -> None:
    repo.note("one.md", "One", "body one")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    project = NotesRepo(tmp_path / "project")  # the person's, its checkout on another branch
    project.git("checkout", "-q", "-b", "master")
    project.write("code.txt", "code\n")
    tip = project.commit("project")
    linked = tmp_path / "linked"  # a linked work tree on `main`, the memory's branch's name
    project.git("worktree", "add", "-q", "-b", "main", str(linked))
    admin = project.root / ".git" / "worktrees" / "linked"

    run = repo.memidx_process(
        "remember", "--title", "Descaling", stdin="The espresso machine needs descaling.\n",
        GIT_DIR=str(admin), GIT_INDEX_FILE=str(admin / "index"),  # as its post-commit hook has
    )  # fmt: skip

    assert run.code == 0, run.err
    assert project.git("rev-parse", "main").strip() == tip, project.git("log", "main")
    assert not NotesRepo(linked, init=False).git("status", "--porcelain").strip()
    assert repo.git("log", "-1", "--format=%s").strip() == "memidx remember: Descaling", run.err
    assert not repo.git("status", "--porcelain", "--", "notes/").strip()  # git's index follows

"""How memidx reads a running git's command line as git does: global options with their values
(both `--git-dir PATH` and `--git-dir=PATH`), the command with its alias expanded, the
repository named by --git-dir or GIT_DIR (memidx/git/invocation.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.git.invocation import (
    GUESSED,
    PAGED_GUESS,
    SHELL_ALIAS,
    command_at,
    expanded,
    in_clone,
    named_git_dir,
    options,
    restores_paths,
)


@pytest.mark.parametrize(
    ("words", "at"),
    [
        (["commit"], 0),
        (["-c", "a.b=c", "-C", "dir", "commit"], 4),
        (["--git-dir=/r/.git", "--work-tree=/r", "commit"], 2),
        (["--config-env", "core.editor=EDITOR", "commit"], 2),
        (["--no-pager", "-p"], None),
    ],
)
def test_where_the_git_command_stands(words: list[str], at: int | None) -> None:
    assert command_at(words) == at


def test_global_options_with_their_values_in_both_forms() -> None:
    words = ["--git-dir=/r/.git", "-C", "x", "--work-tree", "/r", "-c", "-C=y", "commit", "-C"]
    assert options(words) == [
        ("--git-dir", "/r/.git"),
        ("-C", "x"),
        ("--work-tree", "/r"),
        ("-c", "-C=y"),
    ]


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (["-c", "alias.ci=commit -v", "ci", "-m", "x"], ["commit", "-v", "-m", "x"]),
        (["-c", "alias.CI=commit", "ci"], ["commit"]),  # git's keys ignore case
        (["-c", "alias.c=ci", "-c", "alias.ci=commit", "c"], ["commit"]),  # a chain
        (["-c", "alias.a=b", "-c", "alias.b=a", "a"], [SHELL_ALIAS]),  # a loop: not known
        (["-c", "alias.up=!git pull", "up"], [SHELL_ALIAS]),
        (["-c", "alias.br=branch", "br", "-d", "side"], ["branch", "-d", "side"]),
        (["-c", "alias.status=commit", "status"], ["status"]),  # git runs its builtin
        (["status", "-s"], ["status", "-s"]),
        (["-p"], []),
    ],
)
def test_the_command_with_its_alias_expanded(words: list[str], command: list[str]) -> None:
    assert expanded(words, None) == command


def test_the_repository_named_by_git_dir_after_the_dash_c_s(tmp_path: Path) -> None:
    words = ["-C", "sub", "--git-dir", "../r/.git", "commit"]
    named = named_git_dir(words, tmp_path)
    assert str(tmp_path / "r" / ".git") in named  # from `sub`, where -C leads
    assert str(tmp_path.parent / "r" / ".git") in named  # from where it went since


def test_the_repository_named_by_git_dir_in_the_environment(tmp_path: Path) -> None:
    environ = b"HOME=/h\0GIT_DIR=/r/.git\0PATH=/bin\0"
    assert named_git_dir(["commit"], tmp_path, environ) == ["/r/.git"]
    assert named_git_dir(["commit"], tmp_path, b"HOME=/h\0") == []


def test_a_git_works_in_the_clone_its_options_lead_to(tmp_path: Path) -> None:
    clone, other, elsewhere = tmp_path / "clone", tmp_path / "other", tmp_path / "elsewhere"
    for folder in (clone / ".git", other / ".git", elsewhere):
        folder.mkdir(parents=True)
    assert in_clone(elsewhere, ["-C", str(clone), "commit"], b"", [clone])  # not gone yet
    assert in_clone(elsewhere, ["-C", "../clone/notes", "commit"], b"", [clone])
    assert not in_clone(elsewhere, ["commit"], b"", [clone])
    assert in_clone(elsewhere, [f"--git-dir={clone / '.git'}", "commit"], b"", [clone])
    assert in_clone(elsewhere, ["commit"], f"GIT_DIR={clone}/.git\0".encode(), [clone])
    assert not in_clone(clone, ["--git-dir", str(other / ".git"), "commit"], b"", [clone])


def test_a_relative_git_dir_is_resolved_from_where_a_relative_work_tree_was(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "clone"
    (clone / "notes").mkdir(parents=True)
    (clone / ".git").mkdir()
    # started in tmp_path, now in its work tree
    assert in_clone(clone, ["--git-dir=clone/.git", "--work-tree=clone", "commit"], b"", [clone])
    environ = b"GIT_DIR=clone/.git\0GIT_WORK_TREE=clone\0"
    assert in_clone(clone, ["commit"], environ, [clone])
    assert not in_clone(clone, ["--git-dir=x/.git", "--work-tree=clone", "commit"], b"", [clone])


@pytest.mark.parametrize(
    ("args", "restores"),
    [
        (["-p"], True),  # at its prompt for minutes: never a switch
        (["-qp"], True),  # run together, as git takes them: waited its 10 s
        (["--patc"], True),  # a start of --patch git takes for it
        (["-bp"], False),  # a new branch named p
        (["--", "a.txt"], True),
        (["main", "--", "notes/x.md"], True),
        (["HEAD~1", "a.txt"], True),
        (["--ours", "a.txt"], True),
        (["--pathspec-from-file=list"], True),
        (["side"], False),  # a branch, or a file: git decides, so waited for
        (["main", "--"], False),
        (["-b", "new", "main"], False),
        (["--detach", "HEAD~1"], False),
        ([], False),
    ],
)
def test_a_checkout_of_paths_is_told_from_a_switch(args: list[str], restores: bool) -> None:
    assert restores_paths(args) is restores


def test_a_word_no_alias_can_be_named_is_no_alias_even_under_head_s_lock(tmp_path: Path) -> None:
    """A shim's /proc line (`/bin/sh /x/bin/git update-ref ...`, comm `git`) under HEAD's lock
    with no aliases read yet was taken for an alias of any git, so memidx's own move, run
    through it, was aborted as busy; a name git could take as an alias still is."""
    from memidx.git import invocation

    with invocation.holding(tmp_path):
        assert invocation.expanded(["/x/bin/git", "update-ref", "--stdin"], tmp_path)[0] == (
            "/x/bin/git"
        )
        assert invocation.expanded(["ci", "-m", "x"], tmp_path) == [invocation.UNREAD]


def test_an_alias_named_as_a_builtin_is_not_expanded() -> None:
    given = ["-c", "alias.stage=commit", "-c", "alias.whatchanged=branch -d x"]
    assert expanded([*given, "stage", "a"], None) == ["stage", "a"]
    assert expanded([*given, "whatchanged"], None) == ["whatchanged"]


@pytest.mark.parametrize(
    ("given", "command"),
    [
        (["-c", "help.autocorrect=immediate", "comit", "-m", "x"], [GUESSED]),
        (["-c", "help.autocorrect=prompt", "comit"], [GUESSED]),  # runs it on `y`
        (["-c", "help.autocorrect=5", "comit"], [GUESSED]),  # after half a second
        (["-c", "help.autocorrect=-1", "comit"], [GUESSED]),
        (["-c", "help.autocorrect=0", "comit"], ["comit"]),  # shows its guess, runs nothing
        (["-c", "help.autocorrect=never", "comit"], ["comit"]),
        (["comit"], ["comit"]),
        (["-c", "help.autocorrect=1", "subtree", "add"], ["subtree", "add"]),  # git-subtree
        (["-c", "help.autocorrect=1", "-c", "alias.ci=commit", "ci"], ["commit"]),
        (["-c", "help.autocorrect=1", "-c", "pager.commit=true", "comit"], [PAGED_GUESS]),
        (["-c", "help.autocorrect=1", "-c", "pager.merge=less", "comit"], [PAGED_GUESS]),
        (["-c", "help.autocorrect=1", "-c", "pager.commit=false", "comit"], [GUESSED]),
        (["-c", "help.autocorrect=1", "-c", "pager.log=less -S", "lgo"], [GUESSED]),  # reads
        (["-c", "pager.commit=true", "comit"], ["comit"]),  # not corrected: runs nothing
        (["-c", "help.autocorrect=1", "-c", "pager.commit", "comit"], [PAGED_GUESS]),  # true
        (["-c", "help.autocorrect=1", "-c", "pager.commit=", "comit"], [GUESSED]),  # false
    ],
)
def test_a_mistyped_command_git_corrects_and_runs_is_any_git(
    given: list[str], command: list[str]
) -> None:
    """`git comit` under help.autocorrect runs `git commit` (after its delay): memidx read
    `comit`, no command it waits for, and moved HEAD under the commit."""
    assert expanded(given, None) == command


def test_the_clone_s_help_autocorrect_is_read_with_its_aliases(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "help.autocorrect", "10"], check=True)

    assert expanded(["comit", "-m", "x"], tmp_path) == [GUESSED]
    assert expanded(["status"], tmp_path) == ["status"]


def test_the_clone_s_pager_for_a_commit_is_read_with_its_aliases(tmp_path: Path) -> None:
    """`pager.commit=true` in the clone's config: a `git comit` may commit in its pager."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for key, value in (("help.autocorrect", "10"), ("pager.commit", "true")):
        subprocess.run(["git", "-C", str(tmp_path), "config", key, value], check=True)

    assert expanded(["comit", "-m", "x"], tmp_path) == [PAGED_GUESS]


def test_the_clone_s_pager_for_a_commit_without_a_value_pages_it(tmp_path: Path) -> None:
    """`[pager] commit`, no value: a boolean git reads as true, as `pager.commit=true`."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "help.autocorrect", "10"], check=True)
    with (tmp_path / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write("[pager]\n\tcommit\n")

    assert expanded(["comit", "-m", "x"], tmp_path) == [PAGED_GUESS]

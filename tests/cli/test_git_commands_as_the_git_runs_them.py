"""A person's git read as that git runs it, with real git: the installed git's own commands
(not a fixed list naming builtins of later gits), a `git-<word>` on that git's PATH (not
memidx's), the aliases of one clone read while memidx holds another's HEAD lock (the MCP
server serves several), and a `git ci` met under HEAD's lock with its aliases not read yet
(memidx/git/aliases.py, memidx/git/invocation.py)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.git.invocation import GUESSED, UNREAD, commands, expanded, holding
from memidx.git.publish import committers
from tests.cli.test_git_forms_at_the_look import git_running, hooked, staged
from tests.helpers import NotesRepo


def listed(kind: str) -> set[str]:
    argv = ["git", f"--list-cmds={kind}"]
    return set(subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split())


def test_git_s_own_commands_are_the_installed_git_s() -> None:
    """`backfill`, `refs` and `replay` were listed as builtins: git 2.39 has none of them, so
    a person's alias of that name (which that git runs) was never expanded."""
    assert commands() == listed("main")  # its builtins and its exec path's commands
    assert listed("builtins") <= commands()


def test_an_alias_named_as_a_later_git_s_builtin_is_expanded_where_git_lacks_it() -> None:
    given = ["-c", "alias.refs=commit", "-c", "alias.replay=merge"]
    for word, command in (("refs", "commit"), ("replay", "merge")):
        want = [word] if word in listed("main") else [command]
        assert expanded([*given, word], None) == want


def test_a_git_dash_word_on_the_git_s_own_path_is_what_git_runs(tmp_path: Path) -> None:
    """git runs `git-<word>` of its PATH before an alias of that name, and guesses no other
    command for it (help.autocorrect); memidx looked on its own PATH, not that git's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "git-st"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    theirs = f"HOME=/h\0PATH={bin_dir}:/usr/bin:/bin\0".encode()
    without = b"HOME=/h\0PATH=/usr/bin:/bin\0"
    guess = ["-c", "help.autocorrect=immediate", "st"]
    alias = ["-c", "alias.st=commit", "st"]

    assert expanded(guess, None, theirs) == ["st"]  # their git-st runs
    assert expanded(guess, None, without) == [GUESSED]  # their git guesses: `git stash`...
    assert expanded(alias, None, theirs) == ["st"]
    assert expanded(alias, None, without) == ["commit"]
    exec_path = f"GIT_EXEC_PATH={bin_dir}\0PATH=/usr/bin:/bin\0".encode()
    assert expanded(guess, None, exec_path) == ["st"]


def test_the_persons_path_not_memidx_s_tells_a_guess(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git-st").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "git-st").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")  # memidx's, not the person's
    guess = ["-c", "help.autocorrect=immediate", "st"]

    assert expanded(guess, None, b"PATH=/usr/bin:/bin\0") == [GUESSED]
    assert expanded(guess, None) == ["st"]  # their environ unreadable: memidx's PATH


def test_a_clone_s_aliases_are_read_while_another_clone_s_lock_is_held(tmp_path: Path) -> None:
    """The MCP server serves several clones: while it held one's HEAD lock, no other clone's
    aliases were read, so a `git ci` there, running 1 s, was taken for a young shell alias."""
    clone, other = tmp_path / "clone", tmp_path / "other"
    for folder in (clone, other):
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(clone), "config", "alias.ci", "commit"], check=True)

    with holding(other):
        assert expanded(["ci", "-m", "x"], clone.resolve()) == ["commit", "-m", "x"]
    with holding(clone):  # its own lock: not read there, any git
        assert expanded(["ci", "-m", "x"], other.resolve()) == ["ci", "-m", "x"]


def test_a_linked_work_tree_s_aliases_are_not_read_under_its_repository_s_lock(
    repo: NotesRepo, tmp_path: Path
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked), "-b", "side")
    repo.git("config", "alias.ci", "commit")

    with holding(repo.root):
        assert expanded(["ci"], linked.resolve()) == [UNREAD]


def test_a_git_ci_met_under_head_s_lock_its_aliases_unread_is_waited_for(repo: NotesRepo) -> None:
    """Met by the look under HEAD's lock with the clone's aliases never read, a `git ci` was
    taken for an alias running a shell: waited for only while young (0.2 s), so one in its
    pre-commit hook for 1 s had HEAD moved under its commit ("cannot lock ref 'HEAD'")."""
    staged(repo)
    repo.git("config", "alias.ci", "commit -q")
    with git_running(["ci", "-m", "person"], repo.root, hooked(repo.root, "pre-commit")) as pid:
        time.sleep(0.3)  # no longer young
        with holding(repo.root):
            assert str(pid) in committers(repo.root)

"""The commands `memidx forget` prints for a person to run, for a note whose file name holds
a line break, a tab, quotes, shell syntax, a leading dash, a wildcard or letters that are not
ASCII: each is one shell word on the message's one line, and bash, given it pasted, does what
the message says. They were printed as the name was: `git add notes/a<newline>b.md` broke the
warning over two lines, `git add notes/$(x).md` ran a command, `git add notes/[x].md` added
notes/x.md too."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import NotesRepo, clean_env, started_memory

NAMES = [
    "ops/line\nbreak.md",
    "ops/tab\there.md",
    'ops/it\'s "quoted".md',
    "ops/$(touch pwned) `id`.md",
    "ops/-dash.md",
    "ops/[x].md",
    "ops/ünïcödé ノート.md",
]
EDIT = "The person's line, written while the forget ran.\n"


def edit_as_head_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note: Path) -> None:
    """`git` first on PATH: it appends EDIT to `note` (once) as `git update-ref --stdin`
    starts: memidx's move of HEAD (share's fetch updates its remote branch with an update-ref
    of its own first, which took the edit before share looked at the note)."""
    real = shutil.which("git")
    assert real is not None
    folder, done, edit = tmp_path / "shim", tmp_path / "edited", tmp_path / "edit"
    folder.mkdir()
    edit.write_text(EDIT)
    done_, edit_, note_ = (shlex.quote(str(p)) for p in (done, edit, note))
    (folder / "git").write_text(
        "#!/bin/sh\n"
        'case " $* " in *" update-ref "*" --stdin "*)\n'
        f"  [ -e {done_} ] || {{ cat {edit_} >>{note_}; : >{done_}; }};;\n"
        "esac\n"
        f'exec {shlex.quote(real)} "$@"\n'
    )
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def _bash(repo: NotesRepo, command: str) -> None:
    """Run `command` as a person pasting it would: bash, in the repository."""
    env = clean_env()
    subprocess.run(["bash", "-c", command], cwd=repo.root, env=env, check=True)


def _line(err: str, says: str) -> str:
    lines = [line for line in err.splitlines() if says in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("name", NAMES)
def test_the_edit_left_by_a_forget_is_kept_by_the_command_it_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    repo = started_memory(tmp_path)
    ref = repo.note(name, "Deploy", "Deploys go out on Tuesdays.")
    if "[" in name:  # what `git add notes/ops/[x].md` would add as well
        repo.note("ops/x.md", "Other", "Another note.")
    repo.commit("deploy")
    before = (repo.root / ref).read_text()
    edit_as_head_moves(tmp_path, monkeypatch, repo.root / ref)

    said = repo.memidx("forget", ref)

    assert said.code == 0, said
    assert len(said.out.splitlines()) == 1, said.out  # `forgot ...`, on one line
    line = _line(said.err, "changed while it was being forgotten")
    found = re.search(r"\(`(git add -- .+?)` and commit it", line)
    assert found is not None, line
    if "[" in name:
        (repo.root / "notes/ops/x.md").write_text("A change not to add.\n")
    _bash(repo, found.group(1))
    assert not (repo.root / "pwned").exists()
    assert (repo.root / ref).read_text() == before + EDIT
    staged = repo.git("diff", "--cached", "--name-only", "-z").split("\0")
    assert [path for path in staged if path] == [ref]  # the edit, and nothing else


@pytest.mark.parametrize("name", NAMES)
def test_the_commands_of_a_refused_forget_do_what_they_say(tmp_path: Path, name: str) -> None:
    """An edit not committed: forget refuses it and names `git diff` and `git restore`; once
    the restore pasted ran, the forget goes through."""
    repo = started_memory(tmp_path)
    ref = repo.note(name, "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    with (repo.root / ref).open("a") as file:
        file.write(EDIT)

    said = repo.memidx("forget", ref)

    assert said.code == 1, said
    line = _line(said.err, "has changes not committed")
    diff = re.search(r"\(`(git diff HEAD -- .+?)`\)", line)
    restore = re.search(r"\(`(git restore --staged --worktree -- .+?)`\)", line)
    assert diff is not None and restore is not None, line
    _bash(repo, f"{diff.group(1)} | grep -qF {shlex.quote(EDIT.strip())}")
    _bash(repo, restore.group(1))
    assert not (repo.root / "pwned").exists()
    assert repo.memidx("forget", ref).code == 0
    assert not (repo.root / ref).exists()

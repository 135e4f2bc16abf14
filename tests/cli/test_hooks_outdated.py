"""A clone set up before a hook stage was added (commit-msg) never got it: `make hooks` installs
it, but a `git pull` runs no install. `memidx status` and the hooks that run after a pull or a
checkout now name memidx's hooks that are missing or an older memidx's."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.githooks.hook import run_hook
from memidx.githooks.install import hooks_dir
from memidx.githooks.outdated import outdated_shims
from memidx.githooks.shims import MARKER, STAGES, shim
from tests.helpers import NotesRepo

STALE = "commit-msg, post-merge missing or not memidx's current hook"
SAID = f"{STALE} (run `memidx hooks install`)"  # no Makefile here: `make hooks` would fail


@pytest.fixture
def before_today(tmp_path: Path) -> NotesRepo:
    """An indexed clone with memidx's shims of an older memidx: no commit-msg, an older
    post-merge, the others current."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    (repo.root / "hooks").mkdir()
    (repo.root / "hooks" / "memidx-hook").write_text("#!/bin/sh\n", encoding="utf-8")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    folder = hooks_dir(repo.root)
    for stage in STAGES:
        (folder / stage).unlink(missing_ok=True)
        if stage == "post-merge":
            (folder / stage).write_text(f"#!/bin/sh\n{MARKER}: an older one\n", encoding="utf-8")
        elif stage != "commit-msg":
            (folder / stage).write_text(shim(stage), encoding="utf-8")
    return repo


def test_status_names_the_missing_and_the_older_shims_and_the_install(
    before_today: NotesRepo,
) -> None:
    shown = before_today.memidx("status")
    data = before_today.memidx("status", "--json").json()

    assert f"git hooks:   {SAID}\n" in shown.out, shown.out
    assert data["hooks_outdated"] == ["commit-msg", "post-merge"]
    assert shown.code == 0 and data["healthy"] is True  # the index is in step all the same


def test_the_hook_after_a_pull_says_so_in_one_line_and_writes_no_hook(
    before_today: NotesRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = hooks_dir(before_today.root)

    assert run_hook(before_today.root, "post-merge") == 0
    assert run_hook(before_today.root, "post-commit") == 0  # not at every commit

    assert capsys.readouterr().out.count(SAID) == 1
    assert not (folder / "commit-msg").exists()  # reported, never installed by a hook


def test_a_checkout_without_the_hook_script_or_with_current_shims_says_nothing(
    before_today: NotesRepo,
) -> None:
    folder = hooks_dir(before_today.root)
    for stage in STAGES:
        (folder / stage).write_text(shim(stage), encoding="utf-8")
    assert outdated_shims(before_today.root) == []

    (folder / "commit-msg").unlink()
    (before_today.root / "hooks" / "memidx-hook").unlink()  # an orphan branch: nothing to run
    assert outdated_shims(before_today.root) == []
    assert "git hooks:" not in before_today.memidx("status").out


def test_with_a_hooks_target_in_the_makefile_they_name_make_hooks(
    before_today: NotesRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without one, `make hooks` answered "No rule to make target 'hooks'"."""
    before_today.write("Makefile", "hooks:\n\tmemidx hooks install\n")

    assert f"{STALE} (run `make hooks`)" in before_today.memidx("status").out
    assert run_hook(before_today.root, "post-merge") == 0
    assert f"{STALE} (run `make hooks`)" in capsys.readouterr().out

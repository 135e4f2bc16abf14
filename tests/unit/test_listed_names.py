"""The files `memidx check all` reads under the pre-commit framework, whose hook takes no names
(memidx/githooks/listed_names.py): the names git stages, whatever list the shim made; a list
(read outside git) it cannot read fails the checks in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.githooks.listed_names import LISTED, framework_files
from tests.helpers import clean_env


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A repository with one note staged and one committed, under the framework."""
    env = clean_env()

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
                       cwd=tmp_path, env=env, check=True)  # fmt: skip

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "old.md").write_text("# Old\n")
    git("init", "-q")
    git("add", "notes/old.md")
    git("commit", "-q", "-m", "old")
    (tmp_path / "notes" / "-new.md").write_text("# New\n")
    git("add", "--", "notes/-new.md")
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.delenv(LISTED, raising=False)
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


def test_the_shims_list_gives_every_staged_name_to_one_run(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a.md", "b é.md"):
        (tmp_path / "notes" / name).write_text("# A\n")
    subprocess.run(["git", "add", "notes"], cwd=tmp_path, env=clean_env(), check=True)
    view = tmp_path / ".git" / "memidx-checks-7.index"
    shutil.copyfile(tmp_path / ".git" / "index", view)  # the shim's copy of the index
    listed = view.with_suffix(".names")
    # as the shim lists them; a name git does not stage (a submodule's) is none of the files
    listed.write_bytes(b"notes/-new.md\0notes/a.md\0notes/b \xc3\xa9.md\0notes/sub.md\0")
    monkeypatch.setenv("GIT_INDEX_FILE", str(view))
    monkeypatch.setenv(LISTED, str(listed))

    assert framework_files(config, ["notes/b é.md", "x.md"]) == [
        "notes/-new.md", "notes/a.md", "notes/b é.md", "x.md"
    ]  # fmt: skip


def test_the_framework_without_the_shim_reads_the_staged_files_it_gives_no_hook(
    config: Config, tmp_path: Path
) -> None:
    """By hand (`pre-commit run --all-files`) or by the framework's own git hook, a staged file
    the work tree holds is given to one part of the run: read by every part too, its secret
    was refused in each. One the framework leaves out (gone, a link) is read all the same."""
    assert framework_files(config, []) == []
    assert framework_files(config, ["notes/-new.md"]) == ["notes/-new.md"]
    (tmp_path / "notes" / "-new.md").unlink()  # staged whole, then deleted: committed as staged
    assert framework_files(config, []) == ["notes/-new.md"]
    (tmp_path / "notes" / "-new.md").symlink_to("old.md")
    assert framework_files(config, ["notes/old.md"]) == ["notes/-new.md", "notes/old.md"]


def test_outside_the_framework_only_the_given_files_are_read(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRE_COMMIT")
    assert framework_files(config, ["notes/old.md"]) == ["notes/old.md"]


def test_a_list_of_another_commit_leaves_out_no_staged_name(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MEMIDX_CHECK_NAMES inherited by a nested repository's hook (the outer commit's list),
    # or left exported in a shell: what this index stages is read all the same, none dropped
    listed = tmp_path / "names"
    listed.write_bytes(b"notes/outer.md\0")
    monkeypatch.setenv(LISTED, str(listed))
    assert framework_files(config, ["notes/-new.md"]) == ["notes/-new.md"]
    monkeypatch.setenv(LISTED, str(tmp_path / "gone"))  # the outer run's list deleted since
    assert framework_files(config, ["notes/-new.md"]) == ["notes/-new.md"]


def test_a_list_that_cannot_be_read_fails_the_checks_in_one_line(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(root=config.root, index_path=config.index_path, in_git=False)
    monkeypatch.setenv(LISTED, str(tmp_path / "gone"))
    with pytest.raises(MemidxError, match="no list of the staged names"):
        framework_files(config, [])


def test_under_the_shim_the_first_part_reads_every_staged_name_and_the_rest_nothing(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The framework hands the hook its files in parts of 128 KiB of names, a run each: the
    first claims the shim's list and reads all that git stages, the later ones check nothing
    again (each ran the drift check and said a refusal again)."""
    view = tmp_path / ".git" / "memidx-checks-7.index"
    shutil.copyfile(tmp_path / ".git" / "index", view)  # the shim's copy of the index
    listed = view.with_suffix(".names")
    listed.write_bytes(b"notes/-new.md\0")
    monkeypatch.setenv("GIT_INDEX_FILE", str(view))
    monkeypatch.setenv(LISTED, str(listed))

    assert framework_files(config, ["notes/-new.md"]) == ["notes/-new.md"]
    assert not listed.exists() and listed.with_suffix(".names.claimed").is_file()
    assert framework_files(config, ["notes/-new.md"]) is None  # the next part: nothing again


def test_a_list_of_another_index_is_never_claimed(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list the shim made for another commit (GIT_INDEX_FILE names another index) is not
    this run's: claimed, it would make this run's parts check nothing."""
    listed = tmp_path / "memidx-checks-9.names"
    listed.write_bytes(b"notes/outer.md\0")
    (tmp_path / "memidx-checks-9.names.claimed").write_bytes(b"")
    monkeypatch.setenv(LISTED, str(listed))

    assert framework_files(config, ["notes/-new.md", "x.md"]) == ["notes/-new.md", "x.md"]
    assert listed.exists()

"""The bench's workspaces are kept while their data is the same, whatever its files' times."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.benchmark.workspace import repo, tree_stamp


def _data(folder: Path) -> Path:
    (folder / "git").mkdir(parents=True)
    (folder / "git" / "blame.md").write_text("# Blame\nignore whitespace with -w\n")
    (folder / "vim.md").write_text("# Vim\nquit with :q\n")
    return folder


def _built(work: Path, data: Path) -> bool:
    def build(root: Path) -> None:
        shutil.copytree(data, root / "notes")

    _, built = repo(work, "til", tree_stamp(data), build)
    return built


def test_data_copied_again_keeps_its_workspace_and_changed_data_rebuilds_it(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    data = _data(tmp_path / "data")
    assert _built(work, data)
    kept = work / "til" / ".memidx" / "vectors-of-a-candidate"
    kept.write_text("embedded for an hour")

    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    for path in copy.rglob("*.md"):
        os.utime(path, (1_000_000_000, 1_000_000_000))  # a new copy: other times, same bytes
    assert not _built(work, copy)
    assert kept.read_text() == "embedded for an hour"

    (copy / "git" / "blame.md").rename(copy / "git" / "blame-whitespace.md")
    assert _built(work, copy)  # a renamed note is other data
    assert not kept.exists()

    (copy / "vim.md").write_text("# Vim\nquit with :qa\n")
    assert _built(work, copy)

"""The files pre-commit (or a person) passes to memidx's checks: taken relative to the root,
an absolute one outside it left out; the English check keeps the notes among them, the secret
check every file under the notes folder."""

from __future__ import annotations

from pathlib import Path

from memidx.config import Config
from memidx.githooks import checks, secret_check


def test_the_checks_take_the_passed_files_relative_to_the_root(tmp_path: Path) -> None:
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    files = [
        "notes/a.md",
        str(tmp_path / "notes" / "b.md"),  # absolute, inside the root
        str(tmp_path.parent / "elsewhere" / "notes" / "c.md"),  # absolute, outside it
        "README.md",
        "notes/haystack/x.krd",
    ]

    assert checks.passed_refs(config, files) == [
        "notes/a.md",
        "notes/b.md",
        "README.md",
        "notes/haystack/x.krd",
    ]
    assert checks._notes(config, files) == ["notes/a.md", "notes/b.md"]  # pyright: ignore[reportPrivateUsage]
    assert secret_check._refs(config, files) == [  # pyright: ignore[reportPrivateUsage]
        "notes/a.md",
        "notes/b.md",
        "notes/haystack/x.krd",
    ]

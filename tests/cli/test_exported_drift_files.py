"""The exported memidx-drift hook (.pre-commit-hooks.yaml, for other note repositories) reads
every staged name under the notes folder (`notes/aux/img.png`: a clone on Windows cannot
check it out): its `files: (?i)\\.md$` had the framework pass it notes alone, so the check
never saw such a name, whatever memidx read of the names it was given."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import cast

import pytest

MANIFEST = Path(__file__).parents[2] / ".pre-commit-hooks.yaml"
Names = Iterable[str]
# the framework's own reading of a manifest and choice of a hook's files (it ships no types)
_clientlib = importlib.import_module("pre_commit.clientlib")
_run = importlib.import_module("pre_commit.commands.run")
load_manifest = cast(Callable[[str], list[dict[str, object]]], _clientlib.load_manifest)
filter_by_include_exclude = cast(Callable[[Names, str, str], Names], _run.filter_by_include_exclude)


def by_types(names: list[str], chosen: Names, hook: dict[str, object]) -> list[str]:
    """What pre-commit passes the hook of `chosen` (its types, of the files on disk)."""
    kinds = [cast(list[str], hook[key]) for key in ("types", "types_or", "exclude_types")]
    return list(cast(Names, _run.Classifier(names).by_types(chosen, *kinds)))


def _hook(hook_id: str) -> dict[str, object]:
    return next(hook for hook in load_manifest(str(MANIFEST)) if hook["id"] == hook_id)


def test_the_exported_drift_hook_is_given_every_staged_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["notes/aux/img.png", "notes/a?b.txt", "notes/wal.md", "Notes/x.png"]
    monkeypatch.chdir(tmp_path)
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("staged\n")
    drift = _hook("memidx-drift")

    included = filter_by_include_exclude(
        names, cast(str, drift["files"]), cast(str, drift["exclude"])
    )
    given = by_types(names, included, drift)

    assert given == names

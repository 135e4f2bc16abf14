"""Staged notes whose path differs only in case from another the commit holds (`notes/A.md`
beside `notes/a.md`): macOS and Windows, whose file systems ignore case, check out one file
for the two. `remember` never writes such a name; one committed by hand passed the checks."""

from __future__ import annotations

from collections.abc import Iterable

from memidx.config import Config
from memidx.git.repo import decode_path
from memidx.git.staged import staged_repo
from memidx.notes.portable_name import fold_name
from memidx.text import display

RENAME = "rename one of them (`git mv`) or merge the two, then commit"


def case_twins(config: Config, refs: Iterable[str]) -> list[str]:
    """One line per note among `refs` (staged, not deleted) that git's index holds beside
    another path, or folder, that differs from it only in case or Unicode form."""
    refs = list(refs)
    if not refs or not config.in_git:
        return []
    spec = f":(literal){config.notes_dir}/"  # one git process: ~2-5 ms, 3,000 notes
    listed = staged_repo(config.root).run("ls-files", "-z", "--full-name", "--", spec)
    paths = {decode_path(p) for p in listed.split(b"\0") if p}
    folders = {way for path in paths for way in _ways(path.rpartition("/")[0])}
    by_fold: dict[str, set[str]] = {}
    for way in paths | folders:  # each folder folded once, not once per note in it
        by_fold.setdefault(fold_name(way), set()).add(way)
    problems: list[str] = []
    for ref in refs:
        twins = (sorted(by_fold.get(fold_name(way), set()) - {way}) for way in _ways(ref))
        if twin := next((found[0] for found in twins if found), None):
            problems.append(
                f"{display(ref)}:1: {display(twin)} is in the commit too, which macOS and Windows"
                f" take for the same name (case is ignored there); {RENAME}"
            )
    return problems


def _ways(path: str) -> list[str]:
    """`path` and each folder above it: `a/b/c.md`, `a/b`, `a` (none of "")."""
    parts = path.split("/") if path else []
    return ["/".join(parts[: at + 1]) for at in range(len(parts) - 1, -1, -1)]

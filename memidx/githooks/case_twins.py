"""Names of staged files under the notes folder that a clone on another system cannot check
out: a path that differs only in case from another the commit holds (`notes/A.md` beside
`notes/a.md`: macOS and Windows, whose file systems ignore case, check out one file for the
two), and a file other than a note whose name Windows refuses (a note's is drift's own line).
`remember` never writes such a name; one committed by hand passed the checks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memidx.config import Config
from memidx.git.repo import decode_path
from memidx.git.staged import staged_repo
from memidx.notes.portable_name import fold_name, unportable_path
from memidx.text import display

MOVE = "rename it with letters, digits, - and _ (`git mv`), then commit"
RENAME = "rename one of them (`git mv`) or merge the two, then commit"


def case_twins(
    config: Config, staged: Mapping[str, object], files: Iterable[str] = ()
) -> list[str]:
    """One line per note of `staged` (its content; None: deleted), or other file among `files`
    under the notes folder that the commit holds, that git's index holds beside another path,
    or folder, that differs from it only in case or Unicode form; and one per such other file
    whose name Windows refuses (`notes/aux/img.png` passed: only notes were read)."""
    refs = [ref for ref, content in staged.items() if content is not None]
    under = f"{config.notes_dir}/"
    folded = fold_name(under)  # `Notes/x.md` beside `notes/`: one folder on macOS and Windows
    others = [
        ref
        for ref in dict.fromkeys(files)
        if fold_name(f"{ref}/"[: len(under)]) == folded and ref not in staged
    ]
    if not (refs or others) or not config.in_git:
        return []
    spec = f":(literal,icase){config.notes_dir}"  # one git process: ~2-5 ms, 3,000 notes
    listed = staged_repo(config.root).run("ls-files", "-z", "--full-name", "--", spec)
    paths = {decode_path(p) for p in listed.split(b"\0") if p}
    others = [ref for ref in others if ref in paths]  # not a deletion, nor outside the commit
    problems = [
        f"{display(ref)}:1: {why}, so a clone on Windows cannot check it out; {MOVE}"
        for ref in others
        if ref.startswith(under) and (why := unportable_path(ref))
    ]
    folders = {way for path in paths for way in _ways(path.rpartition("/")[0])}
    by_fold: dict[str, set[str]] = {}
    for way in paths | folders:  # each folder folded once, not once per note in it
        by_fold.setdefault(fold_name(way), set()).add(way)
    for ref in [*refs, *others]:
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

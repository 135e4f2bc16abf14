"""When notes were added, from git's history: the commits that add a file at a path (one
`git log` pass), and the change from the indexed commit to HEAD together with what HEAD's own
commit says (its parents and author time), in the one git call a hook already makes.

"Added" means what `git log --no-renames --diff-filter=A` means: a non-merge commit whose tree
holds the path and whose parent's does not (the root commit adds all it holds). A rename is
a delete and an add: git stores trees, not moves, and pairing files by similarity would give
a rebuild and a hook different answers whenever they compare different commits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.errors import GitError
from memidx.frozen import Value
from memidx.git.change import Change
from memidx.git.repo import AS_STORED, GitRepo, decode_path, parse_raw

# The user's configuration must not change what git log prints: a root commit's files are
# added, one path is never followed across renames, no signature or colour in the output,
# paths from the top of the work tree.
LOG_CONFIG = (
    "-c", "log.showRoot=true", "-c", "log.follow=false", "-c", "log.showSignature=false",
    "-c", "color.ui=never", "-c", "diff.relative=false",
)  # fmt: skip


class Added(Value):
    """One path added by one commit, at the commit's author time (seconds since the epoch)."""

    path: str
    commit: str
    at: int


class Step(Value):
    """The commit HEAD moved to: its parents and author time."""

    commit: str
    parents: tuple[str, ...]
    at: int


def added_in_history(repo: GitRepo, head: str, folder: str) -> list[Added]:
    """Every path under `folder` each commit of HEAD's history added: one pass over it."""
    return [added for side, added in _log_adds(repo, [head], folder) if side != "-"]


def added_between(repo: GitRepo, old: str, new: str, folder: str) -> tuple[set[str], list[Added]]:
    """The commits that only `old` has, among those that add a path under `folder`, and the
    paths added by the commits only `new` has: what changes in the history when HEAD moves."""
    gone: set[str] = set()
    came: list[Added] = []
    for side, added in _log_adds(repo, [f"{old}...{new}"], folder):
        if side == "<":
            gone.add(added.commit)
        elif side == ">":
            came.append(added)
    return gone, came


def _log_adds(repo: GitRepo, spec: Sequence[str], folder: str) -> Iterator[tuple[str, Added]]:
    out = repo.run(
        *LOG_CONFIG, "log", "--left-right", "--full-history", "--no-renames", "--diff-filter=A",
        "--name-only", "-z", "--format=%x01%m%H %at", AS_STORED, *spec, "--", f"{folder}/",
    )  # fmt: skip
    side, commit, at, first = "", "", 0, False
    for field in out.split(b"\0"):
        header = _header(field)
        if header is not None:
            (side, commit, at), first = header, True
            continue
        name = field.removeprefix(b"\n") if first else field  # the newline ending a header
        first = False
        if name and commit:
            yield side, Added(decode_path(name), commit, at)


def _header(field: bytes) -> tuple[str, str, int] | None:
    """(side, commit, author time) of a `%x01%m%H %at` header, None for anything else (a
    file name: none starts with a control character and an id, so none passes for one)."""
    if field[:1] != b"\x01" or field[2:3] == b"":
        return None
    commit, _, at = field[2:].decode("ascii", "replace").partition(" ")
    if len(commit) not in (40, 64) or any(c not in "0123456789abcdef" for c in commit):
        return None
    return field[1:2].decode("ascii", "replace"), commit, _seconds(at)


def _seconds(text: str) -> int:
    return int(text) if text.lstrip("-").isdigit() else 0


def step_or_none(
    repo: GitRepo, old: str, new: str, folder: str
) -> tuple[list[Change], Step] | None:
    """The paths under `folder` that differ between two commits (renames detected, as
    GitRepo.changes) and what `new`'s commit says (its own parents and author time), in one
    `git diff-tree`; None when `old` is no longer a commit git has (garbage-collected)."""
    try:  # "<new>": its header and parents; "<new> <old>": the diff from old to new
        out = repo.run(
            "diff-tree", "--stdin", "--always", "-r", "-z", "--raw", "-M",
            "--format=%x01%P %at%x01", AS_STORED, "--", f"{folder}/",
            input_bytes=f"{new}\n{new} {old}\n".encode(),
        )  # fmt: skip
    except GitError:
        if repo.run("cat-file", "-t", old, check=False).strip() != b"commit":
            return None
        raise
    records = _diff_records(out)
    if len(records) != 2:
        raise GitError("git diff-tree printed what memidx cannot read", "run `git fsck`")
    *parents, at = records[0][0].split(" ")
    step = Step(new, tuple(p for p in parents if p), _seconds(at))
    return list(parse_raw(b"".join(records[1][1]))), step


def _diff_records(out: bytes) -> list[tuple[str, list[bytes]]]:
    """(header, raw entries ending in NUL) of each commit `diff-tree --stdin -z` printed; a
    path is taken by position, so no file name passes for a header."""
    fields = out.split(b"\0")
    records: list[tuple[str, list[bytes]]] = []
    i = 0
    while i < len(fields):
        field = fields[i].lstrip(b"\n")
        if len(field) >= 2 and field[:1] == field[-1:] == b"\x01":
            records.append((field[1:-1].decode(), []))
            i += 1
        elif field.startswith(b":") and records:
            count = 3 if field.split()[-1][:1] in b"RC" else 2
            records[-1][1].append(b"".join(f + b"\0" for f in (field, *fields[i + 1 : i + count])))
            i += count
        else:
            i += 1
    return records


def introduced(repo: GitRepo, tips: Sequence[str], folder: str) -> list[tuple[str, str, str]]:
    """(commit, path, blob) for each file under `folder` that a commit reachable from `tips`
    but from no remote-tracking branch brought in: added or changed against a parent (each
    parent of a merge), so every blob those commits hold that no pushed commit brought."""
    if not tips:
        return []  # git log would read HEAD, which may have no commit yet
    out = repo.run(
        *LOG_CONFIG, "log", "--stdin", "--root", "-m", "--raw", "--no-abbrev", "--no-renames",
        "-z", "--format=%x01%H%x01", AS_STORED, "--not", "--remotes", "--", f"{folder}/",
        input_bytes="".join(f"{tip}\n" for tip in tips).encode(),
    )  # fmt: skip
    found: list[tuple[str, str, str]] = []
    for commit, entries in _diff_records(out):
        for change in parse_raw(b"".join(entries)):
            if change.new_path is not None and change.new_blob is not None:
                found.append((commit, change.new_path, change.new_blob))
    return found


def added_by_step(changes: Sequence[Change]) -> list[str]:
    """The paths a commit adds, from its diff against its only parent: absent there, present
    after (an add, or the new side of a rename)."""
    return [c.new_path for c in changes if c.new_path is not None and c.status in "ARC"]

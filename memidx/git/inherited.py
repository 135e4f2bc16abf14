"""What a commit in progress takes from commits that already hold it.

A merge (MERGE_HEAD), a cherry-pick (CHERRY_PICK_HEAD) or a rebase step (REBASE_HEAD) stopped
on a conflict is finished by the person's `git commit`, which stages everything the merge
brought, a peer's notes included. A staged blob identical to the one at its path in HEAD or in
the commit being merged or replayed was committed there already: the resolution does not bring
it, and blocking the commit would not take it back. The checks name such a file instead of
blocking it; a file the person edited while resolving has a blob of its own and is checked as
in any commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.drafts import read_regular
from memidx.frozen import Value
from memidx.git.repo import GitRepo, decode_path

# The pseudo-refs of an operation git stopped for the person, and the operation's name.
UNDER_WAY = {"MERGE_HEAD": "merge", "CHERRY_PICK_HEAD": "cherry-pick", "REBASE_HEAD": "rebase"}
# git leaves REBASE_HEAD behind once a rebase ends (continued to its end, or quit): a rebase
# is under way only while one of these folders is there, as `git status` tells.
REBASING = ("rebase-merge", "rebase-apply")
PATHSPECS = 256  # up to these many paths are asked for by name; more, the whole folder
MOST_IDS = 1 << 20  # bytes of MERGE_HEAD and the like: an octopus merge's 16,000 parents


class Inherited(Value):
    """A staged file whose blob `commit` (HEAD or the other side) holds at its path."""

    ref: str
    commit: str
    operation: str  # "merge", "cherry-pick", "rebase"; "" when HEAD holds it
    pushed: bool  # the blob came from a commit a remote-tracking branch has: it left the clone


def other_sides(repo: GitRepo) -> list[tuple[str, str]]:
    """(commit, operation) of each operation git has stopped for the person (the
    parents an octopus merge names too); empty when none is under way."""
    names = [*UNDER_WAY, *REBASING]
    out = repo.run("rev-parse", *(a for name in names for a in ("--git-path", name)))
    paths = {
        name: Path(raw) if Path(raw).is_absolute() else repo.root / raw
        for name, raw in zip(names, out.decode().splitlines(), strict=False)
    }
    rebasing = any(paths[name].is_dir() for name in REBASING if name in paths)
    found: list[tuple[str, str]] = []
    for name, path in paths.items():
        if name not in UNDER_WAY or (name == "REBASE_HEAD" and not rebasing):
            continue
        # as it is: a FIFO there was waited on for ever by the check, a link followed; such a
        # file, or one over MOST_IDS, names no operation: the files are checked as in any commit
        data = read_regular(path, MOST_IDS + 1)
        if data is None or len(data) > MOST_IDS:
            continue
        lines = data.decode("ascii", "replace").split()
        found.extend((line, UNDER_WAY[name]) for line in lines if line.isalnum())
    return found


def inherited(
    repo: GitRepo, folder: str, staged: Mapping[str, str], *, pushed: bool = True
) -> dict[str, Inherited]:
    """The files of `staged` (path -> staged blob id) whose blob HEAD or the other side of an
    operation under way holds at that path; empty when none is under way (a plain commit).
    With `pushed` False, whether each has left the clone is not asked (a walk of the commits
    no remote has, per file: seconds for hundreds of a peer's notes) and each says False."""
    sides = other_sides(repo)
    if not sides or not staged:
        return {}
    found: dict[str, Inherited] = {}
    for commit, operation in [("HEAD", ""), *sides]:
        blobs = _blobs(repo, commit, folder, sorted(staged))
        for ref, blob in blobs.items():
            if ref not in found and staged[ref] == blob:
                found[ref] = Inherited(ref, commit, operation, pushed=False)
    if not pushed or not found:
        return found
    on_a_remote = {
        commit: _contained(repo, commit) for commit in {i.commit for i in found.values()}
    }
    walk = not _partial(repo)
    return {  # a commit a remote has holds nothing that has not left: no walk per file
        ref: Inherited(
            ref,
            i.commit,
            i.operation,
            on_a_remote[i.commit] or (walk and _pushed(repo, i.commit, ref)),
        )
        for ref, i in found.items()
    }


def _blobs(repo: GitRepo, commit: str, folder: str, refs: Sequence[str]) -> dict[str, str]:
    """The blob id of each of `refs` in the tree of `commit` (absent: not there)."""
    wanted = set(refs)
    specs = [f":(literal){r}" for r in refs] if len(refs) <= PATHSPECS else [f"{folder}/"]
    out = repo.run("ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs, check=False)
    blobs: dict[str, str] = {}
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        fields = meta.split()
        ref = decode_path(path)
        if len(fields) == 3 and fields[1] == b"blob" and ref in wanted:
            blobs[ref] = fields[2].decode()
    return blobs


def _contained(repo: GitRepo, commit: str) -> bool:
    """Whether a remote-tracking branch contains `commit` (as this clone last fetched it)."""
    out = repo.run(
        "for-each-ref", "--count=1", "--format=%(refname)", f"--contains={commit}",
        "refs/remotes/", check=False,
    )  # fmt: skip
    return bool(out.strip())


def _partial(repo: GitRepo) -> bool:
    """Whether this is a partial clone: git fetches from the remote any tree or blob it lacks
    when a command reads it (an old commit's tree in a treeless clone), and no check may send
    a packet off the machine."""
    out = repo.run(
        "config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$",
        check=False,
    )  # fmt: skip
    return any(line.split()[1:] != [b"false"] for line in out.splitlines())


def _pushed(repo: GitRepo, commit: str, ref: str) -> bool:
    """Whether the blob `commit` holds at `ref` has left this clone (as it last fetched):
    no commit of its history that a remote-tracking branch lacks changed `ref`, so the blob
    came from one a remote has (a secret pushed long ago, under commits not pushed yet)."""
    out = repo.run("rev-list", "-1", commit, "--not", "--remotes", "--", f":(literal){ref}")
    return not out.strip()

"""What a commit will hold: the staged blobs in git's index, not the files in the work tree.

The pre-commit checks read these, so an edit that is not staged (an editor still writing a note)
can neither pass nor fail the check. git points a hook at the index the commit is made from with
GIT_INDEX_FILE (`git commit -a` and `git commit PATHS` build a temporary one); every other
inherited GIT_* variable is still dropped (memidx.git.repo.git_env).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from memidx.frozen import Value
from memidx.git.repo import MODE_GITLINK, GitRepo, decode_path, parse_raw

MODE_SYMLINK = "120000"


class Staged(Value):
    """A file as git's index holds it (stage 0: a file in conflict is not staged yet)."""

    ref: str
    mode: str
    blob_id: str

    @property
    def symlink(self) -> bool:
        return self.mode == MODE_SYMLINK


def staged_repo(root: Path, environ: Mapping[str, str] | None = None) -> GitRepo:
    """A GitRepo reading the index git named for this hook (GIT_INDEX_FILE), else the usual
    one; a relative name is taken from the directory git ran the hook in, as git means it."""
    index_file = (os.environ if environ is None else environ).get("GIT_INDEX_FILE")
    return GitRepo(root, index_file=str(Path(index_file).absolute()) if index_file else None)


PATHSPECS = 256  # up to these many paths are asked for by name; more, the whole folder is listed


def staged_files(repo: GitRepo, folder: str, refs: Sequence[str]) -> dict[str, Staged]:
    """The files among `refs` (under `folder`) that the index holds, by path."""
    wanted = set(refs)
    if len(wanted) <= PATHSPECS:
        specs = [f":(literal){ref}" for ref in sorted(wanted)]  # a name is never a pattern
    else:
        specs = [f"{folder}/"]
    out = repo.run("ls-files", "--stage", "-z", "--full-name", "--", *specs)
    found: dict[str, Staged] = {}
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        ref = decode_path(path)
        if ref not in wanted:
            continue
        fields = meta.split()
        if len(fields) != 3 or fields[2] != b"0" or fields[0].decode() == MODE_GITLINK:
            continue
        found[ref] = Staged(ref, fields[0].decode(), fields[1].decode())
    return found


def read_staged(
    repo: GitRepo, files: Sequence[Staged], max_bytes: int
) -> Iterator[tuple[Staged, int, bytes | None]]:
    """(file, size, contents) of staged files; contents None for a blob over `max_bytes`,
    which is never read whole."""
    by_blob: dict[str, list[Staged]] = {}
    for file in files:
        by_blob.setdefault(file.blob_id, []).append(file)
    blobs = [(blob, 0) for blob in by_blob]
    for blob, size, data in repo.read_blobs(blobs, max_bytes):
        for file in by_blob[blob]:
            yield file, size, data


def staged_names(repo: GitRepo) -> list[str]:
    """The files staged as added or changed (a rename by its new name), as pre-commit and
    memidx's shim list what a commit holds."""
    out = repo.run(
        "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-ext-diff", "--no-renames",
        "--diff-filter=ACMRTUXB",
    )  # fmt: skip
    # a submodule (mode 160000) is no file: the framework never passes one, drift refused it
    return [change.new_path for change in parse_raw(out) if change.new_path is not None]

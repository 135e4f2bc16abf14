"""Read notes out of git: the tree at a commit, blobs, changes between commits, uncommitted files.

Plumbing commands run as plain child processes (memidx.git.process): importing GitPython costs over
100 ms, which the post-commit hook cannot afford. memidx's commits run git by name
(memidx/git/plumbing.py), without GitPython either.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from memidx.errors import GitError
from memidx.frozen import Value
from memidx.git.cat_file import Oversize, parse_batch
from memidx.git.change import Change
from memidx.git.process import Finished, Stopped, Watch, ended, run_process
from memidx.git.root_gone import cannot_run, root_gone

MODE_GITLINK = "160000"
# One `git cat-file --batch` reads blobs until these many bytes (a blob of unknown size counts
# as UNKNOWN_SIZE) or blobs: what is held in memory at once stays bounded.
BATCH_BYTES = 16 << 20
BATCH_BLOBS = 512
UNKNOWN_SIZE = 1 << 20
# For every command that prints a commit with --format (log, reflog, diff-tree):
# i18n.logOutputEncoding re-encodes all it prints, ids and NULs too (UTF-16), not only the
# message; with this, git prints messages as stored and the rest as ASCII.
AS_STORED = "--encoding=none"


class TreeEntry(Value):
    """A file in a commit's tree."""

    path: str
    mode: str
    blob_id: str
    size: int


def git_env() -> dict[str, str]:
    """The environment for git subprocesses: inherited GIT_* variables (a hook's GIT_INDEX_FILE,
    GIT_DIR of an outer repository) must not redirect our reads, nor a replace ref (`git
    replace`) show another object in the place of the one git pushes and commits hold. git
    speaks English, which memidx reads (no catalog of its translations: GIT_TEXTDOMAINDIR, not
    a folder, leaves git in the C locale), and the locale is left as the person set it for
    the hooks git runs (reference-transaction, under every update-ref): LC_ALL=C ran them in
    C (a hook's UTF-8 text, `sort`, its own messages)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TEXTDOMAINDIR"] = os.devnull
    return env


def decode_path(raw: bytes) -> str:
    return raw.decode("utf-8", errors="surrogateescape")


class GitRepo:
    """A git work tree, read through git plumbing."""

    def __init__(self, root: Path, *, index_file: str | None = None) -> None:
        self.root = root
        self.index_file = index_file  # git's index to read instead of the repository's

    def run(
        self,
        *args: str,
        input_bytes: bytes = b"",
        check: bool = True,
        watch: Watch | None = None,
    ) -> bytes:
        """Run git in the work tree and return its stdout; GitError on failure, Stopped when
        `watch` stops it."""
        done = self._run(args, input_bytes, watch)
        if check and done.returncode != 0:
            raise root_gone(self.root) or failed(args[0], done)
        return done.stdout

    def _run(self, args: Sequence[str], input_bytes: bytes, watch: Watch | None = None) -> Finished:
        try:
            argv = ["git", "-C", str(self.root), *args]
            env = git_env()
            if self.index_file is not None:
                env["GIT_INDEX_FILE"] = self.index_file
            return run_process(argv, env, input_bytes, watch)
        except OSError as exc:
            raise cannot_run(self.root, exc) from exc

    def head(self) -> str | None:
        """The commit id at HEAD, or None in a repository without commits."""
        done = self._run(("rev-parse", "-q", "--verify", "HEAD^{commit}"), b"")
        if done.returncode not in (0, 1):  # 1: no commit yet; anything else is an error
            raise root_gone(self.root) or failed("rev-parse", done)
        return done.stdout.strip().decode() or None

    def has(self, commit: str, path: str) -> bool:
        """Whether the tree of `commit` holds `path` (False also when there is no commit)."""
        return self._run(("cat-file", "-e", f"{commit}:{path}"), b"").returncode == 0

    def has_file(self, commit: str, path: str) -> bool:
        """Whether the tree of `commit` holds a file at `path` (not a folder of that name)."""
        done = self._run(("cat-file", "-t", f"{commit}:{path}"), b"")
        return done.returncode == 0 and done.stdout.strip() == b"blob"

    def tree(self, commit: str, folder: str) -> list[TreeEntry]:
        """Every file under `folder` in the tree of `commit`."""
        out = self.run("ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--", f"{folder}/")
        entries: list[TreeEntry] = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, path = record.partition(b"\t")
            mode, kind, blob, size = meta.split()
            if kind != b"blob":
                continue
            entries.append(TreeEntry(decode_path(path), mode.decode(), blob.decode(), _size(size)))
        return entries

    def changes(self, old: str, new: str, folder: str) -> list[Change]:
        """Paths under `folder` that differ between two commits, renames detected."""
        out = self.run(
            "diff-tree", "-r", "-z", "--raw", "-M", "--no-commit-id", old, new, "--", f"{folder}/"
        )
        return list(parse_raw(out))

    def changes_or_none(self, old: str, new: str, folder: str) -> list[Change] | None:
        """changes(), or None when `old` is no longer a commit git has (garbage-collected)."""
        try:
            return self.changes(old, new, folder)
        except GitError:
            if self.run("cat-file", "-t", old, check=False).strip() != b"commit":
                return None
            raise

    def read_blobs(
        self, blobs: Sequence[tuple[str, int]], max_bytes: int
    ) -> Iterator[tuple[str, int, bytes | None]]:
        """(blob id, size, contents) for (blob id, size or 0 if unknown) pairs, read by
        `git cat-file --batch` in batches of at most BATCH_BYTES or BATCH_BLOBS. A blob over
        `max_bytes` is never held in memory: its contents are None. An unknown size costs
        nothing more unless git's output shows a blob over the limit: git is stopped there,
        before its contents, and asked for sizes."""
        for batch in _batches(blobs):
            yield from self._read_batch(batch, max_bytes, retry=True)

    def _read_batch(
        self, batch: Sequence[tuple[str, int]], max_bytes: int, *, retry: bool
    ) -> Iterator[tuple[str, int, bytes | None]]:
        wanted = [(blob, size) for blob, size in batch if size <= max_bytes]
        yield from ((blob, size, None) for blob, size in batch if size > max_bytes)
        if not wanted:
            return
        ids = [blob for blob, _ in wanted]
        request = "".join(f"{b}\n" for b in ids).encode()
        try:
            out = self.run("cat-file", "--batch", input_bytes=request, watch=Oversize(max_bytes))
        except Stopped as exc:  # a blob whose size was unknown is over the limit
            if not retry:
                raise GitError(
                    "git's blob sizes disagree with its contents", "run `git fsck`"
                ) from exc
            sizes = self.blob_sizes(ids)
            yield from self._read_batch([(b, sizes[b]) for b in ids], max_bytes, retry=False)
            return
        for blob, data in parse_batch(out, ids):
            yield blob, len(data), data

    def blob_sizes(self, blob_ids: Sequence[str]) -> dict[str, int]:
        """The size of each blob, from `git cat-file --batch-check` (no contents read)."""
        unique = list(dict.fromkeys(blob_ids))
        out = self.run(
            "cat-file", "--batch-check", input_bytes="".join(f"{b}\n" for b in unique).encode()
        )
        lines = out.split(b"\n")
        sizes: dict[str, int] = {}
        for blob_id, line in zip(unique, lines, strict=False):
            header = line.split()
            if len(header) != 3 or not header[2].isdigit():
                raise GitError(f"git cannot read blob {blob_id}", "run `git fsck`")
            sizes[blob_id] = int(header[2])
        if len(sizes) != len(unique):
            raise GitError("git's list of blob sizes is incomplete", "run `git fsck`")
        return sizes

    def uncommitted(self, folder: str) -> list[tuple[str, str]]:
        """(status, path) of files under `folder` that differ from HEAD or are untracked."""
        out = self.run(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", f"{folder}/"
        )
        items: list[tuple[str, str]] = []
        records = iter(out.split(b"\0"))
        for record in records:
            if len(record) < 4:
                continue
            status, path = record[:2].decode(), decode_path(record[3:])
            if status[0] in "RC":
                next(records, None)  # the rename source follows
            items.append((status.strip() or status, path))
        return items


def _batches(blobs: Sequence[tuple[str, int]]) -> Iterator[list[tuple[str, int]]]:
    batch: list[tuple[str, int]] = []
    held = 0
    for blob_id, size in blobs:
        batch.append((blob_id, size))
        held += size or UNKNOWN_SIZE
        if held >= BATCH_BYTES or len(batch) >= BATCH_BLOBS:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def failed(command: str, done: Finished) -> GitError:
    """The error for a git command that exited non-zero: its last line of stderr, after the
    signal that ended it."""
    said = done.stderr.decode("utf-8", "replace")
    return GitError(
        f"git {command} {ended(done.returncode, said)}", "check the repository with `git status`"
    )


def _size(raw: bytes) -> int:
    return int(raw) if raw.isdigit() else 0


def parse_raw(out: bytes) -> Iterator[Change]:
    fields = out.split(b"\0")
    i = 0
    while i < len(fields) and fields[i]:
        meta = fields[i].lstrip(b":").split()
        status = meta[4].decode()[0]
        old_blob, new_blob = meta[2].decode(), meta[3].decode()
        old_mode, new_mode = meta[0].decode(), meta[1].decode()
        if status in "RC":
            old_path, new_path = decode_path(fields[i + 1]), decode_path(fields[i + 2])
            i += 3
        else:
            old_path = new_path = decode_path(fields[i + 1])
            i += 2
        if MODE_GITLINK in (old_mode, new_mode):  # a submodule is no note, as in `tree`
            if old_mode == new_mode:
                continue
            status = "A" if old_mode == MODE_GITLINK else "D"
        yield Change(
            status=status,
            old_path=None if status == "A" else old_path,
            new_path=None if status == "D" else new_path,
            old_blob=None if status == "A" else old_blob,
            new_blob=None if status == "D" else new_blob,
            new_mode=None if status == "D" else new_mode,
        )

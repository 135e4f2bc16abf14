"""Errors the user can act on: each carries a hint saying what to do."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: every hook imports this module
if TYPE_CHECKING:
    from pathlib import Path

REBUILD_HINT = "run `make ingest` (or `memidx ingest`) to rebuild it"
NEWER_HINT = "upgrade memidx or restart this process"
# The modules of the `vectors` extra (pyproject.toml), which pre-commit's install lacks.
VECTOR_MODULES = frozenset({"numpy", "fastembed", "onnxruntime", "tokenizers"})
VECTORS_HINT = (
    "install memidx with its vectors extra: `make install`, or pip install 'memidx[vectors]'"
)


def missing_module(name: str | None, folder: Path) -> str | None:
    """The line for a module this interpreter lacks (memidx run in `folder`): the vectors
    extra's, or any other dependency (a git worktree run with the main checkout's interpreter,
    a pull that added one), which stopped every commit in a traceback; None for memidx's own."""
    if not name or name.partition(".")[0] == "memidx":
        return None
    if name in VECTOR_MODULES:
        return f"{name} is not installed ({VECTORS_HINT})"
    import sys

    return (
        f"{name} is not installed for {sys.executable}, which this memidx needs (in a clone "
        f"of memidx, run `make venv` in {folder}, which gives it a .venv of its own; elsewhere, "
        "reinstall memidx)"
    )


class MemidxError(Exception):
    """An expected failure, reported as one line with a hint and exit code 1."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(MemidxError):
    """Bad arguments: exit code 2."""


class ConfigError(MemidxError):
    """The configuration (pyproject.toml or environment) is invalid."""


class IndexUnusable(MemidxError):
    """The index is missing, corrupt or of an unknown schema."""


class IndexLeft(IndexUnusable):
    """A hurried writer (an agent's hook) met an index it cannot write as it is (schema 4 or
    older) or that another process holds for its upgrade, rebuild or filling: it leaves the
    index to a writer with time for it, and files in the log alone."""


class NewerIndex(MemidxError):
    """The index was built by a newer memidx (a schema version this code does not know): it is
    never rebuilt nor written, so an old process that outlived an upgrade loses no vectors."""


class IndexBusy(MemidxError):
    """Another process holds the index's write lock for longer than the busy timeout."""


class IndexUnavailable(MemidxError):
    """The index cannot be read or written for now (disk full, read-only, no permission, an
    I/O error); it is left as it was."""


class NotMemidxIndex(MemidxError):
    """The index path names a file memidx cannot prove it made: it is never replaced."""


class GitError(MemidxError):
    """A git operation failed."""


class IndexLockLeft(GitError):
    """`.git/index.lock` was left by a git that was killed: no waiting ends it, only its removal
    by the person (what was to be committed is kept for then, never dropped)."""


class GitBusy(GitError):
    """Another git command of the clone held the index or was committing for all of memidx's
    wait (a person's `git commit` in its editor or hooks): waiting longer would do."""


class ModelError(MemidxError):
    """The embedding model is missing, damaged or cannot be loaded."""


class CheckFailed(MemidxError):
    """A note failed a pre-commit check (language, indexability)."""

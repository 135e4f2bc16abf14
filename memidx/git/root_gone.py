"""What to say when git cannot run in the memory's folder: the folder was deleted, or something
else took its path, while memidx was working in it (Python's OSError for a missing working
directory, or git's "Unable to read current working directory", named neither), or git itself
is not on PATH."""

from __future__ import annotations

from pathlib import Path

from memidx.errors import GitError

NO_GIT_HINT = "install git and put it on PATH"


def root_gone(root: Path) -> GitError | None:
    """The error for the memory's folder `root` gone or no longer a folder; None while it is
    one (git's failure is then its own)."""
    if root.is_dir():
        return None
    what = "is no longer a folder" if root.exists() else "is gone (deleted or moved away)"
    return GitError(
        f"the memory's folder {root} {what}, so git cannot run in it",
        "restore the folder (or clone the memory again), then run the command again",
    )


def cannot_run(root: Path, exc: OSError) -> GitError:
    """The error for git that could not start in `root`: the folder gone, or no git on PATH."""
    return root_gone(root) or _no_git(exc)


def _no_git(exc: OSError) -> GitError:
    if isinstance(exc, FileNotFoundError):  # named by neither its strerror nor its filename
        return GitError(f"cannot run git: no {exc.filename or 'git'} on PATH", NO_GIT_HINT)
    if isinstance(exc, PermissionError):  # a git on PATH, none that may run: "install git" was
        return GitError(  # no remedy
            f"cannot run git: the git on PATH may not be run ({exc.strerror or exc})",
            "make it executable (chmod +x), or put a git that runs first on PATH",
        )
    # no descriptor left for its pipes (EMFILE, ENFILE): "install git" was no remedy
    return GitError(f"cannot run git: {exc.strerror or exc}", _files_hint(exc) or NO_GIT_HINT)


def _files_hint(exc: OSError) -> str | None:
    import errno

    from memidx.portable_limits import FILES_HINT, SYSTEM_FILES_HINT

    return {errno.EMFILE: FILES_HINT, errno.ENFILE: SYSTEM_FILES_HINT}.get(exc.errno or 0)


def git_not_run(exc: OSError) -> GitError | None:
    """cannot_run's error for an OSError that no git could start (git's name its filename: a
    git run without memidx's runner), else None."""
    if exc.filename != "git" or not isinstance(exc, FileNotFoundError | PermissionError):
        return None
    return _no_git(exc)

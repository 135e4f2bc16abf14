"""The words of the `git reset` that tells git's index about paths memidx committed, without
refreshing the whole index.

From git 2.36 a mixed `git reset -q` (paths given too) refreshes every entry of the index
after the reset, where `-q` skipped that before: on a clone of 30,000 files whose stat had
changed (a checkout, a `touch`, a copy), 0.41-1.18 s against 0.02-0.07 s for the `git restore
--staged` it replaced, while memidx held index.lock. `--no-refresh` (git 2.36 on) skips it, as
`-q` did; an older git refuses that option, so the installed git's version is asked once a
process. The entries of the paths reset carry no stat then, as `restore --staged` left them:
`git status` looks at those files' bytes once and sees them unchanged."""

from __future__ import annotations

import functools

NO_REFRESH_FROM = (2, 36)  # the first git with `reset --no-refresh` (where -q stopped skipping)


def quiet_reset() -> tuple[str, ...]:
    """`reset -q`, with `--no-refresh` where this git has it (and refreshes without it)."""
    return ("reset", "-q", "--no-refresh") if git_version() >= NO_REFRESH_FROM else ("reset", "-q")


@functools.cache
def git_version() -> tuple[int, int]:
    """The major and minor version of the `git` on PATH (`git version 2.39.5`, `2.45.1.windows.1`,
    `2.39.3 (Apple Git-145)`), asked once a process; (0, 0) where it cannot say."""
    import subprocess

    from memidx.git.repo import git_env

    try:
        done = subprocess.run(["git", "version"], env=git_env(), capture_output=True, check=False)
    except OSError:
        return (0, 0)
    return parsed_version(done.stdout.decode("ascii", "replace"))


def parsed_version(said: str) -> tuple[int, int]:
    """(major, minor) of `git version`'s answer; (0, 0) for one that is not."""
    words = said.split()
    numbers = words[2].split(".")[:2] if len(words) > 2 and words[:2] == ["git", "version"] else []
    if len(numbers) != 2 or not all(number.isdigit() for number in numbers):
        return (0, 0)
    return (int(numbers[0]), int(numbers[1]))

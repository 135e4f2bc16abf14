"""The `git reset` that tells git's index about paths memidx committed, and the refresh of those
paths' entries alone.

From git 2.36 a mixed `git reset -q <commit> -- <paths>` refreshes every entry of the index
after the reset (`-q` skipped that before): on a clone of 30,000 files whose stat had changed
(a checkout, a `touch`, a copy) git read and hashed each file again, 0.4-1.2 s (2 s on a busy
machine) where `git restore --staged` took 0.02-0.07 s, for each forget and remember.
`--no-refresh` (git 2.36 on; an older git refuses it, so its version is asked once a process)
skips that, but leaves the entries of the paths reset without their stat, as an older git's
`reset -q` did: a person's `git pull` whose merge ran as memidx committed then died at "fatal:
stash failed" (its `git stash create` must refresh those entries and write git's index, which
memidx held), and `git diff-files` listed the notes as modified until a refresh. So the same
copy of the index is then refreshed at those paths alone by `git status -uno -- <paths>`,
which refreshes what its pathspec matches and writes the index (GIT_OPTIONAL_LOCKS=1: memidx's
git runs without optional locks): `git add --refresh` dies at a path the commit deleted (a
forget's), `git update-index --refresh` refreshes the whole index again. git matches each
index entry against each path given (`git status` and `git add --refresh` alike): with 20,000
entries, 25 paths took 0.12 s, 400 took 0.77 s and 1,000 took 1.4 s, where the whole refresh
of an index nothing touched took 0.1-0.3 s (in the move's shell, under git's index.lock); so
more than REFRESH_MOST paths (a purge's segments) are reset with the whole refresh, as before."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

NO_REFRESH_FROM = (2, 36)  # the first git with `reset --no-refresh` (where -q stopped skipping)
REFRESH = ("status", "--porcelain", "-uno", "--ignore-submodules=all", "--no-renames")
LITERAL = ":(literal)"  # how memidx names each path it gives git (memidx.git.commit.literal)
MODES = frozenset({0o100644, 0o100755, 0o120000, 0o160000})  # the modes of git's index entries
REFRESH_MOST = 64  # paths refreshed alone; more: the reset's whole refresh (each entry is
# matched against each path: the cost of both grows with the index, this one with the paths too)
# the move's shell (memidx.git.move_script): `fresh <git args>` refreshes the entries of the
# paths a reset wrote, on $copy, as refreshed() does
SHELL_FRESH = (
    'fresh() { s=; for r do shift; case $s$r in reset) s=1;; 1--) s=2;; 2*) set -- "$@" "$r";; '
    f'esac; done; [ "$s" = 2 ] && [ $# != 0 ] && [ $# -le {REFRESH_MOST} ] || return 0; '
    f'GIT_OPTIONAL_LOCKS=1 GIT_INDEX_FILE=$copy git {" ".join(REFRESH)} -- "$@" '
    ">/dev/null 2>&1; }; "
)


def reset_words(commit: str, pathspecs: Sequence[str]) -> tuple[str, ...]:
    """`reset -q <commit> -- <pathspecs>`, with `--no-refresh` where this git refreshes the
    whole index without it and there are no more than REFRESH_MOST pathspecs; refreshed()
    then refreshes those paths' entries."""
    alone = 0 < len(pathspecs) <= REFRESH_MOST and git_version() >= NO_REFRESH_FROM
    quiet = ("reset", "-q", "--no-refresh") if alone else ("reset", "-q")
    return (*quiet, commit, "--", *pathspecs)


def shell_words(args: Sequence[str]) -> tuple[str, ...]:
    """`args` as the move's shell gets them: its redo runs a `checkout <new> -- <paths>` (notes
    written from memory) as a reset of those paths, which the shell cannot know git's version
    for: `--no-refresh` put after `checkout` (the redo's reset takes it) where reset_words
    gives it, so that a memidx killed at its move no longer had a whole refresh under the
    lock (`fresh` refreshes those paths alone, as for any reset)."""
    if "checkout" not in args or "--" not in args[(at := args.index("checkout")) :]:
        return tuple(args)
    paths = args[args.index("--", at) + 1 :]
    if "--no-refresh" not in reset_words("HEAD", paths):
        return tuple(args)
    return (*args[: at + 1], "--no-refresh", *args[at + 1 :])


def refresh_words(args: Sequence[str]) -> tuple[str, ...] | None:
    """The git arguments that refresh the entries of the paths `git <args>` reset (git's own
    options before `reset` left out), None when `args` reset no paths."""
    if "reset" not in args or "--" not in args[args.index("reset") :]:
        return None
    paths = args[args.index("--", args.index("reset")) + 1 :]
    return (*REFRESH, "--", *paths) if 0 < len(paths) <= REFRESH_MOST else None


def refreshed(root: Path, env: Mapping[str, str], args: Sequence[str]) -> bool:
    """Once `git <args>` ran on the index `env` names: the entries of the paths it reset given
    their files' stat (nothing for another command); False when that git failed (those entries
    stay without their stat: the index still holds what it must)."""
    import subprocess

    if (words := refresh_words(args)) is None:
        return True
    env = {**env, "GIT_OPTIONAL_LOCKS": "1"}  # `git status` writes what it refreshed
    argv = ["git", *words]
    try:
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, check=False)
    except OSError:
        return False
    return done.returncode == 0


def stat_given(root: Path, git_dir: Path, pathspecs: Sequence[str]) -> None:
    """The entries of `pathspecs` (each in git's index) given their files' stat, on a copy of
    git's index renamed over it (memidx.git.index_copy): the files memidx wrote once its move
    renamed its index over git's (index_swap), which none had read then. Only where one lacks
    it (stat_less): memidx's own follow and the move's shell wrote the files before their
    entries, and a remember paid two copies of the index and a `git add` for nothing. Best
    effort: where another git holds the index, the next `git status` refreshes them."""
    from memidx.git.index_copy import edit_on_copy

    if 0 < len(pathspecs) <= REFRESH_MOST and stat_less(git_dir, pathspecs):  # more: left for
        edit_on_copy(root, git_dir, ("add", "--refresh", "--", *pathspecs))  # a whole refresh


def stat_less(git_dir: Path, pathspecs: Sequence[str]) -> bool:
    """Whether git's index holds a path of `pathspecs` (`:(literal)<path>`) with no stat (its
    ctime 0: the entry of a file none had read), read from the index file itself (a `git
    diff-files` cost ~8 ms a remember, under load, where the swap's notes need the refresh
    anyway); True where it cannot tell (index v4's compressed paths, a split index, a path
    not found, an entry it cannot read)."""
    try:
        data = (git_dir / "index").read_bytes()
    except OSError:
        return True
    if data[:4] != b"DIRC" or int.from_bytes(data[4:8], "big") not in (2, 3):
        return True
    paths = (os.fsencode(spec.removeprefix(LITERAL)) for spec in pathspecs)
    return any(_entry_ctime(data, path) in (0, None) for path in paths)


def _entry_ctime(data: bytes, path: bytes) -> int | None:
    """The ctime (seconds and nanoseconds as one number) of the index entry of `path` in an
    index v2 or v3 `data`; None when no entry of it is found whole (at an entry's place: 12
    bytes in, then a multiple of 8; its name's length in its flags, a mode git writes) with
    either hash (SHA-1, SHA-256), plain or extended, or when more than one is: the tail of a
    longer name read as a SHA-256 entry (`backup/v1_0/<path>`, its name 47 bytes long, in a
    SHA-1 index) gave that other file's ctime, and a stat-less entry was taken as read."""
    found: list[int] = []
    at = data.find(path + b"\0", 12)
    while at > 0:
        for hashed, tail in ((20, 2), (32, 2), (20, 4), (32, 4)):
            start = at - tail - hashed - 40
            if start < 12 or (start - 12) % 8:
                continue
            flags = int.from_bytes(data[at - tail : at - tail + 2], "big")
            mode = int.from_bytes(data[start + 24 : start + 28], "big")
            extended = (flags & 0x4000) != 0
            if (
                (flags & 0xFFF) == min(len(path), 0xFFF)
                and extended == (tail == 4)
                and (mode in MODES)
            ):
                found.append(int.from_bytes(data[start : start + 8], "big"))
        at = data.find(path + b"\0", at + 1)
    return found[0] if len(found) == 1 else None


def git_version() -> tuple[int, int]:
    """The major and minor version of the `git` on PATH (`git version 2.39.5`, `2.45.1.windows.1`,
    `2.39.3 (Apple Git-145)`), asked once per git binary (its path, inode and mtime: a recall
    or MCP server that outlived an upgrade of git, or a PATH changed under it, asks again);
    (0, 0) where it cannot say."""
    import shutil

    from memidx.git.repo import git_env

    found = shutil.which("git", path=git_env().get("PATH", os.defpath))
    try:
        seen = Path(found).stat() if found else None
    except OSError:
        seen = None
    key = (found, seen.st_ino, seen.st_mtime_ns) if seen else (found, 0, 0)
    return _asked(*key)


@functools.lru_cache(maxsize=4)
def _asked(found: str | None, _inode: int, _mtime: int) -> tuple[int, int]:
    """`git version` of the git at `found` (the one PATH finds), once per inode and mtime."""
    import subprocess

    from memidx.git.repo import git_env

    try:
        said = subprocess.run([found or "git", "version"], env=git_env(), capture_output=True,
                              check=False)  # fmt: skip
    except OSError:
        return (0, 0)
    return parsed_version(said.stdout.decode("ascii", "replace"))


def parsed_version(said: str) -> tuple[int, int]:
    """(major, minor) of `git version`'s answer; (0, 0) for one that is not."""
    words = said.split()
    numbers = words[2].split(".")[:2] if len(words) > 2 and words[:2] == ["git", "version"] else []
    if len(numbers) != 2 or not all(number.isdigit() for number in numbers):
        return (0, 0)
    return (int(numbers[0]), int(numbers[1]))

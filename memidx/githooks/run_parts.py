"""Which part of one `pre-commit run` this is, run by hand (`--all-files`, `--files`, CI's
`--from-ref`), when no shim of memidx's lists the staged names (memidx.githooks.listed_names).

The framework hands a hook its files in parts of at most 128 KiB of names, a process each, and
says nothing of the run to any of them: what concerns no part's share (a file staged and then
deleted from the work tree, which the framework passes no hook; the index out of step with
HEAD) was refused in every part. The parts of one run are children of one framework process
and see one index: the first part to create a marker named after them in the git folder
(`memidx-part-<boot>-<pid>-<start>-<index mtime and size>`, O_EXCL, so two parts running at
once cannot both) says those, the later ones only their own files' problems. The framework's
process is known by its process id and its start time (a process id is used again; the pair
is not, within a boot), read in /proc: where there is none (macOS), or the parent is not the
framework's (a wrapper that does not `exec`, a shell running `check all` with PRE_COMMIT=1
twice, one's own git hook named `pre-commit`, in Python too), every part says everything, as
before, a refusal repeated rather than one lost. A later run, or an index changed between
parts, names another marker; the first part of each run removes the markers of runs whose
process is gone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memidx.portable import NO_FIFO_WAIT
from memidx.process_start import process_started

PREFIX = "memidx-part-"
_answers: dict[Path, bool] = {}  # whether this process is a run's first part, by work tree


def later_part(root: Path) -> bool:
    """Whether this hook process is a later part of a `pre-commit run` whose first part
    already said what concerns every part (False when that cannot be known for sure)."""
    if root not in _answers:  # asked once: the marker it made would say `later` next time
        _answers[root] = _claim(root)
    return not _answers[root]


def said_by_an_earlier_part(root: Path) -> bool:
    """Whether later_part found this process a later part (False when it was not asked)."""
    return _answers.get(root) is False


def _claim(root: Path) -> bool:
    parent = os.getppid()
    started = process_started(parent)
    if not _framework(parent):  # a shell running `check all` twice is no run of parts
        return True
    boot = _read("/proc/sys/kernel/random/boot_id").strip()
    from memidx.git.underway import git_dir

    folder = git_dir(root)
    if started is None or not boot or folder is None:
        return True
    index = Path(os.environ.get("GIT_INDEX_FILE") or folder / "index")
    try:
        seen = index.stat()
        stamp = f"{seen.st_mtime_ns}-{seen.st_size}"
    except OSError:
        stamp = "0-0"
    name = f"{PREFIX}{boot}-{parent}-{started}-{stamp}"
    try:
        os.close(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True  # no marker: every part says everything
    _sweep(folder, boot, name)
    return True


def _framework(pid: int) -> bool:
    """Whether the process is the pre-commit framework's: its program (`pre-commit`, `prek`), or
    Python running its script (`python .../bin/pre-commit run`) or its module (`python -m
    pre_commit`, `-mpre_commit hook-impl` from the git hook it installs). Any word named so
    was taken for it: a git hook of one's own, `.git/hooks/pre-commit`, is a shell running
    `check all` as often as it likes, and its second run said nothing of a staged secret."""
    words = _read(f"/proc/{pid}/cmdline").split("\0")
    program = Path(words[0]).name
    if program in ("pre-commit", "prek"):  # prek: the framework rewritten, its hooks run so
        return True
    if not program.startswith(("python", "pypy")):
        return False
    given = False  # the word is an option's value (`-X utf8`), not the script
    for at, word in enumerate(words[1:], 1):
        if word == "-mpre_commit" or (word == "-m" and words[at + 1 : at + 2] == ["pre_commit"]):
            return True
        if not word.startswith("-") and not given:  # the script Python runs
            return Path(word).name == "pre-commit" and _imports_the_framework(pid, word)
        given = word in VALUED and not given
    return False


# Python's options given a value in the next word (`python -X utf8 .../bin/pre-commit`: `utf8`
# was taken for the script, and every part of the run repeated a refusal)
VALUED = frozenset({"-X", "-W", "--check-hash-based-pycs"})


def _imports_the_framework(pid: int, script: str) -> bool:
    """Whether the script a Python process runs is the framework's console script, which
    imports pre_commit: one's own git hook in Python, `.git/hooks/pre-commit`, is named so too
    (taken for the framework, its second `check all` said nothing of a staged secret)."""
    try:  # a relative name is the process's working folder's; a FIFO is waited on by no one
        fd = os.open(Path(f"/proc/{pid}/cwd") / script, os.O_RDONLY | NO_FIFO_WAIT)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and b"pre_commit" in os.read(fd, 4096)
    except OSError:
        return False
    finally:
        os.close(fd)


def _sweep(folder: Path, boot: str, kept: str) -> None:
    """Remove the markers of runs whose framework process is gone (or of another boot)."""
    for found in folder.glob(PREFIX + "*"):
        if found.name == kept:
            continue
        _, _, rest = found.name.partition(PREFIX)
        parts = rest.rsplit("-", 4)  # boot id (with its dashes), pid, start, mtime, size
        alive = len(parts) == 5 and parts[0] == boot and parts[1].isdigit()
        if not alive or process_started(int(parts[1])) != parts[2]:
            found.unlink(missing_ok=True)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""

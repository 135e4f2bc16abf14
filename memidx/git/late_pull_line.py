"""Whether the line a late `git pull` left (memidx.git.late_pull: `git pull:` in `memidx
status`) is done with, hook or no hook.

Only a merge's or a rebase's hook cleared it: a pull again that found nothing to merge
("Already up to date") runs none, so the line stayed, its advice moot, until the next merge.
So the line says what the pull was pulling, as its trace's fourth field (`about`):
`<into> <from> <pid>:<start> <old>`, `into` the ref memidx moved (refs/heads/<name>, or HEAD
when detached), `from` that branch's upstream (refs/remotes/origin/main) or, with none (a
detached HEAD, a branch with no upstream or one not fetched: `git pull origin main`) or for a
pull that named what it pulls (`git pull upstream main`: memidx.git.pull_words), FETCH_HEAD's
commits for merge; `pid` and `start` the pull's; `old` the commit `into` was at when the pull
read it (the one memidx moved it from; NONE when memidx's commit was its first). The pulled
commit is not known when the line is written: the pull is in its fetch, which moves the
upstream and writes FETCH_HEAD at its end; so it is read once that pull ended, and the line is
done with once `into` (HEAD when that branch is gone) holds it and `old` did not: the failed
pull had something to merge, merged since (a pull again) or before memidx wrote its line.
A pull that had nothing new to merge (`old` held it all: its fetch brought nothing, and git's
fast-forward failed on memidx's files, advising the `git reset --hard` the line warns
against) is the commonest late pull's failure: its branch holds what it pulled from the
start, which says nothing of it, so its line is done with only by a merge's or rebase's
hook, as is a line with no `old` or no `about` (an older memidx's), or whose commits cannot
be read."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from memidx.git.invocation import expanded, program_of
from memidx.git.newcomers import read_proc
from memidx.git.pull_words import names_a_repository
from memidx.process_start import running_since

AGAIN = (
    'if it failed ("untracked working tree files would be overwritten by merge"), nothing of '
    "yours was touched and memidx's commit stands: run `git pull` again, never the `git reset "
    "--hard` git advises"
)
FETCH_HEAD = "FETCH_HEAD"
DETACHED = "HEAD"
NONE = "-"  # `old` of a line whose branch had no commit before memidx's


def say_unhelped(
    root: Path,
    pull: tuple[str, str],
    paths: Sequence[str],
    why: str,
    *,
    ref: str,
    old: str,
    unhelped: Callable[[str, str], None],
) -> None:
    """`unhelped` hears the line of `pull` (pid, committers' `pull <start>`) that nothing was
    put back for, and what it pulled into `ref` from `old` (the commit memidx moved `ref`
    from, "" for none: pull_about); nothing when that pull ended and `ref` holds what it
    pulled, which `old` lacked (done_with): it merged since (a pull again while update-ref
    waited 1 s). One that had nothing new to merge leaves its line."""
    about = pull_about(root, ref, *pull, old=old)
    if not done_with(root, about):
        unhelped(_unhelped(pull[0], paths, why), about)


def _unhelped(pid: str, paths: Sequence[str], why: str) -> str:
    """The line for `memidx status` of a late pull nothing was put back for, and `why`."""
    return (
        f"a git pull of this clone (pid {pid}) started as memidx committed {', '.join(paths)}, "
        f"and HEAD was not put back for it ({why}): {AGAIN}"
    )


def pull_about(root: Path, ref: str, pid: str, said: str, *, old: str) -> str:
    """The `about` of a line for pull `pid` (committers' `said`: `pull <start>`) into `ref`
    (refs/heads/<name>, or HEAD when detached), which was at `old` ("": none) as it read it."""
    branch = ref.removeprefix("refs/heads/") if ref != DETACHED else ""
    if branch and not _named_its_source(root, pid):  # else what it named: FETCH_HEAD's
        upstream = _git(root, "rev-parse", "-q", "--symbolic-full-name", f"{branch}@{{upstream}}")
        source = upstream if upstream.startswith("refs/") else FETCH_HEAD
    else:
        source = FETCH_HEAD
    return f"{ref} {source} {pid}:{said.rpartition(' ')[2]} {old or NONE}"


def _named_its_source(root: Path, pid: str) -> bool:
    """Whether git pull `pid` named what it pulls (`git pull upstream main`, through an alias
    too: memidx.git.pull_words); False where its command line cannot be read (ended)."""
    try:
        argv = read_proc(f"/proc/{pid}/cmdline").split(b"\0")[:-1]  # each word ends in NUL
        environ = read_proc(f"/proc/{pid}/environ")
    except OSError:
        return False
    words = [arg.decode("utf-8", "replace") for arg in argv[1:]]
    found = expanded(words, root, environ, program_of(pid))
    return found[:1] == ["pull"] and names_a_repository(found[1:])


def done_with(root: Path, about: str, held: dict[str, bool] | None = None) -> bool:
    """Whether the pull a line's `about` names ended, had something new to merge, and the
    branch it pulled into holds it (see above); False when that is not known, or for a pull
    that had nothing new (and a line with no `old`: an older memidx's). `held`: what was
    found of each branch, source and `old` already, asked of git once (a trace of many lines
    above one not done with asked git 3 times a line, ~12 ms, at every `memidx status`)."""
    words = about.split()
    if len(words) != 4:
        return False
    into, source, who, old = words
    pid, _, start = who.partition(":")
    if not start or running_since(pid) == start:  # its fetch may not have ended yet
        return False
    if held is None:
        return _holds(root, into, source, old)
    if (key := f"{into} {source} {old}") not in held:
        held[key] = _holds(root, into, source, old)
    return held[key]


def _holds(root: Path, into: str, source: str, old: str) -> bool:
    """Whether `into` (HEAD when that branch is gone) holds what `source` names, and `old`
    (NONE: no commit) did not hold all of it: the pull had something new to merge."""
    pulled = _for_merge(root) if source == FETCH_HEAD else [_commit(root, source)]
    if not pulled or not all(pulled):
        return False
    if old != NONE:
        if not (was := _commit(root, old)):  # gone (gc'd): not known
            return False
        if all(_ok(root, "merge-base", "--is-ancestor", commit, was) for commit in pulled):
            return False  # nothing new to merge: said nothing of the failure
    tip = into if into != DETACHED and _commit(root, into) else DETACHED  # a branch gone
    return all(_ok(root, "merge-base", "--is-ancestor", commit, tip) for commit in pulled)


def _for_merge(root: Path) -> list[str]:
    """The commits FETCH_HEAD names for merge (its lines not marked not-for-merge)."""
    folder = _git(root, "rev-parse", "--absolute-git-dir")
    try:
        lines = (Path(folder) / FETCH_HEAD).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = [line.split("\t") for line in lines.splitlines()]
    return [_commit(root, f[0]) for f in found if len(f) > 1 and f[1] == ""]


def _commit(root: Path, name: str) -> str:
    return _git(root, "rev-parse", "-q", "--verify", f"{name}^{{commit}}")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def _ok(root: Path, *args: str) -> bool:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    return done.returncode == 0

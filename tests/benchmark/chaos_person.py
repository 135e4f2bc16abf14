"""The person's habits in tests/benchmark/chaos.py, as a person at a terminal has them: a pull,
rebase or merge that stops on a conflict is resolved (each conflicted file taken theirs or ours,
`git add`, `--continue`) or aborted before they do anything else, a conflicted autostash apply
is settled the same way (theirs or ours, `git add`), and a switch back or merge
that git refuses because their own edit is in the way is retried after they commit that edit.
Never `git stash`: memidx never stashes a person's work, and neither does this person."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Protocol

from tests.benchmark.fleet import Done, git

ROUNDS = 20  # commits one rebase may stop at; then the person aborts
ABORT_SHARE = 0.2  # of conflicts the person aborts instead of resolving
EDITOR = ("-c", "core.editor=true")  # the person accepts git's message as it is


class Person(Protocol):
    """What these habits need of a clone (chaos.Machine)."""

    index: int
    root: Path
    env: dict[str, str]
    step: int
    staged: str
    unstaged: str
    settled: dict[str, int]
    broken: list[tuple[str, str]]

    def fail(self, what: str, text: str) -> None: ...


def check_person(m: Person, wip: str, before: str) -> None:
    """The person's staged blob and work-tree file are as they left them after `before`
    (the agents ran meanwhile); then what they hold now is what the person left."""
    path = m.root / wip
    held = path.read_text() if path.is_file() else ""
    staged = git(m.root, m.env, "diff", "--cached", "--quiet", "--", wip).code
    shown = git(m.root, m.env, "show", f":{wip}").out if staged else ""
    if before and held != m.unstaged:
        m.broken.append(("person's unstaged edit changed", f"c{m.index} #{m.step} since {before}"))
    if before and shown != m.staged:
        m.broken.append(("person's staged blob changed", f"c{m.index} #{m.step} since {before}"))
    m.unstaged, m.staged = held, shown


def stopped(m: Person) -> str:
    """What git left stopped in the clone: "rebase", "merge" or ""."""
    git_dir = m.root / ".git"
    if (git_dir / "rebase-merge").is_dir() or (git_dir / "rebase-apply").is_dir():
        return "rebase"
    return "merge" if (git_dir / "MERGE_HEAD").is_file() else ""


def count(m: Person, what: str) -> None:
    m.settled[what] = m.settled.get(what, 0) + 1


def conflicted(m: Person) -> list[str]:
    listed = git(m.root, m.env, "diff", "--name-only", "--diff-filter=U", "-z").out
    return [path for path in listed.split("\0") if path]


def take(m: Person, path: str, side: str) -> None:
    """One conflicted file taken one side's way; the side that deleted it deletes it."""
    if git(m.root, m.env, "checkout", side, "--", path).code == 0:
        git(m.root, m.env, "add", "--", path)
    else:
        git(m.root, m.env, "rm", "-q", "--cached", "--ignore-unmatch", "--", path)
        (m.root / path).unlink(missing_ok=True)


def settle(m: Person, rng: random.Random) -> None:
    """Whatever git left stopped on a conflict is concluded or aborted, bounded; then what a
    failed autostash apply left conflicted is settled too."""
    stopped_on(m, rng)
    unstash(m, rng)


def unstash(m: Person, rng: random.Random) -> None:
    """A conflicted autostash apply (`pull --autostash` said "Applying autostash resulted in
    conflicts") stops nothing, but leaves files unmerged: the person takes each theirs (the
    stash's) or ours and `git add`s it, as with a merge conflict; the stash entry git kept
    stays (never `git stash`)."""
    if stopped(m):
        return  # an abort that failed: the person is already reported stuck
    paths = conflicted(m)
    for path in paths:
        take(m, path, rng.choice(("--theirs", "--ours")))
    if paths:
        count(m, "autostash conflict resolved")


def stopped_on(m: Person, rng: random.Random) -> None:
    for _ in range(ROUNDS):
        what = stopped(m)
        if not what:
            return
        if rng.random() < ABORT_SHARE:
            break
        for path in conflicted(m):
            take(m, path, rng.choice(("--theirs", "--ours")))
        done = git(m.root, m.env, *EDITOR, what, "--continue")
        if done.code != 0 and what == "rebase" and stopped(m) == "rebase" and not conflicted(m):
            done = git(m.root, m.env, "rebase", "--skip")  # resolved to nothing left to apply
        count(m, f"{what} resolved" if done.code == 0 else f"{what} --continue refused")
    if what := stopped(m):
        done = git(m.root, m.env, what, "--abort")
        count(m, f"{what} aborted")
        if done.code != 0:
            m.fail(f"{what} --abort", done.err)
            clear_stale(m)


def clear_stale(m: Person) -> None:
    """A rebase folder git left without head-name (`pull --rebase --autostash` stopped by a
    file that changed after its autostash) refuses --abort: the person does what git says,
    rm -fr it, and puts their autostashed work back (what --abort would have done)."""
    folder = m.root / ".git" / "rebase-merge"
    if not folder.is_dir() or (folder / "head-name").is_file():
        return
    autostash = (
        (folder / "autostash").read_text().strip() if (folder / "autostash").is_file() else ""
    )
    shutil.rmtree(folder)
    count(m, "stale rebase folder removed")
    if autostash and git(m.root, m.env, "stash", "apply", autostash).code != 0:
        m.fail("autostash apply", autostash)


def commit_own(m: Person, path: str) -> Done:
    """The person commits their own edit (their wip note, staged and unstaged) to go on."""
    git(m.root, m.env, "add", "--", path)
    count(m, "own work committed to go on")
    return git(m.root, m.env, "commit", "-q", "-m", f"person {m.index} wip", "--", path)


def persist(m: Person, rng: random.Random, path: str, *args: str) -> Done:
    """A git command the person's own edit may be in the way of: on refusal they commit the
    edit and run it again; a conflict it stops on is settled."""
    done = git(m.root, m.env, *args)
    if done.code != 0 and not stopped(m) and "overwritten" in done.err:
        commit_own(m, path)
        done = git(m.root, m.env, *args)
    if stopped(m):
        settle(m, rng)
    return done


def home(m: Person, rng: random.Random, path: str) -> None:
    """Before anything else: nothing stopped on a conflict, and back on main."""
    settle(m, rng)
    branch = git(m.root, m.env, "branch", "--show-current").out.strip()
    if branch != "main":
        count(m, "found on a side branch")
        back = persist(m, rng, path, "switch", "-q", "main")
        if back.code != 0:
            m.fail("back to main", back.err)

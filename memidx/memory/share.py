"""`memidx share` (`make sync`): commit this clone's haystack, then pull and push until the
remote has everything, retrying with backoff while other clones push at the same time.

The merge moves HEAD, so it waits (memidx.git.commit.WAIT_SECONDS at most) while a git of
this clone is committing or holds the index, as memidx's own commits do. memidx fetches
first, then merges the branch's upstream as that fetch left it (`git merge @{upstream}`,
not `git pull`, which would fetch again: seconds on a network remote between the look and
the merge, time for a person's `git commit` to start), and pushes to that upstream by name
(`git push <remote> HEAD:<its branch>`), so a branch that follows another name (local `notes`
following `origin/main`) is shared under git's default `push.default = simple` too. A branch
with no upstream is named before any commit or fetch. A push rejected because the remote
moved (another clone pushed first) is the normal case when several machines sync at once:
fetch and merge again (git's hooks index what arrives) and push again. A merge that stops on
a conflict needs a person: the merge is left as git left it, and the error says so. Two notes
`remember` wrote under one name on two machines are moved apart before the merge (twins).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from shlex import quote

from memidx.config import Config
from memidx.errors import GitError, MemidxError
from memidx.git.commit_lock import WAIT_SECONDS, serialized
from memidx.memory.twins import Renamed, part_twins

ATTEMPTS = 40  # and at most DEADLINE seconds: ten clones pushing at once need more than ten
# Fetches failing in a row before share gives up: a blip is tried again, an offline machine told.
FETCH_TRIES = 5
DEADLINE = 300.0
FIRST_PAUSE = 0.2  # seconds, doubling, at most MAX_PAUSE, with full jitter
MAX_PAUSE = 10.0
# A push refused because the remote moved: another clone pushed first ([rejected], fetch
# first), or while the remote was updating its ref (a race on its ref lock: "failed to update
# ref"). Not "failed to push some refs", which git prints under every refusal: a remote's hook
# that declines (a protected branch) declines again, and trying again only hides why.
REJECTED = ("[rejected]", "fetch first", "non-fast-forward", "failed to update ref")
CONFLICT = ("CONFLICT", "Automatic merge failed", "fix conflicts")
OPENINGS = ("fatal:", "error:", "hint:", "warning:")  # how git starts a message of its own
LOOKS = ("remote", "fetch", "symbolic-ref", "config")  # never echoed: a failed fetch is named


@dataclass(frozen=True, slots=True)
class Shared:
    """What a share did: the haystack commit (if any), pulls and pushes run."""

    haystack_commit: str | None
    attempts: int
    pushed: bool
    remote: bool
    renamed: tuple[Renamed, ...] = ()  # this clone's notes moved beside the remote's twins


def share(
    config: Config,
    *,
    say: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Shared:
    """Commit the haystack, then pull and push with retries; see the module docstring."""
    from memidx.git.branch import on_a_branch
    from memidx.haystack.segment_commit import commit_haystack
    from memidx.memory.head_sync import after_commit

    remotes = _git(config, "remote").stdout.split()
    remote, branch = _upstream(config)
    # refused before the haystack is committed: a commit on a local branch left the segments
    # at the switch back (a detached HEAD, a stopped rebase's, is said as such first)
    if remotes and (not remote or not branch):  # git's merge and push would each say so too
        on_a_branch(config.root, "the haystack was not committed")
        raise _no_upstream("origin" if "origin" in remotes else remotes[0])
    commit = commit_haystack(config, say)
    if commit is not None or not remotes:
        after_commit(config, say)
    if not remotes:
        return Shared(commit, 0, pushed=False, remote=False)
    started, attempt, failed, unfetched = time.monotonic(), 0, "", 0
    renamed: tuple[Renamed, ...] = ()
    for attempt in range(1, ATTEMPTS + 1):
        if attempt > 1 and time.monotonic() - started > DEADLINE:
            break
        fetched = _git(config, "fetch", "-q")  # the network, before the look: moves no HEAD
        if fetched.returncode != 0:  # maybe a transient failure: try again, a few times
            failed, unfetched = f"git fetch failed: {_reason(fetched)}", unfetched + 1
            if unfetched >= FETCH_TRIES:
                break
            _pause(attempt, sleep, say, failed)
            continue
        unfetched = 0
        renamed += part_twins(config, say)  # before the merge, which would stop on them
        with serialized(config, time.monotonic() + WAIT_SECONDS, "nothing was pulled or pushed"):
            _quiet(config)
            merged = _git(config, "merge", "--no-edit", "@{upstream}")  # what was fetched
        if merged.returncode != 0:
            _merge_failed(config, merged)
            failed = f"git merge failed: {_reason(merged)}"
            _pause(attempt, sleep, say, failed)
            continue
        pushed = _git(config, "push", remote, f"HEAD:{branch}")  # whatever push.default says
        if pushed.returncode == 0:
            after_commit(config, say)  # in case the hooks are not installed
            return Shared(commit, attempt, pushed=True, remote=True, renamed=renamed)
        if not any(marker in pushed.stderr for marker in REJECTED):
            raise GitError(f"git push failed: {_reason(pushed)}", f"{_kept(renamed)}; {_AGAIN}")
        failed = ""
        _pause(attempt, sleep, say, "the remote moved (another clone pushed)")
    seconds = time.monotonic() - started
    if failed:  # the last try failed before the push: name that, not a moving remote
        look = (  # the merge in this clone, or the network
            "look at this clone's state (git status)"
            if failed.startswith("git merge")
            else "check the remote and the network (git fetch)"
        )
        raise GitError(
            f"{attempt} tries in {seconds:.0f} s did not get through; the last: {failed}",
            f"{_kept(renamed) + '; ' if renamed else ''}{look}, then make sync again",
        )
    raise GitError(
        f"the remote kept moving: {attempt} pulls and pushes in {seconds:.0f} s did not get "
        "through",
        "run make sync again",
    )


# A push that failed for good: what this clone committed stays, and the next share pushes it.
_AGAIN = "mend what git says (a protected branch, the network, the remote), then make sync again"


def _kept(renamed: tuple[Renamed, ...]) -> str:
    """What a failed share leaves for the next: its commits, the notes it moved among them."""
    moved = "".join(f", {move.was} moved to {move.ref}" for move in renamed)
    return f"nothing is lost: this clone's commits{moved} stay here, for the next make sync"


def _quiet(config: Config) -> None:
    """Wait until no git of this clone is committing: the merge would move HEAD from
    under it, and the person's commit would fail ("cannot lock ref 'HEAD'")."""
    from memidx.git.commit import WAIT_SECONDS, wait_until_quiet
    from memidx.git.repo import GitRepo

    git_dir = Path(GitRepo(config.root).run("rev-parse", "--absolute-git-dir").decode().strip())
    undone = "nothing was pulled or pushed"
    wait_until_quiet(config.root, git_dir, undone, time.monotonic() + WAIT_SECONDS)


def _merge_failed(config: Config, done: subprocess.CompletedProcess[str]) -> None:
    """Raise for a merge that trying again cannot mend; return for one it may."""
    text = done.stdout + done.stderr
    if "no upstream configured" in text:  # unset since share looked
        raise _no_upstream("origin")
    if "@{upstream} - not something we can merge" in text:  # after a fetch that worked
        raise MemidxError(
            "the branch's upstream is not on the remote (deleted there, or never pushed), "
            "so nothing was pulled or pushed",
            "push it with `git push -u origin HEAD`, or follow another branch with `git "
            "branch --set-upstream-to`, then make sync again",
        )
    if "not stored as a remote-tracking branch" in text:
        remote, branch = _upstream(config)
        branch = branch.removeprefix("refs/heads/")
        raise MemidxError(
            f"git fetch does not bring the branch's upstream {branch} from {remote} (a "
            "single-branch clone?), so nothing was pulled or pushed",
            f"git remote set-branches --add {quote(remote)} {quote(branch)}, then make sync again",
        )
    if any(marker in text for marker in CONFLICT):
        raise MemidxError(
            f"git merge stopped on a merge conflict: {_reason(done)}",
            "a person must resolve it: edit the files git status lists, git add them, "
            "git commit, then make sync again",
        )
    if "not possible because you have unmerged files" in text or "concluded your merge" in text:
        raise MemidxError(
            "a merge is in progress in this clone",
            "finish it (git status), then make sync again",
        )
    stopped = re.search(r"not concluded your ([a-z-]+)", text)  # a cherry-pick, a revert
    if stopped is not None:
        raise MemidxError(
            f"a {stopped.group(1)} is in progress in this clone, so nothing was pulled or pushed",
            "finish it (git status), then make sync again",
        )
    if "refusing to merge unrelated histories" in text:
        raise MemidxError(
            "the branch's upstream shares no history with this clone (replaced on the remote "
            "by another memory?), so nothing was pulled or pushed",
            "look at both (git log @{upstream}), then merge by hand with git merge "
            "--allow-unrelated-histories @{upstream}, or follow another branch",
        )
    if "Not possible to fast-forward" in text:
        raise MemidxError(
            "git merge may only fast-forward here (merge.ff = only) and the branches have "
            "diverged, so nothing was pulled or pushed",
            "merge by hand (git merge --no-ff @{upstream}) or unset merge.ff, then make sync again",
        )
    if "would be overwritten by merge" in text:
        named = " ".join(_files_listed(text))
        raise MemidxError(
            f"git merge refused: {_reason(done)}{' ' + named if named else ''}",
            "commit, move or delete the files git names (uncommitted edits or untracked "
            "files in the way), then make sync again",
        )


def _upstream(config: Config) -> tuple[str, str]:
    """The remote and the ref there (`refs/heads/main`) that the current branch follows;
    empty strings for what is not set."""
    branch = _git(config, "symbolic-ref", "-q", "--short", "HEAD").stdout.strip()
    if not branch:
        return "", ""
    remote = _git(config, "config", f"branch.{branch}.remote").stdout.strip()
    merge = _git(config, "config", f"branch.{branch}.merge").stdout.strip()
    return remote, merge


def _no_upstream(remote: str) -> MemidxError:
    return MemidxError(
        "the branch has no upstream to share with, so nothing was pulled or pushed",
        f"push it once with `git push -u {quote(remote)} HEAD`, then make sync again",
    )


def _pause(
    attempt: int, sleep: Callable[[float], None], say: Callable[[str], None] | None, why: str
) -> None:
    if attempt >= ATTEMPTS:
        return
    seconds = random.uniform(FIRST_PAUSE, min(MAX_PAUSE, FIRST_PAUSE * 2**attempt))
    if say is not None:
        say(f"{why}: trying again in {seconds:.1f} s ({attempt}/{ATTEMPTS})")
    sleep(seconds)


def _git(config: Config, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=config.root,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}", "install git and put it on PATH") from exc
    for text in (done.stdout, done.stderr):  # git's lines are diagnostics: stdout is the result
        if text.strip() and args[0] not in LOOKS:
            sys.stderr.write(text)
    return done


def _reason(done: subprocess.CompletedProcess[str]) -> str:
    """Why git failed: its line for a refused ref (` ! [remote rejected] main -> main
    (pre-receive hook declined)`), else the first sentence of its first `fatal:` or `error:`
    line (with the lines it runs on into), else its last line. Advice follows these lines
    ("and the repository exists.", "see push.default in 'git help config'.")."""
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines()]
    for line in lines:
        if line.startswith("! "):
            return line
    for at, line in enumerate(lines):
        if line.startswith(OPENINGS[:2]):  # fatal: or error:
            said = line
            for more in lines[at + 1 :]:
                if (
                    not more
                    or more.startswith(OPENINGS)
                    or said.endswith((".", ":"))
                    or ". " in said
                ):
                    break
                said = f"{said} {more}"
            first = " ".join(said.split(". ", 1)[0].split())
            return first if first.endswith((".", ":")) else f"{first}."
    return _last_line(done)


def _files_listed(text: str) -> list[str]:
    """The files git lists, an indented line each, under its lines "... would be overwritten
    by merge:" (five at most, then how many more)."""
    files: list[str] = []
    listing = False
    for line in text.splitlines():
        if listing and line[:1] in ("\t", " ") and line.strip():
            files.append(line.strip())
            continue
        listing = line.rstrip().endswith("overwritten by merge:")
    return files if len(files) <= 5 else [*files[:5], f"and {len(files) - 5} more"]


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return lines[-1] if lines else f"exit {done.returncode}"

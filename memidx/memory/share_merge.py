"""Why `memidx share`'s merge failed, and which of those failures trying again cannot mend;
the branch's upstream as git's configuration names it."""

from __future__ import annotations

import re
import subprocess
from shlex import quote

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.memory.share_git import PULL, reason, run_git

CONFLICT = ("CONFLICT", "Automatic merge failed", "fix conflicts")
# git's refusals for what the clone holds: trying again cannot mend them
# git merge's refusals of an upstream commit under merge.verifySignatures
UNSIGNED = ("does not have a GPG signature", "has a bad GPG signature", "untrusted GPG signature")
IN_THE_WAY = ("would be overwritten by merge", "would lose untracked files in them")


def merge_failed(config: Config, done: subprocess.CompletedProcess[str]) -> None:
    """Raise for a merge that trying again cannot mend; return for one it may."""
    text = done.stdout + done.stderr
    if "no upstream configured" in text:  # unset since share looked
        raise no_upstream("origin")
    if "@{upstream} - not something we can merge" in text:  # after a fetch that worked
        raise MemidxError(
            "the branch's upstream is not on the remote (deleted there, or never pushed), "
            "so nothing was pulled or pushed",
            "push it with `git push -u origin HEAD`, or follow another branch with `git "
            "branch --set-upstream-to`, then make sync again",
        )
    if "not stored as a remote-tracking branch" in text:
        remote, branch = upstream(config)
        branch = branch.removeprefix("refs/heads/")
        raise MemidxError(
            f"git fetch does not bring the branch's upstream {branch} from {remote} (a "
            "single-branch clone?), so nothing was pulled or pushed",
            f"git remote set-branches --add {quote(remote)} {quote(branch)}, then make sync again",
        )
    if any(marker in text for marker in CONFLICT):
        raise MemidxError(
            f"git merge stopped on a merge conflict: {reason(done)} share undid its merge "
            "(git merge --abort), so nothing was pulled or pushed",
            f"a person must resolve it: {PULL}, edit the files git status lists, git add "
            "them, git commit, then make sync again",
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
            "look at both (git fetch, then git log @{upstream}), then merge by hand with "
            f"{PULL} --allow-unrelated-histories, or follow another branch",
        )
    if "Not possible to fast-forward" in text:
        raise MemidxError(
            "git merge may only fast-forward here (merge.ff = only) and the branches have "
            "diverged, so nothing was pulled or pushed",
            f"merge by hand ({PULL} --no-ff) or unset merge.ff, then make sync again",
        )
    if any(said in text for said in UNSIGNED):
        raise MemidxError(
            f"git merge refused the upstream's commit: {reason(done)} (merge.verifySignatures "
            "is set), so nothing was pulled or pushed",
            "look at who made it (git fetch, then git log --show-signature -1 @{upstream}); "
            f"if you trust it, {PULL} --no-verify-signatures, then make sync again",
        )
    if any(line in text for line in IN_THE_WAY):
        named = " ".join(files_listed(text))
        raise MemidxError(
            f"git merge refused: {reason(done)}{' ' + named if named else ''}",
            "commit, move or delete the files git names (uncommitted edits or untracked "
            "files in the way), then make sync again",
        )


def upstream(config: Config) -> tuple[str, str]:
    """The remote and the ref there (`refs/heads/main`) that the current branch follows;
    empty strings for what is not set."""
    return tracking(config)[1:]


def tracking(config: Config) -> tuple[str, str, str]:
    """The branch HEAD names (`refs/heads/notes`), the remote it follows and the ref there
    (`refs/heads/main`); empty strings for what is not set (a detached HEAD: all three)."""
    here = run_git(config, "symbolic-ref", "-q", "HEAD").stdout.strip()
    if not here.startswith("refs/heads/"):
        return "", "", ""
    branch = here.removeprefix("refs/heads/")
    remote = run_git(config, "config", f"branch.{branch}.remote").stdout.strip()
    merge = run_git(config, "config", f"branch.{branch}.merge").stdout.strip()
    return here, remote, merge


def no_upstream(remote: str, tracked: tuple[str, str] | None = None) -> MemidxError:
    """No upstream here. `tracked`: another local branch that has one (the memory's own, as
    a rule) and the work tree it is checked out in, if any: its switch (or that work tree)
    comes first in the hint, since a push would publish this branch, a person's side branch
    as often as not (chaos.py: an agent following the hint did)."""
    push = f"git push -u {quote(remote)} HEAD"
    name, there = tracked or ("", "")
    # checked out in another work tree, git refuses its switch here ("already used by worktree")
    go = f"cd {_word(there)} (its work tree)" if there else f"git switch {quote(name)}"
    return MemidxError(
        "the branch has no upstream to share with, so nothing was pulled or pushed",
        f"push it once with `{push}`, then make sync again"
        if tracked is None
        else f"to share {name}: {go}, then make sync again; to "
        f"publish this branch too: `{push}` once, then make sync again",
    )


def tracked_branch(config: Config, remote: str) -> tuple[str, str] | None:
    """A local branch that follows its namesake on `remote` (main following origin/main), the
    remote's default branch first, else the first by name, and the work tree it is checked out
    in ("" for none); None when there is none. A branch following another name is a person's
    (`git switch -c feature origin/main` sets that): a share there would push their work to
    main. The full name, cut here: git's short one of a branch beside a tag of its name is
    `heads/main`, which `git switch` refuses."""
    heads, form = "refs/heads/", "--format=%(refname)%00%(upstream)%00"
    done = run_git(config, "for-each-ref", f"{form}%(worktreepath)%00", heads)
    if done.returncode != 0:  # git older than 2.23 has no %(worktreepath): the switch is named
        done = run_git(config, "for-each-ref", f"{form}%00", heads)
    default = run_git(config, "symbolic-ref", "-q", f"refs/remotes/{remote}/HEAD").stdout.strip()
    found = [  # one record ends in NUL and newline: a work tree's path may hold a newline
        (ref.removeprefix(heads), there)
        for record in done.stdout.split("\0\n")
        for ref, upstream, there in [(*record.split("\0"), "", "")[:3]]
        if upstream == f"refs/remotes/{remote}/{ref.removeprefix(heads)}"
    ]
    first = [branch for branch in found if f"refs/remotes/{remote}/{branch[0]}" == default]
    return next(iter(first + found), None)


def _word(path: str) -> str:
    """`path` as one shell word on one line: a newline or other control character in it is
    written as bash's $'...' escape, else as shlex quotes it (an error is one line)."""
    if path.isprintable():
        return quote(path)
    escaped = (
        "\\\\" if ch == "\\" else "\\'" if ch == "'" else ch if ch.isprintable()
        else f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\U{ord(ch):08x}"
        for ch in path
    )  # fmt: skip
    return "$'" + "".join(escaped) + "'"


def files_listed(text: str) -> list[str]:
    """The files git lists, an indented line each, under its lines "... would be overwritten
    by merge:" (five at most, then how many more)."""
    files: list[str] = []
    listing = False
    for line in text.splitlines():
        if listing and line[:1] in ("\t", " ") and line.strip():
            files.append(line.strip())
            continue
        listing = line.rstrip().endswith(tuple(f"{said}:" for said in IN_THE_WAY))
    return files if len(files) <= 5 else [*files[:5], f"and {len(files) - 5} more"]

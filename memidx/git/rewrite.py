"""Replace blobs in the local commits no remote has yet (`memidx haystack purge`): each commit
reachable from HEAD (or from a branch the person names) but from no remote-tracking branch is
built again with the new blobs in place of the old ones at their paths, same author,
committer, dates and message, so a commit two branches share is rebuilt the same for both.
HEAD moves to the rebuilt HEAD as memidx's own commits move it (memidx.git.commit.publish:
never while a person's git is committing or holds the index, compare-and-swap against the
HEAD it was built on, built again when HEAD moved; git's index learns the rebuilt segments
in the same child process); a named branch moves by a compare-and-swap `git update-ref` from
the commit it was rebuilt from. Pushed commits are never rewritten."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from memidx.config import Config
from memidx.errors import GitError
from memidx.git.branch_move import move_branch
from memidx.git.process import ended, run_process
from memidx.git.repo import GitRepo, git_env
from memidx.git.tips import unpushed_commits

PERSON = re.compile(r"^(.*) <(.*)> (\d+ [+-]\d{4})$")


def pushed_paths(root: Path, refs: Sequence[str]) -> set[str]:
    """The paths some commit on a remote-tracking branch holds (their bytes left the clone)."""
    repo = GitRepo(root)
    return {
        r for r in refs if repo.run("rev-list", "-1", "--remotes", "--", r, check=False).strip()
    }


Replacements = Mapping[tuple[str, str], str]  # (path, old blob) -> the blob that replaces it


def rewrite_unpushed(
    config: Config,
    folders: Sequence[str],
    replace: Replacements,
    paths: Sequence[str],
    then: Callable[[], None] = lambda: None,
    *,
    branch: str | None = None,
    wait: float | None = None,
) -> int:
    """Put the `replace` blobs into every unpushed commit of HEAD that holds the old ones under
    `folders`, point git's index at HEAD's blobs for `paths` (in the git that moves HEAD) and
    run `then` (the work tree's files at `paths` follow); returns how many commits were built
    again. HEAD moves as memidx's own commits move it (never while a person's git is
    committing, never from a HEAD that moved since it was read: built again then); GitError
    when that cannot happen in time, and then nothing changed; GitBusy when HEAD names another
    branch than `branch` (memidx.git.branch.head_ref, read before the purge read anything):
    a `git switch` meanwhile never gets the branch it took HEAD to rewritten. It waits `wait`
    seconds for git at most (WAIT_SECONDS when None)."""
    from memidx.git.commit import WAIT_SECONDS, index_follows, publish, update_user_index
    from memidx.git.commit_lock import serialized
    from memidx.git.late import settle
    from memidx.git.plumbing import Plumbing
    from memidx.git.publish import committers

    repo = GitRepo(config.root)
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
    rebuilt: dict[str, str] = {}

    def build(head: str | None) -> str:
        if head is None:
            raise GitError("HEAD has no commit any more; nothing was rewritten", "try again")
        rebuilt.clear()
        for commit in unpushed_commits(repo, head):
            rebuilt[commit] = _rebuilt(repo, commit, folders, replace, rebuilt)
        return rebuilt.get(head, head)

    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    undone = "the unpushed commits were not rewritten and no segment changed"
    with serialized(config, deadline, undone):  # no memidx commit moves HEAD meanwhile
        if repo.head() is None:
            then()
            return 0
        # git's index follows HEAD in the git that moves it: a purge killed in between left
        # the old blobs staged, for a person's next `git commit` to bring the bytes back
        head = publish(
            config.root, git_dir, build, repo.head, "memidx haystack purge", deadline=deadline,
            undone=undone, then=index_follows(paths), branch=branch,
            ready=index_follows(paths),  # on a copy before the move: index.lock for a rename
        )  # fmt: skip
        late = committers(config.root)  # one that started at the move may have read the
        count = sum(1 for old, new in rebuilt.items() if old != new)
        then()  # index with the forgotten bytes: it ends, git's index is told again below
        try:  # (the work tree is blanked first, whatever that git does)
            if late and paths:
                settle(Plumbing(config.root), late, head, sorted(paths), deadline, purge=True)
        finally:  # one still under way or done: git's index is told all the same (it kept
            # the forgotten bytes staged for the person's next commit, when settle raised)
            # never a reset without paths (that would reset the whole index); again here:
            # the reset with the move gives up on a lock another git holds, this one waits
            if count and paths:
                done = f"rewrote the unpushed commits up to {head[:12]}"
                shows = "the forgotten bytes as staged"
                repository = Plumbing(config.root)
                update_user_index(repository, sorted(paths), head, deadline, done=done, shows=shows)
    return count


def rewrite_branch(
    config: Config, ref: str, old: str, folders: Sequence[str], replace: Replacements
) -> int | None:
    """Build the unpushed commits of the branch `ref` (at `old`, checked out in no work tree)
    again with the `replace` blobs, and move it only from `old` (git update-ref's compare and
    swap): how many commits were built again, None when the branch moved meanwhile (it is
    left where it moved) or HEAD names it now (a `git switch` since the purge looked).
    Nothing in any work tree or git's index changes."""
    repo = GitRepo(config.root)
    rebuilt: dict[str, str] = {}
    for commit in unpushed_commits(repo, old):
        rebuilt[commit] = _rebuilt(repo, commit, folders, replace, rebuilt)
    new = rebuilt.get(old, old)
    if new == old:
        return 0
    # not under a HEAD that a `git switch` took to the branch since the purge looked
    if not move_branch(repo, ref, new, old, "memidx haystack purge"):
        return None
    return sum(1 for before, after in rebuilt.items() if before != after)


def _rebuilt(
    repo: GitRepo,
    commit: str,
    folders: Sequence[str],
    replace: Replacements,
    mapping: Mapping[str, str],
) -> str:
    """The commit with the `replace` blobs under `folders` and its parents as rebuilt (same
    author, committer, dates and message); itself when nothing changes."""
    raw = repo.run("cat-file", "commit", commit).decode("utf-8", "surrogateescape")
    headers, _, message = raw.partition("\n\n")
    fields = [line.split(" ", 1) for line in headers.splitlines() if " " in line]
    parents = [value for key, value in fields if key == "parent"]
    tree = next(value for key, value in fields if key == "tree")
    new_parents = [mapping.get(p, p) for p in parents]
    entries = [
        f"{e.mode} {replace[e.path, e.blob_id]}\t{e.path}\0"
        for folder in folders
        for e in repo.tree(commit, folder)
        if (e.path, e.blob_id) in replace
    ]
    if not entries and new_parents == parents:
        return commit
    env = git_env()
    new_tree = tree
    if entries:
        git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
        temporary = git_dir / f"memidx-purge-{os.getpid()}.index"
        env["GIT_INDEX_FILE"] = str(temporary)
        try:
            _git(repo, env, "read-tree", commit)
            info = "".join(entries).encode("utf-8", "surrogateescape")
            _git(repo, env, "update-index", "-z", "--index-info", stdin=info)
            new_tree = _git(repo, env, "write-tree").decode().strip()
        finally:
            temporary.unlink(missing_ok=True)
        env.pop("GIT_INDEX_FILE")
    for key, value in fields:
        found = PERSON.match(value) if key in ("author", "committer") else None
        if found is not None:
            who = "AUTHOR" if key == "author" else "COMMITTER"
            env[f"GIT_{who}_NAME"], env[f"GIT_{who}_EMAIL"] = found.group(1), found.group(2)
            env[f"GIT_{who}_DATE"] = found.group(3)
    # the message's bytes in the encoding its header names, not the one configured now: under
    # UTF-8 commit-tree read Latin-1 bytes as broken UTF-8 and rewrote them, and the header
    # was dropped (or one added to a UTF-8 message)
    encoding = next((value for key, value in fields if key == "encoding"), "UTF-8")
    args = ["commit-tree", new_tree, *[a for p in new_parents for a in ("-p", p)]]
    message_bytes = message.encode("utf-8", "surrogateescape")
    labelled = ("-c", f"i18n.commitEncoding={encoding}")
    return _git(repo, env, *args, stdin=message_bytes, config=labelled).decode().strip()


def _git(
    repo: GitRepo,
    env: Mapping[str, str],
    *args: str,
    stdin: bytes = b"",
    config: Sequence[str] = (),
) -> bytes:
    done = run_process(["git", "-C", str(repo.root), *config, *args], env, stdin)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace")
        raise GitError(f"git {args[0]} {ended(done.returncode, said)}", "")
    return done.stdout


def blank_staged(
    root: Path,
    folders: Sequence[str],
    blank: Callable[[bytes], bytes | None],
    max_bytes: int,
    deadline: float,
) -> list[str]:
    """Put in git's index, for each file under `folders` it stages (stage 0) other than as
    HEAD holds it, the `blank`ed twin of the staged blob when `blank` changes it, so that a
    segment staged with forgotten bytes (`git add -A` before the purge) stays staged without
    them: the next `git commit` would otherwise commit them again. (A file staged as HEAD has
    it follows HEAD's rewrite, or is pushed and named.) Returns the paths changed; waits for
    another git's index lock until `deadline`, then GitError naming them. A blob over
    `max_bytes` is not read (no segment memidx wrote)."""
    from shlex import quote

    repo = GitRepo(root)
    staged, blanked = staged_to_blank(root, folders, blank, max_bytes)
    twins = {
        blob: repo.run("hash-object", "-w", "--stdin", input_bytes=new).decode().strip()
        for blob, new in blanked.items()
    }
    entries = [(mode, twins[blob], path) for mode, blob, path in staged if blob in twins]
    if not entries:
        return []
    info = "".join(f"{mode} {blob}\t{path}\0" for mode, blob, path in entries)
    argv = ["git", "-C", str(root), "update-index", "-z", "--index-info"]
    for attempt in range(10_000):  # bounded by the deadline
        done = run_process(argv, git_env(), info.encode("utf-8", "surrogateescape"))
        if done.returncode == 0:
            return [path for _, _, path in entries]
        if b"index.lock" not in done.stderr or time.monotonic() > deadline:
            break
        time.sleep(min(0.05 * 2**attempt, 0.5))
    named = " ".join(quote(path) for _, _, path in entries)
    raise GitError(
        f"git's index in {root} stayed locked, so it still stages forgotten bytes of {named}",
        f"once the other git command ends, run: git -C {quote(str(root))} add -- {named}",
    )


def staged_to_blank(
    root: Path, folders: Sequence[str], blank: Callable[[bytes], bytes | None], max_bytes: int
) -> tuple[list[tuple[str, str, str]], dict[str, bytes]]:
    """What `blank_staged` would change, nothing written: each entry (mode, blob, path) git's
    index stages under `folders` other than as HEAD holds it, and the `blank`ed bytes of each
    of their blobs that `blank` changes."""
    from memidx.git.repo import MODE_GITLINK, decode_path

    repo = GitRepo(root)
    wanted_paths = [f":(literal){folder}/" for folder in folders]
    out = repo.run("ls-files", "--stage", "-z", "--full-name", "--", *wanted_paths)
    staged: list[tuple[str, str, str]] = []  # (mode, blob, path)
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        fields = meta.decode().split()
        if len(fields) == 3 and fields[2] == "0" and fields[0] != MODE_GITLINK:
            staged.append((fields[0], fields[1], decode_path(path)))
    head = repo.head()
    committed: set[tuple[str, str]] = set()
    if head is not None:
        committed = {(e.path, e.blob_id) for folder in folders for e in repo.tree(head, folder)}
    staged = [(mode, blob, path) for mode, blob, path in staged if (path, blob) not in committed]
    wanted = sorted({(blob, 0) for _, blob, _ in staged})
    blanked: dict[str, bytes] = {}
    for blob, _, data in repo.read_blobs(wanted, max_bytes):
        new = blank(data) if data is not None else None
        if new is not None:
            blanked[blob] = new
    return staged, blanked

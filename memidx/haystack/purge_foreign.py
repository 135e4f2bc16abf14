"""A segment another clone's writer filed, committed here but pushed nowhere this clone knows
(pulled straight from that clone: `git pull ../peer`), in `memidx haystack purge`.

Its commits are that clone's too: rebuilding them here with the record blanked would give one
path two histories, and the next pull of them (once the peer pushes) would conflict. So purge
never rebuilds them: it blanks the file and commits the blanked bytes on top, a new commit
with git plumbing like `haystack commit`'s. Blanking is the same bytes wherever it runs, so
the peer's own purge of that segment, or its commits as they were, merge with it cleanly. The
forgotten bytes stay in the peer's commits, here and there, as in a pushed segment's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from memidx.config import Config
from memidx.drafts import read_whole, replace_durably
from memidx.errors import MemidxError
from memidx.haystack.blanking import blanked
from memidx.haystack.indexing import haystack_folder, segment_ref
from memidx.text import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo

Files = dict[Path, tuple[bytes, int]]  # a segment file -> its blanked bytes, records blanked


def foreign_to(config: Config, current: str) -> Callable[[str], bool]:
    """Whether a segment (its path in git) is another clone's writer's: its folder is none of
    the ids this clone wrote as (memidx.haystack.own_writers), `current` among them, or one a
    copy's original writes on as, and it came after those the copy shares."""
    from memidx.haystack.own_writers import own_writers, record_own, shared_until
    from memidx.haystack.writer import segment_order

    record_own(config, current)  # an id made before ids were recorded is this clone's
    own = own_writers(config) | {current}
    until = shared_until(config)  # a copy's: its original's later segments are the original's

    def foreign(ref: str) -> bool:
        path = PurePosixPath(ref)
        last = until.get(path.parent.name)
        later = last is not None and segment_order(Path(path.name)) > segment_order(Path(last))
        return path.parent.name not in own or later

    return foreign


def split_foreign(
    config: Config, files: Files, foreign: Callable[[str], bool] | None, forgotten: set[str]
) -> tuple[Files, Files]:
    """The files purge rebuilds the commits of (its own, or no commit at HEAD holds them),
    and the other writers' segments HEAD holds, which it commits blanked on top instead, with
    those a purge blanked and was stopped before committing (`foreign` None: outside git,
    every file is the first kind)."""
    from memidx.git.repo import GitRepo

    if foreign is None:
        return files, {}
    repo = GitRepo(config.root)
    head = repo.head()
    own: Files = {}
    theirs: Files = {}
    for path, bytes_and_count in files.items():
        ref = segment_ref(config, path)
        held = head is not None and foreign(ref) and repo.has(head, ref)
        (theirs if held else own)[path] = bytes_and_count
    if head is not None:
        changed = _changed_foreign(config, repo, head, foreign)
        theirs |= _blanked_uncommitted(config, repo, head, changed, forgotten)
    return own, theirs


def finish_stopped(
    config: Config, current: str, notice: Callable[[str], None], branch: str
) -> str | None:
    """Commit the other writers' segments a purge blanked and was stopped (killed) before
    committing, as it would have: until then HEAD still holds their forgotten bytes, and
    `haystack commit` (so `memidx share`, which pushes) must not leave them there. The commit
    made, or None; `notice` says what it committed. `current`: this clone's writer id;
    `branch`: HEAD's when the caller began (commit_blanked)."""
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    head = repo.head()
    if head is None:
        return None
    changed = _changed_foreign(config, repo, head, foreign_to(config, current))
    if not changed:  # as nearly always: one git diff was the whole cost
        return None
    found = _blanked_uncommitted(config, repo, head, changed, _forgotten(config))
    if not found:
        return None
    blanked = commit_blanked(config, found, branch)
    notice(
        f"a purge was stopped before it committed {counted(len(blanked), 'segment')} of other "
        f"writers it blanked ({', '.join(sorted(blanked))}): committed now"
    )
    return repo.head()


def _forgotten(config: Config) -> set[str]:
    """The forgotten ids: the tombstones in the segment files, and those the index knows
    when it can be read (a commit never fails for want of an index); and the hashes of their
    texts a purge kept (memidx.haystack.purge_torn), as the purge blanked with them."""
    import sqlite3

    from memidx.haystack.forgotten import tombstones_on_disk
    from memidx.haystack.purge_torn import stored_hashes
    from memidx.index.store import RecordStore, open_store

    found = tombstones_on_disk(haystack_folder(config)) | stored_hashes(config)
    try:
        store, _ = open_store(config.index_path, write=False)
    except (MemidxError, sqlite3.Error):
        return found
    try:
        return found | RecordStore(store.conn).forgotten_ids()
    finally:
        store.conn.close()


def _changed_foreign(
    config: Config, repo: GitRepo, head: str, foreign: Callable[[str], bool]
) -> list[str]:
    """The other writers' segments whose files differ from HEAD's (or HEAD has none)."""
    folder = segment_ref(config, haystack_folder(config))
    out = repo.run("diff", "--name-only", "-z", head, "--", f"{folder}/", check=False)
    return [ref for ref in out.decode("utf-8", "replace").split("\0") if ref and foreign(ref)]


def _blanked_uncommitted(
    config: Config, repo: GitRepo, head: str, refs: list[str], forgotten: set[str]
) -> Files:
    """Of the other writers' segment files `refs`, those that are HEAD's bytes with the
    forgotten records blanked, not committed: a purge stopped (killed) between blanking and
    committing them. Its file then holds nothing to blank, but HEAD still holds the forgotten
    text: they are committed as that purge would have (a file changed any other way is left
    as it is)."""
    from memidx.git.rewrite import pushed_paths

    found: Files = {}
    for ref in refs:
        path = config.root / ref
        try:
            data = read_whole(path)  # as it is: a FIFO there hung the purge
        except OSError:  # not readable: not what a purge leaves
            continue
        if data is None:  # deleted, or not a file: not what a purge leaves
            continue
        held = repo.run("cat-file", "blob", f"{head}:{ref}", check=False)  # b"": added
        new, count = blanked(held, forgotten)
        if count and new == data:
            found[path] = (data, count)
    pushed = pushed_paths(config.root, [segment_ref(config, p) for p in found])
    return {p: v for p, v in found.items() if segment_ref(config, p) not in pushed}


def commit_blanked(
    config: Config, files: Files, branch: str | None, wait: float | None = None
) -> dict[str, int]:
    """Commit the other writers' segments blanked on HEAD (git plumbing, from the blanked
    bytes: nothing else staged changes), only while HEAD names `branch` (memidx.git.branch.
    head_ref, read before the files were: never on a branch a `git switch` took HEAD to
    meanwhile), the files blanked with HEAD's move; the records blanked per segment. When the
    commit fails, nothing changed, and the error says so. Blanked before the commit, a
    person's `git pull --autostash` meanwhile stashed them, and its apply blanked them again
    after the error had said they kept their bytes (` M`, for their next `git commit -a`).
    `wait`: commit_paths'."""
    from memidx.git.commit import commit_paths
    from memidx.index.failures import pull_trace

    refs = {path: segment_ref(config, path) for path in files}
    written = {refs[path]: new for path, (new, _) in files.items()}
    subject = f"haystack purge: forgotten records blanked in {counted(len(files), 'segment')}"
    try:
        commit_paths(
            config, sorted(refs.values()), f"{subject} of other writers", branch=branch,
            wait=wait, written=written, unhelped=pull_trace(config),
        )  # fmt: skip
    except MemidxError as failed:
        if _write_landed(config, files, refs) or all(
            path.read_bytes() == new for path, (new, _) in files.items()
        ):  # committed (only what followed failed), or blanked before: as it says
            raise
        raise type(failed)(
            f"{failed.message}; the segment files of other writers keep their bytes, "
            "forgotten records included",
            _again(failed.hint),
        ) from None
    _write_landed(config, files, refs)
    return {refs[path]: count for path, (_, count) in files.items()}


def _write_landed(config: Config, files: Files, refs: dict[Path, str]) -> bool:
    """Write each file HEAD holds blanked whose bytes are not (the move's checkout did not:
    no POSIX shell, git's index held), durably; whether HEAD holds any blanked."""
    from memidx.git.repo import GitRepo

    repo, landed = GitRepo(config.root), False
    for path, (new, _) in files.items():
        twin = repo.run("hash-object", "--stdin", input_bytes=new).strip()
        at_head = repo.run("rev-parse", "-q", "--verify", f"HEAD:{refs[path]}", check=False)
        if at_head.strip() == twin:
            landed = True
            replace_durably(path, new, "purge", durable=config.fsync)  # synced, as before
    return landed


def _again(hint: str) -> str:
    """The commit's hint, ending in running the purge again rather than "try again"."""
    run = "run memidx haystack purge again"
    if hint.endswith("then try again"):
        return f"{hint.removesuffix('try again')}{run}"
    return run if hint in ("", "try again") else f"{hint}; then {run}"

"""The notes a sync removes because `memidx forget` deleted them: their vectors go with their
chunks. The vector of a text no chunk holds is kept as a cache (a note restored or renamed is
not embedded again), but a forgotten note's text is to be gone from memory, as a rebuild has
it. Git says which deletions were forgets (the commit's subject), so the sync that removes the
note drops them wherever it runs: the forget's own, the next `memidx sync` after a forget
whose index could not follow, another clone's after a pull."""

from __future__ import annotations

from collections.abc import Iterable

from memidx.config import Config
from memidx.errors import GitError
from memidx.git.history import Step
from memidx.git.repo import GitRepo
from memidx.index.store import Store, VectorStore
from memidx.index.sync_report import SyncReport
from memidx.text import counted

FORGET_SUBJECT = "memidx forget: "  # memidx.memory.forget's commit subject, then the ref
NOTE = "note"


def forgotten_notes(repo: GitRepo, old: str, step: Step, report: SyncReport) -> list[str]:
    """Of the notes the sync from commit `old` to `step` removes or reads again (the report's
    drift), those a commit of `memidx forget` deleted (every commit between, on any side of a
    merge): a note forgotten, then written again at its path, reads as changed, and its
    forgotten text's vectors go too. One commit cannot both delete and change a note: a note it
    changed (the hook's usual step) asks git nothing. When git cannot say (a missing object, a
    git that fails), every one of them counts as forgotten, said in a warning: a text no chunk
    holds loses its cached vector (embedded again if it comes back), never a forgotten one
    kept without a word. Git having lost `old` (an amended commit pruned: the sync reads the
    whole tree) is no failure: they count as forgotten without a warning, which only named
    git's "Invalid revision range" after the next commit."""
    drift = report.drift
    removed = drift.orphaned if step.parents == (old,) else (*drift.orphaned, *drift.stale)
    if not removed:
        return []
    paths = "".join(f":(literal){ref}\n" for ref in removed)  # on stdin: a branch switch
    asked = f"{old}..{step.commit}\n--\n{paths}".encode()  # may remove thousands of notes
    args = ("log", "--stdin", "--full-history", "--no-renames", "--format=%s")
    try:
        said = repo.run(*args, input_bytes=asked).decode("utf-8", "replace").splitlines()
    except GitError as exc:
        if repo.run("cat-file", "-t", old, check=False).strip() != b"commit":
            return sorted(removed)  # a commit git lost (a rebase's, pruned): no failure to say
        report.warned.append(
            f"{exc.message}, so which of the {counted(len(removed), 'note')} this sync removes "
            "or reads again `memidx forget` deleted is unknown: the vectors of their old text "
            "were dropped as if forgotten (a text that comes back is embedded again)"
        )
        return sorted(removed)
    named = {line.removeprefix(FORGET_SUBJECT) for line in said if line.startswith(FORGET_SUBJECT)}
    return sorted(named.intersection(removed))


def forgotten_since(
    config: Config, old: str | None, new: str | None, report: SyncReport
) -> list[str]:
    """forgotten_notes for a sync that compares the whole tree with the index at `old` (other
    settings, a newer note reader: it reads every note again), when git still has `old`."""
    if not config.in_git or not old or not new or old == new:
        return []
    return forgotten_notes(GitRepo(config.root), old, Step(new, (), 0), report)


def their_texts(store: Store, refs: Iterable[str]) -> set[str]:
    """The text hashes of these notes' chunks, read before the sync removes them."""
    return VectorStore(store.conn).text_hashes(NOTE, refs)


def drop_their_vectors(store: Store, text_hashes: set[str]) -> None:
    """Drop the vectors of these texts no chunk holds once the sync applied (a note that
    holds the same text keeps its vector)."""
    if text_hashes:
        VectorStore(store.conn).drop_texts(text_hashes)

"""A note `memidx forget` took out of a branch that a merge brought back, forgotten again by the
post-merge hook.

A branch made before a `git pull --rebase` (or any rewrite) holds the note in commits the rebase
copied: their merge-base lacks the note, so merging that branch after the note was forgotten
adds it again, as the other side's new file, into memory and on to the remote
(tests/benchmark/chaos.py, seeds 1 and 2). It is the forgotten note when the merge's first
parent lacks it and holds a memidx `forget` commit that the other parent never saw
(one that did and wrote the note again meant it), the merge holds the very bytes that commit
deleted (at any path: a note renamed, then forgotten, came back at its old name), the merge left
no conflict there (a modify/delete the person resolved by keeping the note, its bytes from
before the forget, was forgotten again against that resolution), and the other parent neither
reverted it nor wrote the note after it (a commit authored later: a restore by `git checkout
<forget>^ -- <note>` was forgotten again, told from a stale copy by nothing else). Which commit
changed the path last is not asked: git names a person's merge that kept the note out (a pull of
a branch still holding it, a conflict resolved by deleting it) before the forget, however its
history is simplified (seed 1). Git's history keeps the note's text, as after any forget."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config
from memidx.git.repo import GitRepo
from memidx.notes.note import is_note_path

SUBJECT = "memidx forget: "  # memidx.memory.forget's subject, before the note's path


def brought_back(config: Config, merge: str = "HEAD") -> dict[str, str]:
    """The forgotten notes merge commit `merge` holds again: ref -> the forget's commit."""
    repo = GitRepo(config.root)
    parents = _text(repo, "rev-list", "--parents", "-n", "1", merge).split()
    if len(parents) != 3:  # not a merge (an octopus is none a person makes by hand)
        return {}
    _, ours, theirs = parents
    forgot = _forgotten_only_ours(repo, ours, theirs)
    if not forgot:  # the usual merge: no forget since the branches parted, no walk per note
        return {}
    args = ("diff", "--raw", "--no-abbrev", "-z", "--no-renames", "--diff-filter=A", ours, merge)
    added = _added(_text(repo, *args, "--", config.notes_dir), config.notes_dir)
    deleted = _deleted(repo, forgot) if added else {}
    found: dict[str, str] = {}
    chosen: set[str] | None = None  # the notes the person's resolution of a conflict kept
    for ref, back in added:
        # the forget that deleted these very bytes, at any path (a note renamed, then forgotten,
        # came back at its old name); other bytes are the other branch's own note
        commit, path = deleted.get(back, ("", ""))
        literal = f":(literal){ref}"
        if not commit or (path != ref and not _text(repo, "rev-list", "-1", ours, "--", literal)):
            continue  # at a path this branch never held: another note of the same bytes
        chosen = _conflicted(repo, ours, theirs) if chosen is None else chosen
        if ref in chosen:
            continue  # a modify/delete conflict the person resolved by keeping the note: meant
        if _reverted(repo, commit, theirs, ours, literal):
            continue  # `git revert` of the forget on a branch that never held it: meant
        if _written_after(repo, commit, theirs, ours, literal):
            continue  # `git checkout <forget>^ -- <note>`, committed there since: meant
        found[ref] = commit
    return found


def forget_again(config: Config, say: Callable[[str], None]) -> None:
    """Forget again each note the merge at HEAD brought back, each said in one line."""
    from memidx.errors import MemidxError
    from memidx.memory.forget import forget

    for ref, commit in brought_back(config).items():
        came = f"{ref}, forgotten in {commit[:12]}, came back with this merge (the other branch "
        came += "still held it from before a rebase)"
        try:
            done = forget(config, ref, lambda line: say(line.removeprefix("memidx: ")))
        except MemidxError as exc:
            say(f"warning: {came}, and was not forgotten again: {exc} (run `memidx forget {ref}`)")
            continue
        say(f"{came}: forgotten again ({(done.commit or '')[:12]})")


def _forgotten_only_ours(repo: GitRepo, ours: str, theirs: str) -> dict[str, list[str]]:
    """The refs named by memidx's forget commits the first parent holds and the other does not,
    each with those commits, newest first: the only notes a merge can bring back (a `git log` of
    each note the merge added walked the whole history for each: +1.4 s for a pull of 20
    notes, 500 commits)."""
    grep = ("--grep", f"^{SUBJECT}", "--format=%H %s", "-z", ours, f"^{theirs}")
    forgot: dict[str, list[str]] = {}
    for line in _text(repo, "log", *grep).split("\0"):
        commit, _, subject = line.partition(" ")
        if subject.startswith(SUBJECT):
            forgot.setdefault(subject.removeprefix(SUBJECT), []).append(commit)
    return forgot


def _added(raw: str, notes_dir: str) -> list[tuple[str, str]]:
    """(path, blob) of each note `git diff --raw -z --diff-filter=A` lists as added."""
    fields = raw.split("\0")
    pairs = zip(fields[0::2], fields[1::2], strict=False)
    return [(path, said.split()[3]) for said, path in pairs if len(said.split()) > 4 and
            is_note_path(path, notes_dir)]  # fmt: skip


def _deleted(repo: GitRepo, forgot: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """The blob each forget commit deleted -> that commit (the newest, of several) and the
    path it forgot, read in one git."""
    asked = [(c, ref) for ref, commits in forgot.items() for c in commits if "\n" not in ref]
    lines = "".join(f"{commit}^:{ref}\n" for commit, ref in asked).encode()
    said = _text(repo, "cat-file", "--batch-check", input_bytes=lines).splitlines()
    found: dict[str, tuple[str, str]] = {}
    for (commit, ref), answer in zip(asked, said, strict=False):
        blob, _, kind = answer.partition(" ")
        if kind.startswith("blob "):
            found.setdefault(blob, (commit, ref))
    return found


def _conflicted(repo: GitRepo, ours: str, theirs: str) -> set[str]:
    """The paths merging `ours` and `theirs` leaves in conflict (git merge-tree, git 2.38):
    what such a merge holds there is the person's resolution (none known to an older git)."""
    args = ("merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs)
    return set(_text(repo, *args).split("\0")[1:]) - {""}


def _reverted(repo: GitRepo, commit: str, theirs: str, ours: str, literal: str) -> bool:
    """Whether a commit only the other branch holds that changed the note is `git revert` of
    the forget (its message names the forget's commit): forgotten again, the revert was
    undone by the merge of that branch, on a branch that never held the forget."""
    told = _text(repo, "log", "--format=%B", theirs, f"^{ours}", "--", literal)
    return f"This reverts commit {commit}" in told


def _written_after(repo: GitRepo, commit: str, theirs: str, ours: str, literal: str) -> bool:
    """Whether the other branch's newest commit of the note (one only it holds) was written
    after the forget's commit: its author date later, to the second. A stale copy's commit was
    written before the forget deleted it (a rebase or cherry-pick keeps its author date); a
    restore by `git checkout <forget>^ -- <note>` was written after, with the very bytes."""
    wrote = _text(repo, "log", "-1", "--format=%at", theirs, f"^{ours}", "--", literal).strip()
    forgot = _text(repo, "log", "-1", "--format=%ct", commit).strip()
    return wrote.isdigit() and forgot.isdigit() and int(wrote) > int(forgot)


def _text(repo: GitRepo, *args: str, input_bytes: bytes = b"") -> str:
    return repo.run(*args, input_bytes=input_bytes, check=False).decode("utf-8", "surrogateescape")

"""Pre-commit checks: the index is in step with HEAD, staged notes can be indexed, and staged
notes are in English. Each returns one line per problem; no line means the check passed. They
read what is staged (git's index), not the work tree."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.staged import Staged, read_staged, staged_files, staged_repo
from memidx.githooks.case_twins import MOVE, case_twins
from memidx.githooks.index_to_head import build_index, build_unfinished, complete_index, to_head
from memidx.githooks.notices import warn
from memidx.index.failures import hook_traces, last_failure
from memidx.notes.note import NoteError, is_note_path, parse_note, too_large
from memidx.notes.portable_name import unportable_path
from memidx.notes.yaml_comments import cut_warning
from memidx.paths import within
from memidx.remedies import WRAPPED, command_for
from memidx.text import display, is_utf8

FIX = "make reconcile"  # the remedy for every problem the drift check reports


def check_drift(
    config: Config,
    files: Sequence[str],
    remedy: str | None = None,
    staged: Mapping[str, Content] | None = None,
    *,
    patient: bool = True,
) -> list[str]:
    """Problems that must block the commit: a hook failure, drift, or a staged note that
    cannot be indexed. A missing index is built (as the next git hook would), so the first
    commit of a repository without one is not blocked, and a memidx command bringing the index
    to HEAD is waited for; `remedy` is the command the lines name (another repository's has no
    `make reconcile`). `staged`: what staged_notes read of the files, when the caller has it."""
    from memidx.git.refs import read_head, rebase_under_way
    from memidx.githooks.drift_wait import drift_line, follow_ended, following_head
    from memidx.index.store import open_store
    from memidx.index.sync import drift_of, note_source, settings_changed, settings_of

    fix = f"run `{remedy or command_for(config.root, 'reconcile')}`"  # make's only with its target
    staged = staged_notes(config, files) if staged is None else staged
    problems = staged_problems(config, staged, files)
    if not config.index_path.exists():
        return [*problems, *build_index(config, fix)]
    failure = last_failure(*hook_traces(config))
    if failure is not None:
        # the hook's line names `make reconcile`, which another repository has not (--remedy)
        said = failure.message.replace(f"run `{FIX}`", fix)
        said = said.replace(f"run `{WRAPPED['reconcile']}`", fix)  # the hook's, no Makefile
        problems.append(
            f"memidx: a git hook could not update the index ({failure.when}, {failure.hook}: "
            f"{said}); {fix}"
        )
    try:
        store, _ = open_store(config.index_path, write=False)
    except MemidxError as exc:
        if build_unfinished(config):  # left to a writer with time (or one killed): as missing
            return [*problems, *complete_index(config, fix)]
        hint = exc.hint if remedy == FIX else fix
        return [*problems, f"memidx: {exc.message} ({hint})"]
    try:
        built = settings_changed(store, config)
        now = settings_of(config)
        if built is not None and _reader_only(built, now):
            store.conn.close()  # the sync below writes through a connection of its own
            done = f"read every note again: the index was built with {built}, not {now}"
            failed = "cannot read the notes again"
            return [*problems, *to_head(config, fix, done, failed, blocks=False)]
        if built is not None:
            return [
                *problems,
                f"memidx: the index was built with {built}, the settings are now {now}; {fix}",
            ]
        indexed = store.get_state("indexed_commit")
        head = read_head(config.root) if config.in_git else None
        if head is not None and indexed == head:
            return problems  # the index mirrors this commit; `memidx reconcile` looks deeper
        drift = drift_of(store, note_source(config).files())
    finally:
        store.conn.close()
    if drift.total and patient and following_head(config):  # memidx's commit, its index follows:
        again = follow_ended(config)  # looked at once it ended; still under way, it is no drift
        return check_drift(config, files, remedy, staged, patient=False) if again else problems
    if drift.total and indexed and head and rebase_under_way(config.root):
        # git runs no memidx hook at a rebase's picks: an amend at an `edit` stop was blocked,
        # "a git operation no memidx hook followed ..., or a hook failed"
        done = f"the index follows HEAD ({head[:12]}): a rebase runs memidx's hook as it ends"
        return [*problems, *to_head(config, fix, done, "cannot bring the index to HEAD")]
    if drift.total:
        problems.append(drift_line(indexed, head, drift.summary(), fix))
    return problems


def staged_problems(
    config: Config, staged: Mapping[str, Content], files: Sequence[str] = ()
) -> list[str]:
    """Drift's lines of the staged files: notes it cannot index, names (case_twins.py)."""
    found = [p for ref, c in staged.items() if (p := _staged_problem(config, ref, c))]
    return found + case_twins(config, staged, passed_refs(config, files))


def _reader_only(built: str, now: str) -> bool:
    """Whether the index's settings differ from these only by memidx's note reader (memidx was
    upgraded, nothing the person changed): the next hook reads every note again, so the check
    does it now instead of blocking the commit (an index with private words, never again)."""
    return built.partition("; note_reader=")[0] == now.partition("; note_reader=")[0]


def check_names(files: Sequence[str]) -> list[str]:
    """One line per staged file whose name is not UTF-8 (bytes read with surrogateescape): the
    pre-commit framework, git's other tools and the index cannot name it; it must be renamed."""
    return [
        f"{display(name)}: the file name is not UTF-8; rename it to one that is "
        "(`git mv`), then commit"
        for name in files
        if not is_utf8(name)
    ]


def check_english(
    config: Config, files: Sequence[str], staged: Mapping[str, Content] | None = None
) -> list[str]:
    """One line per staged note whose prose is not English; during a merge, a note committed
    as staged on either side is named in a warning instead (memidx.githooks.inherited_check).
    `staged`: what staged_notes read of the files (or more), when the caller has read it."""
    from memidx.notes.english import check_text
    from memidx.notes.language_message import problem_message

    notes = _notes(config, files)
    if staged is None:
        staged = staged_contents(config, notes)
    problems: dict[str, list[str]] = {}
    for ref, content in ((ref, staged[ref]) for ref in notes):
        if not isinstance(content, bytes):
            continue  # the drift check reports notes that cannot be read or indexed
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            continue
        verdict = check_text(text)
        if not verdict.english:
            problems[ref] = [problem_message(display(ref), verdict)]
    if not problems:
        return []  # the usual commit: the merge checks' modules are never imported (~4 ms)
    from memidx.githooks.inherited_check import english_notice, judged

    return judged(config, problems, english_notice, pushed=False)


def staged_notes(config: Config, files: Sequence[str]) -> dict[str, Content]:
    """What the commit will hold for each note among `files` (staged_contents), read once for
    the drift and english checks of one process (memidx check all)."""
    return staged_contents(config, _notes(config, files))


def _notes(config: Config, files: Sequence[str]) -> list[str]:
    """The note refs among the files pre-commit passes (paths relative to the root)."""
    return [ref for ref in passed_refs(config, files) if is_note_path(ref, config.notes_dir)]


def passed_refs(config: Config, files: Sequence[str]) -> list[str]:
    """The files pre-commit (or a person) passes, as paths relative to the root: an absolute
    one is made relative, or left out when it is outside the root."""
    refs: list[str] = []
    for name in files:
        path = Path(name)
        if path.is_absolute() and (path := within(config.root, path)) is None:
            continue  # said by `memidx check` (memidx.cli.check_files)
        refs.append(path.as_posix())
    return refs


Content = bytes | str | None  # the staged bytes, why they cannot be read, or a deletion


LINK = "a symlink (links are not followed)"


def staged_contents(
    config: Config,
    refs: Sequence[str],
    max_bytes: int | None = None,
    links: dict[str, bytes] | None = None,
) -> dict[str, Content]:
    """What the commit will hold for each note: its blob in git's index (GIT_INDEX_FILE when
    git names one), never the work tree, so an unstaged edit neither passes nor fails a check.
    A path the index does not hold (`pre-commit run --files` on an untracked note, or outside
    git) is read from the work tree; one in neither is a deletion (None). A symlink is never
    followed; `links`, when given, gets its target (the blob git pushes for it)."""
    limit = config.max_note_bytes if max_bytes is None else max_bytes
    found: dict[str, Content] = dict.fromkeys(refs)
    targets: dict[str, bytes] = {} if links is None else links
    staged: dict[str, Staged] = {}
    if config.in_git and refs:
        repo = staged_repo(config.root)
        staged = staged_files(repo, config.notes_dir, refs)
        for file, size, data in read_staged(repo, list(staged.values()), limit):
            if data is None:  # a link's target too: git pushes it whatever its length
                found[file.ref] = too_large(size, limit)
            elif file.symlink:
                found[file.ref] = LINK
                targets[file.ref] = data
            else:
                found[file.ref] = data
    for ref in refs:
        if ref not in staged:
            found[ref] = _from_work_tree(config, ref, limit, targets)
    return found


def _from_work_tree(config: Config, ref: str, limit: int, links: dict[str, bytes]) -> Content:
    path = config.root / ref
    if path.is_symlink():
        with contextlib.suppress(OSError):  # gone meanwhile: nothing to read
            links[ref] = os.fsencode(path.readlink())
        return LINK
    try:
        size = path.stat().st_size
        if size > limit:  # never read a pasted dump whole to say so
            return too_large(size, limit)
        return path.read_bytes()
    except FileNotFoundError:
        return None  # a deletion
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"


def _staged_problem(config: Config, ref: str, content: Content) -> str | None:
    if content is None:
        return None
    if why := unportable_path(ref):  # `remember --dir` refuses such a name; by hand it passed
        return f"{display(ref)}:1: {why}, so a clone on Windows cannot check it out; {MOVE}"
    if isinstance(content, str):
        read = content.startswith("cannot be read")
        return f"{display(ref)}:1: {content if read else f'cannot be indexed: {content}'}"
    try:
        note = parse_note(ref, content, config.max_note_bytes)
    except NoteError as exc:
        return f"{display(ref)}:{exc.line}: cannot be indexed: {exc}"
    for cut in note.cut:  # indexed, but not as written: said, never blocking
        warn(config, f"memidx: warning: {cut_warning(display(ref), cut)}")
    return None

"""What each MCP tool does, without the SDK: the same functions the command line calls, and
the same JSON objects its --json prints. Reads go through the warm index (one thread); writes
open their own connections, as a CLI process does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import partial

from memidx.config import Config
from memidx.errors import MemidxError, NewerIndex, UsageError
from memidx.index.browse import NoteRow
from memidx.index.store import Filters
from memidx.mcp.warm import WarmIndex
from memidx.notes.note import has_note_suffix

Say = Callable[[str], None]


def search(
    warm: WarmIndex,
    query: str,
    *,
    k: int = 10,
    mode: str = "auto",
    kind: str | None = None,
    tag: str | None = None,
    path: str | None = None,
    since: str | None = None,
    until: str | None = None,
    agent: str | None = None,
    drawer: str | None = None,
) -> dict[str, object]:
    """memidx.search/1, as `memidx search --json` with the same options."""
    from memidx.memory.when import parse_when

    text = search_text(query)
    if not text:
        raise UsageError("the query is empty", "give the words to search for")
    since, until = _given(since), _given(until)
    filters = Filters(
        kind=kind,
        path_prefix=_given(path),
        tag=_given(tag),
        drawer=_given(drawer),
        agent=_given(agent),
        since=parse_when(since, "since", end=False) if since else None,
        until=parse_when(until, "until", end=True) if until else None,
    )
    return warm.search(text, filters, k, mode)


def _given(value: str | None) -> str | None:
    """A filter's value; a blank one is none, as an empty one is (models fill optional
    arguments with ""), never a filter that matches nothing."""
    return value if value and value.strip() else None


def search_text(query: str) -> str:
    """What search looks for, of a tool's `query`: its words, one space apart (search keeps
    the first MAX_QUERY_CHARS of them and names the words it leaves out)."""
    return " ".join(query.split())


def get(warm: WarmIndex, ref: str, max_chars: int) -> dict[str, object]:
    """A note by its path (memidx.note/1) or a record by its ref or id (memidx.record/1, as
    `memidx show --json`), the text cut to `max_chars`."""
    ref = ref.strip()
    if not ref:
        raise UsageError("the ref is empty", "give a note's path or a record's ref or id")
    refuse_nul("ref", ref)
    if "@" in ref or not has_note_suffix(ref):
        from memidx.haystack.lookup import show
        from memidx.memory.json_objects import record_data

        shown = show(warm.config, ref)
        data = record_data(shown.ref, shown.record)
    else:
        row = warm.note_row(ref)
        data = note_data(row, note_text(warm.config, row.ref, row.blob_id))
    text = str(data["text"])  # masked before it is measured and cut: `chars` tells what is shown
    data["chars"] = len(text)
    data["truncated"] = len(text) > max_chars
    data["text"] = text[:max_chars]
    return data


def note_data(row: NoteRow, text: str) -> dict[str, object]:
    """memidx.note/1 of a note, its title, tags, text and labels in `meta` masked in one
    detector pass, as search masks its hits (a note committed before the check existed)."""
    from memidx.private import shown_private
    from memidx.search.masking import private_labels
    from memidx.secrets.detect import mask_many

    labels = [key for key, value in row.meta.items() if isinstance(value, str)]
    [title] = private_labels(text, [row.title])  # its first heading's, inside a private span
    tags = [shown_private(tag) for tag in row.tags]  # a span the index holds as its stand-in
    texts = [shown_private(title or ""), text, *tags, *(str(row.meta[key]) for key in labels)]
    title, shown, *rest = mask_many(texts)
    tags, values = rest[: len(row.tags)], rest[len(row.tags) :]
    return {
        "schema": "memidx.note/1",
        "ref": row.ref,
        "title": title,
        "tags": tags,
        "meta": {**row.meta, **dict(zip(labels, values, strict=True))},
        "text": shown,
    }


def note_text(config: Config, ref: str, blob_id: str | None) -> str:
    """The note's file as indexed: the blob of HEAD (from the working tree when it is the
    same bytes), or the file outside git."""
    if config.in_git and blob_id:
        from memidx.git.repo import GitRepo
        from memidx.index.drift import SourceFile
        from memidx.index.sources import GitSource

        source = GitSource(GitRepo(config.root), None, config.notes_dir, config.max_note_bytes)
        for _, data in source.read([SourceFile(ref, blob_id, 0)]):
            if data is not None:
                return data.decode("utf-8", "replace")
        raise MemidxError(f"{ref}: git cannot read it", "run `memidx reconcile`")
    try:
        with (config.root / ref).open("rb") as stream:
            return stream.read(config.max_note_bytes).decode("utf-8", "replace")
    except OSError as exc:
        raise MemidxError(f"{ref}: cannot read it ({exc.strerror})", "run `memidx sync`") from exc


def refuse_nul(name: str, value: str) -> None:
    """A tool's argument that names a file or goes to git: a NUL in it (which no command line
    can pass) failed deep in the OS with a bare ValueError, the client told nothing, and a
    title's note was left written but not committed."""
    if "\0" in value:
        raise UsageError(f"the {name} holds a NUL character", f"give the {name} without it")


def status(config: Config, say: Say | None = None) -> dict[str, object]:
    """memidx.status/1, as `memidx status --json`, after what `memidx status` puts right first
    (a killed memidx's index lock and files aside; the pending notes HEAD holds, settled),
    said through `say`; NewerIndex, as every other tool, when a newer memidx built the index:
    this server outlived an upgrade and hands over to it."""
    settle(config, say)  # before the look: what is put right is not named
    return look(config)


def settle(config: Config, say: Say | None = None) -> None:
    """What `memidx status` puts right before its look, said through `say`: writes (a lock
    removed, a note committed), which may wait for git: the server runs it on its writing
    thread, never on the reading one that every search waits for."""
    from memidx.memory.killed_leftovers import settle_killed
    from memidx.memory.pending_landed import settle_landed
    from memidx.memory.pull_line import open_pull_line

    settle_killed(config, say or _unsaid)
    settle_landed(config, say or _unsaid)  # a note HEAD holds, once the git with it ended
    open_pull_line(config)  # a late pull's trace all done with goes (the look leaves it)


def look(config: Config) -> dict[str, object]:
    """memidx.status/1 as the clone is now; changes nothing."""
    from memidx.memory.json_objects import status_data
    from memidx.memory.status import gather

    found = gather(config, wait=0.0, tidy=False)  # the reading thread: never waits for a write
    if found.index_newer:
        raise NewerIndex(found.index_problem or "", found.index_remedy)
    return status_data(found)


def remember(
    config: Config,
    title: str,
    body: str,
    *,
    tags: Sequence[str] = (),
    folder: str | None = None,
    say: Say | None = None,
    deadline: float | None = None,
    later: Callable[[Callable[[], None]], None] | None = None,
) -> dict[str, object]:
    """memidx.remember/1: the note written, checked and committed as `memidx remember` does,
    kept pending rather than waited for past `deadline` (memidx/memory/answer_by.py). `later`
    (the server's writing thread) runs the index's follow of older notes committed before
    this one once the answer is sent, `following` held until it ends: it ran in the answer's
    time, whatever was left of it (a large index's sync takes seconds)."""
    from memidx.index.following import following
    from memidx.memory.json_objects import remember_data
    from memidx.memory.killed_leftovers import settle_killed
    from memidx.memory.new_note import parse_tags
    from memidx.memory.remember import remember as write_note

    refuse_nul("title", title)
    refuse_nul("folder", folder or "")
    settle_killed(config, say or _unsaid, asides=False)  # its lock would hold the note up
    follows: list[Callable[[], None]] = []
    with following(config, at_the_move=True) as keep:  # from HEAD's move: a search is told
        try:
            done = write_note(
                config,
                title,
                body,
                tags=parse_tags(",".join(tags)),
                directory=folder or None,
                directory_arg="folder",
                notice=say,
                deadline=deadline,
                later=None if later is None else follows.append,
            )
        finally:  # an error too: HEAD moved by the notes committed before it is followed
            if later is not None and follows:
                later(partial(_follow_after, follows, keep()))
    return remember_data(done)


def _follow_after(follows: Sequence[Callable[[], None]], lock: ExitStack) -> None:
    """What a remember left to follow after its answer, its `following` lock let go after."""
    with lock:
        for follow in follows:
            follow()


def file_turn(
    config: Config, payload: dict[str, object], say: Say | None = None
) -> dict[str, object]:
    """memidx.filed/1: one turn filed as `memidx file-turn` files the same JSON object, then
    its chunks embedded in the background. It files hurried, as an agent's hook does: a tool
    call spent the seconds of a large older index's upgrade (the client's timeout, and the
    server's writer, waiting); a git hook, `memidx sync`, ingest, or the background embed it
    starts upgrades the index."""
    from memidx.haystack.filing import file
    from memidx.haystack.turn_input import turn_record
    from memidx.memory.head_sync import start_background_embed
    from memidx.memory.json_objects import filed_data

    filed = file(config, turn_record(payload), say, hurried=True)
    if not filed.duplicate and config.hook_embed:
        for line in start_background_embed(config):
            if say is not None:
                say(line)
    return filed_data(filed)


def _unsaid(_: str) -> None:
    """No one to tell (a caller without `say`): the answer's JSON says the state."""

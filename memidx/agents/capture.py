"""Filing what an agent session did into the haystack, through the same functions as
`memidx file-turn` and `memidx archive-transcript`: each exchange once, the whole transcript
before compaction, the compaction's summary pointing at that transcript. Each files `hurried`:
it leaves the upgrade of an older index to a writer with time for it (a git hook, `memidx
sync`, `ingest`, `embed`), for a hook cut off at its deadline mid-upgrade filed nothing; on an
index of schema 4 or older, which cannot be written as it is, it files in the log alone
(memidx.haystack.log_only), and that writer indexes the record after the upgrade."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memidx.agents.exchange import Exchange
from memidx.agents.session import TRANSCRIPT, SessionState, Where
from memidx.agents.transcript_cuts import Source, TranscriptParts
from memidx.config import Config
from memidx.hashes import content_hash
from memidx.haystack.filing import file
from memidx.haystack.frames import MAX_TEXT_BYTES
from memidx.haystack.indexing import Filed
from memidx.haystack.turn_input import make_record, turn_record
from memidx.text import well_formed

# A transcript's part: a record's text may hold MAX_TEXT_BYTES, but redacting 8 MB took 12 s
# alone, and several times that under load: a part no hook's deadline lets it file is never
# filed. A part of a megabyte is filed in a second or two; each filed is kept.
ARCHIVE_PART_BYTES = min(MAX_TEXT_BYTES, 1024 * 1024)

FILED = "filed"  # session state: content hashes of the exchanges and summaries filed
ARCHIVED = "archived"  # session state: "<content hash> <record id>" of each transcript part filed


def file_exchanges(
    config: Config, where: Where, state: SessionState, exchanges: Sequence[Exchange]
) -> list[Filed]:
    """File each answered exchange not filed before in this session."""
    done = set(state.keys(FILED))
    filed: list[Filed] = []
    for exchange in exchanges:
        # half an emoji escaped in JSON ("\ud83d") is no UTF-8: as U+FFFD, or the filing failed
        # at every later event of the session too
        user, assistant = map(well_formed, exchange.texts())
        if not assistant:
            continue
        payload: dict[str, object] = {
            "user": user, "assistant": assistant, "agent": where.agent,
            "session": where.session, "drawer": where.project, "tags": [where.agent],
        }  # fmt: skip
        record = turn_record(payload)
        if record.hash in done:
            continue
        filed.append(file(config, record, hurried=True))
        done.add(record.hash)
        state.add(FILED, record.hash)
    return filed


def archive(
    config: Config,
    where: Where,
    state: SessionState,
    parts: TranscriptParts,
    progress: Callable[[int, int], None] | None = None,
) -> Filed | None:
    """Archive a whole transcript verbatim, in records of at most ARCHIVE_PART_BYTES cut at
    line ends (parts_of), each of several tagged `part-N-of-M` (a part filed alone never
    passes for the transcript: archive_left files the rest at the session's next event). A
    part the session filed before (a resumed session's transcript starts with the parts
    archived before; a hook cut off mid-archive) is neither redacted nor filed again: each
    part's id is remembered as soon as it is filed. Remember the last part's id for the
    summary that follows. What it returns is a part filed anew when there is one (the
    background embed starts for it). `progress` is told (number, parts) of each part filed
    anew."""
    filed, _ = file_parts(config, where, state, parts, progress)
    return first_new(filed)


def first_new(filed: Sequence[Filed]) -> Filed | None:
    """Of a transcript's parts met, the first filed anew, else the last (None for none)."""
    return next((f for f in filed if not f.duplicate), filed[-1]) if filed else None


def file_parts(
    config: Config,
    where: Where,
    state: SessionState,
    parts: TranscriptParts,
    progress: Callable[[int, int], None] | None = None,
    *,
    most: int | None = None,
) -> tuple[list[Filed], bool]:
    """File the parts the session did not file before, at most `most` of them anew (every one
    when None), as archive says; the parts met, and whether none is left to file (when some
    is, `parts.last` is the first of them)."""
    known = dict(key.split(" ", 1) for key in state.keys(ARCHIVED) if " " in key)
    filed: list[Filed] = []
    for number, part in parts.numbered():  # read a part at a time: never whole
        key = content_hash(part)
        if key in known:
            filed.append(Filed(known[key], "", duplicate=True))
            continue
        if most is not None and (most := most - 1) < 0:
            return filed, False
        filed.append(file(config, make_record(
            "transcript", part, agent=where.agent, session=where.session,
            drawer=where.project, tags=[where.agent, *part_tag(number, parts.count)],
        ), hurried=True))  # fmt: skip
        state.add(ARCHIVED, f"{key} {filed[-1].id}")
        state.save()
        if progress is not None and not filed[-1].duplicate:  # not one another filed meanwhile
            progress(number, parts.count)
    if filed:
        state.set_text(TRANSCRIPT, filed[-1].id)
    return filed, True


def part_tag(number: int, parts: int) -> list[str]:
    """The tag of the `number`th of `parts` parts of one transcript (none for a whole one)."""
    return [f"part-{number}-of-{parts}"] if parts > 1 else []


def parts_of(source: Source) -> TranscriptParts:
    """The parts of the transcript `source` holds, of at most ARCHIVE_PART_BYTES, read from
    it a part at a time as they are filed (memidx.agents.transcript_cuts)."""
    from memidx.agents.transcript_cuts import cut

    return cut(source, ARCHIVE_PART_BYTES)


def transcript_parts(text: str, limit: int = ARCHIVE_PART_BYTES) -> list[str]:
    """`text` cut into consecutive parts of at most `limit` UTF-8 bytes, each at a line end
    unless one line alone is longer (then at a character's end); parts without words left
    out (a record needs some). A secret the detectors find near a cut is masked in full, on
    both sides of it (memidx.agents.part_cuts): each part is redacted alone as it is filed."""
    from memidx.agents.transcript_cuts import InMemory, cut

    return list(cut(InMemory(text.encode("utf-8")), limit))


def file_summary(config: Config, where: Where, state: SessionState, summary: str) -> Filed | None:
    """File a compaction's summary once, with summary_of the transcript archived before it."""
    summary = well_formed(summary)
    if not summary.strip() or content_hash(summary) in state.keys(FILED):
        return None
    record = make_record(
        "turn", summary, agent=where.agent, session=where.session, drawer=where.project,
        tags=[where.agent, "compact-summary"], summary_of=state.text(TRANSCRIPT),
    )  # fmt: skip
    filed = file(config, record, hurried=True)
    state.add(FILED, content_hash(summary))
    return filed


def embed_later(config: Config, filed: Sequence[Filed | None]) -> None:
    """Start the background embed once something new was filed, as `file-turn` does."""
    if config.hook_embed and any(f is not None and not f.duplicate for f in filed):
        from memidx.memory.head_sync import start_background_embed

        start_background_embed(config)

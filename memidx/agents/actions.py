"""What every agent's hooks do, whatever the agent: recall for a prompt, the session-start
digest, filing exchanges, archiving a transcript, filing a compaction's summary. Adapters turn
their agent's input into these calls and the results into their agent's output."""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from memidx.agents import index_newer, model_failed, recall_client, recall_server, recall_times
from memidx.agents.block import strip_injected
from memidx.agents.gate import MAX_PROMPT_CHARS, trivial
from memidx.agents.session import (
    NO_SESSION,
    PROJECT,
    SESSION_ID,
    TRANSCRIPT,
    Where,
    one_hook_at_a_time,
    prune_sessions,
    session_state,
)
from memidx.config import Config
from memidx.errors import ModelError, NewerIndex
from memidx.search.query import clip_query

TYPE_CHECKING = False  # the prompt hook's process imports neither filing nor typing's cost
if TYPE_CHECKING:
    from memidx.agents.exchange import Exchange
    from memidx.agents.session import SessionState
    from memidx.agents.transcript_cuts import TranscriptParts
    from memidx.haystack.indexing import Filed

Progress = Callable[[int, int], None]  # told (part number, parts) as each part is filed
SEEN = "seen"  # session state: the keys of the hits injected in this session
DIGESTED = "digested"  # session state: the TRANSCRIPT archived last when the digest went in
# Seconds more than the hook's own recall needs (recall_times) that a hook waiting for a
# starting server keeps for it: a late wake under load.
WAKE = 0.1


def recall_for(config: Config, where: Where, prompt: str, deadline: float) -> str:
    """The recall block for `prompt` ("" for none), from the warm server when one answers,
    else in this process (the server is started for the next prompt). Injected spans in the
    prompt (memidx's own block pasted back) are not searched with; a long prompt is cut to
    what recall reads before it is sent (a pasted log of megabytes is no request)."""
    prompt = clip_query(strip_injected(prompt), MAX_PROMPT_CHARS)
    if trivial(prompt):
        return ""
    with one_hook_at_a_time(config, where, _left(deadline)):
        state = session_state(config, where)
        block, keys = _recall(config, prompt, state.keys(SEEN), deadline)
        if keys:
            state.add(SEEN, *keys)
            _save(state)
    return block


def _recall(config: Config, prompt: str, seen: list[str], deadline: float) -> tuple[str, list[str]]:
    """The block and the keys in it, from the server when one answers, else in this process
    when the time left allows (a server found wedged is marked, or replaced: recall_wedge)."""
    request: dict[str, object] = {"prompt": prompt, "seen": seen}
    needed = recall_times.needed(config)  # what the hook's own recall took here lately
    # a hook left no time for its own recall keeps none: a starting server, waited for to
    # its deadline, is its only chance of an answer
    keep = needed + WAKE if (left := _left(deadline)) > needed else 0.0
    answer = recall_client.ask_waiting(config, request, left, keep)
    if answer is not None:
        from memidx.agents import recall_wedge

        if answer.get("error") == recall_server.NO_ACK:
            recall_wedge.found_wedged(config, answer.get("pid"))
        else:  # acknowledged: a server that came back is suspect no longer
            recall_wedge.acknowledged(config, answer.get(recall_server.HEARD))
    if answer is not None and "error" not in answer:
        return str(answer.get("block") or ""), [str(k) for k in _items(answer.get("keys"))]
    # its recall would fail as the last one did: at once, with no server started, and said
    # once (model_failed, index_newer), not each prompt
    if model_failed.failing(config) or index_newer.failing(config):
        return "", []
    recall_client.start(config)
    left = _left(deadline)
    if left <= needed:  # it would only burn the cores past the deadline
        raise TimeoutError(
            f"the recall server did not answer, and the deadline left no time to recall in "
            f"the hook's own process: {left * 1000:.0f} ms left, {needed * 1000:.0f} ms needed"
        )
    return _recall_here(config, prompt, seen, left)


def _recall_here(
    config: Config, prompt: str, seen: list[str], left: float
) -> tuple[str, list[str]]:
    """Recall in this process, timed for the hooks after it (recall_times)."""
    began = time.monotonic()
    recall_times.began(config, left)
    try:
        from memidx.agents.recall import Recaller  # numpy and the model: only when needed

        done = Recaller(config).recall(prompt, seen)
    except BaseException as exc:
        recall_times.failed(config)
        # a model that cannot load: marked for the hooks after it, said once in a while
        if isinstance(exc, ModelError) and not model_failed.failed(config):
            return "", []
        # an index this memidx cannot read: so is it for the servers it starts (index_newer)
        if isinstance(exc, NewerIndex) and not index_newer.failed(config):
            return "", []
        raise
    recall_times.took(config, time.monotonic() - began)
    return done.block, list(done.keys)


def session_start(config: Config, where: Where) -> str:
    """The digest for a session ("" for none), once per session and compaction: the context
    still holds the one given before (a resumed session; Codex 0.171.0 fires SessionStart twice
    after a compaction, `resume` then `compact`). The recall server is started unless one
    answers, for the first prompt follows; a background embed killed mid-run is restarted."""
    from memidx.agents.digest import digest

    if config.index_path.exists():
        answer = recall_client.ask(config, {"prompt": ""}, 0.2)
        if answer is None or "error" in answer:  # none, or one of another configuration
            recall_client.start(config)
    restart_cut_off_embed(config)
    prune_sessions(config, where.agent, time.time())
    if where.session == NO_SESSION:
        return digest(config, where.project)
    state = session_state(config, where)
    context = state.text(TRANSCRIPT) or ""  # changes when memidx archives before a compaction
    if state.text(DIGESTED) == context:
        return ""
    block = digest(config, where.project)
    if block:
        state.set_text(DIGESTED, context)
        _save(state)
    return block


# What a memory whose folder cannot be written answers a save: read-only, or full.
UNSAVED = recall_server.READ_ONLY | {errno.ENOSPC, errno.EDQUOT}


def _save(state: SessionState) -> None:
    """Save what recall keeps of a session; a memory whose folder cannot be written (mounted
    read-only, its disk full) keeps nothing (a hit may then come again), and still recalls."""
    try:
        state.save()
    except OSError as exc:
        if exc.errno not in UNSAVED:
            raise


def restart_cut_off_embed(config: Config) -> None:
    """Start the background embed again when the last one was killed mid-run (its mark is
    left, its process gone): its chunks would otherwise wait for the next commit. Not after
    RESTARTS such runs in a row that embedded nothing (the OOM killer's at every start):
    `memidx status` then names `memidx embed`, to run by hand. None in a memory that cannot be
    written (mounted read-only while an embed ran, its disk full): the digest still comes."""
    from memidx.embed.running import restart_due

    if config.hook_embed and restart_due(config.state_dir):
        from memidx.memory.head_sync import start_background_embed

        try:
            start_background_embed(config)
        except OSError as exc:  # its log cannot be opened: no embed can run (nor write) here
            if exc.errno not in UNSAVED and exc.errno != errno.ENXIO:  # ENXIO: a FIFO there
                raise


def capture(config: Config, where: Where, exchanges: Sequence[Exchange]) -> list[Filed]:
    """File the exchanges not filed before in this session; start the embed of what is new."""
    from memidx.agents.capture import embed_later, file_exchanges

    state = session_state(config, where)
    try:
        filed = file_exchanges(config, where, state, exchanges)
    finally:
        state.save()
    embed_later(config, filed)
    return filed


def archive_transcript(config: Config, where: Where, text: str) -> Filed | None:
    """Archive a whole transcript verbatim (before compaction), after the one an earlier hook
    of the session left unfinished; a copy of it is kept until its last part is filed (for
    the session's next event, should this hook be cut off: memidx.agents.archive_left)."""
    from memidx.agents.archive_left import keep_copy
    from memidx.text import well_formed_utf8

    finish_archive(config, where)
    # half an emoji escaped in Hermes's JSON messages ("\ud83d") is no UTF-8: as U+FFFD, or
    # the copy and the parts could not be written and the transcript went unarchived; encoded
    # once for the copy and the parts (each pass ~1.5 s of a 262 MiB one's 30 s, loaded)
    data = well_formed_utf8(text)
    if not text.strip():
        return _archive_text(config, where, b"", None)
    state = session_state(config, where)  # who the copy is of, should no hook of it come again
    state.set_text(SESSION_ID, where.session)
    state.set_text(PROJECT, where.project)
    _save(state)
    copy = keep_copy(config, where, data)
    return _archive_text(config, where, data, copy)


def finish_archive(config: Config, where: Where, progress: Progress | None = None) -> Filed | None:
    """File the rest of the transcript an earlier hook of the session began to archive and
    did not finish (its deadline passed), before this event's own work: the summary that
    follows a compaction points at it whole. None when there is none. `progress` is told of
    each part as it is filed. Its cuts kept beside it, the parts filed before are not read
    again (memidx.agents.copy_parts); a copy torn or unreadable is said, and the next taken."""
    from memidx.agents.archive_left import session_copies
    from memidx.agents.capture import first_new
    from memidx.agents.copy_parts import file_copy

    for copy in session_copies(config, where):
        done = file_copy(config, where, copy, progress)
        if isinstance(done, list):
            return first_new(done)
    return None


def finish_others(config: Config, where: Where, deadline: float) -> None:
    """After the event's own work, one part of a copy another session of the agent left, when
    the time left allows (memidx.agents.finish_one): no session waits for its own next event."""
    from memidx.agents.finish_one import finish_one_part

    finish_one_part(config, where, deadline)


def _archive_text(config: Config, where: Where, data: bytes, copy: Path | None) -> Filed | None:
    """Archive the transcript `data`, a part at a time; its copy (when kept) is removed once
    its last part is filed."""
    from memidx.agents.archive_left import end
    from memidx.agents.capture import archive, embed_later

    state = session_state(config, where)
    filed = archive(config, where, state, *_parts_kept(data, copy))
    state.save()
    if copy is not None:
        end(copy)
    embed_later(config, [filed])
    return filed


def _parts_kept(data: bytes, copy: Path | None) -> tuple[TranscriptParts, Progress | None]:
    """The parts of `data`, and what keeps the cuts beside its copy as each is filed: those
    of a copy are kept as they are found (memidx.agents.copy_cuts.cuts_written)."""
    from memidx.agents.capture import ARCHIVE_PART_BYTES, parts_of
    from memidx.agents.copy_cuts import cuts_written
    from memidx.agents.copy_parts import keeping
    from memidx.agents.transcript_cuts import InMemory

    cuts = None if copy is None else cuts_written(copy, data, ARCHIVE_PART_BYTES)
    if copy is None or cuts is None:
        return parts_of(InMemory(data)), None
    return cuts.parts, keeping(copy, cuts, cuts.parts, ARCHIVE_PART_BYTES, None)


def summary(config: Config, where: Where, text: str) -> Filed | None:
    """File a compaction's summary, pointing at the transcript archived before it."""
    from memidx.agents.capture import file_summary

    return _file_one(config, where, file_summary, text)


def _file_one(
    config: Config,
    where: Where,
    filing: Callable[[Config, Where, SessionState, str], Filed | None],
    text: str,
) -> Filed | None:
    from memidx.agents.capture import embed_later

    state = session_state(config, where)
    filed = filing(config, where, state, text)
    state.save()
    embed_later(config, [filed])
    return filed


def _left(deadline: float) -> float:
    return max(0.05, deadline - time.monotonic() - 0.05)


def _items(value: object) -> list[object]:
    from memidx.frozen import cast  # not typing's: ~2.5 ms of every prompt the server answers

    return cast(list[object], value) if isinstance(value, list) else []

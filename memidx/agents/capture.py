"""Filing what an agent session did into the haystack, through the same functions as
`memidx file-turn` and `memidx archive-transcript`: each exchange once, the whole transcript
before compaction, the compaction's summary pointing at that transcript."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.agents.exchange import Exchange
from memidx.agents.session import TRANSCRIPT, SessionState, Where
from memidx.config import Config
from memidx.hashes import content_hash
from memidx.haystack.filing import file
from memidx.haystack.indexing import Filed
from memidx.haystack.turn_input import make_record, turn_record

FILED = "filed"  # session state: content hashes of the exchanges and summaries filed


def file_exchanges(
    config: Config, where: Where, state: SessionState, exchanges: Sequence[Exchange]
) -> list[Filed]:
    """File each answered exchange not filed before in this session."""
    done = set(state.keys(FILED))
    filed: list[Filed] = []
    for exchange in exchanges:
        user, assistant = exchange.texts()
        if not assistant:
            continue
        payload: dict[str, object] = {
            "user": user, "assistant": assistant, "agent": where.agent,
            "session": where.session, "drawer": where.project, "tags": [where.agent],
        }  # fmt: skip
        record = turn_record(payload)
        if record.hash in done:
            continue
        filed.append(file(config, record))
        done.add(record.hash)
        state.add(FILED, record.hash)
    return filed


def archive(config: Config, where: Where, state: SessionState, text: str) -> Filed | None:
    """Archive a whole transcript verbatim; remember its id for the summary that follows."""
    if not text.strip():
        return None
    record = make_record(
        "transcript", text, agent=where.agent, session=where.session, drawer=where.project,
        tags=[where.agent],
    )  # fmt: skip
    filed = file(config, record)
    state.set_text(TRANSCRIPT, filed.id)
    return filed


def file_summary(config: Config, where: Where, state: SessionState, summary: str) -> Filed | None:
    """File a compaction's summary once, with summary_of the transcript archived before it."""
    if not summary.strip() or content_hash(summary) in state.keys(FILED):
        return None
    record = make_record(
        "turn", summary, agent=where.agent, session=where.session, drawer=where.project,
        tags=[where.agent, "compact-summary"], summary_of=state.text(TRANSCRIPT),
    )  # fmt: skip
    filed = file(config, record)
    state.add(FILED, content_hash(summary))
    return filed


def embed_later(config: Config, filed: Sequence[Filed | None]) -> None:
    """Start the background embed once something new was filed, as `file-turn` does."""
    if config.hook_embed and any(f is not None and not f.duplicate for f in filed):
        from memidx.memory.head_sync import start_background_embed

        start_background_embed(config)

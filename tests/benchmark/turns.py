"""LoCoMo turns filed through the haystack, as agents file theirs: each dialogue turn a `turn`
record (drawer = conversation, agent = speaker, session = conversation:session, ts = the
session's date), its text prefixed with the speaker and the session date."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from memidx.index.store import Filters
from memidx.search.searcher import Searcher
from tests.benchmark.locomo import Dataset, Question, Turn

VERSION = "haystack-v1"


def session_time(date: str) -> str | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as ISO 8601 UTC, or None."""
    try:
        moment = datetime.strptime(date.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_text(turn: Turn) -> str:
    return f"{turn.speaker} ({turn.date}): {turn.text}"


def file_turns(root: Path, dataset: Dataset) -> None:
    """File every turn through the haystack API (fsync off for the bulk import) and keep the map
    from record id to dia id that the evaluation needs."""
    config = replace(load_config(root), fsync=False)
    haystack = Haystack(config)
    ids: dict[str, str] = {}
    for turn in dataset.turns:
        filed = haystack.file(
            "turn",
            turn_text(turn),
            drawer=turn.conversation,
            agent=turn.speaker,
            session=f"{turn.conversation}:session_{turn.session}",
            ts=session_time(turn.date),
        )
        ids[filed.id] = turn.dia_id
    haystack.close()
    (root / ".memidx" / "locomo-ids.json").write_text(json.dumps(ids))


def dia_ids(root: Path) -> dict[str, str]:
    return json.loads((root / ".memidx" / "locomo-ids.json").read_text())


def search(searcher: Searcher, ids: dict[str, str], question: Question, mode: str) -> list[str]:
    """Dia ids of the turns of the question's conversation, best first."""
    hits = searcher.search(question.text, Filters(drawer=question.conversation), 10, mode).hits
    return [ids[str(h.meta["id"])] for h in hits]

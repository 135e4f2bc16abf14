"""The memories the held recall bench asks (tests.benchmark.recall_held): the TIL notes, and
each LoCoMo conversation's turns filed as agents file them, every chunk embedded."""

from __future__ import annotations

import json
from pathlib import Path

from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from tests.benchmark import corpus, locomo
from tests.benchmark.turns import session_time, turn_text
from tests.benchmark.workspace import file_stamp, memidx, repo, tree_stamp


def til_workspace(work: Path, data: Path) -> Path:
    """The TIL notes alone, every chunk embedded."""
    stamp = tree_stamp(data / "til-jbranchaud") + "recall-held-til-v1"
    root, _ = repo(work, "til", stamp, lambda r: corpus.write_til(r, data, 1))
    memidx(root, "ingest", quiet=True)
    memidx(root, "embed", quiet=True)
    return root


def conversation_workspace(work: Path, data: Path, dataset: locomo.Dataset, conv: str) -> Path:
    """One conversation's turns alone, filed as agents file turns, every turn embedded."""
    stamp = file_stamp(data / "locomo" / "locomo10.json") + f"recall-held-{conv}-v1"
    root, built = repo(work, conv, stamp, lambda r: (r / "notes").mkdir())
    if built:
        memidx(root, "ingest", quiet=True)
        config = replace(load_config(root), fsync=False)
        haystack = Haystack(config)
        ids: dict[str, str] = {}
        for turn in (t for t in dataset.turns if t.conversation == conv):
            filed = haystack.file(
                "turn", turn_text(turn), drawer=conv, agent=turn.speaker,
                session=f"{conv}:session_{turn.session}", ts=session_time(turn.date),
            )  # fmt: skip
            ids[turn.dia_id] = filed.id
        haystack.close()
        (root / ".memidx" / "held-ids.json").write_text(json.dumps(ids))
    memidx(root, "ingest", quiet=True)
    memidx(root, "embed", quiet=True)
    return root


def turn_keys(root: Path) -> dict[str, str]:
    """dia id -> the turn's hit key (`turn:<ref>`)."""
    ids: dict[str, str] = json.loads((root / ".memidx" / "held-ids.json").read_text())
    from memidx.index.store import open_store

    store, _ = open_store(load_config(root).index_path, write=False)
    try:
        rows = store.conn.execute(
            "SELECT source_ref, meta FROM documents WHERE source_kind = 'turn'"
        ).fetchall()
    finally:
        store.conn.close()
    key_of = {json.loads(meta)["id"]: f"turn:{ref}" for ref, meta in rows}
    return {dia: key_of[record] for dia, record in ids.items() if record in key_of}

"""The turns the recall block shows around a hit, and the records the session-start digest
lists, are masked only as far as the blocks show them, read in the turn around that: masked
whole, a 200 KB turn dense with assignments cost the prompt hook 0.9 s of its 1.5 s to show
300 characters."""

from __future__ import annotations

import json

from memidx.agents.block import AROUND_CHARS, DIGEST_CHARS, Recalled, digest_block, recall_block
from memidx.agents.digest import _records  # pyright: ignore[reportPrivateUsage]
from memidx.agents.gate import Signal
from memidx.agents.recall import Candidate, _around  # pyright: ignore[reportPrivateUsage]
from memidx.index.store import Store
from memidx.secrets.cuts import REACH

TOKEN = "ghp_" + "aB3dEf9hIjK1mNoPqR5tUvW7xYz0AbCdEf12"  # a GitHub token's form
URL = "https://deploy:Hunter2Secret99xLongerPassword42@db.example.com/app"


def _turn(store: Store, ref: str, body: str) -> int:
    meta = {"session": "s", "ts": "2026-12-01T10:00:00Z", "drawer": "web"}
    cursor = store.conn.execute(
        "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
        "VALUES ('turn', ?, '', ?, ?, ?)",
        (ref, body, ref, json.dumps(meta)),
    )
    return int(cursor.lastrowid or 0)


def _neighbours(store: Store, body: str) -> tuple[str, ...]:
    ids = [_turn(store, "a1", body), _turn(store, "a2", "hit")]
    hit = Recalled("", "a2", 0, "hit", "turn")
    candidate = Candidate("turn:a2", hit, Signal(0.6, 0.5, kind="turn"), ids[1], "s")
    return _around(store, candidate).recalled.around


def test_a_long_turn_is_masked_only_around_what_the_blocks_show(
    store: Store, detector_reads: list[int]
) -> None:
    read = detector_reads
    body = f"User: deploy with {URL}\n" + "more words of a long tool output\n" * 6_000
    [around] = _neighbours(store, body)
    [listed] = [r for r in _records(store, "web") if r.ref == "a1"]

    assert "Hunter2" not in around and "[REDACTED:basic-auth]" in around
    assert around.endswith("…") and len(around) <= AROUND_CHARS
    assert "Hunter2" not in repr(listed) and "[REDACTED:basic-auth]" in listed.title
    assert len(listed.title) <= DIGEST_CHARS and len(listed.snippet) <= DIGEST_CHARS
    assert read and max(read) <= 4 * (REACH + DIGEST_CHARS + AROUND_CHARS), read


def test_a_token_cut_in_two_by_injected_text_is_masked_as_the_block_shows_it(
    store: Store,
) -> None:
    """The block shows a turn without the injected spans in it: masked before they were taken
    out, the two halves of a token were no token, and joined they were shown whole."""
    body = f"key {TOKEN[:20]}<system-reminder>hook context</system-reminder>{TOKEN[20:]} end"
    around = _neighbours(store, body)
    block = recall_block([Recalled("", "a2", 0, "hit", "turn", around=around)])
    digest = digest_block("web", _records(store, "web"))
    assert TOKEN not in block and "same session: key [REDACTED:github-token] end" in block
    assert TOKEN not in digest and "key [REDACTED:github-token] end" in digest

"""An exchange an agent filed (the person's request, the assistant's answer and tool notes) is
gated as a note is, while a line of conversation keeps the turns' thresholds: on agent-shaped
turns the turns' thresholds injected something for most prompts no exchange answers
(memidx/agents/gate.py GATE.exchange, recall.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.agents import recall
from memidx.agents.exchange import Exchange
from memidx.agents.gate import GATE, Signal, exchange, relevant
from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.frozen import replace
from memidx.haystack.turn_input import turn_record
from memidx.index.open import open_store
from memidx.index.schema import mark_built
from memidx.index.store import VectorStore
from memidx.notes.chunks import chunk_document
from tests.helpers import FakeEmbedder

FILED = turn_record({"user": "restart the heroku dyno?", "assistant": "[tool Bash: heroku ps]"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (FILED.text, True),  # as the Stop hooks and `file-turn` write one
        (turn_record({"assistant": "Done: the dyno restarted."}).text, True),
        ("\nUser: restart the dyno\n\nAssistant: done", True),  # after the empty title
        ("Caroline (1:56 pm on 8 May, 2023): I restart the dyno daily", False),
        ("user: lower-case is someone's chat, not the filed shape", False),
        ("User: I restart the heroku dyno every morning", False),  # a chat line, its speaker "User"
        (turn_record({"user": "restart the dyno?"}).text, False),  # a request, no answer
        ("User: a chat line\nAssistant: its reply, one newline apart", False),
    ],
)
def test_an_exchange_is_told_by_the_shape_agents_file_it_in(text: str, expected: bool) -> None:
    assert exchange(text) is expected


@pytest.mark.parametrize(
    "filed",
    [
        Exchange("fix the build", ("[tool Bash: make]", "Fixed: a missing header.")),
        Exchange("<system-reminder>memidx recalled</system-reminder>", ("Done.",)),  # no request
        Exchange("  \n", ("[tool Read: a.py]",)),
        Exchange("User: Assistant: a request that quotes the shape", ("ok",)),
    ],
)
def test_every_exchange_the_stop_hooks_file_is_told_as_one(filed: Exchange) -> None:
    """As `file_exchanges` (agents/capture.py) builds the turn every adapter files."""
    user, assistant = filed.texts()

    assert exchange("\n" + turn_record({"user": user, "assistant": assistant}).text)


@pytest.mark.parametrize(
    "signal",
    [
        Signal(0.55, 0.0, kind="turn"),  # a line of conversation passes on its own cosine
        Signal(0.40, 0.5, kind="turn"),  # or a fair one with half the prompt's words
    ],
)
def test_an_exchange_needs_what_a_note_needs(signal: Signal) -> None:
    filed = replace(signal, exchange=True)

    assert relevant(signal)
    assert not relevant(filed)
    assert relevant(replace(filed, cosine=GATE.note.cosine))
    assert GATE.of("turn", exchange=True) == GATE.note


def test_an_exchange_has_no_known_floor_and_the_path_with_every_word() -> None:
    """New names in a prompt do not stop an exchange (it is measured without them), and an
    exchange with every word of the prompt passes where a note would."""
    every = GATE.note.cosine_with_every_word
    assert every is not None

    assert relevant(Signal(0.9, 1.0, kind="turn", known=0.5, exchange=True))
    assert not relevant(Signal(0.9, 1.0, kind="turn", known=0.5))
    assert relevant(Signal(every, 1.0, kind="turn", exchange=True))


def test_a_gate_without_thresholds_for_exchanges_gates_them_as_turns() -> None:
    before = replace(GATE, exchange=None)
    chatty = Signal(0.55, 0.0, kind="turn", exchange=True)

    assert before.of("turn", exchange=True) == GATE.turn
    assert relevant(chatty, before)
    assert not relevant(chatty)


def _index(
    path: Path, turns: dict[str, str], fake: FakeEmbedder, summaries: dict[str, str] | None = None
) -> None:
    """Turns by ref; `summaries` maps a ref to the transcript id it summarises (summary_of)."""
    store, _ = open_store(path, write=True)
    try:
        for ref, body in turns.items():
            meta = {"session": ref, "ts": "2026-12-01T10:00:00Z"}
            if summaries and ref in summaries:
                meta["summary_of"] = summaries[ref]
            cursor = store.conn.execute(
                "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta)"
                " VALUES ('turn', ?, '', ?, ?, ?)",
                (ref, body, ref, json.dumps(meta)),
            )
            VectorStore(store.conn).replace_chunks(
                int(cursor.lastrowid or 0), chunk_document("", body)
            )
        embed_missing(store, fake)
        mark_built(store.conn)
    finally:
        store.conn.close()


def test_an_exchange_is_measured_without_the_words_memory_never_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeEmbedder()
    exchange_text = turn_record(
        {"user": "restart the heroku dyno", "assistant": "heroku restart restarts the dyno"}
    ).text
    chat_text = "Caroline (8 May, 2023): I restart the heroku dyno daily"
    _index(tmp_path / "index.sqlite", {"ex": exchange_text, "chat": chat_text}, fake)

    def embedder(config: Config, *, warm: bool = False) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(recall, "query_embedder", embedder)
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", model=fake.name)
    prompt = "restart heroku dyno for kestrelctl"

    found = {c.key: c.signal for c in recall.Recaller(config).candidates(prompt)}

    ex, chat = found["turn:ex"], found["turn:chat"]
    assert (ex.exchange, chat.exchange) == (True, False)
    assert ex.word_share == 1.0  # "kestrelctl" left out: no document has it
    assert chat.word_share == 0.75  # a line of conversation keeps the prompt as it is
    assert ex.cosine == pytest.approx(
        float(fake.embed_query("restart heroku dyno for") @ fake.embed_query(exchange_text))
    )


def test_a_compactions_summary_is_gated_as_an_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary is filed as a turn without the exchange's shape (agents/capture.py), but it is
    prose about the work, not a line of conversation: the notes' thresholds, not the turns'."""
    fake = FakeEmbedder()
    summary = "The heroku dyno was restarted with heroku restart after the deploy hung."
    _index(
        tmp_path / "index.sqlite",
        {"summary": summary, "chat": summary.replace("The", "Caroline: the", 1)},
        fake,
        summaries={"summary": "transcript-20261201100000-0123456789ab"},
    )

    def embedder(config: Config, *, warm: bool = False) -> FakeEmbedder:
        return fake

    monkeypatch.setattr(recall, "query_embedder", embedder)
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", model=fake.name)

    found = {c.key: c.signal for c in recall.Recaller(config).candidates("restart heroku dyno")}

    assert found["turn:summary"].exchange
    assert not found["turn:chat"].exchange

"""A note is measured against the prompt without the words no document has (a new project's
name, a path): they cannot match it, and they pull the prompt's vector away from what it asks
(memidx/agents/recall.py note_view, gate.without_words)."""

from __future__ import annotations

import numpy as np

from memidx.agents.gate import without_words
from memidx.agents.recall import note_view
from tests.helpers import FakeEmbedder


def test_without_words_drops_whole_words_in_any_case() -> None:
    text = "Why does Kestrelctl's loader fail in kestrelctl/src?"

    assert without_words(text, {"kestrelctl"}) == "Why does 's loader fail in /src?"
    assert without_words(text, set()) == text
    assert without_words("kestrelctls stay", {"kestrelctl"}) == "kestrelctls stay"


def test_a_note_is_measured_without_the_words_memory_never_saw() -> None:
    fake = FakeEmbedder()
    prompt = "restart a heroku app for kestrelctl"
    words = ["restart", "heroku", "app", "kestrelctl"]
    query = fake.embed_query(prompt)

    kept, vector = note_view(prompt, words, {"kestrelctl"}, query, fake.embed_query)

    assert kept == ["restart", "heroku", "app"]
    assert np.array_equal(np.asarray(vector), fake.embed_query("restart a heroku app for"))
    assert not np.array_equal(np.asarray(vector), query)


def test_a_prompt_mostly_unknown_or_without_a_vector_is_measured_as_it_is() -> None:
    fake = FakeEmbedder()
    prompt = "configure nginx proxy"
    words = ["configure", "nginx", "proxy"]
    query = fake.embed_query(prompt)

    assert note_view(prompt, words, {"nginx", "proxy"}, query, fake.embed_query) == (words, query)
    assert note_view(prompt, words, set(), query, fake.embed_query) == (words, query)
    assert note_view(prompt, words, {"nginx"}, None, fake.embed_query) == (words, None)

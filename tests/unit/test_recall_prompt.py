"""A prompt is measured by its first MAX_PROMPT_CHARS (memidx/agents/recall.py): a pasted log
of megabytes, read whole, took the prompt hook past its deadline every time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.agents import actions
from memidx.agents.recall import MAX_PROMPT_CHARS, Candidate, Recaller
from memidx.agents.session import Where
from memidx.config import Config
from memidx.search.query import clip_query


class Seen(Recaller):
    """A Recaller that keeps the prompt its search was given and finds nothing."""

    def __init__(self) -> None:
        super().__init__(Config(root=Path("/nonexistent"), index_path=Path("/nonexistent/i")))
        self.searched: list[str] = []

    def candidates(self, prompt: str) -> list[Candidate]:
        self.searched.append(prompt)
        return []


def test_a_huge_prompt_is_searched_by_its_first_part_only() -> None:
    line = "the lock on the file failed because another process holds it\n"
    huge = line * (1_000_000 // len(line))
    recaller = Seen()

    assert recaller.recall(huge).block == ""

    assert recaller.searched == [clip_query(huge, MAX_PROMPT_CHARS)]


def test_a_huge_prompt_is_cut_between_words() -> None:
    """Cut at MAX_PROMPT_CHARS, "another" became "an", searched as a word of its own (search
    cuts a long query between words: clip_query)."""
    head = "sqlite lock waits " + "files " * ((MAX_PROMPT_CHARS - 20) // 6)
    huge = head + "another process holds the lock " * 1000
    assert huge[MAX_PROMPT_CHARS - 2 : MAX_PROMPT_CHARS + 5] == "another"  # the cut falls in it
    recaller = Seen()

    recaller.recall(huge)

    assert recaller.searched == [head]


def test_the_hook_sends_a_prompt_cut_between_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook cuts the prompt before it asks the server, which searched "an" as a word."""
    sent: list[str] = []

    def recall(
        config: Config, prompt: str, seen: list[str], deadline: float
    ) -> tuple[str, list[str]]:
        sent.append(prompt)
        return "", []

    monkeypatch.setattr(actions, "_recall", recall)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    head = "sqlite lock waits " + "files " * ((MAX_PROMPT_CHARS - 20) // 6)
    where = Where("claude-code", "cut", str(tmp_path))
    actions.recall_for(config, where, head + "another day", time.monotonic() + 5)
    assert sent == [head]


def test_a_prompt_of_any_usual_length_is_searched_whole() -> None:
    prompt = "why does the file lock fail when another process holds it? " * 300
    recaller = Seen()

    recaller.recall(prompt)

    assert len(prompt) < MAX_PROMPT_CHARS and recaller.searched == [prompt]

"""A prompt is measured by its first MAX_PROMPT_CHARS (memidx/agents/recall.py): a pasted log
of megabytes, read whole, took the prompt hook past its deadline every time."""

from __future__ import annotations

from pathlib import Path

from memidx.agents.recall import MAX_PROMPT_CHARS, Candidate, Recaller
from memidx.config import Config


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

    assert recaller.searched == [huge[:MAX_PROMPT_CHARS]]


def test_a_prompt_of_any_usual_length_is_searched_whole() -> None:
    prompt = "why does the file lock fail when another process holds it? " * 300
    recaller = Seen()

    recaller.recall(prompt)

    assert len(prompt) < MAX_PROMPT_CHARS and recaller.searched == [prompt]

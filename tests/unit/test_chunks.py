"""Chunking: along headings, within the token window, each chunk prefixed with the title."""

from __future__ import annotations

import pytest

from memidx.notes.chunks import (
    MAX_CHUNKS,
    MAX_TOKENS,
    chunk_document,
    estimate_tokens,
    split_document,
)

BODY = """Intro paragraph about the problem.

## Cause

The cause is explained here.

```bash
# not a heading: a comment in a fence
echo hi
```

## Fix

Run the fix.
"""


def test_sections_follow_headings_outside_fences() -> None:
    chunks = chunk_document("Disk full", BODY, body_line=5)
    assert [c.heading for c in chunks] == [None, "Cause", "Fix"]
    assert all(c.text.startswith("Disk full\n") for c in chunks)
    assert "not a heading" in chunks[1].text
    assert chunks[1].text.startswith("Disk full\nCause\n")


# Where chunking disagreed with the title reader or the English check, or with CommonMark.
@pytest.mark.parametrize(
    ("body", "sections"),
    [
        ("intro\n## C#\nafter", [(None, 1), ("C#", 2)]),  # not "C": `#` after a letter is text
        ("intro\n##\nafter", [(None, 1), (None, 2)]),  # an empty heading still starts a section
        ("intro\n```js```\n## Sub\nafter", [(None, 1), ("Sub", 3)]),  # inline code, no fence
    ],
)
def test_sections_start_at_every_atx_heading_outside_fences(
    body: str, sections: list[tuple[str | None, int]]
) -> None:
    assert [(c.heading, c.line) for c in chunk_document("T", body)] == sections


def test_chunk_lines_point_at_the_file() -> None:
    chunks = chunk_document("T", BODY, body_line=5)
    lines = BODY.split("\n")
    assert [c.line for c in chunks] == [5, 7, 16]
    assert [lines[c.line - 5] for c in chunks] == [
        "Intro paragraph about the problem.",
        "## Cause",
        "## Fix",
    ]


def test_every_section_of_a_long_note_gets_a_chunk_within_the_window() -> None:
    sections = [f"## Part {i}\n\n" + f"word{i} text " * 400 for i in range(5)]
    chunks = chunk_document("Long note", "\n\n".join(sections))
    assert {c.heading for c in chunks} == {f"Part {i}" for i in range(5)}
    assert len(chunks) > 5
    assert all(estimate_tokens(c.text) <= MAX_TOKENS + 8 for c in chunks)
    assert all(any(f"word{i}" in c.text for c in chunks) for i in range(5))


def test_a_single_huge_line_is_split_by_words() -> None:
    chunks = chunk_document("T", "x " * 5000)
    assert len(chunks) > 10
    assert all(estimate_tokens(c.text) <= MAX_TOKENS + 8 for c in chunks)


def test_same_text_same_hash_and_title_changes_the_hash() -> None:
    a = chunk_document("Title", "Body text.")
    b = chunk_document("Title", "Body text.")
    c = chunk_document("Other title", "Body text.")
    assert a[0].text_hash == b[0].text_hash != c[0].text_hash


def test_a_note_with_only_a_title_still_has_one_chunk() -> None:
    chunks = chunk_document("Only a title", "\n\n")
    assert [c.text for c in chunks] == ["Only a title"]


def test_estimate_counts_symbols_digits_and_underscores_generously() -> None:
    assert 2 <= estimate_tokens("hello world") <= 4
    assert estimate_tokens("snake_case_name") >= 5
    assert estimate_tokens("8961353bf66f9b3f") >= 8


def test_a_heading_inside_a_longer_fence_starts_no_chunk() -> None:
    body = "intro\n\n````md\n```python\n# a comment, not a heading\n```\n````\n\n## Real\ntext"
    assert [c.heading for c in chunk_document("T", body, body_line=1)] == [None, "Real"]


HEADINGS = "".join(f"## h{i}\n" for i in range(105_426))  # 1 MiB of headings


def test_a_note_of_a_hundred_thousand_headings_costs_at_most_the_cap() -> None:
    chunking = split_document("hh", HEADINGS)

    assert chunking.capped
    assert len(chunking.chunks) == MAX_CHUNKS  # was one chunk per heading: 105,426
    assert [c.seq for c in chunking.chunks] == list(range(MAX_CHUNKS))
    assert all(estimate_tokens(c.text) <= MAX_TOKENS for c in chunking.chunks)
    assert chunking.chunks[0].text.startswith("hh\nh0\n## h0\n## h1\n")  # merged up to the window
    assert chunking.chunks[1].line > 40  # each chunk holds dozens of headings


def test_small_sections_merge_only_when_a_note_needs_more_than_the_cap() -> None:
    body = "".join(f"## Part {i}\n\nstep {i}\n\n" for i in range(100))
    merged = split_document("Steps", body)
    few = split_document("Steps", body, max_chunks=200)

    assert not merged.capped and len(merged.chunks) < MAX_CHUNKS
    assert " ".join(c.text for c in merged.chunks).count("step ") == 100  # nothing left out
    assert [c.heading for c in few.chunks] == [f"Part {i}" for i in range(100)]  # one per section


def test_a_long_note_keeps_its_first_chunks_in_order() -> None:
    body = "\n\n".join(f"word{i} " * 200 for i in range(200))  # 200 window-sized paragraphs
    chunking = split_document("Long", body, max_chunks=8)

    assert chunking.capped and len(chunking.chunks) == 8
    assert "word0 " in chunking.chunks[0].text and "word199" not in chunking.chunks[-1].text
    assert chunk_document("Long", body) == list(split_document("Long", body).chunks)


def test_a_note_at_the_cap_is_not_capped() -> None:
    body = "".join(f"## S{i}\n" + "word " * 100 + "\n" for i in range(MAX_CHUNKS))  # 2 fit in 1
    chunking = split_document("T", body)
    assert (len(chunking.chunks), chunking.capped) == (MAX_CHUNKS, False)
    assert [c.heading for c in chunking.chunks] == [f"S{i}" for i in range(MAX_CHUNKS)]

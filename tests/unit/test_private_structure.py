"""A `<private>` span hides its text, never the note's structure: a fence line inside a span
opens or closes a code block in the index as in the file, and text after a span's close is
no fence or heading the file does not have, so the headings, chunks and lines after a span
are the file's (memidx.notes.private_body)."""

from __future__ import annotations

import pytest

from memidx.notes.chunks import chunk_document
from memidx.notes.markdown import scan
from memidx.notes.note import parse_note
from memidx.private import PRIVATE_STAND_IN

REF = "notes/plan.md"
CASES = [
    # a fence the span closes: the heading after it is one, as in the file
    ("# T\n\n```sh\nmake deploy\n<private>\nkestrel\n```\n</private>\n\n## After\n", [1, 10]),
    # a fence the span opens and never closes: the rest is code, as in the file
    ("# T\n\n<private>\n```kestrel\nx = 1\n</private>\n\n## Code\n\ntext\n", [1]),
    # a fence opened and closed inside the span: nothing changes after it
    ("# T\n\n<private>\n```\n# kestrel\n```\n</private>\n\n## After\n", [1, 9]),
    # a fence line the span's close ends: the file opens a block there, its info string public
    ("# T\n\n<private>kestrel\n```</private> py\n## Code\n```\n\n## After\n", [1, 8]),
    # text after a span's close is no heading and no fence
    ("# T\n\n<private>kestrel\nmore</private># Fake\n\n## After\n", [1, 6]),
    ("# T\n\n<private>kestrel\nmore</private>```\n\n## After\n", [1, 6]),
    # a tilde fence the span opens: what its close leaves on the line is the info string
    ("# T\n\n<private>a\n~~~kestrel</private>~~\n## Code\n~~~\n## After\n", [1, 7]),
    # a heading inside a span is private text, no heading
    ("# T\n\n<private>\n## Kestrel\n</private>\n\n## After\n", [1, 7]),
]


@pytest.mark.parametrize(("text", "lines"), CASES)
def test_headings_after_a_span_are_the_files(text: str, lines: list[int]) -> None:
    note = parse_note(REF, text.encode(), 1 << 20)
    chunks = chunk_document(note.title, note.body, note.body_line)
    assert [chunk.line for chunk in chunks] == lines, note.body
    headings = {"T", "After", "Code"}
    assert {chunk.heading for chunk in chunks} <= headings


@pytest.mark.parametrize(("text", "lines"), CASES)
def test_every_line_is_code_where_the_file_has_code(text: str, lines: list[int]) -> None:
    note = parse_note(REF, text.encode(), 1 << 20)
    real = [code for _, code, _ in scan(text.split("\n"))]
    assert [code for _, code, _ in scan(note.body.split("\n"))] == real, note.body
    assert "kestrel" not in note.body and note.body.count("\n") == text.count("\n"), lines


def test_a_fence_in_a_span_from_the_front_matter_is_read_as_the_file_reads_it() -> None:
    text = "---\ntitle: Plan <private>kestrel\n---\n```\n</private>\n# Code\n"
    note = parse_note(REF, text.encode(), 1 << 20)
    assert (note.title, note.body) == (PRIVATE_STAND_IN, f"``` {PRIVATE_STAND_IN}\n\n# Code\n")
    chunks = chunk_document(note.title, note.body, note.body_line)
    assert [(chunk.heading, chunk.line) for chunk in chunks] == [(None, 4)]  # `# Code` is code

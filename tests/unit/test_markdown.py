"""The one Markdown scanner: front matter, fenced code and ATX headings, by CommonMark's rules."""

from __future__ import annotations

import pytest

from memidx.notes.markdown import Heading, front_matter_end, heading_of, scan


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("# Title", Heading(1, "Title")),
        ("   ### Three spaces", Heading(3, "Three spaces")),
        ("    # Four spaces", None),  # indented code
        ("\t# Tab", None),  # a tab reaches column 4
        ("#\tTab after", Heading(1, "Tab after")),
        ("###### Six", Heading(6, "Six")),
        ("####### Seven", None),
        ("#hashtag", None),
        ("#5 bolt", None),
        ("#", Heading(1, "")),
        ("## ", Heading(2, "")),
        ("# #", Heading(1, "")),
        ("### ###", Heading(3, "")),
        ("# Title ##  ", Heading(1, "Title")),
        ("# Learning C#", Heading(1, "Learning C#")),
        ("# foo #5", Heading(1, "foo #5")),
        ("#    spaced   out   ", Heading(1, "spaced   out")),
    ],
)
def test_atx_headings(line: str, heading: Heading | None) -> None:
    assert heading_of(line) == heading


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a\n```\nb\n```\nc", ".###."),
        ("a\n~~~~\n~~~\n~~~~~\nc", ".###."),  # closes with as many or more of the same mark
        ("```\n~~~\n```", "###"),
        ("```\n``` not a close\n```", "###"),
        ("   ```\nb\n   ```\nc", "###."),  # 0-3 spaces open and close
        ("    ```\nb", ".."),  # 4 spaces: indented code, not a fence
        ("\t```\nb", ".."),
        ("```\nb\n    ```\nc", "####"),  # a closing line indented 4 spaces does not close
        ("```js```\nb", ".."),  # a backtick in a backtick fence's info string: inline code
        ("~~~ `js`\nb\n~~~", "###"),  # a tilde fence's info may hold backticks
        ("``\nb", ".."),  # two marks are inline code
        ("```\nunclosed\n# runs to the end", "###"),
    ],
)
def test_fenced_code(text: str, code: str) -> None:
    assert "".join("#" if c else "." for _, c, _ in scan(text.split("\n"))) == code


def test_headings_inside_fences_are_code() -> None:
    lines = ["# Out", "```", "# In", "```", "## After"]
    assert [h for _, _, h in scan(lines)] == [
        Heading(1, "Out"),
        None,
        None,
        None,
        Heading(2, "After"),
    ]


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("---\ntitle: x\n---\nbody", 3),
        ("--- \ntitle: x\n...\t\nbody", 3),
        ("---\n---", 2),
        ("---\ntitle: x\nbody", None),  # never closed
        ("---", None),
        ("----\nx\n---", 0),
        ("body\n---\nx\n---", 0),
        ("", 0),
    ],
)
def test_front_matter_end(text: str, end: int | None) -> None:
    assert front_matter_end(text.split("\n")) == end

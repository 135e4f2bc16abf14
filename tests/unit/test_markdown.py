"""The one Markdown scanner: front matter, fenced code and ATX headings, by CommonMark's rules."""

from __future__ import annotations

import pytest

from memidx.notes.markdown import Heading, conflict_start, front_matter_end, heading_of, scan


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
        ("---\n\nNote: x\nbody", None),  # its first line with text is a `key:` line
        ("---\r\n\r\ntags:\r\n- a\r\n---\r\nbody", 5),  # CRLF, as the English check reads it
        ('---\n"a key": x\nbody', None),
        ("---\n\ntitle: x\n---\nbody", 4),  # a blank first line, but a `key:` line
        ("---\nIntro\n---\nbody", 3),  # no blank line under the first `---`: front matter
        ("---", 0),  # a rule: nothing of front matter
        ("---\n\nSome text.\n\nMore.", 0),  # a rule over the body, never closed
        ("---\nSome text: see below", 0),  # `Some text:` is no key
        ("---\n\nIntro.\n\n---\n\nMore.", 0),  # a blank line under it, no `key:` line
        ("---\n\n---", 0),
        ("----\nx\n---", 0),
        ("body\n---\nx\n---", 0),
        ("", 0),
    ],
)
def test_front_matter_end(text: str, end: int | None) -> None:
    assert front_matter_end(text.split("\n")) == end


CONFLICT = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic"


@pytest.mark.parametrize(
    ("text", "start"),
    [
        (f"intro\n{CONFLICT}\nafter", 1),
        (f"# Title\n\n{CONFLICT}", 2),
        ("a\n<<<<<<< HEAD\nours\n||||||| base\nold\n=======\ntheirs\n>>>>>>> b", 1),  # diff3
        ("<<<<<<<\nours\n=======\ntheirs\n>>>>>>>", 0),  # no labels
        (f"---\n{CONFLICT}\n---\nbody", 1),  # in front matter: not Markdown, never code
        (f"---\ntitle: t\n---\n{CONFLICT}", 3),
        (f"```\n{CONFLICT}\n```\n{CONFLICT}", 7),  # the first outside code counts
        # not a conflict
        ("Title\n=======\n\ntext", None),  # a setext heading's underline
        (f"```text\n{CONFLICT}\n```", None),  # a note about git shows them in code
        (f"~~~~\n```\n{CONFLICT}\n```\n~~~~", None),
        ("<<<<<<< HEAD\nours\n=======\ntheirs", None),  # no closing marker
        ("<<<<<<< HEAD\nours\n>>>>>>> topic", None),  # no middle
        (">>>>>>> topic\n=======\n<<<<<<< HEAD", None),  # out of order
        ("<<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>>> topic", None),  # eight, not seven
        ("<<<<<<<HEAD\nours\n=======x\ntheirs\n>>>>>>>topic", None),  # no space after
        ("    <<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic", None),  # git writes column 0
        ("<<<<<<< HEAD\n```\n=======\n```\n>>>>>>> topic", None),  # the middle is in code
    ],
)
def test_conflict_markers_outside_code(text: str, start: int | None) -> None:
    assert conflict_start(text.split("\n")) == start

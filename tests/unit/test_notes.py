"""Parsing notes: front matter, titles, tags and the reasons a file cannot be indexed."""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import PurePosixPath

import pytest

from memidx.notes.note import NoteError, first_heading, is_note_path, parse_note
from memidx.notes.yaml_comments import Cut, cut_warning

LIMIT = 1024 * 1024


def test_front_matter_fields_are_read() -> None:
    note = parse_note(
        "notes/a.md",
        b"---\ntitle: Disk full\ntags: [Linux, disk]\naliases: [ENOSPC]\n"
        b"created: 2025-03-14\nlang: en\n---\nBody text\n",
        LIMIT,
    )
    assert (note.title, note.tags, note.aliases) == ("Disk full", ("linux", "disk"), ("ENOSPC",))
    assert (note.created, note.lang, note.body, note.body_line) == (
        "2025-03-14",
        "en",
        "Body text\n",
        8,
    )


def test_tags_may_be_a_comma_string() -> None:
    note = parse_note("notes/a.md", b'---\ntags: "git, tags , #release"\n---\nx\n', LIMIT)
    assert note.tags == ("git", "tags", "release")


@pytest.mark.parametrize(
    ("data", "title"),
    [
        (b"---\ntitle: From front matter\n---\n# Heading\n", "From front matter"),
        (b"# From the heading\nbody\n", "From the heading"),
        (b"```bash\n# not a heading\n```\n\n# Real heading\n", "Real heading"),
        (b"Just prose, no heading.\n", "plain-prose"),
        (b"## Second level only\n", "plain-prose"),
    ],
)
def test_title_falls_back_to_heading_then_file_name(data: bytes, title: str) -> None:
    assert parse_note("notes/dir/plain-prose.md", data, LIMIT).title == title


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty note"),
        (b"  \n\n\t\n", "empty note"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"caf\xe9 au lait\n", "not valid UTF-8"),
        (b"---\ntitle: [unclosed\n---\nbody\n", "malformed front matter"),
        (b"---\ntitle: no end\nbody\n", "no closing '---'"),
        (b"---\n- a list\n- not a mapping\n---\nbody\n", "expected 'key: value'"),
        (b"---\ntitle:\n  nested: map\n---\nbody\n", "'title' must be text, found a mapping"),
        (b"---\ntags: [[a, b]]\n---\nbody\n", "list of words"),
        # values YAML's grammar accepts but no date, time or number can hold
        (b"---\ndate: 2026-13-45\n---\nbody\n", "malformed front matter: month must be"),
        (b"---\nat: 2026-02-30 10:00:00\n---\nbody\n", "malformed front matter: day is out"),
        (b"---\nn: " + b"9" * 5000 + b"\n---\nbody\n", "malformed front matter: Exceeds"),
    ],
)
def test_unindexable_files_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(NoteError, match=reason):
        parse_note("notes/bad.md", data, LIMIT)


QUOTE_IT = '(put the value in double quotes: title: "...")'
HASH_IS_A_COMMENT = '(YAML reads " #" as a comment: quote a value that holds #, e.g. "#tag")'


@pytest.mark.parametrize(
    ("block", "hint"),
    [
        ("title: Fix: the build", QUOTE_IT),
        ("title: [WIP] the build", QUOTE_IT),
        ("title: @alice fixed it", QUOTE_IT),
        ("title: `make` fails", QUOTE_IT),
        ("title: *bold* claims", QUOTE_IT),
        ("lang: en\ntitle: {draft} the build", QUOTE_IT),
        ("tags:\n\t- build", "(YAML indents with spaces, not tabs)"),
        ("tags: [ci, #build]", HASH_IS_A_COMMENT),  # README: tags may be written `#build`
        ("tags: [#build, ci]\ntitle: The build", HASH_IS_A_COMMENT),
        ("title: [unclosed\ntags: a", None),  # the list of line 2 is unclosed: no one fix
        ('title: "unclosed', None),
    ],
)
def test_malformed_front_matter_says_how_to_fix_it(block: str, hint: str | None) -> None:
    """Editors' usual slips give YAML's own words ("mapping values are not allowed in this
    context"), which do not tell the author what to change; the line names the fix, never
    the value."""
    with pytest.raises(NoteError, match="malformed front matter") as raised:
        parse_note("notes/bad.md", f"---\n{block}\n---\nbody\n".encode(), LIMIT)
    said = str(raised.value)
    if hint is None:
        assert "(" not in said, said
    else:
        assert said.endswith(hint), said
        assert "build" not in said and "alice" not in said, said


@pytest.mark.parametrize(
    "block", ["lang: no\ntags: [yes, no, on]", "lang: no\ntags: [yes, no, on]  # c"]
)
def test_yes_no_on_and_off_in_front_matter_stay_words(block: str) -> None:
    note = parse_note("notes/nb.md", f"---\n{block}\n---\nNorsk notat\n".encode(), LIMIT)

    assert (note.lang, note.tags) == ("no", ("yes", "no", "on"))  # not False, true, false


@pytest.mark.parametrize(
    ("block", "title", "cut"),
    [
        ("title: Fix #123 in the parser", "Fix", [Cut("title", 2)]),
        ("lang: en\ntitle: #123 in the parser", None, [Cut("title", 3)]),  # no value at all
        ("title: T\ntags:\n  - bug #12\n  - ci", "T", [Cut("tags", 4, item=True)]),
        ("title: T\nsee:\n  issue: fixed in #7", "T", [Cut("issue", 4)]),  # any key, nested
        ("title: Two\n  lines #1", "Two lines", [Cut("title", 3)]),  # the line it ends on
        ('title: "Fix #123 in the parser"', "Fix #123 in the parser", []),
        ("title: 'Fix #123' # quoted", "Fix #123", []),
        ("title: Notes on C# and F#", "Notes on C# and F#", []),  # no space before the #
        ("title: Notes  # a comment, as YAML writes them", "Notes", []),
        ("title: T\ntags: [a, b]  #c", "T", []),  # after the list: nothing cut
        ("title: T\nbody: |\n  text #not-a-comment", "T", []),
    ],
)
def test_a_value_yaml_cuts_at_a_hash_is_reported(
    block: str, title: str | None, cut: list[Cut]
) -> None:
    """YAML reads ` #` as the start of a comment: `title: Fix #123 in the parser` is the
    title "Fix", with no error. The note is indexed as YAML reads it, and the cut is told
    (key and line), so the author can quote the value."""
    note = parse_note("notes/fix.md", f"---\n{block}\n---\n# Heading\nbody\n".encode(), LIMIT)

    assert (note.title, list(note.cut)) == (title or "Heading", cut)


def test_the_cut_warning_names_file_line_key_and_fix_never_the_value() -> None:
    said = cut_warning("notes/fix.md", Cut("title", 2))
    item = cut_warning("notes/fix.md", Cut("tags", 4, item=True))

    assert said == (
        "notes/fix.md:2: 'title' stops at ' #': YAML reads the rest of the line as a comment "
        '(quote the value to keep it: title: "...")'
    )
    assert item.startswith("notes/fix.md:4: an item of 'tags' stops at ' #'")
    assert item.endswith('(quote the value to keep it: - "...")')


@pytest.mark.parametrize(
    "text",
    [
        "---\n\nThe deploy runs at night.\n",
        "---\nThe deploy runs at night.\n",
        "---\n\nThe deploy runs at night.\n\n---\n\nIt takes an hour.\n",
        "---\n\n- step one\n- step two\n\n---\n",
    ],
)
def test_a_note_that_opens_with_a_horizontal_rule_is_all_body(text: str) -> None:
    """A `---` with a blank line under it, or one never closed whose first line is prose, is
    Markdown's thematic break: the note was refused as 'malformed front matter'."""
    note = parse_note("notes/deploy.md", text.encode(), LIMIT)

    assert (note.title, note.body, note.body_line) == ("deploy", text, 1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\ntitle: Deploy\ntags: [ops]\n\nThe deploy.\n", "no closing '---' line"),
        ("---\n\ntitle: Deploy\n\nThe deploy.\n", "no closing '---' line"),
        ("---\ntitle Deploy\n---\nThe deploy.\n", "expected 'key: value' lines"),
        ("---\n\ntitle: [Deploy\n---\nThe deploy.\n", "malformed front matter"),
    ],
)
def test_broken_front_matter_is_still_refused(text: str, reason: str) -> None:
    with pytest.raises(NoteError, match=re.escape(reason)) as raised:
        parse_note("notes/deploy.md", text.encode(), LIMIT)
    if "---' line" in reason or "key: value" in reason:
        assert str(raised.value).endswith("a note can be written '***')")


def test_oversized_notes_are_refused_before_decoding() -> None:
    with pytest.raises(NoteError, match="too large"):
        parse_note("notes/big.md", b"a" * (LIMIT + 1), LIMIT)


def test_crlf_and_bom_are_normalised() -> None:
    note = parse_note("notes/w.md", b"\xef\xbb\xbf---\r\ntitle: Win\r\n---\r\nline\r\n", LIMIT)
    assert (note.title, note.body) == ("Win", "line\n")


# Where the title reader disagreed with chunks or the English check, or with CommonMark; all
# three now read headings and fences through memidx.notes.markdown.
@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("  # Indented title\ntext", "Indented title"),  # 1-3 spaces: a heading for chunks too
        ("   # Three spaces\ntext", "Three spaces"),
        ("# Learning C#\ntext", "Learning C#"),  # a closing run needs a space before it
        ("# #\n# Real", "Real"),  # `# #` is an empty heading, not the title "#"
        ("#   \n# Real", "Real"),  # so is `#` with trailing spaces, not the title " "
        ("```js```\n# Title", "Title"),  # a backtick in the info string: inline code, no fence
    ],
)
def test_the_title_is_the_first_level_one_heading_as_commonmark_reads_it(
    body: str, title: str
) -> None:
    assert first_heading(body) == title


@pytest.mark.parametrize(
    "opening",
    ["--- ", "---\t"],  # the English check read these as front matter already
)
def test_front_matter_may_open_with_trailing_whitespace(opening: str) -> None:
    data = f"{opening}\ntitle: From front matter\ntags: [a]\n---\n# Heading\n".encode()
    note = parse_note("notes/x.md", data, LIMIT)
    assert (note.title, note.tags, note.body, note.body_line) == (
        "From front matter",
        ("a",),
        "# Heading\n",
        5,
    )


@pytest.mark.parametrize(
    "data", [b"# A\n", b"\xef\xbb\xbf---\r\ntitle: Win\r\n---\r\nline\r\n", "Caf\u00e9\n".encode()]
)
def test_a_notes_content_hash_is_the_sha256_of_its_file(data: bytes) -> None:
    assert parse_note("notes/a.md", data, LIMIT).content_hash == hashlib.sha256(data).hexdigest()


def test_content_hash_changes_with_content() -> None:
    a = parse_note("notes/a.md", b"# A\n", LIMIT)
    b = parse_note("notes/a.md", b"# A!\n", LIMIT)
    assert a.content_hash != b.content_hash


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("notes/a.md", True),
        ("notes/deep/er/a.md", True),
        ("notes/a.txt", False),
        ("notes/.hidden.md", False),
        ("notes/.obsidian/a.md", False),
        ("other/a.md", False),
        ("notesx/a.md", False),
        ("notes/with space é.md", True),
        ("notes/Deploy.MD", True),  # any case: it was neither indexed nor listed anywhere
        ("notes/ops/Runbook.Md", True),
        ("notes/a.mD", True),
        ("notes/a.markdown", False),
        ("notes/.Hidden.MD", False),
    ],
)
def test_which_files_are_notes(ref: str, expected: bool) -> None:
    assert is_note_path(ref, "notes") is expected


def _by_pathlib(ref: str, notes_dir: str) -> bool:
    path = PurePosixPath(ref)
    if path.suffix.lower() != ".md" or not path.is_relative_to(notes_dir):
        return False
    return not any(part.startswith(".") for part in path.relative_to(notes_dir).parts)


def test_the_string_tests_answer_as_pathlib_does() -> None:
    pieces = ["notes", "a.md", ".md", "..md", ".x", "..", ".", "", "b", "c.MD", "d.md.txt", "n.md"]
    refs = {"/".join(combo) for combo in itertools.product(pieces, repeat=3)}
    refs |= {"/".join(combo) for combo in itertools.product(pieces, repeat=2)}
    for notes_dir in ("notes", "notes/b", "b", ".", "notes/", "./notes"):
        for ref in refs:
            assert is_note_path(ref, notes_dir) is _by_pathlib(ref, notes_dir), (ref, notes_dir)


def test_first_heading_ignores_tilde_fences() -> None:
    assert first_heading("~~~\n# inside\n~~~\n# outside\n") == "outside"


NESTED_FENCES = "intro\n\n````md\n```python\n# a comment, not a heading\n```\n````\n\n# Real\ntext"


def test_a_fence_closes_only_with_as_many_marks_and_no_info_string() -> None:
    assert first_heading(NESTED_FENCES) == "Real"
    assert first_heading("```\n# inside\n``` not a close\n# still inside\n```\n# out\n") == "out"


def test_a_note_with_unresolved_conflict_markers_cannot_be_indexed() -> None:
    data = b"---\ntitle: Locks\n---\nintro\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\n"
    with pytest.raises(NoteError, match="unresolved merge conflict markers at line 5") as raised:
        parse_note("notes/locks.md", data, LIMIT)
    assert raised.value.line == 5


def test_a_note_about_git_may_show_conflict_markers_in_code() -> None:
    data = b"# Resolving\n\nA conflict:\n\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n```\n"
    assert parse_note("notes/git.md", data, LIMIT).title == "Resolving"

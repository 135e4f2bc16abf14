"""The pre-push check's readers: git's pre-push input, and `git log -z --raw -c` as the check
asks for it (a merge lists a path only when it differs from every parent), in whatever pieces
git's output arrives."""

from __future__ import annotations

import hashlib

import pytest

from memidx.errors import UsageError
from memidx.githooks.push_log import Changed, Sent, parse_log
from memidx.githooks.push_refs import Update, absent, parse_updates

A, B, C, D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)
ZERO = "0" * 40
NONE = ()  # a commit that sends no file
# what the log shows of a commit's header (push_log.HEADER): tree, parents, author, committer
SHOWN = f"{C}\n\nA U Thor\nau@example.com\n1 +0000\nC O Mitter\nco@example.com\n2 +0000\n"
PEOPLE = ("A U Thor <au@example.com>", "C O Mitter <co@example.com>")
HEADER = f"tree {C}\nauthor {PEOPLE[0]} 1 +0000\ncommitter {PEOPLE[1]} 2 +0000\n\n"


def sent(commit: str, source: str, message: str, changes: tuple[Changed, ...]) -> Sent:
    """A commit as the log shows it, not shown whole: its made-up id is no object's hash."""
    return Sent(commit, source, message, changes, *PEOPLE)


@pytest.mark.parametrize(
    ("stored", "whole"),
    [
        (HEADER + "fourth\n", True),
        # the log shows the zone `+0` as `+0000`: the object it makes is not the one stored
        (HEADER.replace("1 +0000", "1 +0") + "fourth\n", False),
        (HEADER.replace("\n\n", "\nencoding ISO-8859-1\n\n") + "fourth\n", False),
    ],
)
def test_a_commit_is_shown_whole_only_when_what_the_log_shows_hashes_to_its_id(
    stored: str, whole: bool
) -> None:
    body = stored.encode()
    commit = hashlib.sha1(b"commit %d\0%s" % (len(body), body)).hexdigest()

    (parsed,) = parse_log([f"\x01{commit} {A}\n{SHOWN}fourth\n\0".encode()])

    assert parsed.whole is whole


def test_parse_updates_reads_each_line_and_refuses_one_that_is_none() -> None:
    given = f"refs/heads/main {A} refs/heads/main {B}\n(delete) {ZERO} refs/heads/old {C}\n"
    assert parse_updates(given) == [
        Update("refs/heads/main", A, "refs/heads/main", B),
        Update("(delete)", ZERO, "refs/heads/old", C),
    ]
    assert absent(ZERO) and not absent(A)
    with pytest.raises(UsageError, match="line 2"):
        parse_updates(f"refs/heads/main {A} refs/heads/main {B}\nrefs/heads/main {A}\n")


@pytest.mark.parametrize(
    ("out", "parsed"),
    [
        (b"", list[Sent]()),
        (
            f"\x01{A} {A}\n{SHOWN}fourth\n\n\0\n:100644 100644 {B} {C} M\0notes/a.md\0".encode(),
            [sent(A, A, "fourth\n\n", (Changed("notes/a.md", C, (B,)),))],
        ),
        (  # a deletion sends no blob; a submodule is no file; an added file had no blob before
            f"\x01{A} {A}\n{SHOWN}gone\n\0\n:100644 000000 {B} {ZERO} D\0notes/a.md\0"
            f":000000 160000 {ZERO} {C} A\0sub\0:000000 100644 {ZERO} {D} A\0b.md\0".encode(),
            [sent(A, A, "gone\n", (Changed("b.md", D),))],
        ),
        (  # a merge: one mode and id per parent, then its own
            f"\x01{D} {B}\n{SHOWN}Merge\n\0\n::100644 100644 100644 {A} {B} {C} MM\0notes/x.md\0"
            f"\0\x01{B} {B}\n{SHOWN}side\n\0\0".encode(),
            [
                sent(D, B, "Merge\n", (Changed("notes/x.md", C, (A, B)),)),
                sent(B, B, "side\n", NONE),
            ],
        ),
    ],
)
@pytest.mark.parametrize("piece", [1, 7, 1 << 16])
def test_parse_log_gives_each_commit_its_message_and_the_blobs_it_sends(
    out: bytes, parsed: list[Sent], piece: int
) -> None:
    pieces = [out[at : at + piece] for at in range(0, len(out), piece)]
    assert list(parse_log(pieces)) == parsed

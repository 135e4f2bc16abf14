"""The pre-push check's readers: git's pre-push input, and `git log -z --raw -c` as the check
asks for it (a merge lists a path only when it differs from every parent)."""

from __future__ import annotations

import pytest

from memidx.errors import UsageError
from memidx.githooks.push_check import Update, absent, parse_log, parse_updates

A, B, C, D = ("a" * 40, "b" * 40, "c" * 40, "d" * 40)
ZERO = "0" * 40
NONE = list[tuple[str, str]]()  # a commit that sends no file
Parsed = list[tuple[str, str, str, list[tuple[str, str]]]]


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
        (b"", Parsed()),
        (
            f"\x01{A} {A}\nfourth\n\n\0\n:100644 100644 {B} {C} M\0notes/a.md\0".encode(),
            [(A, A, "fourth\n\n", [("notes/a.md", C)])],
        ),
        (  # a deletion sends no blob; a submodule is no file
            f"\x01{A} {A}\ngone\n\0\n:100644 000000 {B} {ZERO} D\0notes/a.md\0"
            f":000000 160000 {ZERO} {C} A\0sub\0".encode(),
            [(A, A, "gone\n", NONE)],
        ),
        (  # a merge: one mode and id per parent, then its own
            f"\x01{D} {B}\nMerge\n\0\n::100644 100644 100644 {A} {B} {C} MM\0notes/x.md\0"
            f"\0\x01{B} {B}\nside\n\0\0".encode(),
            [(D, B, "Merge\n", [("notes/x.md", C)]), (B, B, "side\n", NONE)],
        ),
    ],
)
def test_parse_log_gives_each_commit_its_message_and_the_blobs_it_sends(
    out: bytes, parsed: Parsed
) -> None:
    assert list(parse_log(out)) == parsed

"""The commands purge prints for the places that still hold forgotten bytes: shell command
lines whose names and paths are quoted, so one pasted as it is runs on that place alone."""

from __future__ import annotations

import pytest

from memidx.git.tips import BRANCH, OTHER, STASH, TAG, WORK_TREE, Tip
from memidx.haystack.held import held, in_order, shell_quote


@pytest.mark.parametrize(
    ("tip", "run"),
    [
        (Tip("refs/heads/backup", "c", BRANCH), "memidx haystack purge --branch backup"),
        (Tip("refs/heads/a;rm", "c", BRANCH), "memidx haystack purge --branch 'a;rm'"),
        (Tip("refs/tags/v1$(x)", "c", TAG), "git tag -d 'v1$(x)'"),
        (Tip("refs/heads/-x", "c", BRANCH), "memidx haystack purge --branch refs/heads/-x"),
        (
            Tip("refs/heads/refs/heads/main", "c", BRANCH),
            "memidx haystack purge --branch refs/heads/refs/heads/main",
        ),
        (Tip("refs/tags/-t", "c", TAG), "git tag -d -- -t"),
        (Tip("refs/notes/commits", "c", OTHER), "git update-ref -d refs/notes/commits"),
        (Tip("refs/keep/$(rm)", "c", OTHER), "git update-ref -d 'refs/keep/$(rm)'"),
        (Tip("stash@{2}", "c", STASH), "git stash drop stash@{2}"),
        (
            Tip("refs/heads/wip", "c", BRANCH, "/tmp/my tree"),
            "memidx haystack purge --work-tree '/tmp/my tree'",
        ),
        (
            Tip("HEAD of /tmp/t", "c", WORK_TREE, "/tmp/t"),
            "memidx haystack purge --work-tree /tmp/t",
        ),
        (
            Tip("HEAD of /tmp/a\nb", "c", WORK_TREE, "/tmp/a\nb"),
            "memidx haystack purge --work-tree $'/tmp/a\\x0ab'",
        ),
        (Tip("refs/heads/main", "c", BRANCH, "/here", here=True), "memidx haystack purge"),
        (
            Tip("refs/heads/topic", "c", BRANCH, "/t", rebasing=True),
            "memidx haystack purge --work-tree /t",
        ),
        (
            Tip("refs/heads/topic", "c", BRANCH, "/here", here=True, rebasing=True),
            "memidx haystack purge",
        ),
        (Tip("refs/tags/b", "c", TAG, target="blob"), "git tag -d b"),
        (Tip("refs/keep/t", "c", OTHER, target="tree"), "git update-ref -d refs/keep/t"),
    ],
)
def test_each_place_gets_a_quoted_command(tip: Tip, run: str) -> None:
    assert held(tip).run == run


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("/tmp/a b", "'/tmp/a b'"),
        ("/tmp/é", "'/tmp/é'"),
        ("/tmp/a\nb", "$'/tmp/a\\x0ab'"),
        ("/tmp/it's\t\\", "$'/tmp/it\\'s\\x09\\\\'"),
        ("/tmp/\udcff", "$'/tmp/\\xff'"),  # a byte that is not UTF-8, read with surrogateescape
    ],
)
def test_a_path_is_one_shell_word_on_one_line(text: str, word: str) -> None:
    assert shell_quote(text) == word
    assert "\n" not in held(Tip(f"HEAD of {text}", "c", WORK_TREE, text)).why


def test_a_tag_of_a_blob_or_tree_says_where_it_holds_the_bytes() -> None:
    assert held(Tip("refs/tags/b", "c", TAG, target="blob")).where == "in the blob it names"
    assert held(Tip("refs/tags/v1", "c", TAG)).where == "in commits no remote has"


def test_stash_entries_come_last_highest_first_so_the_drops_run_in_order() -> None:
    tips = [Tip(f"stash@{{{n}}}", "c", STASH) for n in range(3)]
    tips.insert(1, Tip("refs/tags/v1", "c", TAG))

    assert [h.ref for h in in_order(tips)] == [
        "refs/tags/v1",
        "stash@{2}",
        "stash@{1}",
        "stash@{0}",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "/tmp/a'b\nc\\d",  # a quote, a newline and a backslash at once
        "/tmp/\\x41",  # a backslash and what reads as an escape: kept as it is
        "/tmp/tab\there\u00a0nbsp",  # a tab and a no-break space (not printable)
        "/tmp/\udcff\udcfe bytes",  # bytes that are not UTF-8
        "/tmp/'$(touch pwned)'\n",
        "-starts-with-dash",
    ],
)
def test_a_quoted_path_read_back_by_bash_is_the_path_byte_for_byte(text: str) -> None:
    """What bash makes of the word is what `shell_quote` was given, not only its look."""
    import os
    import subprocess

    word = shell_quote(text)
    done = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, check=True,
        env={"PATH": os.environ["PATH"], "LC_ALL": "C"},
    )  # fmt: skip
    assert done.stdout == os.fsencode(text) and "\n" not in word

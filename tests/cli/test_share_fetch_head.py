"""`memidx share` fetched with a plain `git fetch`, which rewrites .git/FETCH_HEAD: a person's
`git pull` at the same moment fetches, then reads FETCH_HEAD to know what to merge, and read
share's instead: "fatal: Cannot rebase onto multiple branches." or "no such ref was fetched"
(the chaos bench, seed 4, c1; a plain `git fetch` loop beside `git pull --rebase`: 105 of 150
pulls failed, 0 with --no-write-fetch-head). Share merges `@{upstream}`, never FETCH_HEAD,
so it leaves the person's FETCH_HEAD as it was."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_forget import clones


def test_share_leaves_the_persons_fetch_head_alone(tmp_path: Path) -> None:
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    fetch_head = two.root / ".git" / "FETCH_HEAD"
    persons = "0" * 40 + "\t\tbranch 'main' of the person's own pull\n"
    fetch_head.write_text(persons)

    done = two.memidx_process("share")

    assert done.code == 0, done.err
    assert "notes/theirs.md" in two.git("ls-tree", "-r", "--name-only", "HEAD")  # it fetched
    assert fetch_head.read_text() == persons

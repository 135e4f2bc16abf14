"""A check's warning under the pre-commit framework alone (another repository's hooks from
.pre-commit-hooks.yaml), which shows a passing hook's output only with `verbose`: it is kept
with what was staged, and memidx-sync's post-commit hook (verbose) shows it once that commit
is made. Real git, memidx in-process, no hook installed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.githooks.notices import KEPT_BYTES, NOTICES, PENDING, kept_notices, warn
from tests.helpers import NotesRepo

BUILT = "memidx: built the missing index at"  # the drift check's warning before a first commit


@pytest.fixture
def framework(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT", "1")  # as pre-commit sets for every hook it runs
    monkeypatch.delenv(NOTICES, raising=False)  # not memidx's own shim


@pytest.mark.usefixtures("framework")
def test_a_passing_checks_warning_is_shown_after_its_commit(repo: NotesRepo) -> None:
    ref = repo.note("a.md", "A", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    checked = repo.memidx("check", "drift", ref)
    repo.git("commit", "-q", "--no-verify", "-m", "a")

    shown = repo.memidx("hook", "post-commit")
    again = repo.memidx("hook", "post-commit")

    assert checked.code == 0 and BUILT in checked.err, checked
    assert shown.code == 0 and shown.out.count(BUILT) == 1, shown
    assert BUILT not in again.out  # shown once
    assert not (repo.root / ".memidx" / PENDING).exists()


@pytest.mark.usefixtures("framework")
def test_the_warning_of_a_commit_not_made_is_never_shown(repo: NotesRepo) -> None:
    ref = repo.note("a.md", "A", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    assert BUILT in repo.memidx("check", "drift", ref).err
    repo.note("b.md", "B", "The runners share one disk for the cache of every build.")
    repo.git("add", "-A")  # another staged set: the commit checked was not made
    repo.git("commit", "-q", "--no-verify", "-m", "a and b")

    shown = repo.memidx("hook", "post-commit")

    assert shown.code == 0 and BUILT not in shown.out, shown
    assert not (repo.root / ".memidx" / PENDING).exists()


@pytest.mark.usefixtures("framework")
def test_a_staged_set_checked_twice_says_its_warning_once(
    repo: NotesRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A commit tried again (another hook failed, nothing restaged) checks the same set again."""
    config = load_config(repo.root)
    repo.note("a.md", "A", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    for _ in range(2):
        warn(config, "memidx: warning: said once")
    repo.git("commit", "-q", "--no-verify", "-m", "a")

    assert capsys.readouterr().err == "memidx: warning: said once\n" * 2
    assert kept_notices(config) == ["memidx: warning: said once"]


@pytest.mark.usefixtures("framework")
def test_a_warning_never_sends_control_characters_to_the_terminal(
    repo: NotesRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """A warning names a file as git has it (a merged note's name, a peer's choice), printed on
    stderr and again by the post-commit hook: an escape sequence there would drive the
    person's terminal (clear it, set its title, hide the lines that follow)."""
    config = load_config(repo.root)
    repo.note("a.md", "A", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    warn(config, "memidx: warning: notes/\x1b[2J\x1b]0;owned\x07.md: not English")
    repo.git("commit", "-q", "--no-verify", "-m", "a")
    pending = repo.root / ".memidx" / PENDING
    mark = pending.read_text().partition("\t")[0]
    with pending.open("a") as kept_raw:  # as an older memidx kept it: read back printable too
        kept_raw.write(f"{mark}\tmemidx: warning: \x1b[8mhidden\n")

    said, kept = capsys.readouterr().err, kept_notices(config)

    escaped = "memidx: warning: notes/\\x1b[2J\\x1b]0;owned\\x07.md: not English"
    assert said == escaped + "\n"
    assert kept == [escaped, "memidx: warning: \\x1b[8mhidden"]


@pytest.mark.usefixtures("framework")
def test_kept_lines_no_post_commit_hook_takes_out_cannot_grow_forever(repo: NotesRepo) -> None:
    """Without memidx-sync at post-commit (README: the lines stay unshown) every warning of
    every commit was appended to the file for good."""
    config = load_config(repo.root)
    repo.git("add", "-A")
    pending = repo.root / ".memidx" / PENDING
    pending.parent.mkdir(exist_ok=True)
    old = "0" * 64 + "\tmemidx: warning: an old commit's\n"  # 100 bytes
    pending.write_text(old * (KEPT_BYTES // len(old) + 1))

    warn(config, "memidx: warning: this commit's")

    kept = pending.read_text().splitlines()
    assert len(kept) == 1 and kept[0].endswith("\tmemidx: warning: this commit's"), kept[:2]


@pytest.mark.usefixtures("framework")
def test_the_staged_set_is_read_once_for_the_warnings_of_one_check(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge bringing hundreds of a peer's notes warns once per note: each line read and
    hashed the whole index again (~0.3 s a line for 50,000 files). Restaged, it is read anew."""
    from memidx.githooks import notices

    config = load_config(repo.root)
    read: list[Path] = []
    entries = notices._staged_entries  # pyright: ignore[reportPrivateUsage]

    def counted(root: Path) -> Iterable[tuple[bytes, bytes, bytes]]:
        read.append(root)
        return entries(root)

    monkeypatch.setattr(notices, "_staged_entries", counted)
    repo.note("a.md", "A", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    for n in range(3):
        warn(config, f"memidx: warning: inherited note {n}")
    repo.note("b.md", "B", "The runners share one disk for the cache of every build.")
    repo.git("add", "-A")
    warn(config, "memidx: warning: after restaging")
    repo.git("commit", "-q", "--no-verify", "-m", "a and b")

    assert len(read) == 2
    assert kept_notices(config) == ["memidx: warning: after restaging"]

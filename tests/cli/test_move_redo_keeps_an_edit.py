"""memidx killed once its own follow of HEAD's move wrote a remembered note (its fast path's
swap, or its slow follow's checkout), before it let git's index lock go: the move's shell, which
runs on, did the follow again with `git checkout <new> -- <note>`, and wrote the note over an
edit the person saved into it in between. The shell now brings only git's index to the commit
and writes the note where nothing is (or where the bytes the commit replaced still are): the
edit stays, an unstaged change of the committed note."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.helpers import NotesRepo, clean_env, started_memory
from tests.move_shell import killed_and_followed, killed_move_shell
from tests.plumbing import commit_beside, committed, git

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
EDIT = b"The person's line, saved once memidx had written the note.\n"
# a remember killed at `step` (argv[2]) once it wrote the note, the edit appended to it first:
# `swap` once the fast path placed it, else at that mark of its own follow (usable says no)
KILLED = """
import os, signal, sys
from pathlib import Path
from memidx.git import index_swap, move_trace
root, step, edit = Path(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
def saved_then_killed():
    for note in (root / "notes").rglob("*.md"):
        if "deploy" in note.name:
            with note.open("ab") as file:
                file.write(edit)
    os.kill(os.getpid(), signal.SIGKILL)
if step == "swap":
    real = index_swap.swap
    def swap(*args, **kwargs):
        done = real(*args, **kwargs)
        if done:
            saved_then_killed()
        return done
    index_swap.swap = swap
else:
    index_swap.usable = lambda *args, **kwargs: False
    def mark(at):
        if at == step:
            saved_then_killed()
    move_trace.mark = mark
from memidx.cli.main import main
main(["-C", str(root), "remember", "--title", "Deploy days"])
"""
BODY = b"Deploys go out on Tuesdays.\n"


def _killed_at(repo: NotesRepo, step: str) -> None:
    argv = [sys.executable, "-c", KILLED, str(repo.root), step, EDIT.decode()]
    killed_and_followed(repo.root, argv, BODY)


@pytest.mark.parametrize("step", ["swap", "ran", "written", "renamed"])
def test_the_shell_s_redo_keeps_an_edit_saved_since_memidx_wrote_the_note(
    tmp_path: Path, step: str
) -> None:
    repo = started_memory(tmp_path)

    _killed_at(repo, step)

    notes = [p for p in (repo.root / "notes").rglob("*.md") if "deploy" in p.name]
    assert len(notes) == 1, notes
    ref = notes[0].relative_to(repo.root).as_posix()
    committed = repo.git("show", f"HEAD:{ref}").encode()
    assert BODY.strip() in committed
    assert notes[0].read_bytes() == committed + EDIT  # was: the commit's bytes, the edit lost
    assert repo.git("status", "--porcelain", "-uall") == f" M {ref}\n"  # index: the commit's


SEGMENT = "haystack/w/a.krd"


def _blanked(root: Path, files: dict[str, bytes]) -> tuple[str, str]:
    """A repository of `files` (SEGMENT's bytes `old`) and a commit beside it that rewrites
    SEGMENT to `new`: (old, new)."""
    root.mkdir()
    old = committed(root, {SEGMENT: b"old\n", **files})
    return old, commit_beside(root, old, "blanked", written={SEGMENT: b"new\n"})


@pytest.mark.parametrize(
    ("there", "after"),
    [(b"old\n", b"new\n"), (None, b"new\n"), (b"the person's\n", b"the person's\n")],
    ids=["the-bytes-replaced", "nothing", "an-edit"],
)
def test_the_shell_s_redo_of_a_rewrite_writes_over_the_old_bytes_alone(
    tmp_path: Path, there: bytes | None, after: bytes
) -> None:
    """A rewrite of a tracked file from memory (a purge's blanked segment, its folder named
    too): the redo still writes the new bytes over the very bytes the commit replaced, and
    where nothing is; an edit stays."""
    root = tmp_path / "m"
    old, new = _blanked(root, {"haystack/w/b.krd": b"b\n"})
    if there is None:
        (root / SEGMENT).unlink()
    else:
        (root / SEGMENT).write_bytes(there)
    then = ["-c", "core.hooksPath=/dev/null", "checkout", "-q", new, "--",
            f":(literal){SEGMENT}", ":(literal)haystack/w"]  # fmt: skip

    killed_move_shell(root, (old, new), "", sys.executable, then, env=clean_env())

    assert (root / SEGMENT).read_bytes() == after
    changed = "" if after == b"new\n" else f" M {SEGMENT}"
    assert git(root, "status", "--porcelain", "-uall") == changed.strip()


# a `git` first on PATH: the first `hash-object --stdin-paths` (the redo's look at the bytes
# there) answers, then the person's edit is saved into the segment, as in that instant
SAVING_GIT = """#!/bin/sh
case " $* " in *" hash-object "*"--stdin-paths "*)
  [ -e "$SAVED" ] || { out=$("$REAL_GIT" "$@"); s=$?; : >"$SAVED"
    printf 'the person saves\\n' >>"$SEGMENT_FILE"; printf '%s\\n' "$out"; exit $s; };;
esac
exec "$REAL_GIT" "$@"
"""


def test_the_shell_s_redo_keeps_an_edit_saved_once_it_looked_at_the_old_bytes(
    tmp_path: Path,
) -> None:
    """The old bytes looked at (hashed) at the path, then an edit saved there before the new
    bytes went over them: it was overwritten (`checkout-index -f`). The file is moved aside and
    judged there: the edit goes back to its path, an unstaged change."""
    import shutil

    root = tmp_path / "m"
    old, new = _blanked(root, {})
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "git").write_text(SAVING_GIT)
    (tmp_path / "bin" / "git").chmod(0o755)
    env = clean_env(
        PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}", REAL_GIT=str(shutil.which("git")),
        SAVED=str(tmp_path / "saved"), SEGMENT_FILE=str(root / SEGMENT),
    )  # fmt: skip
    then = ["-c", "core.hooksPath=/dev/null", "checkout", "-q", new, "--", f":(literal){SEGMENT}"]

    killed_move_shell(root, (old, new), "", sys.executable, then, env=env)

    assert (tmp_path / "saved").exists()  # the edit was saved in that instant
    assert (root / SEGMENT).read_bytes() == b"old\nthe person saves\n"  # was: b"new\n"
    assert git(root, "status", "--porcelain", "-uall") == f"M {SEGMENT}"
    assert sorted(p.name for p in (root / SEGMENT).parent.iterdir()) == ["a.krd"]

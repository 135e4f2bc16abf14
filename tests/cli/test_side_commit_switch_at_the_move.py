"""A note pending for `side`, committed there while HEAD names main (memidx.git.side_commit):
a person's `git switch side` between memidx's look at side and its move of side checked side
out from its old tip, and memidx then moved side under that work tree, whose index lacked the
note; the person's next commit there (`git commit -a`, made before memidx looked again and
moved side back) deleted the note (wt-straddle's switch loop, hooks off: 14 such in 2,327
loops). The move of side is now one `update-ref --stdin` transaction that locks HEAD too and
is committed only while no work tree has side checked out and no switch runs
(memidx.git.branch_move.move_branch, as a purge's)."""

from __future__ import annotations

from pathlib import Path

from memidx.config import load_config
from memidx.memory.pending_notes import keep
from tests.git_shims import shim_env
from tests.helpers import started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
# a `git` first on PATH: at memidx's first update-ref, the person switches to side first, and
# commits there right after it (hooks off: nothing of memidx's runs in between)
SWITCHING_GIT = """#!/bin/sh
case " $* " in *" update-ref "*) ;; *) exec "$REAL_GIT" "$@" ;; esac
if [ ! -e "$MARK" ]; then
  echo "$*" > "$MARK"
  "$REAL_GIT" -c core.hooksPath=/dev/null switch -q side >>"$MARK" 2>&1 </dev/null
  "$REAL_GIT" "$@"
  moved=$?
  "$REAL_GIT" -c core.hooksPath=/dev/null -c user.name=p -c user.email=p@p.invalid \\
    commit -q --allow-empty -m "the person's work on side" >>"$MARK" 2>&1 </dev/null
  exit $moved
fi
exec "$REAL_GIT" "$@"
"""


def test_a_switch_between_the_look_and_the_move_of_side_deletes_no_note(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("switch", "-q", "-c", "side")
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/side")
    repo.git("switch", "-q", "main")  # the note, untracked, stays in the work tree
    shimmed = shim_env(tmp_path / "bin", SWITCHING_GIT)
    mark = tmp_path / "switched"

    synced = repo.memidx_process("sync", **shimmed, MARK=str(mark))

    assert mark.exists(), synced.err
    assert "fatal" not in mark.read_text(), mark.read_text()
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    assert "Traceback" not in synced.err, synced.err
    on_side = repo.git("ls-tree", "-r", "--name-only", "side")
    pending = [n["path"] for n in repo.memidx("status", "--json").json()["pending_notes"]]
    log = repo.git("log", "--format=%s", "--name-status", "side")
    # it was: memidx's commit of the note on side, then the person's commit deleting it
    assert repo.git("log", "--diff-filter=D", "--format=%s", "side", "--", REF) == "", log
    assert REF in on_side or pending == [REF], log
    assert (repo.root / REF).read_text() == TEXT

"""The take-out (memidx/git/index_edit.py) moves a note's file aside before it reads it. A shell
killed between that move and its end left the file aside as `notes/.memidx-taken-out-<pid>`,
named by nothing (`memidx status` silent) and taken by the person's `git add -A`. It is now
`notes/.<name>.memidx-<pid>`, as memidx's other asides, which `memidx status` names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.index_edit import take_out_entry
from tests.helpers import started_memory

TEXT = "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
# a `git` first on PATH: the take-out's compare (hash-object) kills the shell's whole session
KILLING_GIT = """#!/bin/sh
case " $* " in *" hash-object "*) kill -9 0 ;; esac
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(SHELL is None, reason="the take-out's shell is POSIX only")
def test_a_file_a_killed_take_out_left_aside_is_named_by_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    repo.write(REF, TEXT)
    repo.commit("disk")
    blob = repo.git("rev-parse", f"HEAD:{REF}").strip()
    repo.git("switch", "-q", "side")
    repo.write(REF, TEXT)  # as a switch took it along: untracked on side, byte for byte
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(KILLING_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git")
    assert real is not None
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("PATH", f"{shim}:{Path(real).parent}:/usr/bin:/bin")
    git_dir = repo.root / ".git"

    killed = take_out_entry(repo.root, git_dir, REF, blob)

    monkeypatch.undo()
    assert killed != 0
    (git_dir / "index.lock").unlink(missing_ok=True)  # left as a killed git leaves its own
    left = sorted(p.name for p in (repo.root / "notes").iterdir() if "memidx" in p.name)
    assert len(left) == 1 and (repo.root / "notes" / left[0]).read_text() == TEXT, left
    status = repo.memidx("status", "--json").json()
    assert status["moved_aside"] == [f"notes/{left[0]}"], left

"""The haystack's .gitattributes is committed with this clone's first segments, and never
sits untracked in the work tree meanwhile: a person's `git pull --rebase` that ran while
memidx waited to commit (for that pull, say) and brought another clone's copy failed
("untracked working tree files would be overwritten by checkout")."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.haystack.segment_commit import commit_haystack
from memidx.haystack.writer import GITATTRIBUTES
from tests.helpers import NotesRepo, clean_env
from tests.machines import Machine, clone, hook_env, make_template

ATTRIBUTES = "notes/haystack/.gitattributes"


def file_text(where: Machine, text: str) -> None:
    run = where.memidx_process("file-turn", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err


def test_a_pull_while_memidx_waits_to_commit_its_first_segment_is_not_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = hook_env(tmp_path / "pch")
    remote = make_template(tmp_path, env)
    a, b = clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)
    file_text(b, "a turn filed on machine b")
    assert b.memidx_process("haystack", "commit").code == 0
    b.git("push", "-q", "origin", "main")
    file_text(a, "a turn filed on machine a")
    pulls: list[str] = []
    commit_paths = commit_module.commit_paths

    def the_person_pulls_first(config: Any, paths: Sequence[str], subject: str, **kw: Any) -> str:
        pulled = a.run_git("pull", "-q", "--rebase")  # while memidx waits for the clone
        pulls.append(f"{pulled.returncode} {pulled.stdout}{pulled.stderr}")
        return commit_paths(config, paths, subject, **kw)

    monkeypatch.setattr(commit_module, "commit_paths", the_person_pulls_first)
    commit_haystack(load_config(a.root, env={}))

    assert len(pulls) == 1 and pulls[0].startswith("0 "), pulls
    assert ATTRIBUTES in a.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert (a.root / ATTRIBUTES).read_text() == GITATTRIBUTES
    assert a.git("status", "--porcelain", "--untracked-files=all", "--", "notes").strip() == ""


def test_a_first_segment_commit_writes_the_attributes_it_committed(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pch")
    a = clone(make_template(tmp_path, env), tmp_path / "a", env)
    file_text(a, "a turn")

    assert a.memidx_process("haystack", "commit").code == 0

    assert a.git("show", f"HEAD:{ATTRIBUTES}") == GITATTRIBUTES
    assert (a.root / ATTRIBUTES).read_text() == GITATTRIBUTES
    assert a.git("status", "--porcelain", "--untracked-files=all", "--", "notes").strip() == ""


def test_segments_committed_with_attributes_from_memory_keep_their_bytes(tmp_path: Path) -> None:
    """A frame's length can hold the bytes \\r\\n; a person's attributes file forcing `* text`
    made git normalize them when the segments were read before the .gitattributes (`*.krd
    binary`) committed from memory was in the index: the blob and, after the checkout that
    follows the move, the file on disk lost a byte of their framing."""
    repo = NotesRepo(tmp_path / "repo")
    forced = tmp_path / "attributes"
    forced.write_text("* text\n")
    repo.git("config", "core.attributesFile", str(forced))
    segment = repo.root / "notes/haystack/w1/2026-12-06-0001.krd"
    segment.parent.mkdir(parents=True)
    data = b"KRD1\r\n\x00\x00" + b"{}" * 8
    segment.write_bytes(data)
    refs = [ATTRIBUTES, "notes/haystack/w1"]

    commit_module.commit_paths(
        load_config(repo.root, env={}), refs, "haystack: segments of w1 (1 file)",
        written={ATTRIBUTES: GITATTRIBUTES.encode()},
    )  # fmt: skip

    blob = "HEAD:notes/haystack/w1/2026-12-06-0001.krd"
    argv = ["git", "cat-file", "blob", blob]
    committed = subprocess.run(
        argv, cwd=repo.root, env=clean_env(), capture_output=True, check=True
    ).stdout
    assert committed == data
    assert segment.read_bytes() == data


@pytest.mark.parametrize("committed", [True, False], ids=["deletion-committed", "only-on-disk"])
def test_attributes_gone_with_every_segment_committed_come_back_at_the_next_commit(
    tmp_path: Path, committed: bool
) -> None:
    """Deleted (and the deletion committed, or not), while every segment was committed: `memidx
    haystack commit` said "nothing to commit in the haystack", and segments stayed without
    their attributes until the next new segment's commit brought them back."""
    env = hook_env(tmp_path / "pch")
    a = clone(make_template(tmp_path, env), tmp_path / "a", env)
    file_text(a, "a turn filed on machine a")
    assert a.memidx_process("haystack", "commit").code == 0
    if committed:
        a.git("rm", "-q", ATTRIBUTES)
        a.git("commit", "-q", "--no-verify", "-m", "the attributes removed")
    else:
        (a.root / ATTRIBUTES).unlink()

    run = a.memidx_process("haystack", "commit")

    assert run.code == 0, run.err
    assert a.git("show", f"HEAD:{ATTRIBUTES}") == GITATTRIBUTES
    assert (a.root / ATTRIBUTES).read_text() == GITATTRIBUTES
    assert a.git("status", "--porcelain", "--untracked-files=all", "--", "notes").strip() == ""

"""A person's `git pull` whose merge starts in the instant a purge moves HEAD (right after
memidx's last look for a committing git): the merge reads git's index from before the purge,
with the forgotten bytes staged at the segment's path, and writes it back after the purge told
the index about the blanked segment. The forgotten bytes must not stay staged for the
person's next commit (tests/cli/test_late_merge.py holds the merge the same way)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.git import late
from memidx.git import publish as publish_module
from memidx.git.late import StillUnderWay
from memidx.git.publish import started
from memidx.git.rewrite import rewrite_unpushed
from tests.cli.test_forget import clones
from tests.cli.test_late_merge import LatePull, the_person_commits, wait_for

SEGMENT = "notes/haystack/w1/2026-12-06-0001.krd"


def blank_file(segment: Path) -> None:
    segment.write_bytes(b"[forgotten]\n")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_merge_that_starts_as_a_purge_moves_head_never_stages_the_forgotten_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")
    segment = one.root / SEGMENT
    segment.parent.mkdir(parents=True)
    segment.write_bytes(b"a secret the agent saw\n")
    one.commit("haystack: segments of w1 (1 file)")
    secret = one.git("rev-parse", f"HEAD:{SEGMENT}").strip()
    (tmp_path / "blank").write_bytes(b"[forgotten]\n")
    blank = one.git("hash-object", "-w", str(tmp_path / "blank")).strip()
    pull = LatePull(tmp_path, one)

    def staged() -> str:
        return one.git("ls-files", "-s", "--", SEGMENT, check=False)

    def release_once_the_index_holds_the_blank() -> None:
        wait_for(
            "the blanked segment in the index", lambda: pull.held.exists() and blank in staged()
        )
        pull.go.touch()

    monkeypatch.setattr(publish_module, "arrived", pull.look)
    releaser = threading.Thread(target=release_once_the_index_holds_the_blank, daemon=True)
    releaser.start()
    try:
        rewrite_unpushed(
            load_config(one.root, env={}), ["notes/haystack"], {(SEGMENT, secret): blank},
            [SEGMENT], lambda: blank_file(segment),
        )  # fmt: skip
        _, err = pull.pulls[0].communicate(timeout=60)
    finally:
        pull.stop()
        releaser.join(timeout=30)
    # the merge read the index before the purge and failed: at HEAD's lock ("cannot lock ref
    # 'HEAD'") or, once memidx waits for it, at the `git stash create` it runs first
    assert pull.pulls[0].returncode != 0, err
    assert b"cannot lock ref 'HEAD'" in err or b"stash failed" in err, err

    assert secret not in staged()
    the_person_commits(one)
    assert one.git("rev-parse", f"HEAD:{SEGMENT}").strip() == blank


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_late_git_that_outlasts_a_purge_is_said_in_the_purges_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge that started as the purge moved HEAD and outlasted its wait: the purge said
    "memidx's commit of <segment> ... is not counted as committed yet ... committed again once
    that git ends", and stopped before it told git's index about the blanked segment, which
    the merge had written back with the forgotten bytes staged, for the person's next commit."""
    one, _ = clones(tmp_path)
    segment = one.root / SEGMENT
    segment.parent.mkdir(parents=True)
    segment.write_bytes(b"a secret the agent saw\n")
    before = one.commit("haystack: segments of w1 (1 file)")
    secret = one.git("rev-parse", f"HEAD:{SEGMENT}").strip()
    (tmp_path / "blank").write_bytes(b"[forgotten]\n")
    blank = one.git("hash-object", "-w", str(tmp_path / "blank")).strip()
    monkeypatch.setattr(late, "LATE_FLOOR", 0.3)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    real_committers = publish_module.committers

    with subprocess.Popen(["sleep", "30"]) as merge:  # stands for a person's `git merge`

        def a_merge_at_the_move(root: Path, *args: frozenset[str]) -> dict[str, str]:
            if one.git("rev-parse", "HEAD").strip() == before:  # the looks before the move
                return real_committers(root, *args)
            one.git("update-index", "--cacheinfo", f"100644,{secret},{SEGMENT}")  # its index
            return {str(merge.pid): f"merge {started(str(merge.pid))}"}

        monkeypatch.setattr(publish_module, "committers", a_merge_at_the_move)
        try:
            with pytest.raises(StillUnderWay) as raised:
                rewrite_unpushed(
                    load_config(one.root, env={}), ["notes/haystack"], {(SEGMENT, secret): blank},
                    [SEGMENT], lambda: blank_file(segment),
                )  # fmt: skip
        finally:
            merge.kill()

    said = str(raised.value)
    assert "a git merge of this clone that started with the purge's rewrite of HEAD" in said
    assert "memidx's commit" not in said and "committed" not in said, said
    assert "run `memidx haystack purge` again once that git ends" in said, said
    assert one.git("ls-files", "-s", "--", SEGMENT).split()[1] == blank  # not the secret
    assert one.git("rev-parse", f"HEAD:{SEGMENT}").strip() == blank

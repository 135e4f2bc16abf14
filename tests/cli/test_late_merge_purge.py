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
from memidx.git import publish as publish_module
from memidx.git.rewrite import rewrite_unpushed
from tests.cli.test_forget import clones
from tests.cli.test_late_merge import HOLD, the_person_commits, wait_for
from tests.helpers import GIT_IDENTITY, clean_env

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
    held, go = tmp_path / "held", tmp_path / "go"
    hook = tmp_path / "hold.sh"
    hook.write_text(HOLD.format(held=held, go=go))
    hook.chmod(0o755)
    pulls: list[subprocess.Popen[bytes]] = []
    looks = 0
    real = publish_module.committing

    def the_pull_starts_after_the_look(root: Path) -> bool:
        nonlocal looks
        looks += 1
        if looks != 2:  # the second look is the one under HEAD's lock
            return real(root)
        config = ("-c", f"core.fsmonitor={hook}")
        argv = ["git", *GIT_IDENTITY, *config, "pull", "-q", "--no-rebase", "--no-edit"]
        pipe = subprocess.PIPE
        person = subprocess.Popen(argv, cwd=one.root, env=clean_env(), stdout=pipe, stderr=pipe)
        pulls.append(person)
        wait_for("the merge to read the index", held.exists)
        return False  # it started an instant after the look

    def staged() -> str:
        return one.git("ls-files", "-s", "--", SEGMENT, check=False)

    def release_once_the_index_holds_the_blank() -> None:
        wait_for("the blanked segment in the index", lambda: held.exists() and blank in staged())
        go.touch()

    monkeypatch.setattr(publish_module, "committing", the_pull_starts_after_the_look)
    releaser = threading.Thread(target=release_once_the_index_holds_the_blank, daemon=True)
    releaser.start()
    try:
        rewrite_unpushed(
            load_config(one.root, env={}), ["notes/haystack"], {(SEGMENT, secret): blank},
            [SEGMENT], lambda: blank_file(segment),
        )  # fmt: skip
        _, err = pulls[0].communicate(timeout=60)
    finally:
        go.touch()
        for pull in pulls:
            if pull.poll() is None:
                pull.kill()
                pull.wait()
        releaser.join(timeout=30)
    # the merge read the index before the purge and failed: at HEAD's lock ("cannot lock ref
    # 'HEAD'") or, once memidx waits for it, at the `git stash create` it runs first
    assert pulls[0].returncode != 0, err
    assert b"cannot lock ref 'HEAD'" in err or b"stash failed" in err, err

    assert secret not in staged()
    the_person_commits(one)
    assert one.git("rev-parse", f"HEAD:{SEGMENT}").strip() == blank

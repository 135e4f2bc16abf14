"""share merges what its own fetch brought (`refs/memidx/fetched/<branch>`), not `origin/<branch>`
as a person's long `git fetch` holds it (tests/cli/test_share_persons_long_fetch.py). Two parts
of share still read the person's stale ref: the look for twin notes (memidx.memory.twins), which
then found none and left the add/add conflict to the merge ("a person must resolve it"), and
git's own `git merge` where a setting of the person's hands the merge to it
(branch.<name>.mergeOptions), which merged the stale ref ("Already up to date"): each push was
refused until share gave up. Both now read share's own ref.

The person's fetch is held before its pack (a `git` on its exec path), as in that test."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory import share as share_module
from memidx.memory.share import Shared, share
from tests.cli.test_forget import clones
from tests.cli.test_share_fetch_race import wait_for
from tests.cli.test_share_persons_long_fetch import held
from tests.helpers import clean_env
from tests.memories import REMEMBERED

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="gits seen in /proc")


def _share_beside(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> Shared | BaseException:
    """share in `root` while a person's `git fetch` there is held, then let go once share
    waits for it before its push (or ended): share's outcome."""
    monkeypatch.setattr(share_module, "ATTEMPTS", 3)  # was: 40 tries over 300 s, then failed
    waiting = threading.Event()
    real = share_module._no_fetch_under_the_push  # pyright: ignore[reportPrivateUsage]

    def at_the_push(*args: object) -> None:
        waiting.set()  # share merged: the person's fetch may end now
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(share_module, "_no_fetch_under_the_push", at_the_push)
    outcome: list[Shared | BaseException] = []

    def run_share() -> None:
        try:
            outcome.append(share(load_config(root, env={}), sleep=lambda _: None))
        except BaseException as exc:  # noqa: BLE001 (said by the assertions)
            outcome.append(exc)
        waiting.set()

    with held(tmp_path, root, ["fetch", "-q", "origin"]):
        sharing = threading.Thread(target=run_share)
        sharing.start()
        assert waiting.wait(timeout=120), "share neither merged nor ended"
    sharing.join(timeout=120)
    return outcome[0]


def test_twin_notes_are_parted_against_what_share_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: "git merge stopped on a merge conflict ... a person must resolve it", the twin
    looked for in origin/main as the person's held fetch left it (without the remote's note)."""
    one, two = clones(tmp_path)
    one.write("notes/build-cache.md", REMEMBERED.format("alpha cache layers"))
    one.commit("memidx remember: Build cache")
    one.git("push", "-q", "origin", "main")
    two.write("notes/build-cache.md", REMEMBERED.format("bravo cache layers"))
    two.commit("memidx remember: Build cache")

    shared = _share_beside(tmp_path, two.root, monkeypatch)

    assert isinstance(shared, Shared) and shared.pushed, shared
    assert [move.ref for move in shared.renamed] == ["notes/build-cache-2.md"], shared
    names = two.git("ls-tree", "-r", "--name-only", "origin/main", "--", "notes/").split()
    assert {"notes/build-cache.md", "notes/build-cache-2.md"} <= set(names), names


def test_git_s_own_merge_merges_what_share_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """branch.main.mergeOptions hands the merge to `git merge`, which merged `@{upstream}`:
    the person's stale origin/main, "Already up to date", and every push was refused."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    two.git("config", "branch.main.mergeOptions", "--no-ff")

    shared = _share_beside(tmp_path, two.root, monkeypatch)

    assert isinstance(shared, Shared) and shared.pushed and shared.attempts == 1, shared
    names = two.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert {"notes/theirs.md", "notes/ours.md"} <= set(names), names
    subject = two.git("log", "-1", "--format=%s", "HEAD").strip()
    assert subject == "Merge remote-tracking branch 'origin/main'", subject  # not share's ref


HOLDING_HOOK = """#!/bin/sh
[ -n "${HOLD_PUSH:-}" ] || exit 0
: > "$HOLD_PUSH.in"
while [ ! -e "$HOLD_PUSH.go" ]; do sleep 0.05; done
"""


def test_share_pushes_beside_a_persons_push_it_cannot_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a fetch reads origin/<branch> before it writes it (and fails when it moved): a
    person's `git push` (its pre-push hook running the tests, a credential prompt) does not.
    share's push waited for it all the same, to its deadline (300 s), then stopped, nothing
    pushed: "a git fetch, pull or push of yours in this clone ran all the while"."""
    one, two = clones(tmp_path)
    two.git("switch", "-q", "-c", "feature")
    two.note("feature.md", "Feature", "a note of the person's branch about load balancers")
    two.commit("the person's branch")
    two.git("switch", "-q", "main")
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    hook = two.root / ".git" / "hooks" / "pre-push"
    hook.write_text(HOLDING_HOOK)
    hook.chmod(0o755)
    hold = tmp_path / "hold"
    monkeypatch.setattr(share_module, "DEADLINE", 4.0)  # share's 300 s, shortened
    person = subprocess.Popen(  # the person's push of their branch, held in its hook
        ["git", "push", "-q", "origin", "feature"], cwd=two.root,
        env=clean_env(HOLD_PUSH=str(hold)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert wait_for(None, Path(f"{hold}.in")), "the person's push never reached its hook"
        shared = share(load_config(two.root, env={}), sleep=lambda _: None)
        still = person.poll() is None
    finally:
        Path(f"{hold}.go").touch()
        person.communicate(timeout=120)

    assert shared.pushed and shared.attempts == 1, shared  # was: GitError at the deadline
    assert still  # pushed while the person's push ran
    assert person.returncode == 0  # theirs went through all the same
    assert (
        one.git("ls-remote", "origin", "refs/heads/main").split()[0]
        == two.git("rev-parse", "main").strip()
    )

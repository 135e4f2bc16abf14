"""share's first fetch waited up to 10 s (share_fetch.WAIT) for any `git push` or `git pull`
of the person's before it brought `origin/<branch>` along to what it fetched: a push whose
pre-push hook ran the tests held every share 10 s, though nothing of the move could fail it
(a push writes its remote-tracking ref unchecked, and a pull's fetch is a `git fetch` of its
own, looked for as such). The move waits for none now: it is made when no git that reads the
ref before it writes it (`git fetch`, `git remote`) runs, else left to that git, at one look.

The person's push is held, deterministically, in its pre-push hook until share has ended."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory import share_fetch
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.cli.test_share_fetch_race import wait_for
from tests.helpers import clean_env

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="gits seen in /proc")

# a pre-push hook that holds the person's push (PAUSE_AT set) until the test lets it go;
# share's own push (no PAUSE_AT) goes through at once
HOOK = """#!/bin/sh
[ -n "$PAUSE_AT" ] || exit 0
touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.go" ]; do sleep 0.02; done
"""


def test_share_waits_not_for_a_persons_push_held_in_its_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    two.git("branch", "side")
    hook = two.root / ".git" / "hooks" / "pre-push"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    waits: list[float] = []
    real = share_fetch.no_fetch_of_theirs

    def timed(config: Config, until: float, *args: frozenset[str]) -> bool:
        started = time.monotonic()
        answer = real(config, until, *args)
        waits.append(time.monotonic() - started)
        return answer

    monkeypatch.setattr(share_fetch, "no_fetch_of_theirs", timed)
    pause = tmp_path / "pause"
    env = clean_env(PAUSE_AT=str(pause))
    argv = ["git", "push", "-q", "origin", "side"]
    person = subprocess.Popen(argv, cwd=two.root, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert wait_for(None, Path(f"{pause}.in")), "the person's push never ran its hook"
        shared = share(load_config(two.root, env={}), sleep=lambda _: None)
    finally:
        Path(f"{pause}.go").touch()
        _, err = person.communicate(timeout=120)

    assert shared.pushed and shared.attempts == 1, shared
    assert waits and max(waits) < 2.0, waits  # was: 10 s, the whole wait, for the push
    assert person.returncode == 0, err
    remote = two.git("ls-remote", "origin", "refs/heads/main").split()[0]
    assert two.git("rev-parse", "HEAD").strip() == remote
    assert two.git("rev-parse", "origin/main").strip() == remote  # ahead/behind is true
    assert "notes/theirs.md" in two.git("ls-tree", "-r", "--name-only", "HEAD")

"""The PreCompact hook that writes a transcript's copy keeps its cuts at once and as each part is
filed (memidx.agents.copy_cuts.cuts_written): a hook killed (SIGKILL at its deadline) at any
point of that, the cuts' draft half written, kept before a part or after it, a part filed
before its cuts say so, leaves the session's next event to file each part exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents import actions, capture
from memidx.agents.archive_left import copies_left
from memidx.agents.session import Where
from memidx.config import load_config
from tests.cli.test_agent_hooks import memory
from tests.cli.test_precompact_cut_off import archived
from tests.helpers import clean_env

WHERE = Where("claude-code", "s-killed", "/tmp/proj")
TEXT = "".join(f"line {n} of the quillwort session\n" for n in range(40))
LIMIT = 200  # bytes a part: 7 parts

# archive_transcript, killed at the `nth` call of `what` (before or after it ran)
KILLED = r"""
import os, signal, sys
from pathlib import Path

from memidx.agents import actions, capture, copy_cuts
from memidx.agents.session import Where
from memidx.config import load_config

root, what, nth, when, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
capture.ARCHIVE_PART_BYTES = int(sys.argv[6])
owner = copy_cuts if what == "replace_durably" else capture
real, calls = getattr(owner, what), [0]


def killing(*args, **kwargs):
    calls[0] += 1
    if calls[0] == nth and when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    if calls[0] == nth and when == "torn":  # the cuts' draft half written
        path = args[0]
        draft = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        draft.write_bytes(args[1][: len(args[1]) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    done = real(*args, **kwargs)
    if calls[0] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    return done


setattr(owner, what, killing)
where = Where("claude-code", "s-killed", "/tmp/proj")
actions.archive_transcript(load_config(Path(root)), where, text)
"""


@pytest.mark.parametrize(
    ("what", "nth", "when"),
    [
        ("replace_durably", 1, "torn"),  # the cuts found, their draft half written
        ("replace_durably", 1, "after"),  # the cuts kept, no part filed
        ("replace_durably", 3, "before"),  # two parts filed, the second not said in the cuts
        ("replace_durably", 3, "after"),  # two parts filed and said
        ("file", 4, "before"),
        ("file", 4, "after"),  # the fourth part filed, neither the state nor the cuts say so
    ],
)
def test_a_precompact_killed_anywhere_in_its_cuts_leaves_each_part_filed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str, nth: int, when: str
) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    expected = capture.transcript_parts(TEXT, LIMIT)
    assert len(expected) == 7
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(repo.root), what, str(nth), when, TEXT, str(LIMIT)],
        env=clean_env(MEMIDX_HOOK_EMBED="0"), capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == -9, done.stderr
    assert copies_left(config)  # the copy waits for the session's next event
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", LIMIT)

    actions.finish_archive(config, WHERE)

    assert copies_left(config) == {}
    assert not [p for p in config.state_dir.rglob("*") if ".archive" in p.name]  # nor its cuts
    tags = sorted(str(h["tags"]) for h in archived(repo, "quillwort"))
    assert tags == sorted(f"['claude-code', 'part-{n}-of-7']" for n in range(1, 8))

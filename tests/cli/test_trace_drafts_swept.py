"""A `.trim` draft a killed trim left beside a trace no sync clears (an agent hook's, a late
pull's: memidx.index.trace_trim), that trace gone since (removed by hand, a pull's by `memidx
status`): no line comes to sweep it, and only the git hooks' traces' drafts were swept at a
sync's end, so it stayed for good (up to half of MAX_TRACE each)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.index.trace_trim import LEFT_AGE, draft_of
from memidx.memory.head_sync import sync_to_head
from tests.helpers import started_memory


@pytest.mark.parametrize("by", ["memidx sync", "a git hook's sync"])
def test_a_left_draft_of_an_agent_or_pull_trace_goes_with_a_sync(tmp_path: Path, by: str) -> None:
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    drafts = [draft_of(config.agent_hook_error_path), draft_of(config.pull_error_path)]
    when = time.time() - LEFT_AGE - 60  # no live trim's
    for draft in drafts:
        draft.write_text("2026-01-01T00:00:00+00:00\tcodex Stop\tkept\n" * 1000)
        os.utime(draft, (when, when))

    if by == "memidx sync":
        assert repo.memidx("sync").code == 0
    else:
        sync_to_head(config, once=True)

    assert [draft.name for draft in drafts if draft.exists()] == []

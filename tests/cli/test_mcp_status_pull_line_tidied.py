"""The MCP server's status look runs on its one reading thread, which every search, get and
recent waits for, and changes nothing (memidx.mcp.answers.look): a late pull's trace all done
with (memidx.memory.pull_line) was removed there, under the trace's lock, which it waited
for (1 s at most) while a hook held it. The look leaves it, not shown; the server's settle,
on its writing thread, removes it, as `memidx status` does."""

from __future__ import annotations

from pathlib import Path

from memidx.config import load_config
from memidx.mcp import answers
from tests.cli.test_forget import clones

DONE = (  # a pull into main of origin/main, which main holds, long ended (no such pid)
    "2026-01-01T00:01:00+00:00\tgit pull\ta late pull's line\t"
    "refs/heads/main refs/remotes/origin/main 4000000:1 -\n"  # no commit before: new
)


def test_the_look_leaves_a_pull_trace_done_with_and_the_settle_removes_it(
    tmp_path: Path,
) -> None:
    one, _ = clones(tmp_path)
    assert one.memidx("ingest").code == 0
    config = load_config(one.root, env={})
    config.pull_error_path.write_text(DONE, encoding="utf-8")

    seen = answers.look(config)

    assert seen["pull_failure"] is None, "done with: not shown"
    assert config.pull_error_path.exists(), "the look changed nothing"

    answers.settle(config)

    assert not config.pull_error_path.exists()

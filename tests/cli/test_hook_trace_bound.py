"""An agent's hooks firing all day grew `.memidx/agent-hook-error.log` for good (each late
notice ~110 bytes): past 1 MiB a hook's line keeps the newest half (memidx.index.trace_trim's
MAX_TRACE), and `memidx status` still shows the latest failure."""

from __future__ import annotations

from pathlib import Path

from memidx.index.trace_trim import MAX_TRACE
from tests.cli.test_agent_hooks import memory

NOTICE = "2026-01-01T00:00:00+00:00\tclaude-code Stop\tnotice: answered 2.6 s after it began, {}\n"


def test_a_hook_tracing_past_1_mib_keeps_the_newest_half_and_status_shows_its_failure(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    trace = repo.root / ".memidx" / "agent-hook-error.log"
    trace.write_text("".join(NOTICE.format(n) for n in range(MAX_TRACE // 80)), encoding="utf-8")

    done = repo.memidx_process("-C", str(repo.root), "agent", "hook", "no-such-agent", "Stop")

    assert (done.code, done.out, done.err) == (0, "", "")
    assert MAX_TRACE // 2 - 200 < trace.stat().st_size <= MAX_TRACE // 2 + 200
    last = trace.read_text(encoding="utf-8").splitlines()[-1]
    assert last.endswith("\tno-such-agent Stop\tunknown agent or event: 'no-such-agent'"), last
    shown = repo.memidx("status").out
    assert "agent hook" in shown and "unknown agent or event: 'no-such-agent'" in shown, shown


def test_status_shows_a_failure_more_than_64_kib_of_notices_ago(tmp_path: Path) -> None:
    """Status read the trace's last 64 KiB only: ~600 late notices after a failure (a loaded
    machine's agent hooks) and it said no agent hook had failed."""
    repo = memory(tmp_path)
    trace = repo.root / ".memidx" / "agent-hook-error.log"
    failed = "2026-01-01T00:00:00+00:00\tcodex Stop\tOSError: [Errno 28] No space left on device\n"
    trace.write_text(failed + "".join(NOTICE.format(n) for n in range(1000)), encoding="utf-8")
    assert trace.stat().st_size > 64 * 1024

    shown = repo.memidx("status").out

    assert "agent hook" in shown and "No space left on device" in shown, shown

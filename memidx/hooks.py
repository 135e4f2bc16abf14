"""What the git hooks run. A post-* hook never fails the git operation, but always says when it
could not do its job and leaves a trace for `memidx status` and the pre-commit check."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.trace import clear_failures, record_failure


def run_hook(directory: Path | None, action: str, rest: Sequence[str]) -> int:
    """Dispatch a hook action; returns the exit code git (through pre-commit) sees."""
    stage = rest[0] if rest else action
    if action == "sync":
        return _sync(directory, stage)
    print(f"memidx: hook: unknown action {action!r} (expected: sync)", file=sys.stderr)
    return 2


def _sync(directory: Path | None, stage: str) -> int:
    state_dir = (directory or Path.cwd()) / ".memidx"
    try:
        config = load_config(directory)
        state_dir = config.state_dir
        message = sync_to_head(config)
    except MemidxError as exc:
        return _failed(state_dir, stage, str(exc))
    except Exception as exc:  # noqa: BLE001 - a post-* hook must never fail the git operation
        return _failed(state_dir, stage, f"{type(exc).__name__}: {exc}")
    if message:
        print(f"memidx: {message}")
    return 0


def sync_to_head(config: Config) -> str:
    """Bring the index to HEAD; returns a one-line summary ("" when nothing changed)."""
    from memidx.output import skip_line
    from memidx.store import open_store
    from memidx.sync import note_source, reconcile

    store, notice = open_store(config.index_path, write=True)
    try:
        report = reconcile(config, store, note_source(config), fix=True)
    finally:
        store.conn.close()
    clear_failures(config.hook_error_path)
    for skip in report.skipped:
        print(skip_line(skip))
    lines = [f"notice: {notice}"] if notice else []
    if report.changed:
        lines.append(
            f"index follows {report.source}: {report.written} written, {report.deleted} removed, "
            f"{report.renamed} renamed"
        )
    return "\n".join(lines)


def _failed(state_dir: Path, stage: str, reason: str) -> int:
    message = f"could not update the index: {reason}"
    print(f"memidx: {stage}: {message} (run `make reconcile`)")
    record_failure(state_dir / "hook-error.log", stage, message)
    return 0

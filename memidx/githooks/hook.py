"""What the git hooks run. A post-* hook never fails the git operation, but always says when it
could not do its job and leaves a trace for `memidx status` and the pre-commit check."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memidx.config import Config, load_config
from memidx.errors import VECTOR_MODULES, MemidxError
from memidx.index.failures import clear_failures, record_failure
from memidx.index.ownership import keep_out_of_git

STAGES = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


def stage_from_environment() -> str:
    """The post-* stage pre-commit is running, told by the variables it sets for each (one
    pre-commit hook serves the four; as hooks/memidx-hook does for memidx's own repository)."""
    if os.environ.get("PRE_COMMIT_REWRITE_COMMAND"):
        return "post-rewrite"
    if os.environ.get("PRE_COMMIT_CHECKOUT_TYPE"):
        return "post-checkout"
    if os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE"):
        return "post-merge"
    return "post-commit"


def run_hook(directory: Path | None, stage: str) -> int:
    """Bring the index to HEAD after a git operation; always returns 0."""
    state_dir = (directory or Path.cwd()) / ".memidx"
    try:
        config = load_config(directory)
        state_dir = config.state_dir
        for line in sync_to_head(config):
            print(f"memidx: {line}")
    except MemidxError as exc:
        return _failed(state_dir, stage, str(exc))
    except Exception as exc:  # noqa: BLE001 - a post-* hook must never fail the git operation
        return _failed(state_dir, stage, f"{type(exc).__name__}: {exc}")
    return 0


def sync_to_head(config: Config) -> list[str]:
    """Sync the index and start embedding in the background; returns lines to print."""
    from memidx.haystack.segments import RECORD_READER, RECORD_READER_KEY, segments_changed
    from memidx.index.open import mark_index_built, writable_index
    from memidx.index.store import RecordStore
    from memidx.index.sync import sync
    from memidx.text import display

    keep_out_of_git(config.state_dir)
    notices: list[str] = []
    store = writable_index(config, notices.append)  # no fill: sync reconciles a new index
    try:
        report = sync(config, store)
        records = None
        indexed = RecordStore(store.conn).segments()
        outdated = store.get_state(RECORD_READER_KEY) != RECORD_READER  # records read again
        if outdated or segments_changed(config.root, config.notes_path / "haystack", indexed):
            from memidx.haystack.indexing import (
                sync_records,  # the log reader, only when logs changed
            )

            records = sync_records(config, store)
        mark_index_built(config, store)  # every note and every changed segment is in
    finally:
        store.conn.close()
    clear_failures(config.hook_error_path)
    lines = [f"notice: {notice}" for notice in notices]
    lines += [f"warning: {display(s.source_ref)}: skipped: {s.reason}" for s in report.skipped]
    if report.changed:
        lines.append(
            f"index follows {report.source}: {report.written} written, {report.deleted} removed, "
            f"{report.renamed} renamed"
        )
    if records is not None and (records.indexed or records.deleted):
        lines.append(f"records: {records.indexed} indexed, {records.deleted} removed")
    if records is not None:
        lines += records.warnings()
    if (report.written or (records is not None and records.indexed)) and config.hook_embed:
        lines += start_background_embed(config)
    return lines


def start_background_embed(config: Config) -> list[str]:
    """Embed new chunks in a detached process, so the git operation does not wait for it."""
    from memidx.embed.installed import model_identity  # lean: not memidx.embed.model

    if model_identity(config) is None:
        if not vectors_installed():
            return []  # installed without the vectors extra (pre-commit's): words only
        return [
            f"vectors not updated: the model {config.model} is not installed (run make install)"
        ]
    from memidx.git.process import spawn_detached

    config.state_dir.mkdir(parents=True, exist_ok=True)
    spawn_detached(
        [sys.executable, "-m", "memidx", "-C", str(config.root), "embed", "--background"],
        config.state_dir / "embed.log",
    )
    return []


def vectors_installed() -> bool:
    """Whether this interpreter can embed: memidx's `vectors` extra is installed."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in VECTOR_MODULES)


def _failed(state_dir: Path, stage: str, reason: str) -> int:
    message = f"could not update the index: {reason}"
    print(f"memidx: {stage}: {message} (run `make reconcile`)")
    record_failure(state_dir / "hook-error.log", stage, message)
    return 0

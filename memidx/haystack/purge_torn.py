"""What purge blanks besides whole records: the copies of a forgotten record's text that a
crash left torn. A filing cut by a crash leaves its frame's first bytes, which the next append
moves into `.memidx/torn/<segment>.torn`; the turn is then filed again, whole, under a new id
(the hook reads the transcript again). Forgetting that record must take the torn copy too."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memidx.config import Config
from memidx.drafts import replace_durably
from memidx.haystack.blanking import blanked_torn, hashes_of
from memidx.haystack.indexing import haystack_folder
from memidx.haystack.kept import COPY_SUFFIX, KEPT
from memidx.haystack.segments import SEGMENT_SUFFIX, segments
from memidx.haystack.writer import TORN


def with_hashes(config: Config, forgotten: set[str], others: Iterable[Config] = ()) -> set[str]:
    """The forgotten ids and the content hashes of their texts, read from the segments and
    the kept copies of open segments (memidx.haystack.kept) of this work tree and of the
    `others` a purge names, before any of them is blanked (a blanked frame's hash is that of
    spaces: the purge that blanked it blanked the torn bytes too)."""
    files: list[Path] = []
    for there in (config, *others):
        files += [*segments(haystack_folder(there)), *_copies(there.state_dir / KEPT)]
    return forgotten | hashes_of((_read(path) for path in files), forgotten)


def blank_torn_files(config: Config, forgotten: set[str]) -> int:
    """Blank the torn tails in the work tree's `.torn` files that name a forgotten record
    (`forgotten` as with_hashes gives it), each file replaced whole; how many tails. Call it
    holding the work tree's writer lock: the writer appends to these files."""
    count = 0
    for path in _torn_files(config):
        new, blanked = blanked_torn(path.read_bytes(), forgotten)
        if blanked:
            replace_durably(path, new, "purge", durable=config.fsync)
            count += blanked
    return count


def holds_torn(config: Config, forgotten: set[str]) -> bool:
    """Whether a `.torn` file of the work tree holds a tail blank_torn_files would blank."""
    return any(blanked_torn(path.read_bytes(), forgotten)[1] for path in _torn_files(config))


def _torn_files(config: Config) -> list[Path]:
    folder = config.state_dir / TORN
    return sorted(folder.glob("*.torn")) if folder.is_dir() else []


def _copies(kept: Path) -> list[Path]:
    return sorted(kept.glob(f"*/*{SEGMENT_SUFFIX}{COPY_SUFFIX}")) if kept.is_dir() else []


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:  # a copy dropped or a segment taken since the listing
        return b""

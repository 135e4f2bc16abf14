"""The segments that hold records filed in the log alone (memidx.haystack.log_only), named in
`.memidx/log-only`, one ref a line. The filing that left a record there names its segment, so
the next filing into the index reads that segment before it looks for the record it files (not
only the segment written last: a new day, a full segment or a commit starts another between),
and a later filing in the log alone looks there too: the same turn was filed twice. Read and
changed under the writer's lock; a name lost (the file unwritable) leaves the record to the
next `memidx sync` or git hook, which read every changed segment."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

from memidx.config import Config
from memidx.drafts import open_to_append, read_regular, replace_durably
from memidx.haystack.segments import SEGMENT_SUFFIX

LEFT = "log-only"  # in the state folder
_MOST = 256 * 1024  # bytes of names read: thousands of segments, each named once
READ_BYTES = 1024 * 1024  # of records a filing reads into the index from them (catch_up)


def _path(config: Config) -> Path:
    return config.state_dir / LEFT


def left_refs(config: Config) -> list[str]:
    """The refs (`notes/haystack/<writer>/<segment>`) named since a filing last read them;
    a line that names no segment (cut short) is none."""
    data = read_regular(_path(config), _MOST)  # as it is: a FIFO there hung every filing
    lines = [] if data is None else data.decode("utf-8", "replace").splitlines()
    haystack = config.notes_path / "haystack"
    return [
        ref
        for ref in dict.fromkeys(lines)
        if (path := config.root / ref).suffix == SEGMENT_SUFFIX
        and path.parent.parent == haystack
        and ".." not in Path(ref).parts
    ]


def left_record(config: Config, record_id: str) -> str | None:
    """`<segment>@<offset>` of the record with this id in a segment a filing in the log alone
    named, the latest first; None when none holds it. Until a filing or a sync reads it into
    the index, `memidx show` and `forget` find it by id only here: its id was acknowledged."""
    import json

    from memidx.drafts import read_whole
    from memidx.haystack.frames import scan_bytes

    # its id's bytes as a frame holds them: a segment without them is not read frame by frame
    # (~25 ms a MB, a byte search ~50 times less; weeks filed in the log alone are many MB)
    needle = json.dumps(record_id, ensure_ascii=False).encode("utf-8", "replace")
    for ref in reversed(left_refs(config)):
        data = read_whole(config.root / ref)  # as it is: None when gone, a link or a FIFO
        if data is None or needle not in data:
            continue
        for located in scan_bytes(data).records:
            if located.record.id == record_id:
                return f"{ref}@{located.offset}"
    return None


def leave(config: Config, refs: Iterable[str]) -> None:
    """Name the segments a filing in the log alone wrote or changed (its own, one whose torn
    tail it moved aside, those it took over from a copied clone's id and the ids they had)."""
    known = set(left_refs(config))
    new = [ref for ref in dict.fromkeys(refs) if ref not in known]
    if not new:
        return
    with suppress(OSError), open_to_append(_path(config)) as out:
        out.write("".join(f"{ref}\n" for ref in new).encode("utf-8"))
        out.flush()
        if config.fsync:
            os.fsync(out.fileno())


def catch_up(left: list[str], read: Callable[[str], int]) -> list[str]:
    """Read the named segments into the index (`read`: the bytes of records it read), the
    oldest first, until READ_BYTES were read; returns those read. An agent's hook files into
    the upgraded index too, and reading days filed in the log alone took it past its deadline
    (~0.5 s a MB), killed, its transaction rolled back: every later hook did the same."""
    budget, done = READ_BYTES, list[str]()
    for ref in left:
        if budget <= 0:
            break
        budget -= read(ref)
        done.append(ref)
    return done


def caught_up(config: Config, left: list[str], done: list[str]) -> None:
    """Forget the names of the segments read (committed into the index); the others wait for
    the next filing, or a sync."""
    rest = "".join(f"{ref}\n" for ref in left if ref not in done)
    with suppress(OSError):
        if rest:
            replace_durably(_path(config), rest.encode("utf-8"), "tmp", durable=config.fsync)
        else:
            _path(config).unlink(missing_ok=True)

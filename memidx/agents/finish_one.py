"""A transcript a hook cut off left to archive (memidx.agents.archive_left), finished a part at a
time by the hooks of the agent's other sessions: a session the agent never takes up again had
no hook event to finish its copy, and nothing but `memidx agent finish-archives`, which nobody
runs by itself, filed it; its raw copy waited for ever. Each hook event that can finish a copy
(none at a session start or a prompt: their 1.5 s are the person's), after its own work, files
at most one part of the oldest copy of another session of its agent, and only when the time
its deadline leaves passes PART_SECONDS: a part not filed in time is filed by a later event."""

from __future__ import annotations

import time
from pathlib import Path

from memidx.agents.copy_source import OnDisk
from memidx.agents.session import Where, session_path, session_state
from memidx.config import Config

# The time a 1 MiB part takes to file (redacted, written, indexed), several times over: a
# second or two on an idle machine. An event with less left files none.
PART_SECONDS = 6.0
# A copy is read whole before its part is filed: hashed, then cut (read again). A 256 MiB copy
# took 2 to 4 s of that on a loaded machine, and one of any size was taken with PART_SECONDS
# left: a large copy ran the hook past its deadline (killed, said as a failure). The time left
# must hold its reading too, at this rate: one that passes it waits for a later event (or for
# `memidx agent finish-archives`).
READ_BYTES_PER_SECOND = 64 * 1024 * 1024


def finish_one_part(config: Config, where: Where, deadline: float) -> bool:
    """File one part of the oldest copy another session of `where.agent` left, when the time
    to `deadline` allows (the copy is removed once its last part is filed); whether a copy was
    taken up. Copies torn or unreadable are judged and said as the session's own (take_judged)
    and passed over; a copy whose session is unknown waits for that session."""
    from memidx.agents.archive_left import copies_left, take_judged
    from memidx.agents.finish_left import where_of_copy

    if deadline - time.monotonic() < PART_SECONDS:  # not even the folder's listing
        return False
    own = session_path(config, where.agent, where.session).stem
    for (agent, stem), copies in copies_left(config, where.agent).items():
        other = None if stem == own else where_of_copy(config, agent, stem)
        if other is None:  # its own copies were finished first (finish_archive)
            continue
        for copy in copies:
            if deadline - time.monotonic() < PART_SECONDS + _reading(copy):
                continue  # a smaller copy may fit
            source = take_judged(config, other, copy)
            if isinstance(source, OnDisk):
                _one_part(config, other, source, copy)
                return True
    return False


def _reading(copy: Path) -> float:
    """The seconds reading `copy` whole twice takes (its hash, its cuts), at the least."""
    try:
        return copy.lstat().st_size / READ_BYTES_PER_SECOND
    except OSError:
        return 0.0


def _one_part(config: Config, where: Where, source: OnDisk, copy: Path) -> None:
    """File the first part of `copy` not filed yet; remove the copy once none is left."""
    from memidx.agents.archive_left import end, unreadable
    from memidx.agents.capture import embed_later, file_parts, parts_of
    from memidx.agents.copy_source import CopyUnread

    state = session_state(config, where)
    try:
        filed, whole = file_parts(config, where, state, parts_of(source), most=1)
    except UnicodeDecodeError:  # its hash matched: no copy memidx wrote
        unreadable(config, where, copy, CopyUnread(copy, "its text is no UTF-8"))
        return
    except CopyUnread as exc:  # read to its end after its hash: an I/O error since
        unreadable(config, where, copy, exc)
        return
    finally:
        source.close()
        state.save()
    if whole:
        end(copy)
    embed_later(config, filed)

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

from memidx.agents.session import Where, session_path
from memidx.config import Config

# The time a 1 MiB part takes to file (redacted, written, indexed), several times over: a
# second or two on an idle machine. An event with less left files none.
PART_SECONDS = 6.0
# A copy is read whole before its first part is filed (hashed and cut, in one pass), and its
# cuts kept beside it (memidx.agents.copy_cuts), so each later part reads that part alone.
# Hashed, then cut, a 256 MiB copy took 2 to 4 s of that first reading on a loaded machine,
# and one of any size was taken with PART_SECONDS left: a large copy ran the hook past its
# deadline (killed, said as a failure). The time left must hold its reading too, at this rate:
# one that passes it waits for a later event (or for `memidx agent finish-archives`).
READ_BYTES_PER_SECOND = 64 * 1024 * 1024


def finish_one_part(config: Config, where: Where, deadline: float) -> bool:
    """File one part of the oldest copy another session of `where.agent` left, when the time
    to `deadline` allows (the copy is removed once its last part is filed); whether a copy was
    taken up. Copies torn or unreadable are judged and said as the session's own (take_judged)
    and passed over; a copy whose session is unknown waits for that session."""
    from memidx.agents.archive_left import copies_left
    from memidx.agents.copy_parts import file_rest, taken
    from memidx.agents.copy_unread import said_as_is
    from memidx.agents.finish_left import where_of_copy

    if deadline - time.monotonic() < PART_SECONDS:  # not even the folder's listing
        return False
    own = session_path(config, where.agent, where.session).stem
    for (agent, stem), copies in copies_left(config, where.agent).items():
        other = None if stem == own else where_of_copy(config, agent, stem)
        if other is None:  # its own copies were finished first (finish_archive)
            continue
        for copy in copies:
            if said_as_is(copy):  # said unreadable, unchanged since: read again, in vain
                continue
            if deadline - time.monotonic() < PART_SECONDS + _reading(copy):
                continue  # a smaller copy may fit
            found = taken(config, other, copy)  # its hash is checked as its cuts are found
            if isinstance(found, tuple) and isinstance(
                file_rest(config, other, *found, copy, most=1), tuple
            ):
                return True  # else one that cannot be read: the next is taken
    return False


def _reading(copy: Path) -> float:
    """The seconds reading `copy` takes before its part is filed, at the least: a part and
    its cuts' file when its cuts are kept, else the copy whole (its hash and cuts)."""
    from memidx.agents.capture import ARCHIVE_PART_BYTES
    from memidx.agents.copy_cuts import kept_for

    try:
        size = ARCHIVE_PART_BYTES if kept_for(copy) else copy.lstat().st_size
    except OSError:
        return 0.0
    return size / READ_BYTES_PER_SECOND

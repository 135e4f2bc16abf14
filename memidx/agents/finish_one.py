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

from memidx.agents.copy_source import OnDisk, open_copy
from memidx.agents.session import Where, session_path, session_state
from memidx.config import Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.copy_cuts import Cuts

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
    from memidx.agents.archive_left import copies_left, take_judged
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
            found = _resumed(copy)  # its hash is checked as its cuts are found
            if found is None and isinstance(source := take_judged(config, other, copy), OnDisk):
                found = source, None
            if found is not None and _one_part(config, other, *found, copy):
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


def _resumed(copy: Path) -> tuple[OnDisk, Cuts] | None:
    """`copy` open, with its cuts: those kept beside it when they are its file's, else found
    now, in one pass that checks its hash too (hashed, then cut, it was read whole twice);
    None for a copy take_judged is to judge (torn, unreadable, no UTF-8: it says which)."""
    from memidx.agents.capture import ARCHIVE_PART_BYTES
    from memidx.agents.copy_cuts import CopyChanged, cuts_of
    from memidx.agents.copy_source import CopyUnread

    try:
        source = open_copy(copy)
    except OSError:
        return None
    if source is None:
        return None
    try:
        return source, cuts_of(source, copy, ARCHIVE_PART_BYTES)
    except (CopyChanged, CopyUnread, UnicodeDecodeError):
        source.close()
        return None


def _one_part(config: Config, where: Where, source: OnDisk, cuts: Cuts | None, copy: Path) -> bool:
    """File the first part of `copy` not filed yet; remove the copy once none is left.
    False for a copy that cannot be read (said) or changed since its cuts."""
    from memidx.agents.archive_left import end, unreadable
    from memidx.agents.capture import ARCHIVE_PART_BYTES, embed_later, file_parts
    from memidx.agents.copy_cuts import CopyChanged, cuts_of, forget, keep
    from memidx.agents.copy_source import CopyUnread

    state = session_state(config, where)
    try:
        cuts = cuts or cuts_of(source, copy, ARCHIVE_PART_BYTES)
        parts = cuts.rest(source)
        filed, whole = file_parts(config, where, state, parts, most=1)
    except CopyChanged:  # written in place since: the next event judges it by its hash
        forget(copy)
        return False
    except UnicodeDecodeError:  # its hash matched: no copy memidx wrote
        unreadable(config, where, copy, CopyUnread(copy, "its text is no UTF-8"))
        return False
    except CopyUnread as exc:  # read to its end after its hash: an I/O error since
        unreadable(config, where, copy, exc)
        return False
    finally:
        source.close()
        state.save()
    if whole:
        end(copy)
    else:
        cuts.done = parts.last  # the first piece not filed
        keep(copy, cuts, ARCHIVE_PART_BYTES)
    embed_later(config, filed)
    return True

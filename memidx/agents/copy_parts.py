"""A copy left to archive (memidx.agents.archive_left) filed from its cuts (memidx.agents.
copy_cuts) by every path that files one: its session's next event (actions.finish_archive),
`memidx agent finish-archives` (finish_left), and the events of the agent's other sessions, a
part at a time (finish_one). The first two hashed the copy, cut it whole, and read each part
filed before again to find it filed: a 256 MiB copy was read three times at each event of its
session until its last part was filed (~1.8 s of each hook's deadline before its next part).
They read the cuts kept beside it and the parts not filed alone, and keep the cuts as each
part is filed, so a hook cut off at its deadline costs the next event nothing to resume."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.agents.archive_left import Torn, Unreadable, end, take_judged, unreadable
from memidx.agents.copy_source import CopyUnread, OnDisk, open_copy
from memidx.agents.session import Where, session_state
from memidx.agents.transcript_cuts import TranscriptParts
from memidx.config import Config
from memidx.haystack.indexing import Filed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.copy_cuts import Cuts

Progress = Callable[[int, int], None]  # told (number, parts) of each part filed anew


class Changed:
    """What file_rest says of a copy whose bytes are not those its cuts were found in: its
    cuts are forgotten, and it is judged by its hash again."""


def opened(copy: Path) -> tuple[OnDisk, Cuts] | None:
    """`copy` open, with its cuts: those kept beside it when they are its file's, else found
    now, in one pass that checks its hash too (hashed, then cut, it was read whole twice);
    None for a copy take_judged is to judge (torn, unreadable, no UTF-8: it says which)."""
    from memidx.agents.capture import ARCHIVE_PART_BYTES
    from memidx.agents.copy_cuts import CopyChanged, cuts_of

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


def taken(
    config: Config, where: Where, copy: Path
) -> tuple[OnDisk, Cuts | None] | Torn | Unreadable | None:
    """`copy` open with its cuts (opened), else as take_judged judges it: open, its hash
    checked (its cuts found as it is filed), Torn, Unreadable, or None (finished meanwhile)."""
    found = opened(copy)
    if found is not None:
        return found
    judged = take_judged(config, where, copy)
    return (judged, None) if isinstance(judged, OnDisk) else judged


def file_copy(
    config: Config, where: Where, copy: Path, progress: Progress | None = None
) -> list[Filed] | Torn | Unreadable | None:
    """File every part of `copy` not filed yet (the copy removed after its last); the parts
    met (filed now or before), else what take_judged says of it: Torn, Unreadable (said in
    the hooks' trace), or None for a copy finished meanwhile by another."""
    for _ in range(2):  # written in place since its cuts: judged again, by its hash
        found = taken(config, where, copy)
        if not isinstance(found, tuple):
            return found
        done = file_rest(config, where, *found, copy, progress=progress)
        if not isinstance(done, Changed):
            return done if isinstance(done, Unreadable) else done[0]
    return unreadable(config, where, copy, CopyUnread(copy, "it changed while it was read"))


def file_rest(
    config: Config,
    where: Where,
    source: OnDisk,
    cuts: Cuts | None,
    copy: Path,
    *,
    most: int | None = None,
    progress: Progress | None = None,
) -> tuple[list[Filed], bool] | Unreadable | Changed:
    """File the parts of `copy` not filed yet, from its cuts (found now when None), at most
    `most` anew (every one when None); the parts met and whether none is left (the copy is
    then removed), Unreadable for a copy that cannot be read (said), or Changed. `source` is
    closed after."""
    from memidx.agents.capture import ARCHIVE_PART_BYTES, embed_later, file_parts
    from memidx.agents.copy_cuts import CopyChanged, cuts_of, forget, keep

    state, limit = session_state(config, where), ARCHIVE_PART_BYTES
    try:
        cuts = cuts or cuts_of(source, copy, limit)
        parts = cuts.rest(source)
        if not cuts.kept:  # before its first part: a hook cut off while it files that part
            keep(copy, cuts, limit)  # left the next event the whole copy to read again
        if most is None:  # until its end: a hook cut off meanwhile resumes where it was
            progress = keeping(copy, cuts, parts, limit, progress)
        filed, whole = file_parts(config, where, state, parts, progress, most=most)
    except CopyChanged:  # written in place since: judged by its hash
        forget(copy)
        return Changed()
    except UnicodeDecodeError:  # its hash matched: no copy memidx wrote
        return unreadable(config, where, copy, CopyUnread(copy, "its text is no UTF-8"))
    except CopyUnread as exc:  # read to its end after its hash: an I/O error since
        return unreadable(config, where, copy, exc)
    finally:
        source.close()
        state.save()
    if whole:
        end(copy)
    else:
        cuts.done = parts.last  # the first piece not filed
        keep(copy, cuts, limit)
    embed_later(config, filed)
    return filed, whole


def keeping(
    copy: Path, cuts: Cuts, parts: TranscriptParts, limit: int, told: Progress | None
) -> Progress:
    """What tells `told` of each part filed anew, once the cuts kept say it is filed."""
    from memidx.agents.copy_cuts import keep

    def filed(number: int, count: int) -> None:
        cuts.done = parts.last + 1  # the piece filed last, filed
        keep(copy, cuts, limit)
        if told is not None:
            told(number, count)

    return filed

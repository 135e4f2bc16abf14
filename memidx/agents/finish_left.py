"""`memidx agent finish-archives`: file every transcript a hook cut off before a compaction
left to archive (memidx.agents.archive_left), now, with no deadline. A session the agent never
takes up again, or ends with a `SessionEnd` too short for a 1 MiB part, had no hook event to
finish it, and its copy (the raw transcript) stayed for ever."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.agents.session import (
    NO_SESSION,
    PLAIN_SESSION,
    PROJECT,
    SESSION_ID,
    SessionState,
    Where,
    session_path,
)
from memidx.config import Config
from memidx.frozen import Value
from memidx.text import display

Told = Callable[[str], None]  # a line of progress, for a person at a terminal


class Finished(Value):
    """One session's transcripts archived whole."""

    agent: str
    session: str
    project: str
    transcripts: int  # archived whole (by this command, or meanwhile by a hook)
    parts: int  # filed now (the others a hook filed before)
    torn: int  # copies whose hash differs from their name's: kept aside unfiled (kept_aside)
    # copies left as they are: no id of their session is known (an older memidx's copy of an
    # id its state's name does not give back); the session's next hook event files them
    left: int = 0
    kept_aside: tuple[str, ...] = ()  # where each torn copy was kept aside (or stays)
    unreadable: tuple[tuple[str, str], ...] = ()  # (copy, why) of each copy not read: left


def finish_all(
    config: Config, tell: Told | None = None, *, agent: str | None = None
) -> list[Finished]:
    """Archive the rest of every transcript left (`agent`'s alone, when named), each
    session's oldest first."""
    from memidx.agents.archive_left import copies_left

    done: list[Finished] = []
    for (named, stem), copies in copies_left(config, agent).items():
        where = where_of_copy(config, named, stem)
        if where is None:  # filed under its state's name, its parts filed before came again
            done.append(Finished(named, stem, "", 0, 0, 0, len(copies)))
        else:
            done.append(_finish(config, where, copies, tell))
    return done


def _finish(config: Config, where: Where, copies: list[Path], tell: Told | None) -> Finished:
    from memidx.agents.archive_left import Torn, Unreadable
    from memidx.agents.copy_parts import file_copy

    filed: list[int] = [0]
    torn: list[Torn] = []
    unreadable: list[Unreadable] = []

    def progress(number: int, parts: int) -> None:
        filed[0] += 1
        if tell is not None:
            # an id is the agent's to choose: a newline or an escape in it is shown, not done
            tell(f"{where.agent} session {display(where.session)}: part {number} of {parts} filed")

    for copy in copies:  # one that cannot be read stops none of the others
        # from its cuts (memidx.agents.copy_parts): the parts a hook filed are not read again
        done = file_copy(config, where, copy, progress)  # None: finished meanwhile by another
        if isinstance(done, Torn):  # kept aside and said in the hooks' trace: not archived
            torn.append(done)
        elif isinstance(done, Unreadable):
            unreadable.append(done)
    archived = len(copies) - len(torn) - len(unreadable)
    return Finished(
        where.agent, where.session, where.project, archived, filed[0], len(torn),
        kept_aside=tuple(str(t.kept or t.copy) for t in torn),
        unreadable=tuple((str(u.copy), u.why) for u in unreadable),
    )  # fmt: skip


def where_of_copy(config: Config, agent: str, stem: str) -> Where | None:
    """The session a copy is of: its id and project as its hook kept them in the session's
    state; else its state's name, when that is the id itself, and no project (`general`, a
    drawer's name for none: the memory's folder's name was no session's); None when no id
    is known (the name of another id is a hash of it)."""
    state = SessionState(session_path(config, agent, NO_SESSION).with_name(f"{stem}.json"))
    session = state.text(SESSION_ID)
    if session is None or session_path(config, agent, session).stem != stem:
        if not PLAIN_SESSION.fullmatch(stem):
            return None
        session = stem
    where = Where(agent, session, str(config.root))
    # an older memidx's copy saved no project: none (the memory's folder is no session's)
    where.project = state.text(PROJECT) or "general"  # a record's drawer when none is named
    return where

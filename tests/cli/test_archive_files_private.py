"""Every file memidx writes beside a transcript's copy left to archive is the user's alone, as
the copy is (memidx.agents.archive_left): the copy's cuts (`<copy>.cuts`: each piece's hash and
where the secrets at its cuts sit), its unread mark (`<copy>.unread`) and its session's state
(the prompt a Codex or Cursor hook keeps, as typed) were written 0644 under a umask of 022."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from memidx.agents import actions, capture, codex
from memidx.agents.archive_left import left_path
from memidx.agents.copy_cuts import cuts_path
from memidx.agents.copy_unread import unread_path
from memidx.agents.finish_one import finish_one_part
from memidx.agents.session import Where, session_path, session_state
from memidx.config import load_config
from memidx.hashes import sha256_hex
from tests.cli.test_agent_hooks import hook, memory
from tests.cli.test_archives_finished_by_others import left_by

HERE = Where("codex", "s-here", "/tmp/proj")  # the session whose events finish the others'


class GaveUp(Exception):
    """The hook cut off at its deadline while it filed."""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_what_is_kept_beside_a_copy_is_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    before = os.umask(0o022)  # not the umask: the files' own modes
    try:
        copy = left_by(config, "codex", "gone", "".join(f"vmmem line {n}\n" for n in range(40)))
        data = b"vmmem \xff line\n" * 50  # its hash matches, its text is no UTF-8
        unread = left_path(config, Where("codex", "gone", "/"), sha256_hex(data))
        unread.write_bytes(data)
        unread.chmod(0o600)
        os.utime(unread, ns=(1, 1))  # the oldest: said, then a part of the copy filed
        assert finish_one_part(config, HERE, time.monotonic() + 60)
        own = Where("codex", "s-own", "/tmp/proj")
        state = session_state(config, own)
        state.set_text(codex.PROMPT, "export API_TOKEN=sk-live-vmmem")  # as typed
        state.save()

        def gave_up(*_: object, **__: object) -> object:
            raise GaveUp

        monkeypatch.setattr(capture, "file", gave_up)
        with pytest.raises(GaveUp):  # its own copy left, its session's state kept
            actions.archive_transcript(config, own, "the vmmem transcript\n")
    finally:
        os.umask(before)

    assert cuts_path(copy).exists() and unread_path(unread).exists()
    assert session_path(config, "codex", "s-own").exists()
    modes = {
        path.name: oct(stat.S_IMODE(path.stat().st_mode))
        for path in copy.parent.iterdir()
        if path.suffix != ".lock"  # empty: what holds a session's state while it is written
    }
    assert modes == dict.fromkeys(modes, oct(0o600))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_what_an_older_memidx_left_readable_is_made_the_users_alone_at_a_session_start(
    tmp_path: Path,
) -> None:
    """Written 0644 before memidx wrote them 0600, and never written again (a session not
    taken up again keeps its state 30 days, a copy waiting its cuts; a torn copy stays until
    the person deletes it; an unread mark is said once): each session start makes them 0600.
    What is not memidx's, or a link, is left as it is; the owner's own bits stay."""
    repo = memory(tmp_path)
    config = load_config(repo.root)
    gone = Where("claude-code", "s-old", "/tmp/proj")
    state = session_path(config, gone.agent, gone.session)
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({codex.PROMPT: "export API_TOKEN=sk-live-vmmem"}))
    text = b"the vmmem transcript, unredacted\n"
    copy, closed = left_path(config, gone, sha256_hex(text)), left_path(config, gone, "f" * 64)
    copy.write_bytes(text)
    closed.write_bytes(b"the vmmem copy the person made read-only\n")
    mine = [state, copy, cuts_path(copy), unread_path(copy), copy.with_name(f"{copy.name}.torn")]
    for path in mine[2:]:
        path.write_text("the vmmem words")
    outside = tmp_path / "outside.txt"  # not memidx's: a link to it is not followed
    outside.write_text("the person's own file")
    stranger = state.with_name("notes.txt")  # no name of memidx's
    stranger.write_text("the person's own file")
    link = state.with_name("s-link.json")
    link.symlink_to(outside)
    for path in [*mine, outside, stranger]:
        path.chmod(0o644)
    closed.chmod(0o444)

    done, _ = hook(repo, "SessionStart", {"session_id": "s-new", "cwd": "/tmp"})

    assert done.returncode == 0, done.stderr
    modes = {path.name: oct(stat.S_IMODE(path.stat().st_mode)) for path in mine}
    assert modes == dict.fromkeys(modes, oct(0o600))
    assert stat.S_IMODE(closed.stat().st_mode) == 0o400  # its owner's bits as they were
    assert stat.S_IMODE(outside.stat().st_mode) == stat.S_IMODE(stranger.stat().st_mode) == 0o644
    assert json.loads(state.read_text()) == {codex.PROMPT: "export API_TOKEN=sk-live-vmmem"}

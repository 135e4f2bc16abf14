"""Every file memidx writes beside a transcript's copy left to archive is the user's alone, as
the copy is (memidx.agents.archive_left): the copy's cuts (`<copy>.cuts`: each piece's hash and
where the secrets at its cuts sit), its unread mark (`<copy>.unread`) and its session's state
(the prompt a Codex or Cursor hook keeps, as typed) were written 0644 under a umask of 022."""

from __future__ import annotations

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
from tests.cli.test_agent_hooks import memory
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

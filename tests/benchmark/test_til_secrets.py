"""The secret detector on the 1,871 TIL notes (real developer notes, none with a real secret):
the kinds memidx adds must raise no false alarm there."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from memidx.secrets.netrc import NETRC_KIND
from tests.benchmark.corpus import til_notes
from tests.benchmark.til_eval import til_folder


def test_no_til_note_is_taken_for_a_netrc_entry() -> None:
    """Notes say "machine", "login", "default" and "password" in prose and commands; only a
    `.netrc` entry's keyword-value pairs make a password one."""
    folder = til_folder()
    if not folder.is_dir():
        pytest.skip(f"no TIL data at {folder} (set DATA to the shared data folder)")
    notes = til_notes(folder.parent)

    flagged = [
        f"{path.relative_to(folder)}: {text[f.start : f.end]!r}"
        for path in notes
        for text in [path.read_text(encoding="utf-8")]
        for f in find_secrets(text, allow=True)
        if f.kind == NETRC_KIND
    ]

    assert len(notes) > 1800 and flagged == []

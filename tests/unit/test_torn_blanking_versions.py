"""A torn copy purge cannot find by hash: the filing a crash cut held another version of the
forgotten record's words than the one filed again after it (Codex's Stop files a lagging turn
from the kept prompt and `last_assistant_message`, and the next Stop files the rollout's fuller
copy; a transcript archived again once it grew is cut into parts at other line ends). Found in
review of the torn-copy blanking; not fixed (README, "Forget and purge")."""

from __future__ import annotations

import pytest

from memidx.haystack.blanking import blanked_torn, hashes_of
from memidx.haystack.frames import frame, new_record

SECRET = "the deploy password is hunter2-walrus"


@pytest.mark.xfail(strict=True, reason="torn copies are found by the exact text's hash only")
def test_a_torn_copy_of_another_version_of_the_forgotten_turn_is_blanked() -> None:
    filed = new_record("turn", f"User: {SECRET}\n\nAssistant: noted, and the full answer")
    forgotten = {filed.id} | hashes_of([frame(filed)], {filed.id})
    cut = frame(new_record("turn", f"User: {SECRET}\n\nAssistant: noted"))[:-4]

    new, _ = blanked_torn(cut, forgotten)

    assert SECRET.encode() not in new

"""HEAD put back for a person's `git pull` still in its fetch (memidx/git/late_pull.py): the
new files memidx's move wrote are removed while they hold memidx's bytes. They were read, then
unlinked: an edit the person saved in between (an agent's editor on the note just remembered)
was deleted with the file. Now each is judged aside (git/judged_unlink.py): the edit stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.errors import GitBusy
from memidx.git import late_pull
from tests.helpers import started_memory

REF = "notes/new-lesson.md"
NOTE = b"---\ntitle: New lesson\n---\n\nThe cache broke when the disk filled.\n"
EDIT = b"The person's line, saved as HEAD was put back.\n"


def _a_pull(_root: Path) -> dict[str, str]:
    """committers' answer: one person's `git pull`, still in its fetch."""
    return {"4242": "pull 1"}


def test_an_edit_saved_after_the_put_back_s_read_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    (repo.root / REF).write_bytes(NOTE)
    commit = repo.commit("memidx remember: New lesson")  # memidx's move, as committed
    monkeypatch.setattr(late_pull, "_pulls_alone", list)  # each pid a pull still fetching
    monkeypatch.setattr(late_pull, "committers", _a_pull)
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:  # the person saves right after the put-back's read
        data = real(self)
        if self == repo.root / REF and data == NOTE:
            self.write_bytes(NOTE + EDIT)
        return data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)

    with pytest.raises(GitBusy, match="put HEAD back"):
        late_pull.put_back_for_a_pull(
            repo.root, {"4242": "pull 1"}, commit, [REF], written={REF: NOTE},
            literal=[f":(literal){REF}"], ref=repo.git("symbolic-ref", "HEAD").strip(),
        )  # fmt: skip

    monkeypatch.undo()
    assert repo.git("rev-parse", "HEAD").strip() == repo.git("rev-parse", f"{commit}^1").strip()
    assert (repo.root / REF).read_bytes() == NOTE + EDIT  # the person's edit, kept

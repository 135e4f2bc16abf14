"""A purge stopped by a late git once it has rewritten HEAD's unpushed commits (a merge that
outlasts its wait, git's index held past it: `... run memidx haystack purge again`) is not
left half done: the segments are blanked in HEAD and in the work tree, and the prompt an
agent's hook kept for the forgotten turn's session is emptied too. It was emptied only when
the purge ended well, from the records read before the blanking; the purge run again, as the
error says, found their text blanked and left that prompt holding the forgotten words."""

from __future__ import annotations

import pytest

from memidx.agents import codex
from memidx.agents.session import Where, session_state
from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import rewrite
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import new_record
from tests.helpers import NotesRepo

SECRET = "the staging database password is walrus-7781-tangerine"
LATE = "git kept its index locked; the staged segments were not blanked"


def _late_git(*_: object) -> list[str]:
    raise GitBusy(LATE, "run `memidx haystack purge` again once that git ends")


def test_a_purge_stopped_by_a_late_git_empties_the_kept_prompt_and_runs_again(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    config = load_config(repo.root)
    where = Where(codex.NAME, "s-1", str(repo.root))
    state = session_state(config, where)
    state.set_text(codex.PROMPT, SECRET)  # as the prompt hook keeps it
    state.save()
    turn = new_record(
        "turn", f"User: {SECRET}\n\nAssistant: noted", agent=codex.NAME, session="s-1"
    )
    clone_writer(config).append(turn)
    assert repo.memidx("sync").code == 0
    assert repo.memidx("haystack", "commit").code == 0  # unpushed: HEAD's commits are rewritten
    assert repo.memidx("forget", turn.id).code == 0

    with monkeypatch.context() as late:
        late.setattr(rewrite, "blank_staged", _late_git)  # after HEAD's rewrite
        stopped = repo.memidx("haystack", "purge")
    assert stopped.code == 1 and LATE in stopped.err and "Traceback" not in stopped.err
    assert SECRET not in repo.git("show", "HEAD", "--text")  # HEAD's rewrite was done
    assert session_state(config, where).text(codex.PROMPT) == ""

    again = repo.memidx("haystack", "purge", "--json")  # as the error says
    assert again.code == 0, again.err
    assert SECRET not in repo.git("log", "-p", "--text", "--all")
    segments = (repo.root / "notes" / "haystack").rglob("*.krd")
    assert not [p for p in segments if SECRET.encode() in p.read_bytes()]
    assert repo.git("diff", "--cached", "--name-only") == ""  # nothing left staged

"""Another copy of a forgotten turn's words that `memidx haystack purge` leaves on this
clone's disk: the prompt the Cursor and Codex hooks keep in the session's state
(`.memidx/agents/<agent>/sessions/`, kept up to 30 days), which the turn's record was filed
from. Found in review of the torn-copy blanking; not fixed yet (README, "Forget and purge")."""

from __future__ import annotations

import pytest

from memidx.agents.cursor import PROMPT
from memidx.agents.session import Where, session_state
from memidx.config import load_config
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import new_record
from tests.helpers import NotesRepo

SECRET = "the staging database password is walrus-7781-tangerine"


@pytest.mark.xfail(strict=True, reason="purge never looks at the agents' session states")
def test_purge_leaves_no_kept_prompt_of_a_forgotten_turn(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    config = load_config(repo.root)
    state = session_state(config, Where("cursor", "s-1", str(repo.root)))
    state.set_text(PROMPT, SECRET)  # as beforeSubmitPrompt keeps it; afterAgentResponse files
    state.save()
    turn = new_record("turn", f"User: {SECRET}\n\nAssistant: noted")
    clone_writer(config).append(turn)
    assert repo.memidx("sync").code == 0
    assert repo.memidx("forget", turn.id).code == 0

    assert repo.memidx("haystack", "purge").code == 0

    states = (repo.root / ".memidx" / "agents").rglob("*.json")
    assert not [path for path in states if SECRET.encode() in path.read_bytes()]

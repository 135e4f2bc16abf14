"""Another copy of a forgotten turn's words on this clone's disk: the prompt the Cursor and
Codex hooks keep in the session's state (`.memidx/agents/<agent>/sessions/`, kept up to 30
days), which the turn's record was filed from. `memidx haystack purge` empties it (README,
"Forget and purge"); a prompt of the session not in the forgotten turn, or another session's,
stays."""

from __future__ import annotations

import pytest

from memidx.agents import codex, cursor
from memidx.agents.session import Where, session_state
from memidx.config import load_config
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import new_record
from tests.helpers import NotesRepo

SECRET = "the staging database password is walrus-7781-tangerine"


@pytest.mark.parametrize(
    ("agent", "field"), [(cursor.NAME, cursor.PROMPT), (codex.NAME, codex.PROMPT)]
)
def test_purge_leaves_no_kept_prompt_of_a_forgotten_turn(
    repo: NotesRepo, agent: str, field: str
) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    config = load_config(repo.root)
    for session, prompt in (("s-1", SECRET), ("s-2", SECRET), ("s-3", "a later prompt")):
        state = session_state(config, Where(agent, session, str(repo.root)))
        state.set_text(field, prompt)  # as the prompt hook keeps it; the reply's hook files
        state.save()
    writer = clone_writer(config)
    turn = new_record("turn", f"User: {SECRET}\n\nAssistant: noted", agent=agent, session="s-1")
    later = new_record(
        "turn", "User: an earlier prompt\n\nAssistant: ok", agent=agent, session="s-3"
    )
    writer.append(turn)
    writer.append(later)
    assert repo.memidx("sync").code == 0
    assert repo.memidx("forget", turn.id).code == 0
    assert repo.memidx("forget", later.id).code == 0

    purged = repo.memidx("haystack", "purge", "--json")

    assert purged.code == 0, purged.err
    assert purged.json()["kept_prompts"] == 1
    kept = {
        s: session_state(config, Where(agent, s, str(repo.root))).text(field)
        for s in ("s-1", "s-2", "s-3")
    }
    assert kept == {"s-1": "", "s-2": SECRET, "s-3": "a later prompt"}  # s-2 filed nothing here

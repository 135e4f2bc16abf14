"""The agent-shaped exchanges recall_agent_turns makes from TIL notes (agent_exchanges.py)."""

from __future__ import annotations

from tests.benchmark import agent_exchanges as ax

NOTE = """# Turn Off The Output Pager

With `git` a pager such as `less` shows paginated output. When you are done, the output
vanishes. That is usually what you want. See [the docs](https://git-scm.com/docs). If you
want to scroll back to a SHA or a commit message later, you will be disappointed, and for
one-off commands you can turn the pager off with a flag.

```bash
$ git --no-pager show
$ git -P log
```

This prints the HEAD commit to the terminal, where you can scroll back to it.
"""


def _keys(every: int, salt: str, wanted: int) -> list[str]:
    return [
        k for k in (f"git/note-{i}.md" for i in range(200)) if ax.pick(k, every, salt) == wanted
    ]


def test_an_answer_holds_the_notes_prose_and_its_code_as_tool_notes() -> None:
    key = _keys(ax.SHORT_EVERY, "s", 1)[0]

    made = ax.answer(key, NOTE)

    assert made.answers and "Turn Off The Output Pager" in made.user
    assert "[tool Bash: $ git --no-pager show]" in made.assistant
    assert "the docs" in made.assistant and "https://" not in made.assistant
    assert "scroll back to it" in made.assistant
    assert made == ax.answer(key, NOTE)  # the same note makes the same exchange


def test_a_short_exchange_keeps_the_first_tool_note_and_the_first_sentences() -> None:
    key = _keys(ax.SHORT_EVERY, "s", 0)[0]

    said = ax.answer(key, NOTE).assistant.splitlines()

    prose = said[-1]
    assert "[tool Bash: $ git --no-pager show]" in said
    assert len(prose) <= ax.SHORT_CHARS and prose.startswith("With `git` a pager")
    assert "HEAD commit" not in "\n".join(said)


def test_a_mention_names_the_topic_and_never_answers() -> None:
    mentioned = [ax.mention(k, NOTE) for k in _keys(ax.MENTION_EVERY, "m", 0)]
    left_out = [ax.mention(k, NOTE) for k in _keys(ax.MENTION_EVERY, "m", 1)]

    assert mentioned and all(m is not None and not m.answers for m in mentioned)
    assert all("turn off the output pager" in m.user for m in mentioned if m is not None)
    assert left_out and all(m is None for m in left_out)

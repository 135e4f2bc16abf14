"""What every agent's hooks do, whatever the agent: recall for a prompt, the session-start
digest, filing exchanges, archiving a transcript, filing a compaction's summary. Adapters turn
their agent's input into these calls and the results into their agent's output."""

from __future__ import annotations

import time
from collections.abc import Sequence

from memidx.agents import recall_server
from memidx.agents.gate import trivial
from memidx.agents.session import SessionState, Where, session_path
from memidx.config import Config

TYPE_CHECKING = False  # the prompt hook's process imports neither filing nor typing's cost
if TYPE_CHECKING:
    from memidx.agents.exchange import Exchange
    from memidx.haystack.indexing import Filed

SEEN = "seen"  # session state: the keys of the hits injected in this session


def recall_for(config: Config, where: Where, prompt: str, deadline: float) -> str:
    """The recall block for `prompt` ("" for none), from the warm server when one answers,
    else in this process (the server is started for the next prompt)."""
    if trivial(prompt):
        return ""
    state = SessionState(session_path(config, where.agent, where.session))
    seen = state.keys(SEEN)
    request: dict[str, object] = {"prompt": prompt, "seen": seen}
    answer = recall_server.ask_waiting(config, request, _left(deadline))
    if answer is not None and "error" not in answer:
        block = str(answer.get("block") or "")
        keys = [str(k) for k in _items(answer.get("keys"))]
    else:
        recall_server.start(config)
        from memidx.agents.recall import Recaller  # numpy and the model: only when needed

        done = Recaller(config).recall(prompt, seen)
        block, keys = done.block, list(done.keys)
    if keys:
        state.add(SEEN, *keys)
        state.save()
    return block


def warm_up(config: Config) -> None:
    """Start the recall server unless one answers (session start: the first prompt follows)."""
    if config.index_path.exists() and recall_server.ask(config, {"prompt": ""}, 0.2) is None:
        recall_server.start(config)


def digest_for(config: Config, where: Where) -> str:
    from memidx.agents.digest import digest

    return digest(config, where.project)


def capture(config: Config, where: Where, exchanges: Sequence[Exchange]) -> list[Filed]:
    """File the exchanges not filed before in this session; start the embed of what is new."""
    from memidx.agents.capture import embed_later, file_exchanges

    state = SessionState(session_path(config, where.agent, where.session))
    try:
        filed = file_exchanges(config, where, state, exchanges)
    finally:
        state.save()
    embed_later(config, filed)
    return filed


def archive_transcript(config: Config, where: Where, text: str) -> Filed | None:
    from memidx.agents.capture import archive, embed_later

    state = SessionState(session_path(config, where.agent, where.session))
    filed = archive(config, where, state, text)
    state.save()
    embed_later(config, [filed])
    return filed


def summary(config: Config, where: Where, text: str) -> Filed | None:
    from memidx.agents.capture import embed_later, file_summary

    state = SessionState(session_path(config, where.agent, where.session))
    filed = file_summary(config, where, state, text)
    state.save()
    embed_later(config, [filed])
    return filed


def _left(deadline: float) -> float:
    return max(0.05, deadline - time.monotonic() - 0.05)


def _items(value: object) -> list[object]:
    from typing import cast

    return cast(list[object], value) if isinstance(value, list) else []

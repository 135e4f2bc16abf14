"""The line `ingest` and a rebuilding `sync` say when they leave chunks without vectors: they
start no background embed (the git hooks do), and a rebuilt index has lost every vector."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memidx.cli.notice import say_notice
from memidx.errors import MemidxError

if TYPE_CHECKING:
    from memidx.config import Config
    from memidx.index.documents import Store


def say_unembedded(config: Config, store: Store) -> None:
    """Say how many chunks have no vector of the model and what embeds them, when the model is
    installed (without it, search already says what to install)."""
    from memidx.embed.installed import model_problem
    from memidx.index.store import VectorStore
    from memidx.memory.head_sync import vectors_installed

    chunks, covered, _ = VectorStore(store.conn).counts(config.model)
    if covered == chunks or not vectors_installed():
        return
    try:
        if model_problem(config) is not None:
            return
    except MemidxError:  # no cache folder to look in (no HOME): embed says why, not ingest
        return
    say_notice(
        f"{covered} of {chunks} chunks have a vector of {config.model}: search finds the other"
        f" {chunks - covered} by words alone until `memidx embed` (`make embed`) embeds them"
    )

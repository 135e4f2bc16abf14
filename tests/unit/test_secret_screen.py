"""The secret detector's screen: a text that none of detect-secrets' token patterns matches,
and that has no line naming a secret-sounding word, is masked without loading the library's
plugins (which every search's output goes through), and masking finds exactly what it found
when the plugins always ran: on the detector's own test cases, and on text that looks alike."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from memidx.secrets import library, library_patterns
from memidx.secrets.detect import find_secrets, mask_many, redact_text
from tests.benchmark.secrets.labeled import SECRETS, samples

SECRET_SAMPLES, LOOK_ALIKE_SAMPLES = samples(seed=16, per_kind=3)
MORE_SECRETS, MORE_LOOK_ALIKES = samples(seed=17, per_kind=8)
# what search hits are made of: links, paths, code, a word such as key or token in prose
PLAIN = [
    "…going straight for a **macro** (e.g. `qqjddq5@q`). [source](http://stackoverflow.com/"
    "questions/1946738/vim-how-to-delete-every-second-line)",
    "Use `git reflog` to find the lost commit: `git checkout -b rescue HEAD@{2}`",
    "Press the leader key twice; the token list in the lexer is a hash keyed by symbol.",
    "postgres://localhost:5432/app_development?sslmode=disable and ~/.config/nvim/init.lua",
    "Incorporate Existing Type Into Zod Schema",
]
TEXTS = [s.line for s in (*SECRET_SAMPLES, *LOOK_ALIKE_SAMPLES, *MORE_SECRETS, *MORE_LOOK_ALIKES)]


def test_the_screen_holds_the_library_plugins_own_patterns() -> None:
    modules = library._plugin_modules()  # pyright: ignore[reportPrivateUsage]
    assert list(library_patterns.TOKEN_PATTERNS) == [module for module, _, _ in library.PLUGINS]
    overriding: set[str] = set()
    for module, name, _ in library.PLUGINS:
        plugin = getattr(modules[module], name)
        compiled = [re.compile(p, f) for p, f in library_patterns.TOKEN_PATTERNS[module]]
        assert [(r.pattern, r.flags) for r in plugin.denylist] == [
            (r.pattern, r.flags) for r in compiled
        ], module
        if "analyze_string" in plugin.__dict__:
            overriding.add(module)
    # JWT's analyze_string only filters what its denylist matches; a plugin that finds
    # secrets some other way would need the screen to know it
    assert overriding == {"jwt"}
    assert tuple(modules["keyword"].DENYLIST) == library_patterns.KEYWORD_WORDS


def always(_text: str) -> bool:
    return True


@pytest.mark.parametrize("text", TEXTS + PLAIN)
def test_masking_finds_the_same_with_and_without_the_screen(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = f"Notes from the session.\n{text}\nThat was all."
    screened = (find_secrets(inside), redact_text(inside), mask_many([text, inside, "plain"]))
    monkeypatch.setattr(library, "may_find", always)  # the plugins always run
    assert (find_secrets(inside), redact_text(inside), mask_many([text, inside, "plain"])) == (
        screened
    )


def test_a_line_the_library_finds_a_secret_in_passes_the_screen() -> None:
    found = 0
    for line in TEXTS:
        if any(next(iter(spans(line)), None) for _, spans in library.library_finders()):
            assert library.may_find(line), line
            found += 1
    assert found >= 40  # the library's kinds, each several times


def masked_in_a_new_process(texts: list[str]) -> tuple[list[str], bool]:
    code = (
        "import json, sys\n"
        "from memidx.secrets.detect import mask_many\n"
        "shown = mask_many(json.loads(sys.stdin.read()))\n"
        "print(json.dumps([shown, 'detect_secrets.plugins.base' in sys.modules]))\n"
    )
    import json

    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
    )
    shown, loaded = json.loads(done.stdout)
    return shown, loaded


def test_plain_search_hits_are_masked_without_loading_the_library() -> None:
    shown, loaded = masked_in_a_new_process(PLAIN)
    assert shown == PLAIN and not loaded
    make, template = SECRETS["aws-access-key"]
    import random

    line = template.format(s=make(random.Random(3)))
    shown, loaded = masked_in_a_new_process([*PLAIN, line])
    assert loaded and "[REDACTED:aws-access-key]" in shown[-1]

"""share reads git's words (an unsigned commit under merge.verifySignatures, a merge conflict,
`fatal:` and `error:` lines). In a translated git (LANGUAGE=de) they read otherwise: git merge
refusing an unsigned upstream commit read as a merge that trying again may mend, and share
tried for minutes, then said "N tries did not get through" instead of naming the signature."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.memory.share import share
from tests.cli.test_share_in_the_way import behind, state

GERMAN = {"LC_ALL": "C.UTF-8", "LANGUAGE": "de", "LANG": "de_DE.UTF-8"}


def test_an_unsigned_upstream_commit_is_said_at_once_in_a_translated_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = behind(tmp_path, diverged=True)
    two.git("config", "merge.verifySignatures", "true")
    before = state(two)
    for name, value in GERMAN.items():
        monkeypatch.setenv(name, value)
    naps: list[float] = []

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=naps.append)

    assert "does not have a GPG signature" in raised.value.message, raised.value.message
    assert naps == []  # at once, not after tries that cannot mend it
    assert state(two) == before


PERSON = {"LC_ALL": "C.UTF-8", "LC_CTYPE": "POSIX", "LANGUAGE": "de", "LANG": "de_DE.UTF-8"}
LOCALE = ("LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LANGUAGE", "LANG")


def locale_hook(
    hook: Path,
    seen: Path,
    end: str,
    monkeypatch: pytest.MonkeyPatch,
    *,
    person: dict[str, str] = PERSON,
    names: tuple[str, ...] = LOCALE,
) -> None:
    """`hook` (made runnable) writes each of `names` as it sees it (`NAME=value`, or `unset`)
    to `seen`, then runs `end`; the person's locale `person` set, LC_MESSAGES unset."""
    hook.write_text(
        "#!/bin/sh\n"
        + "".join(f'echo "{name}=${{{name}-unset}}" >> "{seen}"\n' for name in names)
        + f"{end}\n"
    )
    hook.chmod(0o755)
    for name, value in person.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("LC_MESSAGES", raising=False)


def test_the_persons_hooks_run_in_their_locale_and_git_still_speaks_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """share ran git (and so the person's pre-push and post-merge hooks) with LC_MESSAGES=C,
    LC_ALL dropped (LC_CTYPE then beat it, where libc lets LC_ALL win) and LANGUAGE gone."""
    two = behind(tmp_path, diverged=True)
    seen = tmp_path / "seen"
    locale_hook(two.root / ".git" / "hooks" / "pre-push", seen, "exit 0", monkeypatch)

    share(load_config(two.root, env={}), sleep=lambda _: None)

    assert seen.read_text().splitlines() == [f"{n}={PERSON.get(n, 'unset')}" for n in LOCALE]

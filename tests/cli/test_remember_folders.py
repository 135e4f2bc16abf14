"""`memidx remember --dir` (the MCP tool's `folder`) names only folders every clone can check
out: git for Windows fails the whole checkout on one it cannot make, and macOS and Windows
merge two folders that differ only in case."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import UsageError
from memidx.mcp import answers
from memidx.mcp.serve import error_line
from tests.helpers import NotesRepo, Run
from tests.machines import Machine, clone, environment, hook_env, make_template, put_back

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
UNPORTABLE = [
    ("a:b", "holds ':'"),
    ("ops/a<b", "holds '<'"),
    ("ops/a>b", "holds '>'"),
    ("ops/a|b", "holds '|'"),
    ("ops/why?", "holds '?'"),
    ("ops/all*", "holds '*'"),
    ('ops/"quoted"', "holds '\"'"),
    ("ops/tab\there", "holds '\\t'"),
    ("aux", "is a Windows device name"),
    ("ops/con", "is a Windows device name"),
    ("ops/deep/NUL", "is a Windows device name"),
    ("ops/com1", "is a Windows device name"),
    ("ops/lpt9.d", "is a Windows device name"),
    ("ops/prn .x", "is a Windows device name"),
    ("ops/deeper.", "ends in a dot or a space"),
    ("ops/deeper ", "ends in a dot or a space"),
    ("Wsl/x", "notes/wsl is there already"),
    ("wsl/Build", "notes/wsl/build is there already"),
]


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    made = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (made.root / "notes" / "wsl" / "build").mkdir(parents=True)
    (made.root / "notes" / "wsl" / "build" / "kept.md").write_text("# Kept\n")
    return made


def untracked(repo: NotesRepo) -> str:
    return repo.git("status", "--porcelain", "--untracked-files=all")


@pytest.fixture
def refusing(refusing_machine: Machine) -> Iterator[Machine]:
    """The module's machine for one refusal, put back after it: what one wrongly wrote (a
    notes/ops/ of its own) failed its test, and every later one's `notes/ops` check too."""
    with put_back(refusing_machine) as machine:
        yield machine


@pytest.fixture(scope="module")
def refusing_machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    """One machine for the refusals, which write nothing (each test asserts it)."""
    root = tmp_path_factory.mktemp("refusing")
    env = hook_env(root / "pre-commit-home")
    made = clone(make_template(root, env), root / "a", env)
    (made.root / "notes" / "wsl" / "build").mkdir(parents=True)
    (made.root / "notes" / "wsl" / "build" / "kept.md").write_text("# Kept\n")
    return made


def refused_in_process(machine: Machine, monkeypatch: pytest.MonkeyPatch, directory: str) -> Run:
    """`memidx remember --dir DIRECTORY` through main() in this process, as the executable
    runs it (a process each cost ~0.3 s of CPU; the process's exit code and stderr are
    test_a_refused_folder_is_exit_2_of_a_process_in_one_line's)."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))
    with environment({"MEMIDX_ROOT": str(machine.root), **machine.env}):
        return machine.memidx("remember", "--title", "Vmmem", "--dir", directory)


@pytest.mark.parametrize(("directory", "why"), UNPORTABLE)
def test_a_folder_windows_or_macos_cannot_check_out_is_refused_writing_nothing(
    refusing: Machine, monkeypatch: pytest.MonkeyPatch, directory: str, why: str
) -> None:
    before = (untracked(refusing), refusing.git("rev-parse", "HEAD"))
    run = refused_in_process(refusing, monkeypatch, directory)
    assert run.code == 2, run.err
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"memidx: usage error: --dir {directory!r}")
    assert why in lines[0] and "nothing was written" in lines[0] and "Traceback" not in run.err
    assert (untracked(refusing), refusing.git("rev-parse", "HEAD")) == before
    assert not (refusing.root / "notes" / "ops").exists()


def test_a_refused_folder_is_exit_2_of_a_process_in_one_line(refusing: Machine) -> None:
    before = (untracked(refusing), refusing.git("rev-parse", "HEAD"))
    run = refusing.memidx_process("remember", "--title", "Vmmem", "--dir", "ops/a:b", stdin=BODY)
    assert run.code == 2, run.err
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memidx: usage error: --dir 'ops/a:b'")
    assert "holds ':'" in lines[0] and "nothing was written" in lines[0]
    assert run.out == "" and (untracked(refusing), refusing.git("rev-parse", "HEAD")) == before
    assert not (refusing.root / "notes" / "ops").exists()


@pytest.mark.parametrize("directory", ["wsl/build", "ops/com10", "ops/console", "ops/a.b"])
def test_a_folder_every_system_can_check_out_is_taken(machine: Machine, directory: str) -> None:
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", directory, stdin=BODY)
    assert run.code == 0, run.err
    assert run.out.strip() == f"notes/{directory}/vmmem.md"


@pytest.mark.parametrize(("directory", "why"), [UNPORTABLE[0], UNPORTABLE[9], UNPORTABLE[16]])
def test_the_mcp_tool_refuses_the_same_folders_naming_its_argument(
    refusing: Machine, directory: str, why: str
) -> None:
    machine = refusing
    config = load_config(machine.root, env={"MEMIDX_ROOT": str(machine.root)})
    before = untracked(machine)
    with pytest.raises(UsageError) as refused:
        answers.remember(config, "Vmmem", BODY, folder=directory)
    line = error_line(refused.value, config)
    assert line is not None and line.startswith(f"memidx: usage error: folder {directory!r}")
    assert why in line
    assert untracked(machine) == before


def test_a_note_is_never_named_as_a_file_there_in_another_case(machine: Machine) -> None:
    """`notes/ops/vmmem.md` was written beside a person's `notes/ops/Vmmem.md`: one file on
    macOS and Windows, where a clone checks out only one of the two."""
    (machine.root / "notes" / "ops").mkdir()
    (machine.root / "notes" / "ops" / "Vmmem.md").write_text("# Vmmem\n\nThe person's own.\n")
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "ops", stdin=BODY)
    assert run.code == 0, run.err
    assert run.out.strip() == "notes/ops/vmmem-2.md"
    assert (machine.root / "notes" / "ops" / "Vmmem.md").read_text().endswith("own.\n")


@pytest.mark.parametrize("directory", ["Wsl", "wsl"])
def test_a_folder_of_a_twin_pair_already_there_is_taken_as_it_is(
    machine: Machine, directory: str
) -> None:
    """With `Wsl/` and `wsl/` both there (a clone made on Linux), each refusal sent the person
    to the other name, which was refused in turn: no note could go in either."""
    (machine.root / "notes" / "Wsl").mkdir()
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", directory, stdin=BODY)
    assert run.code == 0, run.err
    assert run.out.strip() == f"notes/{directory}/vmmem.md"


def test_folders_that_only_casefold_alike_are_two_folders(machine: Machine) -> None:
    """`straße` casefolds to `strasse`, but Windows and macOS keep the two apart."""
    (machine.root / "notes" / "strasse").mkdir()
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "straße", stdin=BODY)
    assert run.code == 0, run.err
    assert run.out.strip() == "notes/straße/vmmem.md"


def test_a_folder_in_another_unicode_form_than_one_there_is_that_folder(machine: Machine) -> None:
    """`notes/cafe\u0301/` (made on a Mac) and `café` typed look the same: the refusal said
    to write it as it is there, which no one can type apart; a second folder would be one
    with the first on macOS."""
    (machine.root / "notes" / "cafe\u0301").mkdir()
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "caf\u00e9", stdin=BODY)
    assert run.code == 0, run.err
    assert run.out.strip() == "notes/cafe\u0301/vmmem.md"
    assert not (machine.root / "notes" / "caf\u00e9").exists()


def test_a_folder_in_another_case_and_unicode_form_is_refused(machine: Machine) -> None:
    (machine.root / "notes" / "cafe\u0301").mkdir()
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "CAF\u00c9", stdin=BODY)
    assert run.code == 2, run.err
    assert "case and Unicode form are ignored there" in run.err
    assert not (machine.root / "notes" / "CAF\u00c9").exists()


def test_a_twin_made_while_remember_waited_for_the_lock_is_refused(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder was looked at before remember.lock was taken: a remember of `--dir Wsl`
    waiting on one of `--dir wsl` found no twin, then made `notes/Wsl/` beside `notes/wsl/`."""
    import contextlib
    from collections.abc import Generator

    from memidx.memory import remember as remembering
    from memidx.memory.queued_note import RememberQueued

    real = remembering.in_turn

    @contextlib.contextmanager
    def the_other_first(lock: Path, wait: float) -> Generator[RememberQueued | None]:
        with real(lock, wait) as held:
            (machine.root / "notes" / "ops").mkdir()  # the other remember's folder
            yield held

    monkeypatch.setattr(remembering, "in_turn", the_other_first)
    config = load_config(machine.root, env={"MEMIDX_ROOT": str(machine.root)})
    with pytest.raises(UsageError, match="notes/ops is there already"):
        remembering.remember(config, "Vmmem", BODY, directory="Ops")
    assert not (machine.root / "notes" / "Ops").exists()


def test_the_same_note_beside_a_file_in_another_case_is_the_note_there(machine: Machine) -> None:
    """With `vmmem.md` remembered and a person's `Vmmem.md` added beside it, the same note
    remembered again skipped `vmmem.md` without looking at it and committed a twin."""
    first = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "ops", stdin=BODY)
    assert first.code == 0 and first.out.strip() == "notes/ops/vmmem.md", first.err
    (machine.root / "notes" / "ops" / "Vmmem.md").write_text("# Vmmem\n\nThe person's own.\n")
    again = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "ops", stdin=BODY)
    assert again.code == 0, again.err
    assert again.out.strip() == "notes/ops/vmmem.md"
    assert not (machine.root / "notes" / "ops" / "vmmem-2.md").exists()


def test_a_folder_refused_by_its_name_is_refused_while_another_remember_holds_the_lock(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the folder was looked at under remember.lock only, `--dir ../x` beside a
    remember holding the lock waited its 30 s and failed as a lock held, not as the usage
    error (exit 2) it is."""
    from memidx.memory import remember as remembering
    from memidx.memory.pending_notes import LOCK
    from memidx.portable import file_lock

    monkeypatch.setattr(remembering, "LOCK_WAIT", 0.2)
    config = load_config(machine.root, env={"MEMIDX_ROOT": str(machine.root)})
    with file_lock(config.state_dir / LOCK, timeout=1.0) as taken:  # another remember's
        assert taken
        with pytest.raises(UsageError, match="must be a relative folder"):
            remembering.remember(config, "Vmmem", BODY, directory="../x")

"""git that memidx cannot run, or that dies under it: none on PATH, a git killed by a signal in
the middle of a commit, the memory's folder removed between two of memidx's git commands. Each
command says so in one line with exit code 1 (no traceback, no git words naming the wrong
cause), leaves HEAD, the note and the index as they were (or the commit whole), and never makes
the removed folder again; an agent's hook exits 0 and leaves the line in its trace."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.helpers import NotesRepo, Run

TURN = json.dumps({"user": "what caps vmmem on WSL", "assistant": "a .wslconfig limit caps it"})
BODY = "The espresso machine needs descaling.\n"


def memory(repo: NotesRepo) -> NotesRepo:
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it", ["windows"])
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    return repo


def shared(repo: NotesRepo, tmp_path: Path) -> NotesRepo:
    """`memory`, with a bare remote it pushed to and a turn filed (share has work to do)."""
    memory(repo)
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "-u", "origin", "main")
    assert repo.memidx("file-turn", stdin=TURN).code == 0
    return repo


def wrapped_git(tmp_path: Path, at: str, action: str) -> str:
    """A PATH whose `git` runs the real one, but first does `action` when `at` is among its
    arguments: `kill` (SIGKILLs itself, as a killed git dies) or `remove` (deletes the memory's
    folder, $GONE_ROOT, and runs git there)."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "git"
    does = {"kill": 'kill -KILL "$$"', "remove": 'rm -rf -- "$GONE_ROOT"'}[action]
    script.write_text(
        "#!/bin/sh\n"
        f'for word in "$@"; do [ "$word" = {at} ] && {{ {does}; break; }}; done\n'
        f'exec {real} "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def one_error(run: Run) -> str:
    """The one line a failed command printed, checked to be its only one."""
    assert run.code == 1, (run.code, run.out, run.err)
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memidx: error: "), run.err
    assert "Traceback" not in run.err
    return lines[0]


def untouched(repo: NotesRepo, head: str) -> None:
    """HEAD as it was, git's objects whole, the index in step with HEAD."""
    assert repo.git("rev-parse", "HEAD").strip() == head
    repo.git("fsck", "--no-dangling")
    status = repo.memidx_process("status", "--json")
    assert status.code == 0, status.err
    assert status.json()["healthy"], status.out
    assert not any(status.json()["drift"].values()), status.out


COMMANDS = {
    "remember": (("remember", "--title", "Descaling"), BODY),
    "forget": (("forget", "notes/wsl.md"), None),
    "share": (("share",), None),
    "file-turn": (("file-turn",), TURN.replace("vmmem", "the vmmem process")),  # a new one
    "archive-transcript": (("archive-transcript", "-"), "a transcript\n"),
    "status": (("status",), None),
}


@pytest.mark.parametrize(
    ("command", "haystack"),
    [
        ("remember", True),
        ("forget", True),
        ("share", True),
        ("status", True),
        ("file-turn", False),  # the first filing looks for segments git holds
        ("archive-transcript", False),  # (a second one needs no git: it commits nothing)
    ],
)
def test_a_command_without_git_on_path_says_so_in_one_line(
    repo: NotesRepo, tmp_path: Path, command: str, haystack: bool
) -> None:
    if haystack:
        shared(repo, tmp_path)
    else:
        memory(repo)
    head, before = repo.git("rev-parse", "HEAD").strip(), repo.git("status", "--porcelain")
    nothing = tmp_path / "empty"
    nothing.mkdir()
    args, stdin = COMMANDS[command]

    run = repo.memidx_process(*args, stdin=stdin, PATH=str(nothing))

    line = one_error(run)
    assert "cannot run git: no git on PATH (install git and put it on PATH)" in line, line
    assert repo.git("status", "--porcelain") == before  # nothing half-written
    assert (repo.root / "notes" / "haystack").is_dir() == haystack
    untouched(repo, head)


def test_a_search_without_git_on_path_answers_from_the_index(
    repo: NotesRepo, tmp_path: Path
) -> None:
    memory(repo)
    nothing = tmp_path / "empty"
    nothing.mkdir()

    run = repo.memidx_process("search", "--json", "vmmem", PATH=str(nothing))

    assert run.code == 0, run.err
    assert run.json()["hits"][0]["ref"] == "notes/wsl.md"


@pytest.mark.parametrize(
    ("command", "undone"),
    [
        ("remember", "notes/descaling.md was not committed"),
        ("forget", "notes/wsl.md was not forgotten"),
        ("share", "were not committed"),
    ],
)
def test_a_git_killed_at_commit_tree_leaves_head_and_the_index_as_they_were(
    repo: NotesRepo, tmp_path: Path, command: str, undone: str
) -> None:
    shared(repo, tmp_path)
    head = repo.git("rev-parse", "HEAD").strip()
    args, stdin = COMMANDS[command]

    run = repo.memidx_process(*args, stdin=stdin, PATH=wrapped_git(tmp_path, "commit-tree", "kill"))

    line = one_error(run)
    assert undone in line and "git commit-tree was killed by SIGKILL" in line, line
    assert line.endswith("(nothing was committed; try again)"), line
    untouched(repo, head)
    assert (repo.root / "notes" / "wsl.md").is_file()  # forget's note stays


def test_a_git_killed_at_update_ref_leaves_the_forgotten_note_in_head(
    repo: NotesRepo, tmp_path: Path
) -> None:
    memory(repo)
    head = repo.git("rev-parse", "HEAD").strip()

    run = repo.memidx_process(
        "forget", "notes/wsl.md", PATH=wrapped_git(tmp_path, "update-ref", "kill")
    )

    assert "notes/wsl.md was not forgotten" in one_error(run)
    untouched(repo, head)
    assert (repo.root / "notes" / "wsl.md").is_file()
    assert not repo.git("status", "--porcelain", "--", "notes/").strip()


REMOVED = "is gone (deleted or moved away), so git cannot run in it"


@pytest.mark.parametrize(
    ("command", "at"),
    [
        ("remember", "rev-parse"),  # memidx's commit's first git: a traceback (CommandFailed)
        ("remember", "cat-file"),  # before the note is kept: "make that folder writable", and
        # the note written made the memory's folder again (notes/descaling.md alone)
        ("forget", "rev-parse"),  # forget's look at HEAD: "no note notes/wsl.md in memory"
        ("forget", "cat-file"),
        ("remember", "write-tree"),  # said "changed before its commit"
        ("remember", "reset"),  # an OSError naming the folder alone
        ("forget", "commit-tree"),  # said "HEAD moved while notes/wsl.md was being forgotten"
        ("file-turn", "ls-tree"),  # "the record was not filed: .memidx/haystack.lock.last
        # cannot be written: No such file or directory (check that file and its folder...)"
        ("share", "fetch"),  # "cannot run git: ... PosixPath(...) (install git ...)"
        ("share", "push"),  # git's "Unable to read current working directory"
        ("status", "rev-parse"),  # git's "cannot change to ..."
    ],
)
def test_the_memory_removed_between_two_git_commands_is_said_in_one_line(
    repo: NotesRepo, tmp_path: Path, command: str, at: str
) -> None:
    shared(repo, tmp_path)
    args, stdin = COMMANDS[command]

    run = repo.memidx_process(
        *args, stdin=stdin, PATH=wrapped_git(tmp_path, at, "remove"), GONE_ROOT=str(repo.root)
    )

    line = one_error(run)
    assert f"the memory's folder {repo.root} {REMOVED}" in line, line
    assert not repo.root.exists()  # never made again


def test_an_agent_hook_fails_open_when_the_memory_is_removed_under_it(
    repo: NotesRepo, tmp_path: Path
) -> None:
    memory(repo)
    transcript = tmp_path / "session.jsonl"
    said = [
        {"type": "user", "message": {"role": "user", "content": "what caps vmmem"}},
        {"type": "assistant", "message": {"role": "assistant", "content": "a .wslconfig cap"}},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in said))
    hook_input = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    state = tmp_path / "state"

    run = repo.memidx_process(
        "-C", str(repo.root), "agent", "hook", "claude-code", "Stop",
        stdin=json.dumps({**hook_input, "hook_event_name": "Stop"}),
        PATH=wrapped_git(tmp_path, "ls-files", "remove"), GONE_ROOT=str(repo.root),
        XDG_STATE_HOME=str(state),
    )  # fmt: skip

    assert (run.code, run.out, run.err) == (0, "", "")
    assert not repo.root.exists()  # its state folder, a new index and the trace: never made
    traces = list(state.glob("memidx/traces/*/agent-hook-error.log"))
    assert len(traces) == 1, traces
    last = traces[0].read_text().splitlines()[-1]
    assert f"claude-code Stop\tGitError: the memory's folder {repo.root} {REMOVED}" in last, last

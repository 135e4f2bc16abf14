"""memidx's own hold of `.git/index.lock` must not make a person's git fail. memidx held it from
just before HEAD's move until its follow (`git reset -q <new> -- <paths>` on a copy of git's
index) had run and the copy was renamed over the index: a person's `git add`, `git commit` or
`git merge` with a dirty work tree in that while failed at once ("index.lock': File exists",
"fatal: stash failed"). The follow now runs on a copy made before the move, the lock held for
a rename (memidx.git.index_swap), and a person's git that takes the index and is running when
memidx would move is waited for.

The hold is made long here: a `git` first on PATH stops memidx's first `git reset` run on a
copy of the index (GIT_INDEX_FILE set), or its `git update-ref` (the move), until the test lets
it go; the person's git is the real one."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, NotesRepo, clean_env, started_memory

HOLDING_GIT = """#!/bin/sh
if [ ! -e "$MARK.held" ] && { [ "$HOLD" = update-ref ] || [ -n "$GIT_INDEX_FILE" ]; }; then
  case " $* " in *" $HOLD "*)
    : > "$MARK.held"
    i=0; while [ ! -e "$MARK.go" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done;;
  esac
fi
exec "$REAL_GIT" "$@"
"""
BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
NOTE = "notes/wsl-memory.md"
REAL_GIT = shutil.which("git") or "git"


def person(repo: NotesRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """The person's git (the real one, no shim), as at a terminal."""
    argv = [REAL_GIT, *GIT_IDENTITY, *args]
    return subprocess.run(
        argv, cwd=repo.root, env=clean_env(), capture_output=True, text=True, check=False
    )


def wait_for(path: Path, seconds: float = 60.0) -> bool:
    until = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < until:  # bounded by the time
        time.sleep(0.02)
    return path.exists()


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_a_person_s_add_commit_and_merge_pass_while_memidx_brings_the_index_along(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    repo.write("person/work.txt", "start\n")
    repo.commit("the person's file")
    person(repo, "switch", "-q", "-c", "side")
    repo.write("person/side.txt", "side\n")
    repo.commit("side")
    person(repo, "switch", "-q", "main")
    remember, mark = held_remember(tmp_path, repo)
    try:
        assert wait_for(Path(f"{mark}.held")), "memidx never ran its index's follow"
        repo.write("person/work.txt", "start\nedited\n")
        said = [person(repo, "add", "person/work.txt")]
        said.append(person(repo, "commit", "-q", "--no-verify", "-m", "the person's commit"))
        repo.write("person/work.txt", "start\nedited\nnot staged\n")  # a dirty work tree
        said.append(person(repo, "merge", "-q", "--no-verify", "--no-edit", "side"))
    finally:
        Path(f"{mark}.go").touch()
        out, err = remember.communicate(timeout=120)
    assert [done.stderr for done in said if done.returncode] == []
    assert remember.returncode == 0, err
    assert out.strip() == NOTE
    assert repo.git("ls-tree", "--name-only", "HEAD", "--", NOTE).strip() == NOTE
    subjects = repo.git("log", "-4", "--format=%s").splitlines()
    assert "the person's commit" in subjects and "Merge branch 'side'" in subjects, subjects
    assert repo.git("status", "--porcelain").strip() == "M person/work.txt"
    assert not (repo.root / ".git" / "index.lock").exists()
    assert [p.name for p in (repo.root / ".git").glob("memidx-*index")] == []


def held_remember(
    tmp_path: Path, repo: NotesRepo, hold: str = "reset"
) -> tuple[subprocess.Popen[str], Path]:
    """`memidx remember` started, stopped at its first `git <hold>` (HOLDING_GIT) until
    `<mark>.go` exists; with `mark`."""
    shim, mark = tmp_path / "bin", tmp_path / "mark"
    shim.mkdir()
    (shim / "git").write_text(HOLDING_GIT)
    (shim / "git").chmod(0o755)
    env = clean_env(
        MEMIDX_ROOT=str(repo.root), MARK=str(mark), REAL_GIT=REAL_GIT, HOLD=hold,
        PATH=f"{shim}{os.pathsep}{os.environ['PATH']}",
    )  # fmt: skip
    argv = [str(MEMIDX_BIN), "remember", "--title", "WSL memory"]
    (tmp_path / "body.md").write_text(BODY)
    with (tmp_path / "body.md").open() as body:
        remember = subprocess.Popen(
            argv, cwd=repo.root, env=env, stdin=body, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    return remember, mark


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
@pytest.mark.parametrize("hold", ["reset", "update-ref"])
def test_what_a_person_stages_while_memidx_brings_its_copy_along_stays_staged(
    tmp_path: Path, hold: str
) -> None:
    """git's index changed as memidx copied it or after (a `git add` of the person's, HEAD
    where it was): the copy stands for an index that is gone, so it is not renamed over it;
    the follow runs under the lock on the index as it is now."""
    repo = started_memory(tmp_path)
    remember, mark = held_remember(tmp_path, repo, hold)
    try:
        assert wait_for(Path(f"{mark}.held")), "memidx never ran its index's follow"
        repo.write("person.txt", "the person's work\n")
        added = person(repo, "add", "person.txt")
    finally:
        Path(f"{mark}.go").touch()
        out, err = remember.communicate(timeout=120)
    assert added.returncode == 0, added.stderr
    assert remember.returncode == 0, err
    assert out.strip() == NOTE
    assert repo.git("ls-tree", "--name-only", "HEAD", "--", NOTE).strip() == NOTE
    assert repo.git("status", "--porcelain").strip() == "A  person.txt"
    assert repo.git("show", ":person.txt") == "the person's work\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_memidx_waits_for_a_person_s_git_add_before_it_takes_the_index(tmp_path: Path) -> None:
    """A `git add` of the person's is running (a shell through a link named `git`: `git -c
    <script> add` in the process table, which ends after a while); memidx moves HEAD, and takes
    git's index, once it has ended (the clone's reference-transaction hook says which)."""
    repo = started_memory(tmp_path)
    ended, seen = tmp_path / "add-ended", tmp_path / "seen"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(
        "#!/bin/sh\n"
        '[ "$1" = committed ] && grep -q " HEAD$" || exit 0\n'
        f'if [ -e "{ended}" ]; then echo after >>"{seen}"; else echo before >>"{seen}"; fi\n'
    )
    hook.chmod(0o755)
    link = tmp_path / "adding" / "git"
    link.parent.mkdir()
    link.symlink_to("/bin/sh")
    adding = subprocess.Popen(
        [str(link), "-c", f'sleep 4; : > "{ended}"', "add", "person.txt"], cwd=repo.root
    )
    try:
        said = repo.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    finally:
        adding.wait(timeout=30)
    assert said.code == 0, said.err
    assert seen.read_text().split() == ["after"]


LOGGING_GIT = """#!/bin/sh
if [ -e "$GIT_DIR_AT/index.lock" ]; then held=held; else held=free; fi
echo "$1 $held" >> "$LOG"
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
def test_no_git_runs_while_memidx_holds_the_index_for_its_move(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move's follow ran `git reset` under index.lock (~10-50 ms at a load of ~20); it runs
    on a copy before the move now, and the lock is held for a rename."""
    from memidx.git.publish import DONE, move_head

    repo.note("welcome.md", "Welcome", "the shared memory")
    old = repo.commit("notes")
    ref = repo.note("agent.md", "Agent's note", "remembered")
    temp = {"GIT_INDEX_FILE": str(tmp_path / "temp-index")}  # the person's index untouched
    for args in (("read-tree", old), ("add", ref)):
        subprocess.run(["git", *args], cwd=repo.root, env=clean_env(**temp), check=True)
    tree = subprocess.run(
        ["git", "write-tree"], cwd=repo.root, env=clean_env(**temp), capture_output=True,
        text=True, check=True,
    ).stdout.strip()  # fmt: skip
    new = repo.git(*GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "agent").strip()
    shim, log = tmp_path / "bin", tmp_path / "ran.log"
    shim.mkdir()
    (shim / "git").write_text(LOGGING_GIT)
    (shim / "git").chmod(0o755)
    git_dir = repo.root / ".git"
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    for name, value in (("LOG", log), ("REAL_GIT", REAL_GIT), ("GIT_DIR_AT", git_dir)):
        monkeypatch.setenv(name, str(value))
    follow = ("reset", "-q", new, "--", f":(literal){ref}")

    moved = move_head(repo.root, git_dir, new, old, "memidx: test", then=follow, ready=follow)

    assert moved == DONE
    assert [line for line in log.read_text().splitlines() if line.endswith(" held")] == []
    assert repo.git("rev-parse", "HEAD").strip() == new
    assert repo.git("status", "--porcelain", "--", "notes").strip() == ""
    assert not (git_dir / "index.lock").exists()
    assert [p.name for p in git_dir.glob("memidx-*index")] == []

"""What index_follow puts back after a switch back at its take-out (memidx/git/index_follow.py,
tests/cli/test_switch_back_at_the_take_out.py) never costs the person anything: a person's
`git commit` holding git's index at that moment is waited for, as memidx's own index update
waits (it was a `memidx: error` at once, the note left staged for deletion on main), and a file
the person writes at the note's path just before the put-back stays as they wrote it (git's
`checkout HEAD -- path` overwrote it)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli.test_switch_at_the_move import BODY, NOTE, machine_with_a_side_branch
from tests.cli.test_switch_back_at_the_take_out import SWITCHING_BACK_GIT
from tests.git_shims import shim_env
from tests.helpers import clean_env
from tests.machines import Machine

# after the switch back at memidx's `git rm`, as memidx puts the note back: another git
# holds the index for a second
LOCKING = """case "$*" in
  *ls-tree*HEAD*) if [ -e "$MARK.back" ] && [ ! -e "$MARK.locked" ]; then
    : > "$MARK.locked"; : > "$GIT_LOCK"; (sleep 1; rm -f "$GIT_LOCK") &
  fi ;;
esac
"""
# the person's file, written at the note's path the instant before memidx puts the note back
WRITING = """case "$*" in
  *checkout*|*update-index*) [ -e "$MARK.back" ] && [ ! -e "$MARK.written" ] && \
    : > "$MARK.written" && eval "$PERSON" ;;
esac
"""


def _remember(tmp_path: Path, first: str, **env: str) -> tuple[int, str, Machine]:
    machine = machine_with_a_side_branch(tmp_path)
    shimmed = shim_env(
        tmp_path / "bin",
        SWITCHING_BACK_GIT.replace("#!/bin/sh\n", "#!/bin/sh\n" + first),
        machine.env["PATH"],
    )
    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY,
        **shimmed, MARK=str(tmp_path / "switched"),
        GIT_LOCK=str(machine.root / ".git" / "index.lock"),
        PERSONS_FILE=str(machine.root / NOTE), **env,
    )  # fmt: skip
    return said.code, said.err, machine


def test_a_commit_holding_the_index_at_the_put_back_is_waited_for(tmp_path: Path) -> None:
    code, err, machine = _remember(tmp_path, LOCKING)
    assert Path(f"{tmp_path / 'switched'}.locked").exists()  # the lock was held
    assert code == 0 and "Traceback" not in err, err
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize(
    "person",
    ["printf 'mine\\n' > \"$PERSONS_FILE\"", 'ln -s else "$PERSONS_FILE"', 'mkdir "$PERSONS_FILE"'],
)
def test_what_a_person_puts_at_the_path_before_the_put_back_is_kept(
    tmp_path: Path, person: str
) -> None:
    code, err, machine = _remember(tmp_path, WRITING, PERSON=person)
    assert Path(f"{tmp_path / 'switched'}.written").exists()
    assert code == 0 and "Traceback" not in err, err
    status = machine.git("status", "--porcelain")  # main's note staged as it was: never `D `
    assert status.startswith(" ") and status.endswith(f" {NOTE}\n"), status
    path = machine.root / NOTE
    if person.startswith("printf"):
        assert path.read_text() == "mine\n"
    else:
        assert path.is_symlink() if person.startswith("ln") else path.is_dir()


# the person's file, written at the note's path as memidx looks at it for the put-back (an
# editor saving the buffer it had open): it is not written over, and main's note is not left
# staged for deletion under it for the person's next commit (`D  notes/x.md`, `?? notes/x.md`)
EARLY = """case "$*" in
  *ls-tree*HEAD*) [ -e "$MARK.back" ] && [ ! -e "$MARK.written" ] && \
    : > "$MARK.written" && eval "$PERSON" ;;
esac
"""


@pytest.mark.parametrize(
    ("person", "status"),
    [
        ("printf 'mine\\n' > \"$PERSONS_FILE\"", f" M {NOTE}\n"),
        # the person's own restore of main's note (index and file): theirs stands, as it is
        ('"$REAL_GIT" restore -q --source=HEAD -SW -- "$PERSONS_FILE"', ""),
    ],
)
def test_what_a_person_does_before_the_look_keeps_main_s_note_staged(
    tmp_path: Path, person: str, status: str
) -> None:
    code, err, machine = _remember(tmp_path, EARLY, PERSON=person)
    assert Path(f"{tmp_path / 'switched'}.written").exists()
    assert code == 0 and "Traceback" not in err, err
    assert machine.git("status", "--porcelain", "--untracked-files=all") == status
    if status:
        assert (machine.root / NOTE).read_text() == "mine\n"
    else:
        assert (machine.root / NOTE).read_text(encoding="utf-8").endswith(BODY)


def test_the_hint_when_the_index_stays_held_keeps_the_person_s_file(tmp_path: Path) -> None:
    """git's index held past the put-back's wait: the hint said `git checkout HEAD -- path`,
    which wrote main's note over the file the person put at its path (kept by the put-back).
    What it says now, run once that git ends, puts the note back in git's index alone."""
    import re
    import subprocess
    import time

    from memidx.errors import GitError
    from memidx.git.index_follow import _put_back  # pyright: ignore[reportPrivateUsage]
    from memidx.git.plumbing import Plumbing
    from tests.helpers import NotesRepo

    repo = NotesRepo(tmp_path / "memory")
    repo.write(NOTE, "# WSL memory\n\n" + BODY)
    repo.commit("the note")
    repo.git("rm", "-q", "--cached", NOTE)  # as the take-out left it on main
    (repo.root / NOTE).write_text("mine\n")
    blob = repo.git("rev-parse", f"HEAD:{NOTE}").strip()
    lock = repo.root / ".git" / "index.lock"
    lock.touch()  # another git's, past the wait
    with pytest.raises(GitError) as raised:
        _put_back(Plumbing(repo.root), NOTE, blob, done="committed", deadline=time.monotonic())
    lock.unlink()
    said = re.fullmatch(r"run `([^`]+)`.*", raised.value.hint)
    assert said, raised.value.hint
    subprocess.run(said[1], shell=True, cwd=repo.root, check=True, env=clean_env())
    assert (repo.root / NOTE).read_text() == "mine\n"
    assert repo.git("status", "--porcelain") == f" M {NOTE}\n"


def test_a_put_back_git_refused_says_what_git_said(tmp_path: Path) -> None:
    """git's update-index failing for another reason than its index held (a broken index):
    memidx said "git's index stayed held", and to wait for another git, which none was."""
    import time

    from memidx.errors import GitError
    from memidx.git.index_follow import _put_back  # pyright: ignore[reportPrivateUsage]
    from memidx.git.plumbing import Plumbing
    from tests.helpers import NotesRepo

    repo = NotesRepo(tmp_path / "memory")
    repo.write(NOTE, "# WSL memory\n\n" + BODY)
    repo.commit("the note")
    repo.git("rm", "-q", "--cached", NOTE)  # as the take-out left it on main
    blob = repo.git("rev-parse", f"HEAD:{NOTE}").strip()
    (repo.root / ".git" / "index").write_bytes(b"DIRC broken")
    with pytest.raises(GitError) as raised:
        _put_back(Plumbing(repo.root), NOTE, blob, done="committed", deadline=time.monotonic())
    said = str(raised.value)
    assert "stayed held" not in said, said
    assert (
        f"failed (fatal: {repo.root / '.git' / 'index'}: index file smaller than expected)" in said
    ), said
    assert "once what git said is fixed" in raised.value.hint
    assert not (repo.root / ".git" / "index.lock").exists()


# the person's own file at the note's path, staged (`git add`) in the instant between memidx's
# look at git's index (nothing there) and its put-back of main's entry
STAGING = """case "$*" in
  *update-index*) if [ -e "$MARK.back" ] && [ ! -e "$MARK.written" ]; then
    : > "$MARK.written"; printf 'mine\\n' > "$PERSONS_FILE"
    if env -u GIT_INDEX_FILE "$REAL_GIT" add -- "$PERSONS_FILE" 2>/dev/null; then
      : > "$MARK.added"
    else  # refused while memidx holds git's index: the person tries again
      ( i=0; until env -u GIT_INDEX_FILE "$REAL_GIT" add -- "$PERSONS_FILE" 2>/dev/null; do
          i=$((i + 1)); [ $i -ge 100 ] && exit 1; sleep 0.05; done; : > "$MARK.added"
      ) >/dev/null 2>&1 &
    fi
  fi ;;
esac
"""


def test_what_a_person_stages_as_the_note_is_put_back_stays_staged(tmp_path: Path) -> None:
    """memidx's `update-index --cacheinfo` wrote main's entry over the one the person had just
    staged (`git status`: ` M`, their `git add` undone): the put-back now looks and writes
    under git's own index lock, so the person's `git add` comes before it (and is kept), or
    is refused ("index.lock: File exists") and comes after it."""
    code, err, machine = _remember(tmp_path, STAGING)
    for _ in range(100):  # refused while memidx held git's index, the person's add is retried
        if Path(f"{tmp_path / 'switched'}.added").exists():
            break
        time.sleep(0.1)
    assert Path(f"{tmp_path / 'switched'}.added").exists()
    assert code == 0 and "Traceback" not in err, err
    assert machine.git("status", "--porcelain", "--untracked-files=all") == f"M  {NOTE}\n"
    assert machine.git("show", f":{NOTE}") == "mine\n"
    assert (machine.root / NOTE).read_text() == "mine\n"

"""A `forget` whose commit fails while HEAD is elsewhere for a moment (a rebase or am starting
writes HEAD before its checkout follows): HEAD's commit had no note, so the deleted file was
not put back, while git's index still held it. Once HEAD was back, `git status` showed
` D notes/x.md`, for the person's next `git commit -a` to forget the note after all."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.test_pending_switch import BODY, SWITCHING_GIT
from tests.machines import Machine, clone, hook_env, make_template

# at memidx's first read-tree, HEAD is moved to the commit before the note, the index left
# as it was (as a rebase writes HEAD before it checks that commit out)
MOVING_GIT = SWITCHING_GIT.replace("commit-tree", "read-tree").replace(
    "switch -q -c side HEAD~1", "update-ref --no-deref HEAD HEAD~1"
)


def test_a_forget_failed_while_head_was_elsewhere_puts_the_note_back(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    note = machine.root / "notes" / "first.md"
    note.write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(MOVING_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git", path=env["PATH"])
    assert real is not None
    mark = tmp_path / "moved"

    said = machine.memidx_process(
        "forget", "notes/first.md", PATH=f"{shim}:{env['PATH']}", REAL_GIT=real,
        SWITCH_MARK=str(mark),
    )  # fmt: skip

    assert mark.exists() and said.code == 1, said.out + said.err
    assert len(said.err.splitlines()) == 1 and "was not forgotten" in said.err, said.err
    machine.git("symbolic-ref", "HEAD", "refs/heads/main")  # that command gave up: HEAD back
    assert machine.git("status", "--porcelain") == ""  # was ` D notes/first.md`
    assert note.read_text() == "---\ntitle: First\n---\n\n" + BODY

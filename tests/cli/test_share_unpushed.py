"""`memidx share` after it moved this clone's remembered note beside the remote's twin, when the
push then fails (the remote's hook declines it, the remote cannot be reached): nothing is lost,
the error says what to do, and the next share pushes what is there without a second move or a
duplicate note."""

from __future__ import annotations

from pathlib import Path

from tests.machines import Machine, clone, hook_env, make_template

MOVED = {"from": "notes/build-cache.md", "to": "notes/build-cache-2.md"}


def remembered(machine: Machine, body: str) -> None:
    run = machine.memidx_process("remember", "--title", "Build cache", stdin=body + "\n")
    assert run.code == 0, run.err


def notes_at(machine: Machine, commit: str) -> list[str]:
    out = machine.git("ls-tree", "-r", "--name-only", commit, "--", "notes/")
    return [ref for ref in out.splitlines() if ref.startswith("notes/build-cache")]


def test_a_share_whose_push_fails_after_the_move_loses_nothing_and_the_next_completes_it(
    tmp_path: Path,
) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    bare = make_template(tmp_path, env)
    a, b = clone(bare, tmp_path / "a", env), clone(bare, tmp_path / "b", env)
    remembered(a, "alpha cache layers")
    remembered(b, "bravo cache layers")
    assert a.memidx_process("share").code == 0
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch: no pushes' >&2\nexit 1\n")
    hook.chmod(0o755)

    declined = b.memidx_process("share", "--json")

    assert declined.code == 1, declined.out + declined.err
    assert "this clone's is now notes/build-cache-2.md" in declined.err
    error = declined.err.strip().splitlines()[-1]
    assert "pre-receive hook declined" in error and "make sync" in error, error
    assert "notes/build-cache-2.md" in error, error  # what the clone holds, unpushed
    both = ["notes/build-cache-2.md", "notes/build-cache.md"]
    assert notes_at(b, "HEAD") == both
    assert "bravo" in (b.root / "notes/build-cache-2.md").read_text()
    assert "alpha" in (b.root / "notes/build-cache.md").read_text()
    assert b.git("status", "--porcelain") == ""

    hook.unlink()
    b.git("config", "remote.origin.pushurl", str(tmp_path / "gone.git"))  # unreachable
    offline = b.memidx_process("share")
    assert offline.code == 1 and "make sync" in offline.err.strip().splitlines()[-1]
    b.git("config", "--unset", "remote.origin.pushurl")

    again = b.memidx_process("share", "--json")
    assert again.code == 0, again.out + again.err
    assert again.json()["renamed"] == []
    assert notes_at(b, "HEAD") == both
    assert notes_at(b, "origin/main") == both
    assert a.memidx_process("share").code == 0
    assert notes_at(a, "HEAD") == both
    moves = b.git("log", "--format=%s", "--grep=^memidx share: ", "HEAD")
    assert len(moves.splitlines()) == 1, moves

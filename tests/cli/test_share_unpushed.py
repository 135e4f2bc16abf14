"""`memidx share` after it moved this clone's remembered note beside the remote's twin, when the
push then fails (the remote's hook declines it, the remote cannot be reached): nothing is lost,
the error says what to do, and the next share pushes what is there without a duplicate note,
even when the remote got another remembered twin under the moved note's new name meanwhile."""

from __future__ import annotations

from pathlib import Path

from tests.machines import Machine, clone, hook_env, make_template


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
    hook.write_text(  # declines B's pushes only: A's go on
        '#!/bin/sh\n[ -z "${DECLINE:-}" ] && exit 0\necho "protected branch" >&2\nexit 1\n'
    )
    hook.chmod(0o755)

    declined = b.memidx_process("share", DECLINE="1")

    assert declined.code == 1, declined.out + declined.err
    assert "this clone's is now notes/build-cache-2.md" in declined.err
    error = declined.err.strip().splitlines()[-1]
    assert "pre-receive hook declined" in error and "memidx share" in error, error  # no Makefile
    assert "notes/build-cache-2.md" in error, error  # what the clone holds, unpushed
    both = ["notes/build-cache-2.md", "notes/build-cache.md"]
    assert notes_at(b, "HEAD") == both
    assert "bravo" in (b.root / "notes/build-cache-2.md").read_text()
    assert "alpha" in (b.root / "notes/build-cache.md").read_text()
    assert b.git("status", "--porcelain") == ""

    b.git("config", "remote.origin.pushurl", str(tmp_path / "gone.git"))  # unreachable
    offline = b.memidx_process("share")
    assert offline.code == 1 and "memidx share" in offline.err.strip().splitlines()[-1]
    b.git("config", "--unset", "remote.origin.pushurl")
    remembered(a, "charlie cache layers")  # A's build-cache-2.md, pushed first
    assert a.memidx_process("share").code == 0

    again = b.memidx_process("share", "--json")

    assert again.code == 0, again.out + again.err
    assert again.json()["renamed"] == [
        {"from": "notes/build-cache-2.md", "to": "notes/build-cache-2-2.md"}
    ]
    three = [*both, "notes/build-cache-2-2.md"]  # named as any twin of build-cache-2 is
    assert sorted(notes_at(b, "HEAD")) == notes_at(b, "origin/main") == sorted(three)
    assert a.memidx_process("share").code == 0
    words = [(a.root / ref).read_text().split("\n\n", 1)[1].strip() for ref in sorted(three)]
    assert words == ["bravo cache layers", "charlie cache layers", "alpha cache layers"]

"""`git clean -fd` removes uncommitted haystack segments (untracked files): search drops the
hits that pointed into them at once, status says what was lost, and the next sync writes the
clone's own back from its copy (.memidx/kept/)."""

from __future__ import annotations

from pathlib import Path

from tests.machines import Machine, clone, hook_env, make_template


def test_git_clean_leaves_no_ghost_hits_and_sync_brings_the_turn_back(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    filed = machine.memidx_process("file-turn", stdin='{"text": "the ghostly build cache turn"}')
    assert filed.code == 0, filed.err
    assert machine.memidx("search", "--json", "--mode", "bm25", "ghostly").json()["count"] == 1

    machine.git("clean", "-fdq")

    found = machine.memidx("search", "--json", "--mode", "bm25", "ghostly").json()
    assert found["count"] == 0 and found["hits"] == []
    assert any("gone from disk" in w and "memidx sync" in w for w in found["warnings"])
    status = machine.memidx("status")
    assert status.code == 1
    assert "1 record in 1 segment gone from disk" in status.out, status.out
    assert machine.memidx("sync").code == 0
    after = machine.memidx("search", "--json", "--mode", "bm25", "ghostly").json()
    assert after["count"] == 1 and after["warnings"] == []
    assert machine.memidx("status").code == 0

"""`memidx agent install|status` of Codex CLI where a review of the wt-r3agents merge broke
it. In-process, on real files and real git work trees in a throwaway HOME."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_agent_install_review3 import codex_servers, codex_status, installed_codex
from tests.helpers import GIT_IDENTITY, clean_env, run_in_process


def _git(cwd: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", *GIT_IDENTITY, *args], cwd=cwd, env=clean_env(), check=True)


def _worktree(user_home: Path, name: str) -> tuple[Path, Path]:
    """A repository `project` in `user_home` with one commit, and its linked work tree `name`
    on branch topic: both their paths."""
    main, tree = user_home / "project", user_home / name
    main.mkdir()
    _git(main, "init", "-q", "-b", "main")
    _git(main, "commit", "-q", "--allow-empty", "-m", "start")
    _git(main, "worktree", "add", "-q", "-b", "topic", str(tree))
    return main, tree


def test_a_worktree_of_a_project_codex_trusts_is_not_said_untrusted(user_home: Path) -> None:
    """Codex 0.171.0 reads the MCP servers of a `git worktree`'s .codex/ when the user trusts
    its main work tree: install warned `... is not trusted yet`, and status called memidx's
    server there not started, which `codex mcp list` listed. Its hooks Codex takes from the
    main work tree's .codex/hooks.json, never the worktree's (`codex exec` ran those alone):
    install says so, and status names that file as what switches the worktree's off."""
    main, tree = _worktree(user_home, "project-topic")
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    user.write_text(f'[projects."{main.resolve()}"]\ntrust_level = "trusted"\n')

    done = run_in_process(tree, "agent", "install", "codex")

    assert done.code == 0 and "not trusted" not in done.err, done.err
    hooks = main / ".codex" / "hooks.json"
    assert f"in a git worktree Codex CLI runs the hooks of {hooks}, never those of" in done.err
    found = codex_status(tree)
    assert found[str(tree / ".codex" / "hooks.json")]["hooks_off"] == str(hooks)
    assert found[str(tree / ".codex" / "config.toml")]["installed"] == ["MCP server memidx"]
    assert codex_servers(tree) in (None, ["memidx"])
    user.write_text("")  # nothing trusted: said again
    assert "is not trusted yet" in run_in_process(tree, "agent", "install", "codex").err


def test_codex_block_whose_markers_an_editor_indented_is_still_memidx_s(user_home: Path) -> None:
    """An editor indented both marker lines of memidx's block in config.toml: the end one was
    read so, the begin one not: install refused (`already has an [mcp_servers.memidx] that
    memidx did not add`) and uninstall said `unchanged`, leaving memidx's server there."""
    project, toml = installed_codex(user_home)
    toml.write_text(toml.read_text().replace("# >>>", "  # >>>").replace("# <<<", "\t# <<<"))

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")
    assert done.code == 0 and not toml.exists(), done.out + done.err


def test_the_main_work_tree_of_a_worktree_keeps_its_codex_hooks_on(user_home: Path) -> None:
    """Only a linked work tree's hooks are another's: the main one's run (trusted)."""
    main, _ = _worktree(user_home, "topic")
    (user_home / ".codex").mkdir()
    (user_home / ".codex" / "config.toml").write_text(
        f'[projects."{main.resolve()}"]\ntrust_level = "trusted"\n'
    )

    done = run_in_process(main, "agent", "install", "codex")

    assert done.code == 0 and "worktree" not in done.err, done.err
    assert codex_status(main)[str(main / ".codex" / "hooks.json")]["hooks_off"] is None


def test_a_worktree_marked_untrusted_in_a_trusted_repository_is_said_untrusted(
    user_home: Path,
) -> None:
    """Codex 0.171.0 takes a linked work tree's own trust_level before its main work tree's:
    marked untrusted, it reads no .codex/ there (`codex mcp list` listed none), while install
    warned of nothing and status called memidx's server there installed."""
    main, tree = _worktree(user_home, "project-topic")
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    user.write_text(
        f'[projects."{main.resolve()}"]\ntrust_level = "trusted"\n'
        f'[projects."{tree.resolve()}"]\ntrust_level = "untrusted"\n'
    )

    done = run_in_process(tree, "agent", "install", "codex")

    assert done.code == 0 and "marks the project untrusted" not in done.err, done.err
    assert f'marks {tree} so (trust_level = "untrusted")' in done.err, done.err
    found = codex_status(tree)
    said = found[str(tree / ".codex" / "config.toml")]["installed"]
    assert said == [
        f"MCP server memidx (not started: {user} marks the project untrusted, so"
        " Codex reads no .codex/)"
    ], said
    assert codex_servers(tree) in (None, [])


def test_a_worktree_of_a_repository_marked_untrusted_is_said_marked(user_home: Path) -> None:
    """A linked work tree with no trust_level of its own in a repository marked untrusted:
    Codex takes the main work tree's mark, and `codex exec --trust` does not override it, but
    install said the worktree was "not trusted yet", to trust it when Codex asks or with
    `codex exec --trust`, and status that Codex did not trust it, as if never asked."""
    main, tree = _worktree(user_home, "project-topic")
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    user.write_text(f'[projects."{main.resolve()}"]\ntrust_level = "untrusted"\n')

    done = run_in_process(tree, "agent", "install", "codex")

    assert done.code == 0 and "not trusted yet" not in done.err, done.err
    assert (
        f'{user} marks {main.resolve()} so (trust_level = "untrusted", whose worktree'
        f" {tree.resolve()} has no trust_level of its own)"
    ) in done.err, done.err
    assert f'under [projects."{tree.resolve()}"]' in done.err, done.err
    found = codex_status(tree)
    said = found[str(tree / ".codex" / "config.toml")]["installed"]
    assert said == [
        f"MCP server memidx (not started: {user} marks the project's main work tree"
        f" {main.resolve()} untrusted, so Codex reads no .codex/)"
    ], said


def test_status_in_a_worktree_whose_main_tree_has_no_codex_hooks_says_so(
    user_home: Path,
) -> None:
    """Status said `installed, but hooks are switched off in <main>/.codex/hooks.json`, a
    file that did not exist: Codex runs none of the worktree's hooks, and the main work
    tree has none to run. It says so, and what to do; once memidx's are there, that they are."""
    main, tree = _worktree(user_home, "project-topic")
    assert run_in_process(tree, "agent", "install", "codex").code == 0
    hooks = main / ".codex" / "hooks.json"

    said = run_in_process(tree, "agent", "status", "codex").out

    line = next(x for x in said.splitlines() if x.startswith(f"codex (project) {tree}/.codex/h"))
    assert "switched off" not in line and not hooks.exists(), line
    assert line.endswith(
        f"; installed, but Codex CLI runs none of them: in a git worktree it runs only the hooks"
        f" of {hooks} (which does not exist: install in {main} for memidx's hooks)"
    ), line
    assert run_in_process(main, "agent", "install", "codex").code == 0
    said = run_in_process(tree, "agent", "status", "codex").out
    assert f"only the hooks of {hooks} (memidx's are there)" in said, said


def test_a_codex_dry_run_warns_as_the_install_would(user_home: Path) -> None:
    """A dry run wrote no `.codex/` and read the files as they were: it said nothing of a
    project Codex does not trust, nor of a worktree's hooks Codex never runs, which the
    real install then said. A dry run says both, and writes nothing; a user-scope one, whose
    files are not the project's, says neither."""
    _, tree = _worktree(user_home, "project-topic")

    dry = run_in_process(tree, "agent", "install", "codex", "--dry-run")
    user = run_in_process(tree, "agent", "install", "codex", "--scope", "user", "--dry-run")

    assert dry.code == 0 and not (tree / ".codex").exists(), dry.err
    real = run_in_process(tree, "agent", "install", "codex")
    for said in ("is not trusted yet", "in a git worktree Codex CLI runs the hooks of"):
        assert said in real.err and said in dry.err, dry.err
        assert said not in user.err, user.err

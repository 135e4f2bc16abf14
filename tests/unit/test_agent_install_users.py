"""`memidx agent install|uninstall|status` against what real users' configurations meet: a link
planted where a backup is drafted, a Codex `config.toml` that Codex itself rewrote (its writer
drops comments, memidx's marker lines with them), files that start with a byte-order mark,
a block without its end marker, entries the person changed that uninstall removes.
In-process and on small files: each test costs well under a second."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from memidx.agents import backups
from memidx.agents.text_install import BEGIN, END
from memidx.drafts import draft_path
from tests.helpers import run_in_process


def test_a_link_planted_at_the_backup_draft_is_never_written_through(user_home: Path) -> None:
    """The draft's name is predictable (the pid): `shutil.copy2` opened a link there and wrote
    the settings (tokens, say) into whatever file it named, truncating it."""
    settings = user_home / ".claude.json"
    settings.write_text('{"oauthAccount": "secret"}')
    settings.chmod(0o600)
    victim = user_home / "victim.txt"
    victim.write_text("someone else's file\n")
    backups.prepare_backup(settings)
    draft = draft_path(backups.backup_folder(settings) / settings.name, "partial")
    draft.symlink_to(victim)

    saved = backups.backup(settings)

    assert victim.read_text() == "someone else's file\n"
    assert saved is not None and saved.read_text() == '{"oauthAccount": "secret"}'
    assert not saved.is_symlink() and saved.stat().st_mode & 0o777 == 0o600
    assert not draft.exists() and not draft.is_symlink()


def codex_rewrote(installed: str, theirs: str) -> str:
    """`installed` (a config.toml memidx installed into) as `codex mcp add github -- gh-mcp`
    0.171.0 writes it back: every comment it holds dropped but the last line (memidx's end
    marker, below the table Codex added), memidx's table kept, `theirs` after it."""
    kept = [line for line in installed.splitlines(keepends=True) if not line.startswith("#")]
    return "".join(kept) + f'\n[mcp_servers.github]\ncommand = "gh-mcp"\n{END}\n{theirs}'


@pytest.mark.parametrize("after", ["", '\n[profiles.fast]\nmodel = "o4-mini"\n'])
def test_codex_server_is_still_memidx_after_codex_rewrote_config_toml(
    user_home: Path, after: str
) -> None:
    """Codex's writer drops comments, memidx's begin marker with them: install then stopped
    (`already has an [mcp_servers.memidx] that memidx did not add`), status called memidx's
    server hand-written, and uninstall left it in the file."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    toml = user_home / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "o3"\n')
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    installed = toml.read_text()
    toml.write_text(codex_rewrote(installed, after))

    status = run_in_process(project, "agent", "status", "--json")
    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    reinstalled = toml.read_text()
    removed = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    found = next(f for f in json.loads(status.out)["files"] if f["path"] == str(toml))
    assert found["installed"] == ["MCP server memidx"]
    assert again.code == 0, again.err
    assert reinstalled.count(BEGIN) == reinstalled.count(END) == 1
    assert tomllib.loads(reinstalled) == tomllib.loads(codex_rewrote(installed, after))
    assert removed.code == 0, removed.err
    assert toml.read_text() == f'model = "o3"\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n{after}'


def test_a_persons_memidx_server_beside_a_marker_codex_left_is_still_theirs(
    user_home: Path,
) -> None:
    """Only a table that runs memidx's server is taken back: one of the person's own of that
    name stays theirs, though memidx's end marker was left in the file."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    toml = user_home / ".codex" / "config.toml"
    toml.parent.mkdir()
    theirs = f'[mcp_servers.memidx]\ncommand = "/opt/other/server"\nargs = ["mcp"]\n{END}\n'
    toml.write_text(theirs)

    done = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    removed = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert done.code == 1 and "that memidx did not add" in done.err
    assert removed.code == 0, removed.err
    assert toml.read_text() == theirs.replace(f"{END}\n", "")


BOM = "\ufeff"


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_claude_settings_that_start_with_a_byte_order_mark_are_installed_into(
    user_home: Path, ending: str
) -> None:
    """Windows editors (Notepad) start a UTF-8 file with U+FEFF; Claude Code 2.1.197 reads it
    (`claude mcp list` lists such a `~/.claude.json`'s servers), memidx refused it as `not
    valid JSON: Unexpected UTF-8 BOM`. It stays, and uninstall gives the file back whole."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    settings, state = user_home / ".claude" / "settings.json", user_home / ".claude.json"
    settings.parent.mkdir()
    theirs = BOM + '{\n  "model": "opus",\n  "hooks": {"Stop": []}\n}\n'.replace("\n", ending)
    settings.write_bytes(theirs.encode())
    state.write_bytes((BOM + '{"numStartups": 3}').encode())

    done = run_in_process(project, "agent", "install", "claude-code", "--scope", "user")
    installed = settings.read_bytes().decode()
    status = run_in_process(project, "agent", "status", "--json")
    removed = run_in_process(project, "agent", "uninstall", "claude-code", "--scope", "user")

    assert done.code == 0, done.err
    assert installed.startswith(BOM + "{" + ending) and "agent hook claude-code" in installed
    assert json.loads(installed.removeprefix(BOM))["model"] == "opus"
    assert state.read_bytes().decode().startswith(BOM)
    found = next(f for f in json.loads(status.out)["files"] if f["path"] == str(settings))
    assert found["unreadable"] is None and found["installed"]
    assert removed.code == 0, removed.err
    assert settings.read_bytes() == theirs.encode()


def test_codex_config_toml_that_starts_with_a_byte_order_mark_is_installed_into(
    user_home: Path,
) -> None:
    """Codex 0.171.0 reads such a `config.toml` (`codex mcp list`); memidx called it `not
    valid TOML`."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    toml = user_home / ".codex" / "config.toml"
    toml.parent.mkdir()
    theirs = BOM + '# mine\r\nmodel = "o3"\r\n'
    toml.write_bytes(theirs.encode())

    done = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    installed = toml.read_bytes().decode()
    removed = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert done.code == 0, done.err
    assert installed.startswith(theirs) and "[mcp_servers.memidx]\r\n" in installed
    assert removed.code == 0, removed.err
    assert toml.read_bytes() == theirs.encode()


@pytest.mark.parametrize(
    ("agent", "where"),
    [("gemini", ".gemini/settings.json"), ("codex", ".codex/hooks.json")],
)
def test_a_byte_order_mark_the_agent_cannot_read_is_named(
    user_home: Path, agent: str, where: str
) -> None:
    """Gemini CLI 0.61.0 (`JSON.parse`) and Codex 0.171.0's hooks.json (`expected value at
    line 1 column 1`) read no file that starts with U+FEFF: memidx says so, in one line,
    rather than `Unexpected UTF-8 BOM (decode using utf-8-sig)`, Python's advice."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    path = user_home / where
    path.parent.mkdir()
    path.write_bytes((BOM + '{"theme": "dark"}').encode())

    done = run_in_process(project, "agent", "install", agent, "--scope", "user")

    assert done.code == 1
    assert done.err.startswith(f"memidx: error: {path}: starts with a byte-order mark")
    assert done.err.count("\n") == 1 and "utf-8-sig" not in done.err
    assert path.read_bytes() == (BOM + '{"theme": "dark"}').encode()


@pytest.mark.parametrize(
    ("agent", "where", "theirs"),
    [
        ("codex", ".codex/config.toml", '[mcp_servers.memidx]\ncommand = "/opt/mine"\n'),
        ("hermes", ".hermes/config.yaml", "memory:\n  provider: memidx\n"),
    ],
)
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_block_without_its_end_marker_is_named_with_its_file(
    user_home: Path, agent: str, where: str, theirs: str, command: str
) -> None:
    """A person took out memidx's `# <<< memidx` line: the error named no file (`memidx's
    block in a config file has no end marker`), among the several an install writes."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    path = user_home / where
    path.parent.mkdir()
    path.write_text(f"{BEGIN}\n{theirs}")

    done = run_in_process(project, "agent", command, agent, "--scope", "user")

    assert done.code == 1
    assert done.err.startswith(f"memidx: error: {path}: memidx's block has no end marker")
    assert done.err.count("\n") == 1 and path.read_text() == f"{BEGIN}\n{theirs}"


def test_uninstall_says_it_removed_memidx_entries_the_person_changed(user_home: Path) -> None:
    """A hook pointed at the team's memory (`MEMIDX_ROOT=... <memidx> agent hook ...`), a
    timeout, an `env`: uninstall removed them with memidx's entries without a word (the file
    then deleted, as memidx had made it); it says so, and where they are kept. Entries as
    memidx wrote them are removed without a remark."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    settings, state = user_home / ".claude" / "settings.json", user_home / ".claude.json"
    assert run_in_process(project, "agent", "install", "claude-code", "--scope", "user").code == 0
    doc = json.loads(settings.read_text())
    hook = doc["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    hook.update(command=f"MEMIDX_ROOT=/srv/team {hook['command']}", timeout=30)
    settings.write_text(json.dumps(doc))
    servers = json.loads(state.read_text())
    servers["mcpServers"]["memidx"]["env"] = {"MEMIDX_ROOT": "/srv/team"}
    state.write_text(json.dumps(servers))

    done = run_in_process(project, "agent", "uninstall", "claude-code", "--scope", "user", "--json")

    assert done.code == 0, done.err
    notes = {f["path"]: f["notes"] for f in json.loads(done.out)["files"]}
    assert notes[str(settings)] == [
        "with your changes to the UserPromptSubmit hook's command, timeout (the backup keeps them)"
    ]
    assert notes[str(state)] == [
        "with your changes to the MCP server's env (the backup keeps them)"
    ]
    assert not settings.exists() and not state.exists()
    assert run_in_process(project, "agent", "install", "gemini", "--scope", "user").code == 0
    again = run_in_process(project, "agent", "uninstall", "gemini", "--scope", "user", "--json")
    assert [f["notes"] for f in json.loads(again.out)["files"]] == [[]]


def test_hermes_config_whose_memory_mapping_follows_a_byte_order_mark_is_set_in_place(
    user_home: Path,
) -> None:
    """Hermes 0.19.0 reads such a config.yaml (PyYAML skips the mark); memidx did not see
    `memory:` behind the mark and refused the file as one it could not edit in place."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    config = user_home / ".hermes" / "config.yaml"
    config.parent.mkdir()
    theirs = BOM + "memory:\r\n  provider: holographic\r\nmodel: x\r\n"
    config.write_bytes(theirs.encode())

    done = run_in_process(project, "agent", "install", "hermes")
    installed = config.read_bytes().decode()
    removed = run_in_process(project, "agent", "uninstall", "hermes")

    assert done.code == 0, done.err
    assert installed.startswith(BOM + "memory:\r\n  provider: memidx  # memidx: was provider:")
    assert removed.code == 0, removed.err
    assert config.read_bytes() == theirs.encode()


def test_codex_uninstall_says_it_removed_lines_the_person_added_to_memidx_block(
    user_home: Path,
) -> None:
    """Install again keeps them; uninstall removed them with the block without a word."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    toml = user_home / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "o3"\n')
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml.write_text(toml.read_text().replace(END, f"startup_timeout_sec = 60\n{END}"))

    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user", "--json")

    assert done.code == 0, done.err
    notes = {f["path"]: f["notes"] for f in json.loads(done.out)["files"]}
    assert notes[str(toml)] == [
        "with your changes to the MCP server's lines `startup_timeout_sec = 60`"
        " (the backup keeps them)"
    ]
    assert toml.read_text() == 'model = "o3"\n'

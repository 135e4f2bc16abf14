"""`memidx agent install|uninstall|status` against configurations people really have: values of
the wrong shape, a settings file linked into a dotfiles repository, an agent that writes its
own file while memidx writes it, a disk that fills between two files, a YAML `memory` mapping
memidx cannot edit in place, memidx's own entries the person edited. memidx never destroys
what it does not provably own, and never leaves an install half made."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from memidx.agents import config_text
from tests.helpers import memidx_agent, run_in_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh repository (HOME and the agents' folders are the suite's throwaway ones:
    tests/conftest.py)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def claude_user_files() -> tuple[Path, Path]:
    home = Path.home()
    return home / ".claude" / "settings.json", home / ".claude.json"


@pytest.mark.parametrize(
    ("agent", "where", "theirs"),
    [
        ("claude-code", ".claude/settings.json", {"hooks": "run-lint.sh"}),
        ("claude-code", ".claude/settings.json", {"hooks": {"Stop": {"hooks": []}}}),
        ("claude-code", ".mcp.json", {"mcpServers": ["github"]}),
        ("claude-code", ".claude/settings.local.json", {"enabledMcpjsonServers": "github"}),
        ("gemini", ".gemini/settings.json", {"mcpServers": "github"}),
        ("cursor", ".cursor/mcp.json", {"mcpServers": [{"command": "gh-mcp"}]}),
    ],
    ids=["hooks-a-string", "event-an-object", "servers-a-list", "approvals-a-string",
         "gemini-servers-a-string", "cursor-servers-a-list"],
)  # fmt: skip
def test_a_value_of_another_shape_is_left_alone_not_replaced(
    project: Path, agent: str, where: str, theirs: dict[str, Any]
) -> None:
    """The agent reads no such value, but it is the person's: memidx replaced it with its own
    table (their "github" approval, their hook script gone), saying nothing."""
    path = project / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(theirs))

    done = run_in_process(project, "agent", "install", agent)

    assert done.code == 1, done.out
    assert done.err.startswith(f"memidx: error: {path}: ") and done.err.count("\n") == 1
    assert "memidx left every file alone" in done.err
    assert json.loads(path.read_text()) == theirs
    assert sorted(p.name for p in project.rglob("*") if p.is_file()) == [path.name]


def test_uninstall_keeps_a_settings_link_into_dotfiles_and_empties_its_target(
    project: Path, tmp_path: Path
) -> None:
    """A link to a dotfiles file that was not there yet: uninstall deleted the link (the
    person's dotfiles set-up) and left memidx's hooks in the file it named."""
    settings, _ = claude_user_files()
    target = tmp_path / "dotfiles" / "claude" / "settings.json"
    target.parent.mkdir(parents=True)
    settings.parent.mkdir()
    settings.symlink_to(target)
    memidx_agent(project, "install", "claude-code", "--scope", "user")
    assert "agent hook claude-code" in target.read_text()

    memidx_agent(project, "uninstall", "claude-code", "--scope", "user")

    assert settings.is_symlink() and settings.resolve() == target
    assert json.loads(target.read_text()) == {}


def test_a_change_the_agent_makes_while_memidx_writes_its_file_is_kept(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code rewrites ~/.claude.json as it runs: a write of it between memidx's reading
    and its replacing the file was lost."""
    _, state = claude_user_files()
    state.write_text(json.dumps({"numStartups": 1, "projects": {}}))
    backup = config_text.backup

    def agent_writes_meanwhile(path: Path) -> Path | None:
        saved = backup(path)
        if path == state and json.loads(state.read_text())["numStartups"] == 1:
            state.write_text(json.dumps({"numStartups": 2, "projects": {}}))
        return saved

    monkeypatch.setattr(config_text, "backup", agent_writes_meanwhile)

    memidx_agent(project, "install", "claude-code", "--scope", "user")

    written = json.loads(state.read_text())
    assert written["numStartups"] == 2 and "memidx" in written["mcpServers"]


def test_a_write_that_fails_midway_puts_back_the_files_written_before_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk filled up at the second file: the first kept memidx's hooks, with no MCP
    server beside them (a half install the error message did not mention)."""
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    replace = config_text.replace_durably

    def full_at_mcp(path: Path, data: bytes, kind: str, **options: Any) -> None:
        if path.name == ".mcp.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        replace(path, data, kind, **options)

    monkeypatch.setattr(config_text, "replace_durably", full_at_mcp)

    done = run_in_process(project, "agent", "install", "claude-code")

    assert done.code == 1 and "No space left on device" in done.err
    assert settings.read_text() == '{"model": "opus"}\n'
    assert not (project / ".mcp.json").exists()
    assert not (project / ".claude" / "settings.local.json").exists()


def test_a_file_changed_at_every_attempt_stops_the_install_in_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planned again from each new text a few times; then one line, and no file half made."""
    settings, state = claude_user_files()
    state.write_text(json.dumps({"numStartups": 1}))
    backup = config_text.backup

    def agent_writes_each_time(path: Path) -> Path | None:
        saved = backup(path)
        if path == state:
            count = json.loads(state.read_text())["numStartups"]
            state.write_text(json.dumps({"numStartups": count + 1}))
        return saved

    monkeypatch.setattr(config_text, "backup", agent_writes_each_time)

    done = run_in_process(project, "agent", "install", "claude-code", "--scope", "user")

    assert done.code == 1 and done.err.count("\n") == 1
    assert done.err.startswith(f"memidx: error: {state}: changed while memidx was writing it")
    assert json.loads(state.read_text()) == {"numStartups": 4}
    assert not settings.exists()  # the hooks written before it were taken out again


@pytest.mark.parametrize(
    "theirs",
    [
        "memory: {provider: builtin, memory_char_limit: 5000}\nmodel: x\n",
        '"memory":\n  provider: builtin\n  memory_char_limit: 5000\n',
    ],
    ids=["flow-mapping", "quoted-key"],  # after a byte-order mark: set in place (it is read)
)
def test_hermes_memory_settings_memidx_cannot_edit_in_place_are_left_alone(
    project: Path, theirs: str
) -> None:
    """memidx appended a second `memory:` mapping, which YAML readers take in place of the
    first: Hermes lost memory_char_limit and every other memory setting of the person's."""
    config = Path.home() / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_bytes(theirs.encode())

    done = run_in_process(project, "agent", "install", "hermes")

    assert done.code == 1 and done.err.startswith(f"memidx: error: {config}: ")
    assert "memory.provider: memidx" in done.err and done.err.count("\n") == 1
    assert config.read_bytes() == theirs.encode()
    assert not (config.parent / "plugins").exists()


def test_status_names_a_hermes_config_that_is_not_yaml(project: Path) -> None:
    """It said "nothing of memidx" (exit 0) for a file Hermes cannot read either."""
    config = Path.home() / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_text("memory: [unclosed\n  provider: x\n")

    done = run_in_process(project, "agent", "status")

    assert done.code == 1
    assert f"hermes (user) {config}: unreadable: not valid YAML" in done.out


def test_codex_install_again_keeps_what_the_person_added_to_memidx_block(project: Path) -> None:
    """A startup timeout or an env table added to `[mcp_servers.memidx]` went at the next
    install (the JSON agents' entries keep such keys)."""
    config = Path.home() / ".codex" / "config.toml"
    memidx_agent(project, "install", "codex", "--scope", "user")
    added = (
        'startup_timeout_sec = 60\nenv = { MEMIDX_ROOT = "/srv/memory" }\n'
        '[mcp_servers.github]\ncommand = "gh-mcp"\nargs = ["serve"]\n'
    )
    config.write_text(config.read_text().replace("# <<< memidx", added + "# <<< memidx"))

    memidx_agent(project, "install", "codex", "--scope", "user")

    server = tomllib.loads(config.read_text())["mcp_servers"]["memidx"]
    assert server["startup_timeout_sec"] == 60 and server["env"] == {"MEMIDX_ROOT": "/srv/memory"}
    github = tomllib.loads(config.read_text())["mcp_servers"]["github"]
    assert github == {"command": "gh-mcp", "args": ["serve"]}  # a table after memidx's: theirs
    memidx_agent(project, "uninstall", "codex", "--scope", "user")
    assert "mcp_servers" not in tomllib.loads(config.read_text() if config.exists() else "")


def test_codex_mcp_servers_as_an_inline_table_is_refused_without_calling_the_file_broken(
    project: Path,
) -> None:
    """The file is valid TOML; memidx's table cannot extend an inline one. The error said
    "not valid TOML ... fix it" of a file Codex reads."""
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir()
    theirs = 'mcp_servers = { github = { command = "gh-mcp" } }\n'
    config.write_text(theirs)

    done = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert done.code == 1 and "not valid TOML" not in done.err
    assert f"{config}: memidx cannot add [mcp_servers.memidx]" in done.err
    assert config.read_text() == theirs


def test_an_mcp_entry_the_person_gave_a_flag_of_memidx_mcp_is_still_memidx(project: Path) -> None:
    """`--own` is `memidx mcp`'s own flag: with it added, install refused ("an MCP server
    memidx did not add") and uninstall left the entry in."""
    _, state = claude_user_files()
    state.write_text('{"numStartups": 1}')
    memidx_agent(project, "install", "claude-code", "--scope", "user")
    doc = json.loads(state.read_text())
    doc["mcpServers"]["memidx"]["args"].append("--own")
    state.write_text(json.dumps(doc))

    memidx_agent(project, "install", "claude-code", "--scope", "user")
    assert json.loads(state.read_text())["mcpServers"]["memidx"]["args"][-1] == "--own"
    memidx_agent(project, "uninstall", "claude-code", "--scope", "user")

    assert json.loads(state.read_text()) == {"numStartups": 1}


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can write another user's file")
def test_a_root_install_leaves_another_users_file_theirs(project: Path) -> None:
    """Root with the user's HOME (sudo -E, a container's root in a mounted home) replaced the
    user's ~/.claude.json with root's 0600 file, which Claude Code could then not read."""
    _, state = claude_user_files()
    state.write_text('{"numStartups": 1}')
    os.chown(state, 4242, 4242)
    state.chmod(0o600)

    memidx_agent(project, "install", "claude-code", "--scope", "user")

    found = state.stat()
    assert (found.st_uid, found.st_gid) == (4242, 4242)


@pytest.mark.parametrize("agent", ["claude-code", "cursor"])
def test_install_again_keeps_a_hook_command_the_person_wrapped(project: Path, agent: str) -> None:
    """`MEMIDX_ROOT=... <memidx hook>` sends a hook to another memory: installing again (as
    the README says to after a move) put memidx's bare command back, to the wrong memory."""
    memidx_agent(project, "install", agent)
    path = project / (".claude/settings.json" if agent == "claude-code" else ".cursor/hooks.json")
    doc = json.loads(path.read_text())
    event = "Stop" if agent == "claude-code" else "afterAgentResponse"
    listed = doc["hooks"][event]
    hook = listed[0]["hooks"][0] if agent == "claude-code" else listed[0]
    hook["command"] = wrapped = f"MEMIDX_ROOT=/srv/team-memory {hook['command']}"
    path.write_text(json.dumps(doc))

    memidx_agent(project, "install", agent)

    assert wrapped in path.read_text().replace('\\"', '"')
    memidx_agent(project, "uninstall", agent)
    assert "agent hook" not in (path.read_text() if path.exists() else "")


def test_a_settings_file_hard_linked_into_dotfiles_stays_linked(
    project: Path, tmp_path: Path
) -> None:
    """Some dotfiles managers hard-link: the atomic rename gave the settings a new inode, and
    the dotfiles copy silently kept the old text (uninstall then wrote neither back)."""
    settings, _ = claude_user_files()
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n')
    settings.parent.mkdir()
    os.link(dotfiles, settings)

    memidx_agent(project, "install", "claude-code", "--scope", "user")

    assert settings.stat().st_ino == dotfiles.stat().st_ino
    assert "agent hook claude-code" in dotfiles.read_text()
    memidx_agent(project, "uninstall", "claude-code", "--scope", "user")
    assert dotfiles.read_text() == '{"model": "opus"}\n'
    assert settings.stat().st_ino == dotfiles.stat().st_ino


def test_a_cursor_rule_of_the_persons_own_named_memidx_is_left_alone(project: Path) -> None:
    """Any file that merely said "memidx" was taken for memidx's own rule and overwritten;
    memidx's own files carry "`memidx agent uninstall", which is what proves them memidx's."""
    rule = project / ".cursor" / "rules" / "memidx.mdc"
    rule.parent.mkdir(parents=True)
    theirs = "---\nalwaysApply: true\n---\nOur team files decisions with memidx remember.\n"
    rule.write_text(theirs)

    done = run_in_process(project, "agent", "install", "cursor")

    assert done.code == 1 and done.err.startswith(f"memidx: error: {rule}: exists and is not")
    assert rule.read_text() == theirs
    assert not (project / ".cursor" / "hooks.json").exists()


@pytest.mark.parametrize(
    ("agent", "where", "nested"),
    [
        ("claude-code", "home/.claude/settings.json", '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}"),
        ("codex", "home/.codex/config.toml", "a = " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("hermes", "home/.hermes/config.yaml", "a: " + "[" * 50_000 + "]" * 50_000 + "\n"),
    ],
    ids=["json", "toml", "yaml"],
)  # fmt: skip
def test_a_config_nested_too_deeply_to_parse_is_one_line_not_a_traceback(
    project: Path, agent: str, where: str, nested: str
) -> None:
    """Python's JSON, TOML and YAML parsers recurse: RecursionError went up as a traceback."""
    path = Path.home() / where.split("/", 1)[1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nested)

    done = run_in_process(project, "agent", "install", agent, "--scope", "user")

    assert done.code == 1 and done.err == (
        f"memidx: error: {path}: nested too deeply for memidx to read (fix it: memidx left the"
        " file alone)\n"
    )
    assert path.read_text() == nested


def _unblock_readers(fifo: Path, stop: threading.Event) -> threading.Thread:
    """Open `fifo` for writing, and close it at once, whenever a reader waits on it, until
    `stop` (or 10 s): a reader that regressed to opening it gets an end of file, not a hang."""

    def writer() -> None:
        deadline = time.monotonic() + 10.0
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader yet (ENXIO)
                time.sleep(0.02)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    return thread


def test_a_fifo_where_a_config_file_should_be_is_named_not_waited_on(project: Path) -> None:
    """Opening a FIFO waits for a writer: status (and install) hung with no word."""
    mcp = project / ".mcp.json"
    os.mkfifo(mcp)
    stop = threading.Event()
    thread = _unblock_readers(mcp, stop)

    status = run_in_process(project, "agent", "status")
    done = run_in_process(project, "agent", "install", "claude-code")

    assert status.code == 1
    assert f"claude-code (project) {mcp}: unreadable: not a regular file" in status.out
    assert done.code == 1 and done.err.startswith(f"memidx: error: {mcp}: not a regular file")
    assert not (project / ".claude").exists()
    stop.set()
    thread.join()


@pytest.mark.parametrize("number", ["1e400", "NaN", "-Infinity"])
def test_a_number_json_cannot_hold_is_refused_not_written_back_as_infinity(
    project: Path, number: str
) -> None:
    """`1e400` (valid JSON) read as inf was written back `Infinity`, and Python's NaN and
    Infinity written back as they are: JSON.parse, so Claude Code, then read no setting."""
    settings, _ = claude_user_files()
    settings.parent.mkdir()
    theirs = f'{{"limit": {number}}}\n'
    settings.write_text(theirs)

    done = run_in_process(project, "agent", "install", "claude-code", "--scope", "user")

    assert done.code == 1 and done.err.startswith(f"memidx: error: {settings}: not valid JSON")
    assert settings.read_text() == theirs


def test_codex_tables_the_person_added_outside_memidx_block_are_never_left_orphaned(
    project: Path,
) -> None:
    """`[mcp_servers.memidx.env]` after memidx's block: install again refused it as another's
    server, and uninstall left the table without its command, so Codex 0.171.0 loaded no
    configuration at all ("invalid transport")."""
    config = Path.home() / ".codex" / "config.toml"
    memidx_agent(project, "install", "codex", "--scope", "user")
    config.write_text(config.read_text() + '\n[mcp_servers.memidx.env]\nMEMIDX_ROOT = "/srv"\n')
    extended = config.read_text()

    memidx_agent(project, "install", "codex", "--scope", "user")
    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert config.read_text() == extended
    assert done.code == 1 and done.err.count("\n") == 1
    assert done.err.startswith(f"memidx: error: {config}: [mcp_servers.memidx] has lines of yours")
    assert "memidx agent hook codex" in (config.parent / "hooks.json").read_text()

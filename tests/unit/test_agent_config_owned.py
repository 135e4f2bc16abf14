"""`memidx agent install|uninstall|status` on configurations people really have: a JSON key held
twice, files whose lines end in \\r\\n, a hook of the person's that merely mentions memidx, a
timeout they set on memidx's hook, a hand-written Codex server, two backups in one microsecond.
memidx never destroys or overwrites what it does not provably own."""

from __future__ import annotations

import json
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memidx.agents import (
    backups,
    claude_install,
    codex_install,
    cursor_install,
    gemini_install,
    hermes_install,
)
from memidx.agents.backups import STAMP, SUFFIX, backup
from memidx.agents.codex_trust import untrusted_note
from memidx.agents.entries import WRITTEN_EVENTS, command_hooks, marker
from memidx.agents.install import ConfigFile, memidx_argv
from memidx.agents.json_text import parse_json
from memidx.agents.launcher import RESOLVER_START, portable_command
from memidx.agents.runner import adapter
from memidx.agents.settings import is_ours, merge_hooks, remove_hooks
from memidx.agents.text_install import TextFile
from memidx.errors import MemidxError
from tests.helpers import run_in_process


def test_backups_taken_in_one_microsecond_never_overwrite_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Frozen(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Frozen:
            return cls(2026, 12, 4, 22, 0, 0, 123456, tzinfo=UTC)

    monkeypatch.setattr(backups, "datetime", Frozen)
    settings = tmp_path / "settings.json"
    copies: list[Path] = []
    for text in ("first", "second", "third"):
        settings.write_text(text)
        copies.append(backup(settings) or tmp_path)

    assert [c.read_text() for c in copies] == ["first", "second", "third"]
    assert [c.name.removeprefix(f"settings.json{SUFFIX}") for c in copies] == [
        "20261204T220000123456Z", "20261204T220000123456Z-001", "20261204T220000123456Z-002"
    ]  # fmt: skip
    assert all(STAMP.fullmatch(c.name.removeprefix(f"settings.json{SUFFIX}")) for c in copies)
    assert backups.backups(settings) == copies[::-1]  # newest first
    assert sorted(p.name for p in copies[0].parent.iterdir()) == sorted(c.name for c in copies)


TWICE = '{"hooks": {"Stop": [{"hooks": [{"command": "lint"}]}]},\n "hooks": {}}\n'


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (TWICE, '"hooks"'),
        (
            '{"hooks": {"Stop": [{"hooks": [{"command": "a", "command": "b"}]}]}}',
            '"hooks"."Stop"[0]."hooks"[0]."command"',
        ),
        ('{"env": {"A": "1"}, "model": "opus", "env": {"A": "1"}}', '"env"'),
    ],
    ids=["top-level", "nested", "same-value"],
)  # fmt: skip
def test_a_key_held_twice_is_refused_naming_the_file_and_the_key(text: str, where: str) -> None:
    """Python's json keeps the last value; the rewrite then dropped the first (the person's
    Stop hook here) without a word."""
    path = Path("/home/me/.claude/settings.json")

    with pytest.raises(MemidxError) as raised:
        parse_json(text, path)

    said = f"{path}: has the key {where} twice, of which JSON readers keep only the last"
    assert raised.value.message == said
    assert "memidx left every file alone" in raised.value.hint


@pytest.mark.parametrize("command", ["install", "uninstall", "status"])
def test_install_uninstall_and_status_say_a_key_is_held_twice(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(TWICE)

    done = run_in_process(tmp_path, "agent", command, *(["claude-code"] * (command != "status")))

    assert done.code == 1
    assert settings.read_text() == TWICE and not (tmp_path / ".mcp.json").exists()
    said = done.err if command != "status" else done.out
    assert f'{settings}: has the key "hooks" twice' in said or (
        f"{settings}: unreadable: has the key" in said
    ), said


MARK = marker("claude-code")
WRITTEN = WRITTEN_EVENTS["claude-code"]
MEMIDX = "/home/me/memidx/.venv/bin/memidx"
FIRST_RESOLVER = (  # the portable command of 16249da, which fell back to the clone's path
    f'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; [ -x {MEMIDX} ] && exec {MEMIDX} '
    '"$@"; exit 0'
)


def sh(script: str) -> str:
    """memidx's Stop hook for Claude Code as a project's `/bin/sh -c SCRIPT` runs it."""
    return shlex.join(["/bin/sh", "-c", script, "memidx", "agent", "hook", "claude-code", "Stop"])


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        (f"{MEMIDX} agent hook claude-code Stop", True),
        ("'/home/me/my clone/.venv/bin/memidx' agent hook claude-code Stop", True),
        ("/usr/bin/python3 -m memidx agent hook claude-code Stop", True),
        (portable_command(["agent", "hook", "claude-code", "Stop"]), True),
        (sh(FIRST_RESOLVER), True),
        (sh(FIRST_RESOLVER.replace("exit 0", 'printf %s "{}"')), True),  # Gemini's answer
        (sh(FIRST_RESOLVER.replace(f"exec {MEMIDX}", "exec /usr/bin/python3 -m memidx")
            .replace(f"-x {MEMIDX}", "-x /usr/bin/python3")), True),  # no script: -m memidx
        (sh(FIRST_RESOLVER.replace(MEMIDX, "'/home/me/my clone'\"'\"'s/memidx'")), True),
        (f"MEMIDX_ROOT=/srv/memory {MEMIDX} agent hook claude-code Stop", True),
        (f"env MEMIDX_ROOT=/srv/memory timeout 5 {MEMIDX} agent hook claude-code Stop", True),
        ("my-memidx-hook-wrapper agent hook claude-code Stop", False),
        ("echo memidx agent hook claude-code Stop", False),
        ("echo -m memidx agent hook claude-code Stop", False),  # no Python before -m memidx
        ("/opt/py/bin/python3.13t -m memidx agent hook claude-code Stop", True),
        ("/home/me/bin/log-memidx-agent hook claude-code Stop", False),
        (f"{MEMIDX} agent hook claude-code Stop && notify-send done", False),
        (f"{MEMIDX} agent hook codex Stop", False),
        (sh("curl x | sh"), False),
        (sh(f"{RESOLVER_START}curl x | sh"), False),  # memidx's head, a tail of the person's
        (sh(f"{RESOLVER_START}exit 0; curl x | sh"), False),
        (sh(FIRST_RESOLVER.replace("exit 0", "curl x | sh")), False),
        (f"{MEMIDX} agent hook claude-code Stop>>/tmp/hooks.log", False),  # the shell's words
        (f"{MEMIDX} agent hook claude-code Stop;notify-send", False),
        ("memidx 'agent hook claude-code", False),
    ],
)  # fmt: skip
def test_a_hook_is_memidx_only_when_its_command_runs_memidx_hook(command: str, ours: bool) -> None:
    """Any command holding the words `agent hook claude-code` was taken for memidx's:
    install replaced it, uninstall removed it."""
    assert is_ours({"type": "command", "command": command}, MARK) is ours


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
@pytest.mark.parametrize("portable", [False, True])
def test_every_hook_memidx_writes_is_its_own(agent: str, portable: bool) -> None:
    for entry in command_hooks(agent, {"Stop": (30, 10.0)}, portable=portable).values():
        assert is_ours(entry, marker(agent))
    written = shlex.join([*memidx_argv(), "agent", "hook", agent, "SessionStart"])
    assert is_ours({"command": written}, marker(agent))


def test_uninstall_keeps_a_persons_hook_that_mentions_memidx() -> None:
    theirs = {"type": "command", "command": "echo memidx agent hook claude-code Stop >> log"}
    ours = {"type": "command", "command": f"{MEMIDX} agent hook claude-code Stop"}
    doc: dict[str, object] = {"hooks": {"Stop": [{"matcher": "", "hooks": [theirs, ours]}]}}

    assert remove_hooks(doc, MARK, WRITTEN) == {
        "hooks": {"Stop": [{"matcher": "", "hooks": [theirs]}]}
    }


def test_install_again_keeps_the_timeout_the_person_set_on_memidx_hook() -> None:
    """A person who gave memidx's Stop hook 120 s saw it put back to 30 at the next install."""
    hooks = command_hooks("claude-code", {"Stop": (30, 10.0)})
    doc = json.loads(json.dumps(merge_hooks({}, hooks, MARK, WRITTEN)))  # as read from the file
    entry = doc["hooks"]["Stop"][0]["hooks"][0]
    entry["timeout"] = 120

    again = merge_hooks(doc, hooks, MARK, WRITTEN)

    assert again == doc
    del entry["timeout"]
    assert merge_hooks(doc, hooks, MARK, WRITTEN)["hooks"]["Stop"][0]["hooks"][0]["timeout"] == 30  # type: ignore[index]


def test_cursor_install_again_keeps_the_persons_timeout(tmp_path: Path) -> None:
    hooks_json = cursor_install.config_files("project", tmp_path)[0]
    assert not isinstance(hooks_json, TextFile)
    doc = hooks_json.install({})
    entry = doc["hooks"]["afterAgentResponse"][0]  # type: ignore[index]
    entry["timeout"] = 90

    assert hooks_json.install(doc) == doc


@pytest.mark.parametrize(
    ("agent", "event"),
    [
        ("claude-code", "Notification"),
        ("codex", "SessionEnd"),
        ("gemini", "Notification"),
        ("cursor", "stop"),
    ],
)
def test_install_and_uninstall_keep_a_memidx_hook_a_person_added(
    tmp_path: Path, agent: str, event: str
) -> None:
    """`<memidx> agent hook claude-code Notification`, added by hand on an event memidx never
    hooked, was taken away by the next install: memidx removed every hook of its own shape
    on events it no longer hooks, though no memidx ever wrote that one."""
    (tmp_path / ".git").mkdir()
    module = {"claude-code": claude_install, "codex": codex_install}.get(agent)
    module = module or {"gemini": gemini_install, "cursor": cursor_install}[agent]
    hooks = next(
        f for f in module.config_files("project", tmp_path)
        if isinstance(f, ConfigFile) and f.path.name in ("settings.json", "hooks.json")
    )  # fmt: skip
    hand = {"type": "command", "command": f"{MEMIDX} agent hook {agent} {event}"}
    listed: list[object] = [hand] if agent == "cursor" else [{"matcher": "", "hooks": [hand]}]
    doc: dict[str, object] = {"hooks": {event: listed}}

    installed = hooks.install(doc)

    assert installed["hooks"][event] == listed  # type: ignore[index]
    assert hooks.uninstall(installed)["hooks"] == {event: listed}  # type: ignore[index]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
def test_every_event_memidx_hooks_is_listed_as_written(agent: str) -> None:
    """An event an adapter stops hooking must stay in WRITTEN_EVENTS, or install would
    leave the old hook behind, as a person's."""
    assert set(adapter(agent).deadlines) <= WRITTEN_EVENTS[agent]


def test_codex_status_shows_a_hand_written_memidx_server(tmp_path: Path) -> None:
    """Status said nothing of it, though install refuses to add memidx's beside it."""
    (tmp_path / ".git").mkdir()
    toml = tmp_path / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('[mcp_servers.memidx]\ncommand = "memidx"\nargs = ["mcp"]\n')

    done = run_in_process(tmp_path, "agent", "status", "--json")

    found = next(f for f in json.loads(done.out)["files"] if f["path"] == str(toml))
    hand_written = "MCP server memidx (hand-written, not memidx's block"
    user = Path.home() / ".codex" / "config.toml"  # Codex reads .codex/ in a trusted project
    assert found["installed"] == [f"{hand_written}; {untrusted_note(user, tmp_path.resolve())})"]
    user.parent.mkdir()
    user.write_text(f'[projects."{tmp_path.resolve()}"]\ntrust_level = "trusted"\n')
    done = run_in_process(tmp_path, "agent", "status", "--json")
    found = next(f for f in json.loads(done.out)["files"] if f["path"] == str(toml))
    assert found["installed"] == [f"{hand_written})"]


def test_codex_config_with_crlf_lines_gets_and_loses_memidx_block_in_crlf(tmp_path: Path) -> None:
    """memidx's block went in with \\n lines, and a block with \\r\\n lines was not taken out
    whole (a stray line was left)."""
    toml = codex_install.config_files("project", tmp_path)[1]
    assert isinstance(toml, TextFile)
    theirs = '# mine\r\nmodel = "o4"\r\n'

    installed = toml.install(theirs)

    assert installed.startswith(theirs) and "[mcp_servers.memidx]\r\n" in installed
    assert "\n" not in installed.replace("\r\n", "")
    assert toml.uninstall(installed + "[tui]\r\n") == theirs + "[tui]\r\n"
    old = theirs + installed[len(theirs) :].replace("\r\n", "\n")  # an earlier memidx's \n block
    assert toml.install(old) == installed and toml.uninstall(old) == theirs


def test_hermes_config_with_crlf_lines_keeps_crlf_where_memidx_edits(tmp_path: Path) -> None:
    config = hermes_install.config_files("user", tmp_path)[2]
    theirs = "model: opus\r\nmemory:\r\n  provider: holographic\r\n"

    installed = config.install(theirs)

    assert "provider: memidx" in installed and "\n" not in installed.replace("\r\n", "")
    assert config.uninstall(installed) == theirs
    fresh = config.install("model: opus\r\n")
    assert "memory:\r\n" in fresh and "\n" not in fresh.replace("\r\n", "")
    assert config.uninstall(fresh) == "model: opus\r\n"


@pytest.mark.parametrize("after", ["", "[tui]\n", "\n[tui]\n"])
def test_uninstall_takes_out_the_blank_line_install_put_before_the_block(
    tmp_path: Path, after: str
) -> None:
    """A table the person added after memidx's block kept the blank line install had put
    before it: uninstall left the file a line longer than it was."""
    toml = codex_install.config_files("project", tmp_path)[1]
    assert isinstance(toml, TextFile)
    theirs = '# mine\nmodel = "o4"\n\n'  # a blank line of their own at the end stays

    assert toml.uninstall(toml.install(theirs) + after) == theirs + after


def test_a_lone_surrogate_in_the_persons_settings_is_named_as_theirs(tmp_path: Path) -> None:
    """`"\\ud800"` is valid JSON, written back as half a character: install refused the
    file as one where memidx's entries named a path that is not UTF-8, and told the person to
    move memidx's clone. Status reads the file as ever."""
    (tmp_path / ".git").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"statusLine": "\\ud800"}\n')

    done = run_in_process(tmp_path, "agent", "install", "claude-code")

    assert done.code == 1 and settings.read_text() == '{"statusLine": "\\ud800"}\n'
    assert f"{settings}: holds a \\u escape of half a character" in done.err, done.err
    assert "clone" not in done.err
    status = run_in_process(tmp_path, "agent", "status")
    assert f"{settings}: nothing of memidx" in status.out, status.out

"""Claude Code's managed settings (memidx/agents/claude_policy.py), read as values: which file
and setting of the machine's policy switch memidx's hooks off. `memidx agent status` said the
hooks ran where `disableAllHooks` or `allowManagedHooksOnly` there stopped them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.claude_policy import hooks_policy, policy_files, policy_switch
from memidx.agents.hooks_off import json_switch, switched_off

BASE = Path("/etc/claude-code/managed-settings.json")
DROP = Path("/etc/claude-code/managed-settings.d/50-team.json")


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ([(BASE, '{"allowManagedHooksOnly": true}')], (BASE, "allowManagedHooksOnly")),
        ([(BASE, '{"disableAllHooks": true}')], (BASE, "disableAllHooks")),
        (  # both: no hook at all runs, which status names
            [(BASE, '{"allowManagedHooksOnly": true, "disableAllHooks": true}')],
            (BASE, "disableAllHooks"),
        ),
        ([(BASE, '{"disableAllHooks": false, "allowManagedHooksOnly": false}')], None),
        ([(BASE, '{"disableAllHooks": true}'), (DROP, '{"disableAllHooks": false}')], None),
        (
            [(BASE, "{}"), (DROP, '{"allowManagedHooksOnly": true}')],
            (DROP, "allowManagedHooksOnly"),
        ),
        ([(BASE, '\ufeff{"disableAllHooks": true}')], (BASE, "disableAllHooks")),
        ([(BASE, '{"disableAllHooks": "yes"}'), (DROP, "not json")], None),
        ([(BASE, ""), (DROP, "[true]")], None),
        ([], None),
    ],
)
def test_the_machines_policy_switches_memidx_hooks_off(
    files: list[tuple[Path, str]], found: tuple[Path, str] | None
) -> None:
    assert hooks_policy(files) == found


def test_drop_in_files_are_read_after_the_base_in_name_order(tmp_path: Path) -> None:
    dropped = tmp_path / "managed-settings.d"
    dropped.mkdir()
    for name in ("90-last.json", "10-first.json", ".hidden.json", "notes.txt"):
        (dropped / name).write_text("{}")

    assert policy_files(tmp_path) == [
        tmp_path / "managed-settings.json",
        dropped / "10-first.json",
        dropped / "90-last.json",
    ]
    assert policy_files(tmp_path / "none") == [tmp_path / "none" / "managed-settings.json"]


def test_the_policy_outranks_the_persons_own_settings(tmp_path: Path) -> None:
    """The person's `disableAllHooks: false` does not switch hooks the policy stops back on;
    a policy that says `disableAllHooks: false` switches back on those the person stopped
    (Claude Code 2.1.197 ran a project's hook so: status said the user's file stopped it)."""
    user = tmp_path / "settings.json"
    user.write_text('{"disableAllHooks": false}')
    (tmp_path / "managed-settings.json").write_text('{"allowManagedHooksOnly": true}')
    policy = policy_switch(tmp_path)
    assert policy is not None

    off = switched_off([policy, json_switch(user, ["disableAllHooks"], True)], tmp_path)

    assert off is not None and (off.path, off.why) == (
        tmp_path / "managed-settings.json",
        "the machine's policy: allowManagedHooksOnly",
    )
    (tmp_path / "managed-settings.json").write_text('{"disableAllHooks": false}')
    user.write_text('{"disableAllHooks": true}')
    policy = policy_switch(tmp_path)
    assert policy is not None
    assert switched_off([policy, json_switch(user, ["disableAllHooks"], True)], tmp_path) is None
    (tmp_path / "managed-settings.json").write_text('{"allowManagedHooksOnly": false}')
    assert policy_switch(tmp_path) is None  # no word on the person's own hooks
    assert switched_off([json_switch(user, ["disableAllHooks"], True)], tmp_path) is not None

"""`gemini --skip-trust` over the environment's distrust: Gemini CLI 0.61.0 sets
`GEMINI_CLI_TRUST_WORKSPACE=true` for its session when given the flag, over a `false`, and
then trusts the folder; `GEMINI_RESTRICTED_MODE=true` still wins. Install and status said
the hooks did nothing under either variable, as if no flag could change it."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_agent_install_review import gemini_home, gemini_status
from tests.helpers import run_in_process

SKIPS = (
    "unless Gemini CLI is started as `gemini --skip-trust`, which sets it to true for the session"
)
STAYS = "whatever `gemini --skip-trust` says"
CASES = [("GEMINI_CLI_TRUST_WORKSPACE", "false", SKIPS), ("GEMINI_RESTRICTED_MODE", "true", STAYS)]


@pytest.mark.parametrize(("name", "value", "words"), CASES)
def test_install_and_status_say_what_skip_trust_does_to_the_distrust(
    user_home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, words: str
) -> None:
    project, home = gemini_home(user_home, monkeypatch)
    for variable, _, _ in CASES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv(name, value)

    done = run_in_process(project, "agent", "install", "gemini")
    said = run_in_process(project, "agent", "status").out

    assert done.code == 0, done.err
    assert f"where {name}={value} is set, as it is here, {words}:" in done.err, done.err
    assert gemini_status(project)["hooks_off"] == str(home / ".gemini" / "trustedFolders.json")
    assert f"(Gemini CLI trusts no folder where {name}={value} is set, {words}" in said, said
    trusted = _trusted_headless(project, {name: value})
    assert trusted in (None, words == SKIPS)  # what the real Gemini CLI does


def _trusted_headless(project: Path, variables: dict[str, str]) -> bool | None:
    """Whether `gemini -p --skip-trust` (offline, a dummy key) trusts `project` under
    `variables`: it stops at once saying it is not in a trusted directory, or starts the
    user's MCP server (`true`, which fails: "MCP issues detected"); None without gemini."""
    if shutil.which("gemini") is None or shutil.which("unshare") is None:
        return None
    if subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode:
        return None
    home = Path.home()
    (home / ".gemini" / "settings.json").write_text('{"mcpServers": {"x": {"command": "true"}}}')
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_API_KEY": "x", **variables}
    env |= {k: v for k, v in os.environ.items() if k.startswith("GEMINI_CLI_SYSTEM_")}
    argv = ["unshare", "-n", "gemini", "-p", "hi", "--skip-trust"]
    run = subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        return _said_trust(run, time.monotonic() + 90)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=10)


def _said_trust(run: subprocess.Popen[bytes], deadline: float) -> bool:
    assert run.stdout is not None
    out = b""
    while (left := deadline - time.monotonic()) > 0:
        if select.select([run.stdout], [], [], left)[0]:
            chunk = os.read(run.stdout.fileno(), 65536)
            out += chunk
            if b"not running in a trusted directory" in out:
                return False
            if b"MCP issues detected" in out:
                return True
            if not chunk:
                break
    raise AssertionError(f"gemini said neither: {out[-2000:]!r}")

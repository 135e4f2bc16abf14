"""The pre-push and reference-transaction shims' shell alone, under /bin/sh as git runs a hook
(SIGPIPE ignored, as git leaves it for the hooks it starts): the input they hand on whole to a
hook that does not read it says nothing of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.githooks.shims import CHAINED, shim

OID = "a" * 40
NULL = "0" * 40
AS_GIT_RUNS_IT = 'trap "" PIPE; exec /bin/sh "$@"'  # an ignored signal stays ignored past exec


def hooks_with(tmp_path: Path, stage: str, memidx_hook: str) -> Path:
    """`stage`'s shim, a memidx-hook of `memidx_hook`, and a chained hook that reads nothing."""
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "memidx-hook").write_text(memidx_hook)
    script = tmp_path / stage
    script.write_text(shim(stage))
    chained = tmp_path / f"{stage}{CHAINED}"
    chained.write_text("#!/bin/sh\nexit 0\n")
    chained.chmod(0o755)
    return script


@pytest.mark.parametrize(
    ("stage", "memidx_hook", "args"),
    [
        ("pre-push", "cat >/dev/null\n", ["origin", "/srv/remote.git"]),  # a clean push
        ("pre-push", "exit 1\n", ["origin", "/srv/remote.git"]),  # memidx failed unread
        ("reference-transaction", "exit 0\n", ["committed"]),
    ],
)
def test_input_larger_than_a_pipe_handed_to_a_hook_that_reads_none_says_nothing(
    tmp_path: Path, stage: str, memidx_hook: str, args: list[str]
) -> None:
    """A push of many refs (--mirror, --tags) or a fetch of many tags: 'printf: I/O error'."""
    script = hooks_with(tmp_path, stage, memidx_hook)
    lines = "".join(f"refs/tags/t{n} {OID} refs/tags/t{n} {NULL}\n" for n in range(2000))
    if stage == "reference-transaction":
        lines = "".join(f"{NULL} {OID} refs/tags/t{n}\n" for n in range(2000))
    assert len(lines) > 1 << 16  # more than a pipe holds

    done = subprocess.run(
        ["/bin/sh", "-c", AS_GIT_RUNS_IT, "sh", str(script), *args],
        input=lines, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip

    assert done.returncode == (1 if memidx_hook == "exit 1\n" else 0), done.stderr
    assert "error" not in done.stderr, done.stderr

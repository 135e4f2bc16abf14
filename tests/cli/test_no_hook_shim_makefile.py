"""The post-* shim of a checkout without hooks/memidx-hook says `make reconcile` only where the
Makefile make reads has that rule, as memidx's own hints decide (memidx/remedies.py): its grep
read each line alone, so a variable's list or a recipe continued (`\\`, newline) onto a line
`reconcile: x` was taken for the rule, and the person was told to run a target make has not
(memidx/githooks/no_hook_shim.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.githooks.shims import shim
from memidx.remedies import command_for

RULE = "all:\n\ttrue\n"


@pytest.mark.parametrize(
    ("makefile", "rule"),
    [
        ("reconcile:\n\tmemidx reconcile --fix\n", True),
        ("lint reconcile: dev\n\ttrue\n", True),
        ("lint \\\n  reconcile: dev\n\ttrue\n", True),  # the targets' list continued
        ("reconcile \\\n  : dev\n\ttrue\n", True),  # its colon on the next line
        ("SRCS = a.c \\\nreconcile: b.c\n" + RULE, False),  # a variable's list continued
        ("all:\n\techo a \\\nreconcile: b\n", False),  # a recipe line continued
        ("X := 1\nreconcile := 2\n" + RULE, False),
    ],
)
def test_the_shim_says_make_reconcile_only_where_the_makefile_has_that_rule(
    tmp_path: Path, makefile: str, rule: bool
) -> None:
    (tmp_path / "Makefile").write_text(makefile, encoding="utf-8")
    script = tmp_path / "post-checkout"
    script.write_text(shim("post-checkout"), encoding="utf-8")

    ran = subprocess.run(
        ["/bin/sh", str(script)], cwd=tmp_path, capture_output=True, text=True, check=False
    )

    said = "make reconcile" if rule else "memidx reconcile --fix"
    assert ran.stderr.splitlines()[-1].endswith(f"(run {said})"), ran.stderr
    assert command_for(tmp_path, "reconcile") == said  # as every other hint says it

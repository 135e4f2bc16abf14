"""The command a hint names (memidx.remedies): `make <target>` only where the clone's Makefile
has that target; a clone without memidx's Makefile was told to run `make reconcile`, which
make answers "No rule to make target"."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.remedies import command_for, run_hint
from tests.cpu_cost import least_ratio


@pytest.mark.parametrize(
    ("makefiles", "target", "expected"),
    [
        ({}, "reconcile", "memidx reconcile --fix"),
        ({}, "embed", "memidx embed"),
        ({}, "sync", "memidx share"),
        ({}, "ingest", "memidx ingest"),
        ({"Makefile": "reconcile: ready ## repair\n\t$(MEMIDX) reconcile --fix\n"}, "reconcile",
         "make reconcile"),
        ({"Makefile": "build:\n\tcc x.c\n"}, "reconcile", "memidx reconcile --fix"),
        ({"Makefile": "reconcile := yes\nsync ?= no\n"}, "reconcile", "memidx reconcile --fix"),
        ({"Makefile": ".PHONY: embed sync\nindex embed: ready\n"}, "embed", "make embed"),
        ({"Makefile": "embedding:\n\ttrue\n"}, "embed", "memidx embed"),
        ({"Makefile": "sync::\n\ttrue\n"}, "sync", "make sync"),
        # make reads GNUmakefile first: the Makefile beside it is not make's
        ({"GNUmakefile": "all:\n", "Makefile": "sync:\n"}, "sync", "memidx share"),
    ],
)  # fmt: skip
def test_the_command_named_is_one_this_clone_can_run(
    tmp_path: Path, makefiles: dict[str, str], target: str, expected: str
) -> None:
    for name, text in makefiles.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert command_for(tmp_path, target) == expected
    assert run_hint(str(tmp_path), target) == f"run `{expected}`"


def test_no_root_names_the_memidx_command(tmp_path: Path) -> None:
    (tmp_path / "Makefile").mkdir()  # a folder where the Makefile would be: no target read
    assert command_for(None, "embed") == "memidx embed"
    assert command_for(tmp_path, "embed") == "memidx embed"


def test_a_long_continued_list_is_read_in_linear_time(tmp_path: Path) -> None:
    """A continuation (`\\`, newline) was matched as a blank from every line start it joined:
    a 4,000-line `SRCS = a.c \\` list cost 1.9 s a hint (status, the post-merge hook), 20,000
    lines about a minute. Joined first: milliseconds. A rule's name on a continued line of a
    variable's list is no rule."""
    for folder, lines in ((tmp_path, 20_000), (tmp_path / "fewer", 1_250)):
        listed = "SRCS = " + "a.c \\\n" * lines + "b.c\n"
        folder.mkdir(exist_ok=True)
        (folder / "Makefile").write_text(
            f"{listed}\nsync: ready\n\t$(MEMIDX) share\nX = a \\\nreconcile: b\n",
            encoding="utf-8",
        )
    assert command_for(tmp_path, "sync") == "make sync"
    # 16x the lines ~16x the CPU time of the fewer read just before, quadratic ~256x (a ratio,
    # not seconds: a slower machine or a busy neighbour slows both)
    least, ratios = least_ratio(
        lambda: command_for(tmp_path, "sync"),
        lambda: command_for(tmp_path / "fewer", "sync"),
        below=64,
        runs=1,
    )
    assert least < 64, f"16x the lines took {ratios}x the time"
    assert command_for(tmp_path, "reconcile") == "memidx reconcile --fix"

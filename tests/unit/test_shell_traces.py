"""The shell hooks name the user's trace folder of a memory as memidx.locations does: a memory
that cannot keep its trace (read-only, a full disk) has it there, where `memidx status` reads."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memidx.githooks.shims import OWN, TRACE_DIR, shim
from memidx.index.failures import last_failure
from memidx.locations import user_trace_dir

SCRIPT = Path(__file__).resolve().parents[2] / "hooks" / "memidx-hook"


def shell_trace_dirs(roots: list[Path], env: dict[str, str]) -> list[str]:
    """What `trace_dir` says under /bin/sh for each of `roots`, in one run."""
    done = subprocess.run(
        [
            "/bin/sh",
            "-c",
            TRACE_DIR + 'for root; do trace_dir "$root"; done',
            "sh",
            *map(str, roots),
        ],
        env=env,
        capture_output=True,
        check=True,
        timeout=30,
    )
    return os.fsdecode(done.stdout).splitlines()


def test_the_shell_names_a_memory_s_trace_folder_as_memidx_does(tmp_path: Path) -> None:
    names = ["memory", "a b", ".hidden", "...", "x" * 60, "caf\u00e9 \u00e0 la m\u00e9moire"]
    roots = [tmp_path / name for name in names] + [Path("/")]
    for root in roots:
        root.mkdir(exist_ok=True)
    (tmp_path / "link").symlink_to(tmp_path / "memory")  # resolved, as Path.resolve() does
    roots += [tmp_path / "link", tmp_path / "not made yet"]
    state = {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}
    home = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": "relative"}  # ignored, as XDG says

    for env in (state, home):
        expected = [str(user_trace_dir(root, env)) for root in roots]
        assert shell_trace_dirs(roots, {"PATH": os.environ["PATH"], **env}) == expected


def test_the_memidx_hook_script_holds_the_shims_trace_folder_as_it_is() -> None:
    assert TRACE_DIR in SCRIPT.read_text(encoding="utf-8")


def test_the_memidx_hook_script_takes_a_trace_for_its_own_as_the_shims_do() -> None:
    assert OWN in SCRIPT.read_text(encoding="utf-8")


@pytest.mark.xfail(
    strict=True,
    reason="the shell names no trace folder without HOME (Python takes the home of the password "
    "database: cron, some services) and drops trailing newlines of a folder's name ($(...)): "
    "a trace written there is one status never reads. For the lead: rare enough to weigh",
)
@pytest.mark.parametrize("case", ["no HOME", "name ending in a newline"])
def test_the_shell_and_memidx_agree_without_home_and_on_any_name(tmp_path: Path, case: str) -> None:
    root = tmp_path / ("memory" if case == "no HOME" else "memory\n")
    root.mkdir()
    env = {"PATH": os.environ["PATH"]}
    if case != "no HOME":
        env["HOME"] = str(tmp_path / "home")
    expected = user_trace_dir(root, env)
    done = subprocess.run(
        ["/bin/sh", "-c", TRACE_DIR + 'trace_dir "$1"', "sh", str(root)],
        env=env,
        capture_output=True,
        check=False,
        timeout=30,
    )
    assert expected is not None
    assert os.fsdecode(done.stdout) == f"{expected}\n"


@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_the_hook_script_leaves_its_trace_in_the_state_folder_past_a_fifo_or_a_link(
    tmp_path: Path, planted: str
) -> None:
    """A FIFO at `.memidx/hook-error.log` held the shell's `>>` for a reader for ever (the git
    operation hung); a link took the line into the file it named. Both now send it where
    memidx.index.failures sends it: the user's state folder, which `memidx status` reads."""
    root = tmp_path / "memory"
    (root / ".git").mkdir(parents=True)  # the hook takes $PWD for the memory: no git run
    trace = root / ".memidx" / "hook-error.log"
    trace.parent.mkdir()
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("not memidx's\n")
    if planted == "fifo":
        os.mkfifo(trace)
    else:
        trace.symlink_to(theirs)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    env |= {"XDG_STATE_HOME": str(tmp_path / "state"), "MEMIDX_PYTHON": str(tmp_path / "none")}

    done = subprocess.run(
        ["/bin/sh", str(SCRIPT), "hook", "post-commit"],
        cwd=root,
        env=env,
        capture_output=True,
        check=False,
        timeout=10,
    )

    assert done.returncode == 0
    assert theirs.read_text() == "not memidx's\n"
    fallback = user_trace_dir(root, env)
    assert fallback is not None
    found = last_failure(trace, fallback / "hook-error.log")  # what `memidx status` reads
    assert found is not None and found.hook == "post-commit"
    assert found.message.startswith(f"cannot run memidx: no Python at {tmp_path / 'none'} ")


@pytest.mark.parametrize("planted", ["fifo", "link"])
def test_a_shim_without_the_hook_script_leaves_its_trace_past_a_fifo_or_a_link(
    tmp_path: Path, planted: str
) -> None:
    """A checkout without hooks/memidx-hook (an orphan branch): the shim's own `>>` waited on
    a FIFO at `.memidx/hook-error.log` for ever (the git operation hung) and appended through
    a link there. Its line goes to the user's state folder now, as the hook script's does."""
    root = tmp_path / "memory"
    trace = root / ".memidx" / "hook-error.log"
    trace.parent.mkdir(parents=True)
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("not memidx's\n")
    if planted == "fifo":
        os.mkfifo(trace)
    else:
        trace.symlink_to(theirs)
    hook = tmp_path / "hooks" / "post-commit"
    hook.parent.mkdir()
    hook.write_text(shim("post-commit"), encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")

    done = subprocess.run(
        ["/bin/sh", str(hook)], cwd=root, env=env, capture_output=True, check=False, timeout=10
    )

    assert done.returncode == 0
    assert theirs.read_text() == "not memidx's\n"
    fallback = user_trace_dir(root, env)
    assert fallback is not None
    found = last_failure(trace, fallback / "hook-error.log")  # what `memidx status` reads
    assert found is not None and found.hook == "post-commit"
    assert found.message == f"no hooks/memidx-hook in {root}: index not updated"

"""A copy left to archive judged torn is removed by moving it to a draft's name and moving it
back when it turns out to be a copy its session's hook wrote again, whole (memidx.agents.
archive_left._remove_torn). A hook killed between the two moves (SIGKILL at its deadline) left
the whole copy under the draft's name, and the next listing removed it as a dead draft: the
transcript's parts its session had not filed were lost, and nothing said so. It is put back."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from memidx.agents.archive_left import copies_left, take_judged
from memidx.agents.copy_source import OnDisk
from memidx.agents.session import Where
from memidx.config import Config, load_config
from memidx.memory.archives_left import archives_left, torn_kept
from tests.cli.test_agent_hooks import memory
from tests.cli.test_archives_finished_by_others import left_by
from tests.helpers import clean_env

TEXT = "the vmmem session\n" * 3
WHERE = Where("codex", "gone", "/tmp/proj")

# A hook of another session judging the torn copy, killed once the copy is under the draft's
# name; `written_again`: its session's hook writes the copy again (whole) right after it is
# linked aside, as begin does.
KILLED = r"""
import os, signal, sys
from pathlib import Path

from memidx.agents import archive_left
from memidx.agents.session import Where
from memidx.config import load_config

config, copy = load_config(Path(sys.argv[1])), Path(sys.argv[2])
where = Where("codex", "gone", "/tmp/proj")
real_link, real_is = os.link, archive_left._is


def link(src, dst, **kwargs):
    real_link(src, dst, **kwargs)
    if sys.argv[3] == "written_again":
        archive_left.begin(config, where, sys.argv[4])


def is_(path, torn):
    if path.name.startswith("."):  # the copy under the draft's name: killed here
        os.kill(os.getpid(), signal.SIGKILL)
    return real_is(path, torn)


archive_left.os.link, archive_left._is = link, is_
archive_left.take_judged(config, where, copy)
"""


def killed_judging(config: Config, copy: Path, how: str) -> list[str]:
    """The names beside `copy` once a hook judging it torn was killed between its moves."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(config.root), str(copy), how, TEXT],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    return sorted(p.name for p in copy.parent.iterdir() if p.name != "gone.json")


def test_a_copy_written_again_held_by_a_hook_killed_is_put_back(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", TEXT)
    copy.write_text("the vmmem sess")  # torn in place (a power loss)

    held = killed_judging(config, copy, "written_again")
    assert held[0].startswith(f".{copy.name}.")  # under the draft's name
    assert held[1:] == [f"{copy.name}.torn"]  # the copy's own name: none
    # status counts it at once: no listing has put it back yet (status sweeps nothing)
    assert archives_left(config.state_dir) == 1
    assert copy.with_name(held[0]).exists()

    assert copies_left(config) == {("codex", "gone"): [copy]}  # status counts it again
    assert copy.read_text() == TEXT  # the copy written again, whole: to be filed
    assert sorted(p.name for p in copy.parent.iterdir()) == sorted(
        ["gone.json", copy.name, f"{copy.name}.torn"]
    )
    source = take_judged(config, WHERE, copy)
    assert isinstance(source, OnDisk)  # whole: filed by the next event
    source.close()
    assert copy.with_name(f"{copy.name}.torn").read_text() == "the vmmem sess"


def test_the_torn_copy_held_by_a_hook_killed_is_not_put_back(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", TEXT)
    copy.write_text("the vmmem sess")  # torn in place

    assert len(killed_judging(config, copy, "torn")) == 2  # held, and kept aside
    # the torn one held is no copy to archive: counted as torn alone, before any listing
    assert archives_left(config.state_dir) == 0
    assert torn_kept(config.state_dir) == [copy.with_name(f"{copy.name}.torn")]

    assert copies_left(config) == {}  # kept aside: never tried again
    assert sorted(p.name for p in copy.parent.iterdir()) == [f"{copy.name}.torn", "gone.json"]
    assert copy.with_name(f"{copy.name}.torn").read_text() == "the vmmem sess"


def test_a_copy_held_by_a_live_hook_is_left_to_it(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", TEXT)
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as live:
        try:
            held = copy.with_name(f".{copy.name}.{live.pid}.held")
            copy.rename(held)
            assert archives_left(config.state_dir) == 1  # to come back under its name

            assert copies_left(config) == {}

            assert held.read_text() == TEXT and not copy.exists()
        finally:
            live.kill()


def test_status_counts_a_held_copy_once(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    copy = left_by(config, "codex", "gone", TEXT)
    held = copy.with_name(f".{copy.name}.99999999.held")  # a hook gone since (no such pid)
    os.link(copy, held)  # and the copy back under its name meanwhile: one copy, not two

    assert repo.memidx("status", "--json").json()["archives_left"] == 1
    copy.unlink()
    shown = repo.memidx("status", "--json").json()
    assert (shown["archives_left"], shown["archives_torn"]) == (1, [])  # still one to archive
    assert "1 transcript to archive" in repo.memidx("status").out
    assert held.exists()  # status moves nothing: the next listing puts it back


# In a pid namespace of its own (its pids given out from 1, the next one set by ns_last_pid):
# a hook of pid 50 holds the copy and is killed; a process started since is given pid 50.
REUSED = r"""
import json, os, subprocess, sys, time
from pathlib import Path

from memidx.agents.archive_left import copies_left
from memidx.config import load_config
from memidx.process_start import note_clock

config, copy = load_config(Path(sys.argv[1])), Path(sys.argv[2])
note_clock()  # as the hook does before it makes the name of its pid
if sys.argv[3] == "held":
    copy.rename(copy.with_name(f".{copy.name}.50.held"))
else:  # the draft of a copy (the raw transcript) its writer, killed, left half written
    copy.with_name(f".{copy.name}.50.tmp").write_text("the vmmem sess")
time.sleep(1.5)  # the hook killed; a while later its pid is given again
with open("/proc/sys/kernel/ns_last_pid", "w") as out:
    out.write("49")
with subprocess.Popen(["sleep", "60"]) as live:
    try:
        assert live.pid == 50, live.pid
        print(json.dumps([str(p) for found in copies_left(config).values() for p in found]))
    finally:
        live.kill()
"""


@cache
def pid_namespace() -> tuple[str, ...] | None:
    """`unshare` making a pid namespace whose next pid a process in it may set (ns_last_pid):
    as root, else in a user namespace of its own (`-r`: a runner that is no root, or root
    without CAP_SYS_ADMIN, a container's, where `unshare --pid` fails); None where neither
    can (no unshare, user namespaces forbidden)."""
    import shutil

    if (unshare := shutil.which("unshare")) is None:
        return None
    setting = ["sh", "-c", "echo 49 > /proc/sys/kernel/ns_last_pid"]
    for mapped in ((), ("-r",)):
        command = (unshare, *mapped, "--pid", "--fork", "--mount-proc")
        done = subprocess.run([*command, *setting], capture_output=True, check=False)
        if done.returncode == 0:
            return command
    return None


def in_a_pid_namespace(config: Config, copy: Path, kind: str) -> list[str]:
    """The copies listed (and what the listing left beside them swept) while a process
    started after a hook of pid 50 was killed has that pid; `kind`: what the hook left."""
    import json

    if (namespace := pid_namespace()) is None:
        import pytest

        pytest.skip("no pid namespace can be made here (unshare --pid, as root or with -r)")
    done = subprocess.run(
        [*namespace, sys.executable, "-c", REUSED, str(config.root), str(copy), kind],
        env=clean_env(), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_a_copy_held_by_a_hook_whose_pid_a_later_process_has_is_put_back(
    tmp_path: Path,
) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", TEXT)

    listed = in_a_pid_namespace(config, copy, "held")

    # the live process of its pid is no hook of memidx's: the copy is back, to be filed
    assert listed == [str(copy)]
    assert copy.read_text() == TEXT
    assert not [p for p in copy.parent.iterdir() if p.name.endswith(".held")]


def test_the_draft_of_a_copy_whose_writers_pid_a_later_process_has_is_removed(
    tmp_path: Path,
) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", TEXT)

    assert in_a_pid_namespace(config, copy, "draft") == [str(copy)]

    assert not [p for p in copy.parent.iterdir() if p.name.endswith(".tmp")]  # raw words
    assert copy.read_text() == TEXT

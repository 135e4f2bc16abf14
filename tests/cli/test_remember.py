"""`memidx remember`: any agent writes a note that is checked, committed and indexed at once."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.memory import answer_by
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.remember import remember
from tests.helpers import Run
from tests.machines import Machine, clone, environment, hook_env, make_template, put_back
from tests.pending_runs import finishers

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def commits(machine: Machine) -> int:
    return int(machine.git("rev-list", "--count", "HEAD").strip())


def test_remember_writes_commits_and_indexes_a_note(machine: Machine) -> None:
    before = commits(machine)
    run = machine.memidx_process(
        "remember",
        "--title",
        "WSL eats all the RAM",
        "--tags",
        "wsl, Windows",
        "--dir",
        "wsl",
        "--json",
        stdin=BODY,
    )
    assert run.code == 0, run.err
    data = run.json()
    assert data["ref"] == "notes/wsl/wsl-eats-all-the-ram.md"
    assert commits(machine) == before + 1
    assert machine.git("status", "--porcelain").strip() == ""
    text = (machine.root / data["ref"]).read_text()
    assert text.startswith("---\ntitle: WSL eats all the RAM\ntags:\n- wsl\n- windows\ncreated: ")
    hits = machine.memidx("search", "--json", "--mode", "bm25", "vmmem").json()["hits"]
    assert [h["ref"] for h in hits] == [data["ref"]]
    assert machine.memidx("status").code == 0


def test_a_backslash_in_dir_separates_folders(machine: Machine) -> None:
    # typed on Windows; as one name, git for Windows refuses to check the path out
    run = machine.memidx_process("remember", "--title", "Vmmem", "--dir", "ops\\wsl", stdin=BODY)
    assert run.code == 0 and run.out.strip() == "notes/ops/wsl/vmmem.md", run.err


def test_a_body_written_with_a_byte_order_mark_is_the_body_without_it(machine: Machine) -> None:
    # Notepad's "UTF-8 with BOM": the mark was written inside the note, before its heading,
    # which was then no heading (`\ufeff## Cap`), and an invisible character was committed
    run = machine.memidx_process("remember", "--title", "Vmmem", stdin="\ufeff## Cap\n" + BODY)
    assert run.code == 0, run.err
    text = (machine.root / run.out.strip()).read_text(encoding="utf-8")
    assert "\ufeff" not in text and "\n## Cap\n" in text


def test_the_same_title_twice_gets_a_new_file(machine: Machine) -> None:
    first = machine.memidx_process("remember", "--title", "Disk full!", stdin=BODY)
    second = machine.memidx_process("remember", "--title", "Disk full!", stdin=BODY + "Again.\n")
    assert (first.out.strip(), second.out.strip()) == ("notes/disk-full.md", "notes/disk-full-2.md")


def test_the_same_note_remembered_again_is_the_note_already_committed(machine: Machine) -> None:
    """A second `remember` of a note word for word (same title, body and day) once the first
    had committed wrote a twin, `<slug>-2.md`: the lesson twice in memory (and, racing a first
    still committing, one note or two by chance). Its commit is the one that added it, not
    HEAD, which another note's commit had moved on since."""
    first = machine.memidx_process("remember", "--title", "Disk full!", "--json", stdin=BODY)
    other = remember(load_config(machine.root, env={}), "Disk slow", BODY)  # in-process: cheap
    assert other.commit != first.json()["commit"]
    before = commits(machine)
    second = machine.memidx_process("remember", "--title", "Disk full!", "--json", stdin=BODY)
    assert second.code == 0, second.err
    assert second.json()["ref"] == first.json()["ref"] == "notes/disk-full.md"
    assert second.json()["commit"] == first.json()["commit"]
    assert commits(machine) == before
    assert sorted(p.name for p in (machine.root / "notes").glob("disk-full*")) == ["disk-full.md"]
    assert machine.git("status", "--porcelain").strip() == ""


@pytest.mark.parametrize("earlier", ["strae-closed.md", "strae-closed-2.md"])
def test_the_same_note_under_its_earlier_name_is_the_note_already_there(
    machine: Machine, earlier: str
) -> None:
    """A slug now spells the letters it dropped (`Straße`, once `strae.md`, is `strasse.md`):
    the same note remembered again the same day, kept or committed under its earlier name,
    was written anew as a twin under the new one. Notes named before keep their names; the
    lookup read past a gap (`strae-closed.md` gone, the note in `strae-closed-2.md`)."""
    with environment(machine.env):  # set-up in this process: cheap (the processes follow)
        first = remember(load_config(machine.root, env={}), "Straße closed", BODY)
    assert first.ref == "notes/strasse-closed.md"
    machine.git("mv", "notes/strasse-closed.md", f"notes/{earlier}")
    # a set-up commit: without the pre-commit checks (~0.5 s of CPU), its post-commit sync run
    machine.git("commit", "-q", "--no-verify", "-m", "named as memidx named it before")
    before = commits(machine)
    again = machine.memidx_process("remember", "--title", "Straße closed", "--json", stdin=BODY)
    assert again.code == 0, again.err
    assert again.json()["ref"] == f"notes/{earlier}"
    assert commits(machine) == before
    assert sorted(p.name for p in (machine.root / "notes").glob("stra*")) == [earlier]
    other = machine.memidx_process("remember", "--title", "Straße closed", stdin=BODY + "More.\n")
    assert other.out.strip() == "notes/strasse-closed.md", other.err


def test_a_note_that_is_not_english_is_kept_but_not_committed(machine: Machine) -> None:
    before = commits(machine)
    body = (
        "Der Prozess vmmem belegt den gesamten Arbeitsspeicher. Man kann das Limit in der Datei "
        "wslconfig festlegen und danach die virtuelle Maschine neu starten.\n"
    )
    run = machine.memidx_process("remember", "--title", "Speicher unter WSL", stdin=body)
    assert run.code == 1
    assert "notes/speicher-unter-wsl.md: written in de" in run.err
    assert "is kept" in run.err and "Traceback" not in run.err
    # remember's own way out: a `SKIP=... git commit` hint is the commit's, not remember's
    assert "translate it and remember it again" in run.err and "SKIP=" not in run.err, run.err
    assert "delete it first" in run.err and len(run.err.strip().splitlines()) == 1

    assert commits(machine) == before
    assert (machine.root / "notes" / "speicher-unter-wsl.md").is_file()
    assert "?? notes/speicher-unter-wsl.md" in machine.git("status", "--porcelain")


def test_english_with_loanwords_is_remembered(machine: Machine) -> None:
    body = "Café au lait: the naïve façade résumé is fine in English.\n"
    run = machine.memidx_process("remember", "--title", "Coffee words", stdin=body)
    assert run.code == 0 and run.out.strip() == "notes/coffee-words.md", run.err


def test_an_oversized_note_is_refused_before_committing(machine: Machine) -> None:
    run = machine.memidx_process(
        "remember", "--title", "Huge", stdin="word " * 300_000, MEMIDX_MAX_NOTE_BYTES="100000"
    )
    assert run.code == 1 and "cannot be indexed: too large" in run.err


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--title", "  "], BODY, "--title is empty"),
        (["--title", "No body"], "   \n", "the note has no body"),
        (["--title", "Escape", "--dir", "../outside"], BODY, "must be a relative folder"),
        (["--title", "Hidden", "--dir", ".secret"], BODY, "must be a relative folder"),
        (["--title", "Absolute", "--dir", "/etc"], BODY, "must be a relative folder"),
        (["--title", "Turn log", "--dir", "haystack"], BODY, "not haystack/"),
        (["--title", "Turn log", "--dir", "haystack/x"], BODY, "not haystack/"),
        (["--title", "Turn log", "--dir", "Haystack"], BODY, "not haystack/"),
        (["--title", "Turn log", "--dir", "haystack."], BODY, "not haystack/"),
        (["--title", "Turn log", "--dir", "HAYSTACK ./x"], BODY, "not haystack/"),
        (["--title", "Turn log", "--dir", "Haystack\\x"], BODY, "not haystack/"),
        (["--title", "In a file", "--dir", "kept.md"], BODY, "notes/kept.md is a file"),
        (["--title", "Under a file", "--dir", "kept.md/x"], BODY, "notes/kept.md is a file"),
    ],
)
def test_bad_arguments_are_usage_errors(
    refusing: Machine, monkeypatch: pytest.MonkeyPatch, args: list[str], stdin: str, message: str
) -> None:
    """Each refused in this process (main(), as the executable runs it; a process each cost
    ~0.3 s of CPU), one machine for all: a refusal writes nothing. The exit code of a process
    is test_a_usage_error_is_exit_2_of_the_process's."""
    before = refusing.git("status", "--porcelain")
    with environment({"MEMIDX_ROOT": str(refusing.root), **refusing.env}):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        run = refusing.memidx("remember", *args)
    assert run.code == 2 and message in run.err, run.err
    assert refusing.git("status", "--porcelain") == before


def test_a_usage_error_is_exit_2_of_the_process(refusing: Machine) -> None:
    run = refusing.memidx_process("remember", "--title", "Escape", "--dir", "../x", stdin=BODY)
    assert run.code == 2 and "must be a relative folder" in run.err, run.err
    assert "Traceback" not in run.err and run.out == ""


@pytest.fixture
def refusing(refusing_machine: Machine) -> Iterator[Machine]:
    """The module's machine for one test, put back after it (a refusal wrongly written is
    that test's failure, not its neighbours')."""
    with put_back(refusing_machine) as machine:
        yield machine


@pytest.fixture(scope="module")
def refusing_machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    """A machine whose notes/kept.md is a file (uncommitted): for remember's refusals."""
    root = tmp_path_factory.mktemp("refusing")
    env = hook_env(root / "pre-commit-home")
    machine = clone(make_template(root, env), root / "a", env)
    (machine.root / "notes" / "kept.md").write_text("# Kept\n")
    return machine


def test_several_agents_remembering_at_once_lose_nothing(machine: Machine) -> None:
    before = commits(machine)
    memidx = str(Path(sys.executable).parent / "memidx")
    procs = [
        subprocess.Popen(
            [memidx, "remember", "--title", f"Parallel note {i}", "--tags", "parallel"],
            cwd=machine.root,
            env=machine.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(6)
    ]
    results = [p.communicate(f"parallel body number {i} with words\n") for i, p in enumerate(procs)]
    assert [p.returncode for p in procs] == [0] * 6, results
    assert commits(machine) == before + 6
    hits = machine.memidx("search", "--json", "--mode", "bm25", "-k", "20", "parallel").json()
    assert hits["count"] == 6
    assert machine.memidx("status").code == 0


def hold_open(path: Path, seconds: float) -> subprocess.Popen[bytes]:
    """Another git process: it holds `path` open (as git holds index.lock), then removes it."""
    script = (
        "import os, sys, time\n"
        f"f = open({str(path)!r}, 'w'); print('held', flush=True); time.sleep({seconds})\n"
        f"os.remove({str(path)!r})\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    return holder


def test_index_lock_contention_is_retried(machine: Machine) -> None:
    holder = hold_open(machine.root / ".git" / "index.lock", 0.4)
    run = machine.memidx_process("remember", "--title", "Patient note", stdin=BODY)
    holder.wait()
    assert run.code == 0, run.err
    assert machine.memidx("search", "--json", "--mode", "bm25", "patient").json()["count"] == 1
    assert machine.git("status", "--porcelain").strip() == ""


def _no_finisher(*_: object) -> None:
    """No finisher started (memidx.memory.pending_finisher)."""


PERSON = "The build cache is keyed by the lock file; touch it to rebuild from scratch.\n"


def test_a_note_remembered_while_a_person_commits_ends_committed_once(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's `git commit -a` holds index.lock while its hooks and editor run, for longer
    than remember's wait (WAIT_SECONDS, 10 s, is 3 s here; remember runs in this process): the
    remember, and a second queued behind it, answer at once with their notes written and
    pending, not a failure; the person's commit, ending, runs the post-commit hook, which
    commits each note once, searchable, the person's staged work committed as they staged it."""
    # 3 s, not 1.5: the second's own work took 1.4-3.5 s at a load of 15-28 (two engineers
    # saw it fail so); it must stay well under the wait it would repeat
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 3.0)
    monkeypatch.setattr(answer_by, "BEHIND_WAIT", 0.2)
    # the hook's part, here: the finisher (test_pending_finisher.py) commits once git lets go,
    # which this test's git, unlike a person's, does before its commit starts
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    (machine.root / "notes" / "cache.md").write_text(f"# Build cache\n\n{PERSON}")
    machine.git("add", "notes/cache.md")  # the person's staged work
    before = commits(machine)
    lock = machine.root / ".git" / "index.lock"
    holder = hold_open(lock, 60)
    try:
        with environment({"MEMIDX_ROOT": str(machine.root), **machine.env}):
            runs: list[tuple[Run, float]] = []
            for title in ("Stuck note", "Queued note"):
                monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))
                started = time.monotonic()
                runs.append((machine.memidx("remember", "--title", title, "--json"), 0.0))
                runs[-1] = (runs[-1][0], time.monotonic() - started)
        still_held = holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
        lock.unlink(missing_ok=True)  # the person's commit goes on
    assert still_held and runs[0][1] >= 3.0  # the first waited for git the whole wait
    assert runs[1][1] < 2.5  # the second, behind a pending note, did not wait it again
    for run, _ in runs:
        assert run.code == 0 and "Traceback" not in run.err, run.err
        assert run.json()["committed"] is False and run.json()["commit"] is None
        assert "is written but not committed yet: git's index was held by " in run.err
    refs = [run.json()["ref"] for run, _ in runs]
    assert commits(machine) == before
    assert machine.git("diff", "--cached", "--name-only").split() == ["notes/cache.md"]
    hook = machine.run_git("commit", "-q", "-m", "The build cache note")  # with its hooks
    assert hook.returncode == 0, hook.stderr
    assert "notes/stuck-note.md, remembered while git was busy" in hook.stdout + hook.stderr
    assert commits(machine) == before + 3  # the person's, and one for each note
    assert machine.git("show", "--name-only", "--format=", "HEAD~2").split() == ["notes/cache.md"]
    for ref in refs:
        added = machine.git("log", "--format=%s", "--", ref).splitlines()
        assert len(added) == 1 and added[0].startswith("memidx remember: ")
    assert machine.git("status", "--porcelain").strip() == ""
    hits = machine.memidx("search", "--json", "--mode", "bm25", "vmmem").json()["hits"]
    assert sorted(h["ref"] for h in hits) == sorted(refs)
    assert not any_pending(load_config(machine.root, env={}))


def test_memidx_sync_commits_a_pending_note_and_indexes_it(machine: Machine) -> None:
    """A note left pending whose git command ended without a post-* hook (a commit the
    person's pre-commit check refused, say) is committed by the next `memidx sync`."""
    from memidx.memory.pending_notes import keep

    text = f"---\ntitle: Pending note\ncreated: '2026-12-05'\n---\n\n{BODY}"
    (machine.root / "notes" / "pending-note.md").write_text(text)
    config = load_config(machine.root, env={})
    keep(config, "notes/pending-note.md", "Pending note", text, "refs/heads/main")
    before = commits(machine)
    run = machine.memidx("sync")
    assert run.code == 0 and "committed notes/pending-note.md" in run.err, run.err
    assert commits(machine) == before + 1 and machine.git("status", "--porcelain") == ""
    hits = machine.memidx("search", "--json", "--mode", "bm25", "vmmem").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/pending-note.md"]


def test_a_lock_left_by_a_killed_git_is_named_with_its_remedy(machine: Machine) -> None:
    """The note is kept: once the person removes the lock as told, it is committed (its entry
    was dropped, and the note stayed untracked for good unless remembered again)."""
    lock = machine.root / ".git" / "index.lock"
    lock.write_text("left by a git that was killed")
    before = commits(machine)
    run = machine.memidx_process("remember", "--title", "Stale lock", stdin=BODY)
    assert run.code == 1 and "Traceback" not in run.err
    assert "left behind by a git process that was killed" in run.err
    assert f"rm {lock}" in run.err
    assert "the note is kept, and committed once it is removed" in run.err
    assert commits(machine) == before and lock.read_text() == "left by a git that was killed"
    lock.unlink()  # as told: the finisher the remember started commits the note, then ends
    for _ in range(200):
        if commits(machine) == before + 1 and not finishers(machine.root):
            break
        time.sleep(0.1)
    assert machine.git("log", "-1", "--format=%s").strip() == "memidx remember: Stale lock"
    assert commits(machine) == before + 1 and not finishers(machine.root)


def test_an_edit_made_while_remember_commits_survives_byte_for_byte(machine: Machine) -> None:
    """An editor appends to a tracked note while agents remember: no line is lost."""
    tracked = machine.root / "notes" / "welcome.md"
    script = (
        "import sys, time\n"
        f"path = {str(tracked)!r}\n"
        "for i in range(400):\n"
        "    with open(path, 'a') as f:\n"
        "        f.write(f'appended line {i}\\n')\n"
        "    time.sleep(0.005)\n"
    )
    before = tracked.read_text()
    editor = subprocess.Popen([sys.executable, "-c", script])
    runs = [
        machine.memidx_process("remember", "--title", f"Concurrent {i}", stdin=BODY)
        for i in range(3)
    ]
    editor.wait()
    assert [r.code for r in runs] == [0, 0, 0], [r.err for r in runs]
    expected = before + "".join(f"appended line {i}\n" for i in range(400))
    assert tracked.read_text() == expected
    assert machine.git("status", "--porcelain").strip() == "M notes/welcome.md"


def test_remember_leaves_what_the_user_staged_staged_and_uncommitted(machine: Machine) -> None:
    machine.note("draft.md", "Draft", "a draft the user staged")
    machine.git("add", "notes/draft.md")
    run = machine.memidx_process("remember", "--title", "Agent note", stdin=BODY)
    assert run.code == 0, run.err
    assert "notes/draft.md" not in machine.git("show", "--name-only", "--format=", "HEAD")
    assert machine.git("status", "--porcelain").strip() == "A  notes/draft.md"


@pytest.mark.parametrize("link", ["notes/evil", "notes"])
def test_a_symlinked_folder_never_takes_a_note_outside_the_repository(
    machine: Machine, tmp_path: Path, link: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    path = machine.root / link
    if link == "notes":
        real = machine.root / "real-notes"
        path.rename(real)
    path.symlink_to(outside)
    run = machine.memidx_process("remember", "--title", "Escape", "--dir", "evil", stdin=BODY)
    assert run.code == 1 and "is a symbolic link" in run.err and "Traceback" not in run.err
    assert list(outside.iterdir()) == []


def test_a_lock_git_holds_while_its_hooks_run_is_waited_for_not_called_stale(
    machine: Machine,
) -> None:
    """git keeps index.lock, with the file closed, while a commit's hooks run."""
    hook = machine.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nsleep 2\nexit 0\n")
    hook.chmod(0o755)
    machine.note("slow.md", "Slow", "committed by a person whose hook is slow")
    machine.git("add", "-A")
    person = subprocess.Popen(
        ["git", "commit", "-q", "-m", "slow", "--", "notes/slow.md"],
        cwd=machine.root,
        env=machine.env,
    )
    lock = machine.root / ".git" / "index.lock"
    for _ in range(100):
        if lock.exists():
            break
        time.sleep(0.02)
    assert lock.exists()
    run = machine.memidx_process("remember", "--title", "While git commits", stdin=BODY)
    assert person.wait() == 0
    assert run.code == 0, run.err
    assert "left behind" not in run.err


def test_remember_on_a_detached_head_is_refused_before_writing(machine: Machine) -> None:
    """A note committed on a detached HEAD is left behind by the next `git switch`: git takes
    the file off the disk and the index drops it, though remember said it was kept. So it is
    refused, with one line, and nothing is written."""
    machine.git("checkout", "-q", "--detach")
    head = machine.git("rev-parse", "HEAD").strip()

    run = machine.memidx_process("remember", "--title", "Left behind", stdin=BODY)

    assert run.code == 1 and run.err.count("\n") == 1, run.err
    assert "HEAD is detached" in run.err and "git switch -c" in run.err
    assert machine.git("rev-parse", "HEAD").strip() == head
    assert machine.git("status", "--porcelain").strip() == ""


def test_remember_during_a_stopped_rebase_says_to_finish_it(machine: Machine) -> None:
    """In a rebase stopped on a conflict HEAD is detached, and `git rebase --abort` would take
    away a note committed there: the line names the rebase and how to end it."""
    machine.note("clash.md", "Clash", "the base line")
    machine.commit("base", checks=False)
    machine.git("switch", "-q", "-c", "side")
    machine.note("clash.md", "Clash", "the side line")
    machine.commit("side", checks=False)
    machine.git("switch", "-q", "main")
    machine.note("clash.md", "Clash", "the main line")
    machine.commit("main", checks=False)
    assert machine.run_git("rebase", "side").returncode != 0  # stopped on the conflict

    run = machine.memidx_process("remember", "--title", "Mid rebase", stdin=BODY)

    assert run.code == 1 and "a rebase is in progress" in run.err, run.err
    assert "git rebase --continue" in run.err and "git switch -c" not in run.err
    assert not (machine.root / "notes" / "mid-rebase.md").exists()


def test_remember_beside_a_rebase_folder_git_cannot_end_says_what_to_do(machine: Machine) -> None:
    """`git pull --rebase --autostash` stopped as it started ("cannot rebase: You have unstaged
    changes") leaves .git/rebase-merge without head-name (chaos bench, seed 3): `git rebase
    --abort` and `--continue` both fail on it, so the hint to run them was one no one could
    follow. The line says so, and how to keep the autostash."""
    machine.note("base.md", "Base", "the base line")
    machine.commit("base", checks=False)
    (machine.root / "notes" / "base.md").write_text("an edit of the person's\n")
    stash = machine.git("stash", "create").strip()  # what the pull's autostash holds
    folder = machine.root / ".git" / "rebase-merge"
    folder.mkdir()
    (folder / "autostash").write_text(stash + "\n")
    machine.git("checkout", "-q", "--detach")
    assert machine.run_git("rebase", "--abort").returncode != 0  # git cannot end it itself

    run = machine.memidx_process("remember", "--title", "Broken rebase", stdin=BODY)

    assert run.code == 1 and "git rebase --continue" not in run.err, run.err
    assert f"{folder} has no head-name" in run.err, run.err
    assert f"git stash apply $(cat {folder / 'autostash'}), then rm -r {folder}" in run.err
    assert not (machine.root / "notes" / "broken-rebase.md").exists()

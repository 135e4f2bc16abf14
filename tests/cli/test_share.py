"""`memidx share` (`make sync`): clones that sync at the same time all get through, and a real
conflict stops with one line that says a person must resolve it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitError, MemidxError
from memidx.memory import share as share_module
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo, run_in_process
from tests.machines import Machine, clone, hook_env, make_template
from tests.memories import diverged_clones


def share_process(machine: Machine) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memidx", "-C", str(machine.root), "share", "--json"],
        env=machine.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def file_turn(machine: Machine, text: str) -> None:
    """A turn filed to set a test up, in this process (the share is what is checked)."""
    run = machine.memidx_here("file-turn", stdin=f'{{"text": "{text}", "session": "s"}}')
    assert run.code == 0, run.err


def test_clones_syncing_at_once_all_get_through_and_converge(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    machines = [clone(remote, tmp_path / f"m{i}", env) for i in range(4)]
    for i, machine in enumerate(machines):
        file_turn(machine, f"turn number {i} from machine {i}")
        body = f"machine {i} learned that its build cache needs pruning\n"
        assert machine.memidx_here("remember", "--title", f"Lesson {i}", stdin=body).code == 0
    runs = [share_process(m) for m in machines]
    results = [p.communicate(timeout=300) for p in runs]
    assert [p.returncode for p in runs] == [0, 0, 0, 0], [err for _, err in results]
    assert all("Traceback" not in err for _, err in results)
    for machine in machines:  # quiesce: everyone pulls what the later pushes brought
        assert machine.memidx_here("share").code == 0
    heads = {m.git("rev-parse", "HEAD").strip() for m in machines}
    remote_head = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "main"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    assert heads == {remote_head}
    for machine in machines:
        turns = machine.memidx("search", "--json", "--mode", "bm25", "-k", "20", "turn", "machine")
        assert turns.json()["count"] == 4
        notes = machine.memidx("search", "--json", "--mode", "bm25", "-k", "20", "pruning")
        assert notes.json()["count"] == 4
        assert machine.memidx("status").code == 0


def test_share_killed_as_its_haystack_commit_lands_leaves_git_s_index_in_step(
    tmp_path: Path,
) -> None:
    """memidx moves HEAD to its commit, then tells git's index about the committed segment: a
    `kill -9` in between (about one share in 40 under stress) left the segment staged as
    deleted and untracked, which a person's next `git commit` would have committed. The
    clone's reference-transaction hook kills memidx the moment HEAD has moved, before git
    answers it; what follows the move runs on in git's own process."""
    one, _ = clones(tmp_path)
    file = run_in_process(
        one.root, "file-turn", stdin='{"text": "a turn share commits", "session": "s"}'
    )
    assert file.code == 0, file.err
    head = one.git("rev-parse", "HEAD").strip()

    one.memidx_killed_as_head_moves("share")

    deadline = time.monotonic() + 10  # the git that moved HEAD may still be at work
    while one.git("status", "--porcelain").strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert one.git("status", "--porcelain").strip() == ""
    assert one.git("rev-parse", "HEAD~1").strip() == head
    assert one.git("log", "-1", "--format=%s").startswith("haystack: segments of ")


def test_a_real_conflict_needs_a_person_and_says_so(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    a, b = clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)
    a.note("welcome.md", "Welcome", "machine a rewrote this line")
    a.commit("a edits", checks=False)
    assert a.memidx_here("share").code == 0
    b.note("welcome.md", "Welcome", "machine b rewrote this line differently")
    b.commit("b edits", checks=False)
    run = b.memidx_process("share")
    assert run.code == 1
    errors = [line for line in run.err.splitlines() if line.startswith("memidx: error:")]
    assert (
        len(errors) == 1 and "merge conflict" in errors[0] and "a person must resolve" in errors[0]
    )
    assert "Traceback" not in run.err


def test_share_without_a_remote_commits_the_haystack_only(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.git("remote", "remove", "origin")
    file_turn(machine, "a turn with no remote")
    run = machine.memidx_process("share", "--json")
    assert run.code == 0, run.err
    assert run.json()["remote"] is False and run.json()["haystack_commit"]
    assert machine.git("status", "--porcelain").strip() == ""


def test_share_merges_what_its_own_fetch_brought_without_fetching_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memidx fetches, checks that no git of the clone is committing, then merges: a `git pull`
    there fetched again first (seconds on a network remote, time for a person's `git commit`
    to start, whose HEAD the merge would then move). The remote goes away right after
    memidx's fetch: what that fetch brought is merged all the same, with no network."""
    one, two = clones(tmp_path)
    one.note("from-one.md", "From one", "a note machine one pushed")
    theirs = one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("from-two.md", "From two", "a note machine two has not pushed yet")
    two.commit("two's note")
    remote = tmp_path / "remote.git"
    run_git = share_module._git  # pyright: ignore[reportPrivateUsage]

    def fetch_then_the_remote_goes_away(config: Config, *args: str) -> CompletedProcess[str]:
        done = run_git(config, *args)
        if args[0] == "fetch" and remote.exists():
            remote.rename(tmp_path / "unreachable.git")
        return done

    monkeypatch.setattr(share_module, "_git", fetch_then_the_remote_goes_away)

    with pytest.raises(GitError, match="git push failed") as raised:  # only the push needs it
        share(load_config(two.root, env={}), sleep=lambda _: None)

    # git's reason, its first sentence, not the last line of its advice ("and the repository
    # exists."), said at once (share_failures: no repository there)
    assert raised.value.message.endswith("does not appear to be a git repository.)")

    assert two.git("rev-parse", "HEAD^2").strip() == theirs  # merged: two's commit, then one's
    assert "pushed" in two.git("show", "HEAD:notes/from-one.md")
    assert two.git("status", "--porcelain", "--untracked-files=no").strip() == ""


def test_a_branch_without_an_upstream_says_so_at_once(tmp_path: Path) -> None:
    one, _ = clones(tmp_path)
    one.git("branch", "--unset-upstream")
    head = one.git("rev-parse", "HEAD").strip()

    with pytest.raises(MemidxError, match="no upstream") as raised:
        share(load_config(one.root, env={}), sleep=lambda _: None)

    assert "git push -u origin HEAD" in raised.value.hint
    assert one.git("rev-parse", "HEAD").strip() == head


def test_a_branch_without_an_upstream_is_one_line_naming_the_command(tmp_path: Path) -> None:
    """memidx knows before any merge or push that there is nothing to share with: its one
    line, none of git's ("fatal: no upstream configured for branch 'main'")."""
    one, _ = clones(tmp_path)
    one.git("branch", "--unset-upstream")

    run = one.memidx_process("share")

    assert run.code == 1
    assert run.err.splitlines() == [
        "memidx: error: the branch has no upstream to share with, so nothing was pulled or "
        "pushed (push it once with `git push -u origin HEAD`, then memidx share again)"
    ]  # no Makefile in this clone: the command `make sync` runs
    assert run.out == ""


def test_an_upstream_the_remote_no_longer_has_says_so_at_once(tmp_path: Path) -> None:
    """Trying again cannot bring back a branch deleted on the remote: one line at once, not
    forty merges over minutes ending in "the remote kept moving"."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "topic")
    one.git("push", "-q", "-u", "origin", "topic")
    one.git("push", "-q", "origin", "--delete", "topic")
    naps: list[float] = []

    with pytest.raises(MemidxError, match="upstream is not on the remote") as raised:
        share(load_config(one.root, env={}), sleep=naps.append)

    assert naps == [] and "git push -u origin HEAD" in raised.value.hint


def test_an_upstream_the_fetch_does_not_bring_names_the_refspec_to_add(tmp_path: Path) -> None:
    """In a single-branch clone, `git fetch` leaves a branch pushed later off the remote's
    refspec: `git pull` fetched it by name, `git merge @{upstream}` cannot resolve it. The
    error says so at once, and its command mends it."""
    one, _ = clones(tmp_path)
    one.git("push", "-q", "origin", "main:topic")
    one.git(
        "clone", "-q", "--single-branch", "-b", "main", str(tmp_path / "remote.git"),
        str(tmp_path / "narrow"),
    )  # fmt: skip
    narrow = NotesRepo(tmp_path / "narrow", init=False)
    narrow.git("switch", "-q", "-c", "topic")
    narrow.git("push", "-q", "-u", "origin", "topic")
    one.git("fetch", "-q")
    one.git("switch", "-q", "topic")
    one.note("theirs.md", "Theirs", "a note one pushed to topic")
    one.commit("one's note")
    one.git("push", "-q", "origin", "topic")
    narrow.note("ours.md", "Ours", "a note the narrow clone has not pushed")
    narrow.commit("narrow's note")
    naps: list[float] = []

    with pytest.raises(MemidxError, match="does not bring the branch's upstream topic") as raised:
        share(load_config(narrow.root, env={}), sleep=naps.append)

    assert naps == []
    assert raised.value.hint.startswith("git remote set-branches --add origin topic")
    narrow.git(*raised.value.hint.split(",")[0].split()[1:])
    assert share(load_config(narrow.root, env={}), sleep=naps.append).pushed
    assert "one pushed" in narrow.git("show", "HEAD:notes/theirs.md")


def test_a_remote_out_of_reach_is_named_when_the_tries_run_out(tmp_path: Path) -> None:
    """A remote whose connection closes each time (it may pass: tried again): after a few
    tries in a row (seconds, not the minutes a moving remote gets) the error names the fetch
    and git's reason, never a remote that kept moving (no push was even tried)."""
    one, _ = clones(tmp_path)
    one.git("config", "protocol.ext.allow", "always")
    one.git("remote", "set-url", "origin", "ext::false")  # the connection closes at once
    naps: list[float] = []

    with pytest.raises(GitError, match="the last: git fetch failed") as raised:
        share(load_config(one.root, env={}), sleep=naps.append)

    assert len(naps) == share_module.FETCH_TRIES - 1
    assert raised.value.message.startswith(f"{share_module.FETCH_TRIES} tries in ")
    assert "kept moving" not in raised.value.message
    # git's cause, not the last line of its advice ("and the repository exists.")
    assert raised.value.message.endswith("fatal: Could not read from remote repository.")
    assert "git fetch" in raised.value.hint


def test_a_push_the_remote_refuses_says_why_at_once(tmp_path: Path) -> None:
    """A remote whose hook declines the push (a protected branch, a server-side check) will
    decline it again: one line with git's reason at once, not minutes of tries that say
    "another clone pushed" and end in "the remote kept moving"."""
    one, _ = clones(tmp_path)
    hook = tmp_path / "remote.git" / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch: no pushes' >&2\nexit 1\n")
    hook.chmod(0o755)
    one.note("refused.md", "Refused", "a note the remote will not take")
    one.commit("a note")
    naps: list[float] = []

    with pytest.raises(GitError, match="git push failed") as raised:
        share(load_config(one.root, env={}), sleep=naps.append)

    assert naps == []
    assert "pre-receive hook declined" in raised.value.message
    assert "kept moving" not in raised.value.message


def diverged(tmp_path: Path) -> NotesRepo:
    """A clone with a commit of its own while the remote got another: a share must merge."""
    return diverged_clones(tmp_path)[1]


def test_a_merge_that_merge_ff_only_forbids_says_so_at_once(tmp_path: Path) -> None:
    """`merge.ff = only` makes every merge of diverged branches fail, the next try too: one
    line naming the setting, not minutes of tries."""
    two = diverged(tmp_path)
    two.git("config", "merge.ff", "only")
    naps: list[float] = []

    with pytest.raises(MemidxError, match=r"merge\.ff") as raised:
        share(load_config(two.root, env={}), sleep=naps.append)

    assert naps == [] and "nothing was merged, pulled or pushed" in raised.value.message


def test_an_upstream_of_unrelated_history_says_so_at_once(tmp_path: Path) -> None:
    """A remote whose branch was replaced by another history (a forced push of another
    memory) can never be merged by trying again: one line at once."""
    two = diverged(tmp_path)
    other = NotesRepo(tmp_path / "other")
    other.note("other.md", "Other", "a note of another memory")
    other.commit("another root")
    other.git("push", "-q", "-f", str(tmp_path / "remote.git"), "HEAD:main")
    naps: list[float] = []

    with pytest.raises(MemidxError, match="shares no history") as raised:
        share(load_config(two.root, env={}), sleep=naps.append)

    assert naps == [] and "nothing was pulled or pushed" in raised.value.message


def test_a_cherry_pick_in_progress_says_so_at_once(tmp_path: Path) -> None:
    """git refuses to merge until a cherry-pick stopped on a conflict is concluded, and will
    again: one line naming it, as for a merge in progress, not minutes of tries."""
    two = diverged(tmp_path)
    two.note("clash.md", "Clash", "the base line")
    two.commit("base")
    two.git("switch", "-q", "-c", "side")
    two.note("clash.md", "Clash", "the side line")
    two.commit("side")
    two.git("switch", "-q", "main")
    two.note("clash.md", "Clash", "the main line")
    two.commit("main")
    two.git("cherry-pick", "side", check=False)  # stops on the conflict
    assert (two.root / ".git" / "CHERRY_PICK_HEAD").exists()
    two.note("clash.md", "Clash", "the resolved line")
    two.git("add", "notes/clash.md")
    naps: list[float] = []

    with pytest.raises(MemidxError, match="a cherry-pick is in progress") as raised:
        share(load_config(two.root, env={}), sleep=naps.append)

    assert naps == [] and "git status" in raised.value.hint


def test_a_branch_named_unlike_its_upstream_is_pushed_to_its_upstream(tmp_path: Path) -> None:
    """Local `notes` following `origin/main`: a plain `git push` refuses it under git's default
    push.default (simple) and would push a new branch under `upstream`; share pushes HEAD to
    the branch it follows, by name, whatever push.default says."""
    one, two = clones(tmp_path)
    one.git("switch", "-q", "-c", "notes", "--track", "origin/main")
    one.note("notes.md", "Notes", "a note on a branch named unlike its upstream")
    mine = one.commit("a note")
    two.note("theirs.md", "Theirs", "a note the other clone pushed first")
    two.commit("two's note")
    two.git("push", "-q", "origin", "main")
    remote = NotesRepo(tmp_path / "remote.git", init=False)

    for default in ("simple", "upstream", "nothing"):
        one.git("config", "push.default", default)
        assert share(load_config(one.root, env={}), sleep=lambda _: None).pushed

        assert remote.git("rev-parse", "main").strip() == one.git("rev-parse", "HEAD").strip()
    assert one.git("merge-base", "--is-ancestor", mine, "HEAD") == ""
    assert remote.git("branch", "--format=%(refname)").split() == ["refs/heads/main"]  # no notes


def test_a_fetch_that_fails_is_named_by_git_s_reason(tmp_path: Path) -> None:
    """git's "fatal:" line says why a fetch failed; the lines of advice after it do not
    ("and the repository exists.")."""
    one, _ = clones(tmp_path)
    (tmp_path / "remote.git").rename(tmp_path / "away.git")

    with pytest.raises(GitError) as raised:
        share(load_config(one.root, env={}), sleep=lambda _: None)

    assert raised.value.message.endswith("does not appear to be a git repository.)")
    assert "(git fetch failed: fatal: " in raised.value.message


def test_a_merge_refused_for_a_file_in_the_way_says_so(tmp_path: Path) -> None:
    """git's last line ("Merge with strategy ort failed.") says nothing; share names the file
    and why it is in the way before git merge runs."""
    two = diverged(tmp_path)
    two.note("theirs.md", "Theirs", "an untracked note where the remote has one")

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "notes/theirs.md (untracked)" in raised.value.message
    assert "strategy ort" not in raised.value.message


def test_a_merge_that_keeps_failing_for_an_unknown_reason_points_at_the_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried again (a lock, a passing trouble), then named: the hint was to check the remote
    and the network, which had answered every fetch."""
    two = diverged(tmp_path)

    def merge(config: Config, git_dir: Path, here: str, deadline: float) -> str:
        del config, git_dir, here, deadline
        return "a trouble git had"

    monkeypatch.setattr(share_module, "merge_upstream", merge)
    monkeypatch.setattr(share_module, "ATTEMPTS", 3)

    with pytest.raises(GitError, match="the last: git merge failed") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert raised.value.hint == "look at this clone's state (git status), then make sync again"


def test_share_json_is_only_json_on_stdout_when_git_pulls_and_pushes(tmp_path: Path) -> None:
    """git's own lines ("Already up to date.", a merge's summary) went to stdout before the
    JSON, so `memidx share --json` was not JSON; they are diagnostics, on stderr."""
    _, two = clones(tmp_path)
    file = run_in_process(
        two.root, "file-turn", stdin='{"text": "a turn to share", "session": "s"}'
    )
    assert file.code == 0, file.err

    run = two.memidx_process("share", "--json")

    assert run.code == 0, run.err
    assert run.json()["pushed"] is True
    assert "main -> main" in run.err  # git push's summary (nothing to merge: no git merge)


def test_share_without_a_remote_says_what_it_committed_and_that_nothing_was_pushed(
    repo: NotesRepo,
) -> None:
    """People's output said only "no git remote", not the haystack commit share had made (or
    that there was none to make)."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert run_in_process(repo.root, "file-turn", stdin='{"text": "a turn to share"}').code == 0

    first = repo.memidx_process("share")
    again = repo.memidx_process("share")

    head = repo.git("rev-parse", "HEAD").strip()
    assert first.code == 0 and again.code == 0, first.err + again.err
    assert first.out.splitlines() == [
        f"committed the haystack: {head[:12]}",
        "no git remote: the commit stays in this clone (to share: git remote add origin URL; "
        "memidx share)",  # no Makefile here
    ]
    assert again.out.splitlines()[0] == "nothing new in the haystack to commit"
    assert again.out.splitlines()[1].startswith("no git remote: nothing to pull or push")


def test_a_share_on_a_branch_without_an_upstream_commits_nothing(tmp_path: Path) -> None:
    """Seen by tests/benchmark/chaos.py: a person on a local side branch, an agent's share
    there committed the haystack before it refused for the missing upstream, so the turn's
    segment went with that branch and left main's work tree at the switch back: an
    acknowledged turn no share of main could push. Refused first, the segment stays in the
    work tree, follows the person back, and main's share takes it to the remote."""
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    machine = clone(remote, tmp_path / "a", env)
    machine.git("switch", "-q", "-c", "side")
    file_turn(machine, "a turn filed on a side branch")
    head = machine.git("rev-parse", "HEAD").strip()

    refused = machine.memidx_process("share")
    machine.git("switch", "-q", "main")
    shared = machine.memidx_process("share", "--json")

    assert refused.code == 1 and "no upstream" in refused.err
    assert machine.git("rev-parse", "side").strip() == head
    assert shared.code == 0, shared.err
    listed = machine.git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main")
    assert "notes/haystack/" in listed


def test_a_side_branch_without_an_upstream_names_the_switch_first(tmp_path: Path) -> None:
    """On a person's side branch, "push it once with git push -u origin HEAD" made an agent
    publish that branch (chaos.py seed 2, c0): the branch that tracks the remote comes first."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "side-draft")

    run = one.memidx_process("share")

    assert run.code == 1
    assert run.err.splitlines() == [
        "memidx: error: the branch has no upstream to share with, so nothing was pulled or "
        "pushed (to share main: git switch main, then memidx share again; to publish this "
        "branch too: `git push -u origin HEAD` once, then memidx share again)"
    ]
    assert one.git("ls-remote", "--heads", "origin").count("refs/heads/") == 1  # nothing pushed


def test_a_person_s_branch_tracking_the_remote_s_main_is_not_named_for_the_switch(
    tmp_path: Path,
) -> None:
    """`git switch -c feature origin/main` gives the person's feature branch origin/main as
    its upstream: named first (by name) in the hint, an agent switching to it and sharing would
    push the person's work to main. The branch that tracks its namesake is the memory's."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "feature", "origin/main")
    one.note("draft.md", "Draft", "a person's work in progress")
    one.commit("draft")
    one.git("switch", "-q", "-c", "side-draft")

    run = one.memidx_process("share")

    assert run.code == 1
    assert "(to share main: git switch main, then memidx share again;" in run.err, run.err
    assert "feature" not in run.err


def test_the_switch_named_is_the_branch_s_name_beside_a_tag_of_that_name(tmp_path: Path) -> None:
    """A tag named as the branch: git's short name of the branch was `heads/main`, which `git
    switch` refuses ("a branch is expected, got 'refs/heads/main'")."""
    one, _ = clones(tmp_path)
    one.git("tag", "main")
    one.git("switch", "-q", "-c", "side-draft")

    run = one.memidx_process("share")

    assert run.code == 1
    assert "(to share main: git switch main, then memidx share again;" in run.err, run.err


def test_the_switch_named_is_the_remote_s_default_branch_first(tmp_path: Path) -> None:
    """Two branches follow their namesakes (a person's `beta` pushed with -u, and main): the
    remote's default branch (origin/HEAD) is the memory's, named before one first by name."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "beta")
    one.git("push", "-q", "-u", "origin", "beta")
    one.git("remote", "set-head", "origin", "main")
    one.git("switch", "-q", "-c", "side-draft")

    run = one.memidx_process("share")

    assert run.code == 1
    assert "(to share main: git switch main, then memidx share again;" in run.err, run.err


def test_a_second_work_tree_s_hint_names_the_one_the_branch_is_checked_out_in(
    tmp_path: Path,
) -> None:
    """In a person's second work tree (`git worktree add ../side -b side-draft`), the hint
    said `git switch main`, which git refuses there ("'main' is already used by worktree"),
    leaving an agent the push that publishes the side branch: the work tree of main is named."""
    one, _ = clones(tmp_path)
    side = tmp_path / "side draft"
    one.git("worktree", "add", "-q", "-b", "side-draft", str(side))

    run = NotesRepo(side, init=False).memidx_process("share")

    assert run.code == 1
    said = f"(to share main: cd {one.root} (its work tree), then memidx share again;"
    assert said in run.err, run.err
    assert one.git("ls-remote", "--heads", "origin").count("refs/heads/") == 1  # nothing pushed


def test_a_git_without_worktreepath_still_names_the_switch_first(tmp_path: Path) -> None:
    """git older than 2.23 refuses `%(worktreepath)` ("unknown field name"): the look found no
    branch at all, and the hint fell back to the push that publishes the side branch."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "side-draft")
    shim = tmp_path / "bin"
    shim.mkdir()
    real = shutil.which("git")
    assert real is not None
    (shim / "git").write_text(
        "#!/bin/sh\n"
        'case "$*" in *worktreepath*) echo "fatal: unknown field name: worktreepath" >&2; '
        "exit 128;; esac\n"
        f'exec {real} "$@"\n'
    )
    (shim / "git").chmod(0o755)

    run = one.memidx_process("share", PATH=f"{shim}:{os.environ['PATH']}")

    assert run.code == 1
    assert "(to share main: git switch main, then memidx share again;" in run.err, run.err


def test_a_work_tree_path_with_a_newline_is_named_whole(tmp_path: Path) -> None:
    """`for-each-ref`'s lines were split at each newline: main's work tree at `a\\nb` was
    named as `a`, a folder that is not its work tree (and quoted whole, the line broke in
    two): the path is written as one shell word on one line."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "side-draft")
    there = tmp_path / "main\ntree"
    one.git("worktree", "add", "-q", str(there), "main")

    run = one.memidx_process("share")

    assert run.code == 1
    said = f"(to share main: cd $'{tmp_path}/main\\x0atree' (its work tree), then memidx share"
    assert said in run.err, run.err
    assert run.err.count("\n") == 1  # one line

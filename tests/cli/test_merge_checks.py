"""The pre-commit checks when a person finishes a merge or cherry-pick that stopped on a
conflict: only what this side's resolution brings is judged. A peer's note committed with
`--no-verify` and pushed no longer keeps the person from finishing the pull (it is named in a
warning); a note the person edits while resolving is checked in full; a secret only this
clone's commits hold still blocks. One bare remote and two clones for the whole module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memidx.git.inherited import other_sides
from memidx.git.repo import GitRepo
from tests.helpers import NotesRepo
from tests.machines import Machine, clone, hook_env, make_template

GERMAN = (
    "Dieser Text ist vollständig auf Deutsch geschrieben und beschreibt, wie man den "
    "Zwischenspeicher der Pipeline leert, bevor man die nächste Version ausliefert."
)
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> tuple[Machine, Machine]:
    root: Path = tmp_path_factory.mktemp("merge-checks")
    env = hook_env(root / "pre-commit-home")
    bare = make_template(root, env)
    return clone(bare, root / "a", env), clone(bare, root / "b", env)


def committed_unchecked(machine: Machine, message: str) -> None:
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", message)


def conflict_on_shared(b: Machine, words: str) -> None:
    b.note("shared.md", "Shared", words)
    committed_unchecked(b, f"b: {words}")  # the checks are for the commit that resolves


def pull_stopped_on_a_conflict(a: Machine, b: Machine, words_a: str, words_b: str) -> None:
    """a pushes what it wrote, past the checks; b's pull of it stops on shared.md."""
    a.note("shared.md", "Shared", words_a)
    committed_unchecked(a, "a, past the checks")
    a.git("push", "-q", "--no-verify", "origin", "main")  # past the pre-push check too
    conflict_on_shared(b, words_b)
    assert b.run_git("pull", "--no-rebase", "--no-edit").returncode != 0


def test_finishing_a_pull_judges_only_what_the_resolution_brings(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    a.note("shared.md", "Shared", "base words")
    committed_unchecked(a, "base")
    a.git("push", "-q", "origin", "main")
    b.git("pull", "-q", "--ff-only")
    a.note("peer-de.md", "Zwischenspeicher", GERMAN)
    a.note("peer-key.md", "Deploy key", f"the deploy uses {TOKEN} for now")
    pull_stopped_on_a_conflict(a, b, "alpha words from machine a", "bravo words from machine b")

    b.note("shared.md", "Shared", "alpha and bravo words together")
    peer = b.root / "notes/peer-de.md"
    peer.write_text(peer.read_text() + "\nNoch ein Satz auf Deutsch, von B beim Auflösen.\n")
    b.git("add", "-A")
    edited = b.run_git("commit", "-q", "--no-edit")
    said = edited.stdout + edited.stderr
    assert edited.returncode != 0, said
    assert "notes/peer-de.md: written in de" in said  # edited while resolving: checked in full
    assert (b.root / ".git/MERGE_HEAD").exists()

    b.git("checkout", "MERGE_HEAD", "--", "notes/peer-de.md")
    done = b.run_git("commit", "-q", "--no-edit")
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "notes/peer-de.md: not English, but not blocked: the merged branch (" in said
    key = [line for line in said.splitlines() if "notes/peer-key.md:" in line]
    assert len(key) == 1 and "which a remote holds" in key[0] and TOKEN not in said, said
    assert "memidx forget" in key[0]
    assert not (b.root / ".git/MERGE_HEAD").exists()


def test_a_secret_no_remote_has_still_blocks_the_cherry_pick_that_brings_it(
    machines: tuple[Machine, Machine],
) -> None:
    _, b = machines
    b.git("switch", "-q", "-c", "side")
    b.note("local-key.md", "Local key", f"the local run uses {TOKEN}")
    b.note("shared.md", "Shared", "charlie words on a side branch")
    committed_unchecked(b, "side, past the checks")
    b.git("switch", "-q", "main")
    conflict_on_shared(b, "delta words on main")
    assert b.run_git("cherry-pick", "side").returncode != 0

    b.note("shared.md", "Shared", "charlie and delta words")
    b.git("add", "-A")
    blocked = b.run_git("commit", "-q", "--no-edit")
    said = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, said
    line = next(line for line in said.splitlines() if line.startswith("notes/local-key.md:"))
    assert "which no remote has: take it out here" in line, said
    b.note("local-key.md", "Local key", "the local run reads its token from the environment")
    b.git("add", "-A")
    b.git("commit", "-q", "--no-edit")


def test_a_file_too_large_to_read_that_a_remote_holds_does_not_stop_the_pull(
    machines: tuple[Machine, Machine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A peer's pushed text file over the read limit (a pasted log) blocked every resolution
    commit of a pull that brings it, as unread: the check named it but never judged it as
    what the merge inherits, and the pull could not be finished. Limits made small."""
    from memidx.githooks import secret_check

    a, b = machines
    a.git("pull", "-q", "--no-rebase", "--no-edit")
    (a.root / "notes/dump.log").write_text("x" * 2000 + "\n")
    pull_stopped_on_a_conflict(a, b, "echo words from machine a", "foxtrot words on machine b")
    b.note("shared.md", "Shared", "echo and foxtrot words")
    b.git("add", "-A")
    monkeypatch.setattr(secret_check, "SEGMENT_LIMIT", 1000)
    monkeypatch.setenv("MEMIDX_MAX_NOTE_BYTES", "1000")

    run = b.memidx("check", "secrets", "notes/dump.log", "notes/shared.md")

    b.git("merge", "--abort")
    assert (run.code, run.out) == (0, ""), run
    assert "notes/dump.log: not checked for secrets: too large" in run.err, run
    assert "which a remote holds" in run.err, run


def test_a_rebase_that_is_over_is_no_operation_under_way(tmp_path: Path) -> None:
    """git leaves REBASE_HEAD behind once a rebase that stopped is continued to its end (or
    quit): every later commit was judged as a rebase step against that old commit, its notes
    taken as inherited (not English, yet not blocked) and its secrets named as the rebase's."""
    repo = NotesRepo(tmp_path)
    for branch, words in (("main", "base"), ("side", "side words"), ("main", "main words")):
        repo.git("switch", "-q", *([] if branch == "main" else ["-c"]), branch, check=False)
        repo.note("f.md", "F", words)
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", words)
    repo.git("switch", "-q", "side")
    repo.git("rebase", "main", check=False)  # stops on the conflict
    replayed = repo.git("rev-parse", "side").strip()
    assert other_sides(GitRepo(tmp_path)) == [(replayed, "rebase")]

    repo.note("f.md", "F", "main and side words")
    repo.git("add", "-A")
    repo.git("-c", "core.editor=true", "rebase", "--continue")
    if not (tmp_path / ".git/REBASE_HEAD").exists():  # as git 2.39 (and a --quit) leaves it
        repo.git("update-ref", "--no-deref", "REBASE_HEAD", replayed)

    assert other_sides(GitRepo(tmp_path)) == []


def test_a_commit_with_nothing_to_block_never_loads_the_merge_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The resolution's rules matter only for a problem found: loading them for every commit
    cost each of the two checks' processes ~4 ms."""
    repo = NotesRepo(tmp_path)
    ref = repo.note("plain.md", "Plain", "The build cache lives on the shared disk of the runners.")
    repo.git("add", "-A")
    for module in ("memidx.githooks.inherited_check", "memidx.git.inherited"):
        monkeypatch.delitem(sys.modules, module, raising=False)

    runs = [repo.memidx("check", check, ref) for check in ("secrets", "english")]

    assert [(r.code, r.out) for r in runs] == [(0, ""), (0, "")], runs
    assert "memidx.git.inherited" not in sys.modules


def test_a_secret_blocks_a_merge_only_where_refusing_it_keeps_the_secret_in(
    tmp_path: Path,
) -> None:
    """Each side of a merge, before and after a remote has it. The merged branch's commits go
    out with the merge: while no remote has them, refusing it keeps the secret in (blocked).
    HEAD's go out at the next push whatever this commit does: refusing cannot keep it in, so
    it is a warning, which says whether it has left yet. A secret pushed long ago under
    commits not pushed yet has left (it blocked, or was said to be still in the clone)."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("shared.md", "Shared", "base words")
    committed = ("commit", "-q", "--no-verify", "-m")
    repo.git("add", "-A")
    repo.git(*committed, "base")
    for branch, words in (("side", "side"), ("main", "main")):
        repo.git("switch", "-q", *([] if branch == "main" else ["-c"]), branch)
        repo.note(f"{branch}-key.md", "Key", f"the {branch} deploy uses {TOKEN}")
        repo.note("shared.md", "Shared", f"{words} words")
        repo.git("add", "-A")
        repo.git(*committed, f"{branch}, past the checks")
    assert "CONFLICT" in repo.git("merge", "side", check=False)
    repo.note("shared.md", "Shared", "main and side words")
    repo.git("add", "-A")
    files = ("notes/main-key.md", "notes/side-key.md", "notes/shared.md")

    local = repo.memidx("check", "secrets", *files)
    repo.git("init", "-q", "--bare", str(tmp_path / "remote.git"))
    repo.git("push", "-q", str(tmp_path / "remote.git"), "main:main", "side:side")
    repo.git("fetch", "-q", str(tmp_path / "remote.git"), "+refs/heads/*:refs/remotes/r/*")
    pushed = repo.memidx("check", "secrets", *files)

    assert local.code == 1 and local.out.startswith("notes/side-key.md:5: github-token"), local
    assert "git merge --abort" in local.out and "notes/main-key.md" not in local.out, local
    head = next(line for line in local.err.splitlines() if "notes/main-key.md" in line)
    assert "HEAD's commits, which no remote has yet" in head and "before you push" in head
    repo.git("merge", "--abort")
    for branch in ("side", "main"):  # commits no remote has, over the pushed secrets
        repo.git("switch", "-q", branch)
        repo.note("shared.md", "Shared", f"{branch} words, later")
        repo.git("add", "-A")
        repo.git(*committed, f"{branch}, later")
    assert "CONFLICT" in repo.git("merge", "side", check=False)
    repo.note("shared.md", "Shared", "main and side words, later")
    repo.git("add", "-A")
    under = repo.memidx("check", "secrets", *files)

    for run in (pushed, under):  # the secrets have left the clone: refusing cannot help
        assert (run.code, run.out) == (0, ""), run
        warned = [line for line in run.err.splitlines() if "key.md:5: github-token" in line]
        assert len(warned) == 2 and all("which a remote holds" in line for line in warned), run
        assert all("memidx forget" in line for line in warned) and TOKEN not in str(run)


def test_a_merge_walks_history_per_file_only_for_a_secret_no_remote_is_known_to_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a file has left the clone is a walk of the commits no remote has, per file:
    ~0.4 s a file over 19,000 of them, minutes for a merge bringing hundreds of a peer's notes.
    A note's language does not depend on it, and a commit a remote has holds nothing that has
    not left: neither walks. A secret of a commit no remote has still does."""
    import memidx.git.inherited as inherited_module

    repo = NotesRepo(tmp_path / "memory")
    repo.note("shared.md", "Shared", "base words")
    committed = ("commit", "-q", "--no-verify", "-m")
    repo.git("add", "-A")
    repo.git(*committed, "base")
    repo.git("switch", "-q", "-c", "side")
    repo.note("de.md", "Zwischenspeicher", GERMAN)
    repo.note("key.md", "Key", f"the deploy uses {TOKEN}")
    repo.note("shared.md", "Shared", "side words")
    repo.git("add", "-A")
    repo.git(*committed, "side, past the checks")
    repo.git("update-ref", "refs/remotes/origin/side", "side")  # as a fetch leaves it
    repo.git("switch", "-q", "main")
    repo.note("shared.md", "Shared", "main words")
    repo.git("add", "-A")
    repo.git(*committed, "main")
    assert "CONFLICT" in repo.git("merge", "side", check=False)
    repo.note("shared.md", "Shared", "main and side words")
    repo.git("add", "-A")
    walked: list[str] = []
    walk = inherited_module._pushed  # pyright: ignore[reportPrivateUsage]

    def counted(repo: GitRepo, commit: str, ref: str) -> bool:
        walked.append(ref)
        return walk(repo, commit, ref)

    monkeypatch.setattr(inherited_module, "_pushed", counted)

    english = repo.memidx("check", "english", "notes/de.md")
    secrets = repo.memidx("check", "secrets", "notes/key.md")
    repo.git("update-ref", "-d", "refs/remotes/origin/side")
    unpushed = repo.memidx("check", "secrets", "notes/key.md")

    assert english.code == 0 and "not English, but not blocked" in english.err, english
    assert secrets.code == 0 and "which a remote holds" in secrets.err, secrets
    assert unpushed.code == 1 and "which no remote has" in unpushed.out, unpushed
    assert walked == ["notes/key.md"]  # the unpushed secret's only


def test_a_partial_clone_never_fetches_history_to_tell_whether_a_secret_has_left(
    tmp_path: Path,
) -> None:
    """A treeless clone (`--filter=tree:0`) fetches an old commit's tree from its remote the
    moment git reads it: walking history per file sent the pre-commit check onto the network.
    There the walk is skipped: what no remote-tracking branch contains is taken for unpushed."""
    from memidx.git.inherited import inherited

    source = NotesRepo(tmp_path / "source")
    for words in ("first", "second", "third"):
        source.note("a.md", "A", f"{words} words")
        source.commit(words)
    source.git("config", "uploadpack.allowFilter", "true")
    source.git("clone", "-q", "--filter=tree:0", f"file://{source.root}", str(tmp_path / "clone"))
    clone = NotesRepo(tmp_path / "clone", init=False)
    clone.git("update-ref", "-d", "refs/remotes/origin/main")  # the walk goes down to the root
    head = clone.git("rev-parse", "HEAD").strip()
    (clone.root / ".git" / "MERGE_HEAD").write_text(f"{head}\n")  # an operation under way
    blob = clone.git("rev-parse", "HEAD:notes/a.md").strip()
    source.root.rename(tmp_path / "gone")  # a fetch now fails, as one off the machine would

    found = inherited(GitRepo(clone.root), "notes", {"notes/a.md": blob})

    assert [(i.commit, i.pushed) for i in found.values()] == [("HEAD", False)]

"""A note `memidx forget` finds on another local branch, not in HEAD's commit: memory there,
which a deletion here would not forget (the branch takes it to the remote)."""

from __future__ import annotations

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.repo import GitRepo
from memidx.text import display, shell_quote


def held_elsewhere(config: Config, ref: str) -> MemidxError | None:
    """Why `ref`, which HEAD's commit lacks, is not forgotten here: the branches that hold it
    (None when none does). A file here must be theirs byte for byte (a copy a switch left; a
    file of other bytes is the person's own). With no file, any branch's `ref` counts: a note
    pending for main, committed there by the finisher while side was checked out (its file
    left this work tree) as forget looked, was "forgotten" with no commit (exit 0), and main
    took it to the remote (tests/benchmark/chaos.py, seed 1); found after its commit, it was
    "no note in memory"."""
    file = config.root / ref
    repo = GitRepo(config.root)
    mine = ""
    if file.is_file():
        found = repo.run("hash-object", f"--path={ref}", "--", str(file), check=False)
        mine = found.decode().strip()
        if not mine:
            return None
    listed = repo.run("for-each-ref", "--format=%(refname)", "refs/heads/", check=False)
    names = listed.decode("utf-8", "replace").split()
    answers = _entries(repo, names, ref) if "\n" in ref else _batch(repo, names, ref)
    held = [
        name.removeprefix("refs/heads/")
        for name, answer in zip(names, answers, strict=False)
        if _a_note(answer, mine)
    ]
    if not held:
        return None
    why = " (the file here is a copy left in the work tree)" if mine else ""
    return MemidxError(
        f"{display(ref)} is not in HEAD's commit, but {', '.join(held)} holds it{why}, so it was "
        "not forgotten",
        f"forget it there: git switch {shell_quote(held[0])}, then memidx forget "
        f"{shell_quote(ref)}",
    )


def _batch(repo: GitRepo, names: list[str], ref: str) -> list[list[str]]:
    """What each branch of `names` holds at `ref`, one git for them all: cat-file's `<object>
    <kind> <size>` answer per name, split."""
    asked = "".join(f"{name}:{ref}\n" for name in names).encode()
    found = repo.run("cat-file", "--batch-check", input_bytes=asked, check=False) if names else b""
    return [answer.split() for answer in found.decode("utf-8", "replace").splitlines()]


def _entries(repo: GitRepo, names: list[str], ref: str) -> list[list[str]]:
    """_batch's answers for a `ref` with a line break, which cat-file's batch read as two
    names: a note so named was never found on its branch, and forget said "no note ... in
    memory" of memory there (its -z reads names ended by NUL, but its answer for one that is
    missing repeats the name, line break and all, until git 2.43's -Z). One `git ls-tree -z`
    per branch, its `<mode> <kind> <object>` as `<object> <kind> <mode>`."""
    answers: list[list[str]] = []
    for name in names:
        said = repo.run("ls-tree", "-z", name, "--", f":(literal){ref}", check=False)
        meta, tab, path = said.decode("utf-8", "surrogateescape").partition("\t")
        entry = meta.split()
        right = tab and path.rstrip("\0") == ref and len(entry) == 3
        answers.append([entry[2], entry[1], entry[0]] if right else [])
    return answers


def _a_note(answer: list[str], mine: str) -> bool:
    """Whether an `<object> blob <size>` answer is a file (`mine`'s bytes, if any)."""
    return len(answer) == 3 and answer[1] == "blob" and answer[0] == (mine or answer[0])

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
    asked = "".join(f"{name}:{ref}\n" for name in names).encode()
    found = repo.run("cat-file", "--batch-check", input_bytes=asked, check=False) if names else b""
    answers = found.decode("utf-8", "replace").splitlines()
    held = [
        name.removeprefix("refs/heads/")
        for name, answer in zip(names, answers, strict=False)
        if _a_note(answer.split(), mine)
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


def _a_note(answer: list[str], mine: str) -> bool:
    """Whether cat-file's `<object> blob <size>` answer is a file (`mine`'s bytes, if any)."""
    return len(answer) == 3 and answer[1] == "blob" and answer[0] == (mine or answer[0])

"""`memidx status` and a note whose commit landed while a git that started with it still ran
(memidx.git.late): its entry is kept to be checked once that git ends, and status listed it
"written, not committed yet" until a hook, `remember`, `sync` or the finisher came, though HEAD
held it. Status now checks it itself once no git holds the clone, as the finisher does; it
commits no other note (it committed every note pending once one was in HEAD: status is a look a
person runs, and their notes were committed behind their back), which `sync`, a git hook, the
finisher or the next `remember` commits."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config


def settle_landed(config: Config, say: Callable[[str], None]) -> None:
    """Check the pending notes HEAD already holds as kept, when no git holds the clone and no
    `remember`, hook or finisher is at them (remember.lock): as the finisher does (git's index
    told of them again, their entries dropped); said through `say`. Others are left pending,
    uncommitted (status says why), and nothing is done while a git runs."""
    from memidx.git.underway import busy_with
    from memidx.memory.pending_branch import head_branch
    from memidx.memory.pending_mark import any_pending
    from memidx.memory.pending_notes import HOOK_WAIT, LOCK, commit_pending, pending
    from memidx.portable import file_lock

    if not config.in_git or not any_pending(config) or busy_with(config.root) is not None:
        return
    here = head_branch(config)
    held = {
        note.entry
        for note in pending(config)
        if note.branch == here and _held(config, note.ref, note.text)
    }
    if not held:
        return
    with file_lock(config.state_dir / LOCK, wait=False) as taken:
        if not taken:
            return  # a remember, a hook or the finisher is at them
        # looked at again under the lock: one HEAD no longer holds (a reset since) is left
        done = commit_pending(
            config,
            HOOK_WAIT,
            say,
            only_commit=True,
            only=lambda note: note.entry in held and _held(config, note.ref, note.text),
        )
    for ref, commit in done.commits.items():
        say(f"{ref} is committed as {commit[:12]}, checked now that no git holds the clone")


def _held(config: Config, ref: str, text: str) -> bool:
    """Whether HEAD holds `ref` as `text` (as git stores it)."""
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    there = repo.run("rev-parse", "-q", "--verify", f"HEAD:{ref}", check=False).strip()
    data = text.encode("utf-8")
    blob = repo.run("hash-object", f"--path={ref}", "--stdin", input_bytes=data, check=False)
    return bool(there) and there == blob.strip()

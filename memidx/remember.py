"""`memidx remember`: write a note from any agent or editor and commit it, hooks included."""

from __future__ import annotations

import fcntl
import random
import re
import time
import unicodedata
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from memidx.config import Config
from memidx.errors import CheckFailed, GitError, MemidxError, UsageError
from memidx.notes import NoteError, parse_note

ATTEMPTS = 7  # backoff 0.05 s doubling, with jitter: about 5 s before giving up
SLUG_LENGTH = 60


@dataclass(frozen=True, slots=True)
class Remembered:
    """A note written and committed."""

    ref: str
    commit: str
    title: str


def slugify(title: str) -> str:
    """A file name from a title: ASCII, lower case, words joined by hyphens."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    slug = slug[:SLUG_LENGTH].rstrip("-")
    return slug or "note"


def note_text(title: str, tags: Sequence[str], body: str, created: str, **extra: str) -> str:
    """The Markdown of a new note: front matter, then the body."""
    fields: dict[str, object] = {"title": title}
    if tags:
        fields["tags"] = list(tags)
    fields["created"] = created
    fields.update(extra)
    front = str(yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=1000))  # pyright: ignore[reportUnknownMemberType]
    return f"---\n{front}---\n\n{body.strip()}\n"


def parse_tags(text: str | None) -> list[str]:
    return [t.strip().lstrip("#").lower() for t in (text or "").split(",") if t.strip()]


def note_folder(config: Config, directory: str | None) -> PurePosixPath:
    """notes/<directory>, refusing paths that leave the notes folder or are hidden."""
    folder = PurePosixPath(config.notes_dir)
    if not directory:
        return folder
    sub = PurePosixPath(directory.strip("/"))
    if sub.is_absolute() or any(p in ("..", "") or p.startswith(".") for p in sub.parts):
        raise UsageError(
            f"--dir {directory!r} must be a plain folder under {config.notes_dir}/",
            "e.g. --dir windows/build",
        )
    return folder / sub


def remember(
    config: Config,
    title: str,
    body: str,
    *,
    tags: Sequence[str] = (),
    directory: str | None = None,
    extra: dict[str, str] | None = None,
) -> Remembered:
    """Write the note, check it, commit it (pre-commit and post-commit hooks run)."""
    title = " ".join(title.split())
    if not title:
        raise UsageError("--title is empty", "give the note a title that names the problem")
    if not body.strip():
        raise UsageError("the note has no body", "pass the body on stdin")
    if not config.in_git:
        raise MemidxError(f"{config.root} is not a git repository", "notes become memory by commit")
    created = datetime.now(UTC).date().isoformat()
    text = note_text(title, tags, body, created, **(extra or {}))
    ref = _write_new(config, note_folder(config, directory), slugify(title), text)
    _check(config, ref, text)
    commit = _commit(config, ref, f"memidx remember: {title}")
    return Remembered(ref, commit, title)


def _write_new(config: Config, folder: PurePosixPath, slug: str, text: str) -> str:
    """Create the file under a name no other writer has taken (O_EXCL), never overwriting."""
    target = config.root / folder
    target.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        name = f"{slug}.md" if n == 1 else f"{slug}-{n}.md"
        try:
            with (target / name).open("x", encoding="utf-8") as out:
                out.write(text)
        except FileExistsError:
            continue
        return (folder / name).as_posix()
    raise MemidxError(f"too many notes named {slug} in {folder}", "choose another title")


def _check(config: Config, ref: str, text: str) -> None:
    from memidx.language import check_text, problem_message

    keep = f"the file {ref} is kept: fix it and commit it, or delete it"
    try:
        parse_note(ref, text.encode("utf-8"), config.max_note_bytes)
    except NoteError as exc:
        raise CheckFailed(f"{ref}: cannot be indexed: {exc}", keep) from exc
    verdict = check_text(text)
    if not verdict.english:
        raise CheckFailed(problem_message(ref, verdict), keep)


def _commit(config: Config, ref: str, subject: str) -> str:
    """git add + git commit of this one path, retried while another git holds index.lock."""
    import git

    repo: Any = git.Repo(config.root)
    with _serialized(config):
        for attempt in range(ATTEMPTS):
            try:
                repo.git.add("--", ref)
                repo.git.commit("-q", "-m", subject, "--", ref)
                return str(repo.head.commit.hexsha)
            except git.GitCommandError as exc:
                stderr = str(exc.stderr or "")
                if "index.lock" in stderr and attempt + 1 < ATTEMPTS:
                    time.sleep(0.05 * 2**attempt * (1 + random.random()))
                    continue
                _unstage(repo, ref)
                raise _commit_error(ref, stderr, str(exc.stdout or "")) from exc
    raise GitError(f"git kept its index locked; {ref} was not committed", "try again")


def _unstage(repo: Any, ref: str) -> None:
    import git

    try:
        repo.git.reset("-q", "--", ref)
    except git.GitCommandError:
        return


def _commit_error(ref: str, stderr: str, stdout: str) -> MemidxError:
    lines = [line.strip() for line in (stdout + "\n" + stderr).splitlines() if line.strip()]
    reasons = [line for line in lines if line.startswith(("memidx:", "notes/")) or ": " in line]
    detail = "; ".join(reasons[-3:] or lines[-2:]) or "git commit failed"
    if "index.lock" in stderr:
        return GitError(f"git kept its index locked; {ref} was not committed", "try again")
    return CheckFailed(f"{ref} was not committed: {detail}", f"the file {ref} is kept")


@contextmanager
def _serialized(config: Config) -> Generator[None]:
    """One memidx commit at a time in this clone: a commit and its post-commit hook finish
    before the next commit's pre-commit check looks at the index."""
    config.state_dir.mkdir(parents=True, exist_ok=True)
    with Path(config.state_dir / "commit.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield

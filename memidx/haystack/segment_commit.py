"""`memidx haystack commit`: commit this clone's segments, and close the segment written last
so a committed file is never appended to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.indexing import haystack_folder
from memidx.haystack.writer import describe_folder
from memidx.text import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo


def commit_haystack(config: Config, notice: Callable[[str], None] | None = None) -> str | None:
    """Commit this clone's segments (and the haystack's .gitattributes); None if unchanged."""
    from memidx.git.branch import on_a_branch
    from memidx.git.commit import commit_paths
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    on_a_branch(config.root, "the haystack was not committed")
    folder = haystack_folder(config)
    own = clone_writer(config, notice)  # a copied clone takes its own id before committing
    mine = own.folder
    with own.locked():  # no record lands between the commit and the closing of its segment
        own.settle(_untracked(repo, config, mine))
        attributes = folder / ".gitattributes"
        made = mine.exists() and not attributes.exists()
        if made:
            describe_folder(folder, durable=config.fsync)
        paths = [p for p in (attributes, folder / ".gitignore", mine) if p.exists()]
        refs = [p.relative_to(config.root).as_posix() for p in paths]
        status = ("status", "--porcelain", "--untracked-files=all", "--", *refs)
        if not refs or not repo.run(*status).strip():
            return None
        count = sum(1 for _ in Path(mine).glob("*.krd")) if mine.exists() else 0
        try:
            commit = commit_paths(
                config, refs, f"haystack: segments of {mine.name} ({counted(count, 'file')})"
            )
        except MemidxError:
            if made:  # left untracked, it would block a pull that brings another clone's
                attributes.unlink(missing_ok=True)
            raise
        own.close()  # the next record starts a new segment: committed files stay as committed
        return commit


def _untracked(repo: GitRepo, config: Config, mine: Path) -> list[Path]:
    """The segments of this writer's folder that git does not track: no commit holds them."""
    if not mine.is_dir():
        return []
    ref = mine.relative_to(config.root).as_posix()
    out = repo.run("ls-files", "-z", "--others", "--", f"{ref}/", check=False)
    names = [name for name in out.decode("utf-8", "replace").split("\0") if name]
    return [config.root / name for name in names if name.endswith(".krd")]

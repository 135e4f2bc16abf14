"""git's own commands, and the clone's aliases and help.autocorrect as git reads them (its
config, read once every ALIASES_FRESH seconds at most, never under HEAD's lock), for
memidx.git.invocation, which expands a running git's alias."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import IO

from memidx.git.given_config import VALUELESS

# fmt: off
FALLBACK = frozenset({
    "add", "am", "annotate", "apply", "archive", "bisect", "bisect--helper",
    "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore",
    "check-mailmap", "check-ref-format", "checkout", "checkout--worker", "checkout-index",
    "cherry", "cherry-pick", "clean", "clone", "column", "commit", "commit-graph",
    "commit-tree", "config", "count-objects", "credential", "credential-cache",
    "credential-cache--daemon", "credential-store", "describe", "diagnose", "diff",
    "diff-files", "diff-index", "diff-tree", "difftool", "env--helper", "fast-export",
    "fast-import", "fetch", "fetch-pack", "fmt-merge-msg", "for-each-ref", "for-each-repo",
    "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id",
    "grep", "hash-object", "help", "hook", "index-pack", "init", "init-db",
    "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit",
    "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-ours",
    "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs", "merge-subtree",
    "merge-tree", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes",
    "pack-objects", "pack-redundant", "pack-refs", "patch-id", "pickaxe", "prune",
    "prune-packed", "pull", "push", "range-diff", "read-tree", "rebase", "receive-pack",
    "reflog", "remote", "remote-ext", "remote-fd", "repack", "replace",
    "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-pack",
    "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage",
    "stash", "status", "stripspace", "submodule", "submodule--helper", "switch",
    "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
    "update-server-info", "upload-archive", "upload-archive--writer", "upload-pack", "var",
    "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree",
    "write-tree",
})
# the other commands of git's exec path (git 2.39's, and scripts installed beside them): a
# word help.autocorrect would not take for a mistyped one, where git cannot say (FALLBACK)
EXEC_PATH = frozenset({
    "add--interactive", "daemon", "difftool--helper", "filter-branch", "http-backend",
    "http-fetch", "http-push", "imap-send", "instaweb", "merge-octopus", "merge-one-file",
    "merge-resolve", "mergetool", "mergetool--lib", "quiltimport", "remote-ftp", "remote-ftps",
    "remote-http", "remote-https", "request-pull", "sh-i18n", "sh-i18n--envsubst", "sh-prompt",
    "sh-setup", "shell", "subtree", "web--browse", "scalar", "send-email", "svn", "p4", "gui",
    "citool", "cvsserver", "cvsimport", "cvsexportcommit", "archimport", "lfs",
})
# fmt: on
AUTOCORRECT = ".autocorrect"  # help.autocorrect's value among the aliases (no alias's name)
PAGER = ".pager."  # pager.<command>'s values among the aliases, keyed `.pager.<command>`
# commands whose pager shows that they read: a pager.<command> set for another one (true, or a
# pager of its own) may page a commit (pager.commit: `git comit` commits in its pager)
READERS = frozenset({
    "log", "show", "diff", "grep", "blame", "annotate", "shortlog", "whatchanged", "status",
    "help", "version", "branch", "tag", "config", "describe", "ls-files", "ls-tree", "cat-file",
    "rev-list", "rev-parse", "show-branch", "show-ref", "for-each-ref", "range-diff", "cherry",
    "diff-tree", "diff-files", "diff-index", "format-patch", "difftool", "var",
})  # fmt: skip
NO_PAGER = frozenset({"false", "no", "off", "0", ""})  # pager.<command>'s values that page not
# help.autocorrect's values that run no command but the one typed (git 2.39 and later)
SHOWS_ONLY = frozenset({"0", "never", "show", "false", "no", "off", ""})
LIST_SECONDS = 2.0  # a git program's time to list its commands (git takes ~1.3 ms)
LIST_BYTES = 1 << 20  # the most of that list read (git's: ~10 KB)
ALIASES_FRESH = 2.0  # seconds a clone's aliases, once read, are used without reading again
_aliases: dict[Path, tuple[float, dict[str, str]]] = {}
# the git folders (a repository's, shared by its work trees) whose HEAD's lock memidx holds:
# no `git config` run for their clones; one entry per holding (list: append and remove are
# atomic, for the MCP server's threads). A set of work trees, any of them taken for every
# clone's, left the MCP server's look at one repository unable to read its aliases while it
# held another's lock: a `git ci` there, running 1 s, taken for a young alias
_held: list[Path] = []
_wanted: set[Path] = set()  # clones whose aliases a look under that lock wanted, not read
_repositories: dict[Path, Path] = {}  # work tree -> its repository's git folder (_repository)
# git programs' own commands, once asked: "git" memidx's, else a person's git by its path
_commands: dict[str, frozenset[str]] = {}
_unasked: set[str] = set()  # a person's gits seen under HEAD's lock, not asked yet: prime asks


def commands(program: str = "") -> frozenset[str]:
    """git's own commands, which no alias hides and git never guesses another for: the
    installed git's builtins and the commands of its exec path (`git --list-cmds=main`,
    asked once a process: ~1.3 ms); FALLBACK where git cannot say (older than 2.19), or
    under HEAD's lock before it was asked (prime asks it before). `program`: the git a person
    runs (its /proc/<pid>/exe), which may be another version than memidx's git on PATH (a
    command one has and the other lacks is a builtin to one, a mistyped word to the other);
    memidx's git's commands where that one cannot say, or is not asked yet under the lock."""
    known = _commands.get(program or "git")
    if known is not None:
        return known
    if _held:
        if program:
            _unasked.add(program)
        return _commands.get("git", FALLBACK)
    own = program and program == _own_git()  # memidx's git: asked once, not once a path
    listed = commands() if own else _listed(program or "git")
    if program and listed is None:
        listed = commands()  # not a git that can say (deleted since it started): memidx's
    if len(_commands) > 64:  # the gits of a machine are a few: never grows unbounded
        _commands.clear()
    _commands[program or "git"] = FALLBACK if listed is None else listed
    return _commands[program or "git"]


def _own_git() -> str:
    """The program of memidx's git on PATH (its real path), "" where there is none."""
    import shutil  # once a git program: not on the hook path's imports

    found = shutil.which("git")
    return os.path.realpath(found) if found else ""


def _listed(program: str) -> frozenset[str] | None:
    """`program --list-cmds=main`'s commands; None where it cannot say. A person's program,
    maybe no git (a comm of `git` is any program's to take): given LIST_SECONDS and
    LIST_BYTES at most, no stdin (a hook's own, pre-push's refs), else killed."""
    import subprocess  # once a program: not on the hook path's imports

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    argv = [program, "--list-cmds=main"]
    until = time.monotonic() + LIST_SECONDS
    try:
        child = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    with child:
        said = _read_until(child.stdout, until) if child.stdout else None
        try:
            code = child.wait(max(until - time.monotonic(), 0.0)) if said is not None else -1
        except subprocess.TimeoutExpired:
            code = -1
        if child.poll() is None:
            child.kill()  # it lists on, or hangs: no git that can say
    listed = frozenset((said or b"").decode("utf-8", "replace").split())
    return listed if code == 0 and "commit" in listed else None


def _read_until(out: IO[bytes], until: float) -> bytes | None:
    """What `out` gives up to its end, None past `until` or LIST_BYTES."""
    import selectors

    chunks: list[bytes] = []
    with selectors.DefaultSelector() as selector:
        selector.register(out, selectors.EVENT_READ)
        while sum(map(len, chunks)) < LIST_BYTES:
            left = until - time.monotonic()
            if left <= 0 or not selector.select(left):
                return None
            chunk = os.read(out.fileno(), 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    return None


def corrected(word: str, autocorrect: str, program: str = "") -> bool:
    """Whether git may run another command than `word`, a mistyped one: help.autocorrect set
    to run its guess (`immediate`, `prompt`, tenths of a second to wait) and `word` no
    command of git's (`git comit` commits, as `git commit` would). A `git-<word>` on the
    git's PATH is looked for by the caller (invocation.external): that git's PATH, not
    memidx's. `program`: that git's program (commands)."""
    if autocorrect.strip().lower() in SHOWS_ONLY or word in commands(program):
        return False
    return commands(program) is not FALLBACK or word not in EXEC_PATH


def pages_a_writer(given: dict[str, str], clone: dict[str, str]) -> bool:
    """Whether the config a git reads (`given`, given_config's, over its `clone`'s) starts a
    pager for a command that may write (not one of READERS): its guess for a mistyped command
    may then run in that pager while it commits, as `git -p comit` does."""
    pagers = {key[1:]: value for key, value in clone.items() if key.startswith(PAGER)}
    pagers.update((key, value) for key, value in given.items() if key.startswith("pager."))
    return any(
        key.removeprefix("pager.") not in READERS and value.strip().lower() not in NO_PAGER
        for key, value in pagers.items()
    )


def _repository(top: Path) -> Path:
    """The git folder of the clone whose work tree is `top`, shared by all its work trees
    (a linked one's `.git` file, then its `commondir`): HEAD's lock and the aliases are the
    repository's; the work tree itself where it cannot be read."""
    known = _repositories.get(top)
    if known is not None:
        return known
    dot = top / ".git"
    try:
        said = dot.read_text(encoding="utf-8").strip() if dot.is_file() else ""
        folder = top / said.removeprefix("gitdir:").strip() if said.startswith("gitdir:") else dot
        common = folder / "commondir"
        shared = common.read_text(encoding="utf-8").strip() if common.is_file() else ""
    except (OSError, ValueError):
        folder, shared = top, ""
    found = Path(os.path.realpath(folder / shared if shared else folder))
    if len(_repositories) > 256:  # the MCP server's clones are a few: never grows unbounded
        _repositories.clear()
    _repositories[top] = found
    return found


@contextlib.contextmanager
def holding(*roots: Path) -> Generator[None]:
    """While memidx holds HEAD's lock of the clone at `root` (publish.move_head's look), its
    aliases are not read (a `git config` process, 1-16 ms, spawned in 3 of 20 remembers
    beside a person's `git st` alias every 0.03 s): the last read are used, or, never read,
    an alias is taken for any git, and read before the next look (prime). `roots`: each
    work tree a look may read the aliases for (a branch's lock: memidx.git.branch_move);
    the lock is their repository's, so its other work trees' aliases are not read either."""
    keys = list({_repository(root.resolve()) for root in roots})
    _held.extend(keys)
    try:
        yield
    finally:
        for key in keys:
            _held.remove(key)


def prime(*roots: Path) -> None:
    """Ask git for its commands, and read the aliases of the clone at each of `roots` if a
    look under a lock wanted them: before that lock is taken; a person's git seen under a
    lock too."""
    commands()
    for program in list(_unasked):
        _unasked.discard(program)
        commands(program)
    for top in {root.resolve() for root in roots}:
        if top in _wanted and _repository(top) not in _held:
            _wanted.discard(top)
            clone_aliases(top)


def clone_aliases(root: Path) -> dict[str, str] | None:
    """The clone's aliases (its config, the person's and the system's): name -> value; read
    once every ALIASES_FRESH seconds at most (a look at /proc runs many times a second);
    under HEAD's lock (holding) the last read, or None when none was."""
    now = time.monotonic()
    cached = _aliases.get(root)
    held = _repository(root) in _held  # a linked work tree's git is looked at under it too
    if cached is not None and (now - cached[0] < ALIASES_FRESH or held):
        return cached[1]
    if held:
        _wanted.add(root)
        return None
    import subprocess

    argv = ["git", "config", "-z", "--get-regexp", r"^(alias\.|help\.autocorrect$|pager\.)"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, check=False)
    except OSError:
        return {}
    found: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        key, valued, value = entry.partition("\n")  # no newline: a key without a value
        if key.startswith("alias."):
            found[key.removeprefix("alias.").lower()] = value
        elif key == "help.autocorrect":
            found[AUTOCORRECT] = value  # the last one set, as git reads it
        elif key.startswith("pager."):
            found["." + key] = value if valued else VALUELESS  # `[pager] commit`: true
    _aliases[root] = (now, found)
    return found

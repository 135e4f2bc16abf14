"""What a running git's command line asks for, read as git reads it: its global options (`-C
dir`, `--git-dir=PATH` or `--git-dir PATH`, `-c alias.x=y`), then its command with the
clone's aliases expanded (`git config alias.ci commit`: `git ci` commits).

memidx waits for the gits of the clone that commit or move a branch (memidx/git/publish.py,
newcomers.py, branch_movers.py), and it found them by the word after git's options: a `git
ci` was no commit until git started its `git commit` child (HEAD read by then), a `git br -d
side` no branch deletion, a `git --git-dir=/clone/.git commit` run from another folder no git
of the clone at all (and one run in the clone with --git-dir naming another repository was
waited for as the clone's). An alias that runs a shell (`!...`) may run any git command: it
is taken for one that commits (unknown: careful)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from memidx.git.aliases import (  # re-exported: publish, branch_move
    AUTOCORRECT,
    clone_aliases,
    commands,
    corrected,
    holding,
    pages_a_writer,
    prime,
)
from memidx.git.given_config import given_config
from memidx.git.hunk_prompts import asks

# git's own options that take the next argument as their value (`--git-dir=PATH` is one word)
VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"})
SHELL_ALIAS = "!"  # expanded()'s command for an alias that runs a shell: any git command
# expanded()'s command for a mistyped one git corrects (help.autocorrect) and runs itself, in
# the same process: any git command for as long as that git runs (a `git comit` taken for a
# shell, waited for only while young, had HEAD moved under its commit: "cannot lock ref")
GUESSED = "?"
# expanded()'s command for a mistyped one git corrects while its config pages a command that
# may write (pager.commit=true): any git for as long as it runs, even in its pager
PAGED_GUESS = "?paged"
# expanded()'s command for a word that may name an alias of the clone's, not read (under
# HEAD's lock, never read before): any git for as long as it runs, as GUESSED is (taken for
# a shell's alias, a `git ci` running 1 s was no commit: only a young shell alias is waited
# for); the next look, before the lock, reads them (prime)
UNREAD = "?alias"
ANY_GIT = frozenset({SHELL_ALIAS, GUESSED, PAGED_GUESS, UNREAD})  # expanded()'s: any command
__all__ = [  # holding, prime and commands for those that import them from here
    "ANY_GIT", "GUESSED", "PAGED_GUESS", "SHELL_ALIAS", "UNREAD", "VALUED", "command_at",
    "command_of", "commands", "expanded", "external", "git_dirs", "holding", "in_clone",
    "named_git_dir", "options", "prime", "program_of", "restores_paths", "tree_of",
]  # fmt: skip


def command_at(words: Sequence[str]) -> int | None:
    """Where the git command stands in git's arguments (`-c k=v -C dir commit` -> 4), its
    global options and their values skipped; None when there is none."""
    skip = False
    for at, word in enumerate(words):
        if skip:
            skip = False
        elif word in VALUED:
            skip = True
        elif not word.startswith("-"):
            return at
    return None


def options(words: Sequence[str]) -> list[tuple[str, str]]:
    """git's global options that take a value, before its command, with their values:
    `--git-dir=/r/.git -C x` -> [("--git-dir", "/r/.git"), ("-C", "x")]."""
    found: list[tuple[str, str]] = []
    end = command_at(words)
    before = list(words if end is None else words[:end])
    skip = False
    for at, word in enumerate(before):
        name, equals, value = word.partition("=")
        if skip:
            skip = False
        elif word in VALUED and at + 1 < len(before):
            found.append((word, before[at + 1]))
            skip = True
        elif equals and name.startswith("--") and name in VALUED:
            found.append((name, value))
    return found


def command_of(argv: Sequence[bytes], root: Path, environ: bytes = b"", pid: str = "") -> str:
    """The git command of a git's command line (/proc/<pid>/cmdline split at NULs), its alias
    expanded (expanded; `environ`, its raw /proc/<pid>/environ; `pid`, whose git program's
    commands are read): `git -C x ci -m y` -> commit; "" when none; UNREAD (any git) for a
    command line read empty, as it reads a moment after the exec, before the kernel set it."""
    if not any(argv):  # not read yet: a `git commit` just started, taken for none
        return UNREAD
    words = [arg.decode("utf-8", "replace") for arg in argv[1:]]
    found = expanded(words, root, environ, program_of(pid) if pid else "")
    if found[:1] == ["checkout"] and restores_paths(found[1:]):
        return "restore"  # HEAD, branches and the other files left as they are
    return found[0] if found else ""


def tree_of(cwd: Path, trees: Sequence[Path]) -> Path:
    """The work tree of `trees` a git in `cwd` runs in (the innermost holding it: a linked work
    tree inside the main one), else the first: whose config (a linked tree's config.worktree)
    holds the aliases that git reads."""
    holding_it = [tree for tree in trees if cwd == tree or tree in cwd.parents]
    return max(holding_it, key=lambda tree: len(tree.parts)) if holding_it else trees[0]


def restores_paths(args: Sequence[str]) -> bool:
    """Whether `git checkout <args>` restores files, checking no branch out (`-- file`, `-p`,
    `<commit> -- path`, `<commit> file`): a `git restore`, never waited for as a switch (a
    `git checkout -p` at its prompt held every remember its 10 s). One word alone may name a
    branch: a switch, as git may take it."""
    if any(arg in _CHECKS_OUT for arg in args) or args[-1:] == ["--"]:
        return False  # `-b new`, `--orphan x`, `--detach`; `main --`: a branch
    if "--" in args or any(arg in _RESTORES for arg in args) or asks("checkout", args):
        return True  # `-qp`, `--patc` too, as git reads them (each held a remember 10 s)
    if any(arg.startswith("--pathspec-from-file") for arg in args):
        return True
    return len([arg for arg in args if not arg.startswith("-")]) > 1


_CHECKS_OUT = frozenset({"-b", "-B", "--orphan", "--detach", "-d"})
_RESTORES = frozenset({"--ours", "--theirs"})  # of paths only; `-p` and its forms: asks


def program_of(pid: str) -> str:
    """The git program process `pid` runs (/proc/<pid>/exe): a person's git, maybe another
    version than memidx's; "" where it cannot be read (another user's, ended)."""
    try:
        return os.readlink(f"/proc/{pid}/exe")  # noqa: PTH115 (raw: under HEAD's lock)
    except OSError:
        return ""


def expanded(
    words: Sequence[str], root: Path | None, environ: bytes = b"", program: str = ""
) -> list[str]:
    """The git command and its arguments, the command's alias expanded as git would (the
    config of the clone at `root`, and what the git was given: `-c alias.x=y`, `--config-env`,
    GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT in its raw `environ`, given_config);
    [SHELL_ALIAS] for an alias that runs a shell, [GUESSED] for a mistyped command git runs its
    guess for ([PAGED_GUESS] where its config may page that guess as it writes); [UNREAD] for
    a possible alias not read under HEAD's lock; [] when there is no command. A `git-<word>`
    on the git's PATH runs before any alias, as git runs it (external). `program`: the git
    that runs them, whose own commands it knows (aliases.commands)."""
    at = command_at(words)
    if at is None:
        return []
    rest = list(words[at:])
    given = given_config(options(words[:at]), environ)
    for _ in range(16):  # an alias naming an alias: git's chain, never a loop
        if rest[0] in commands(program) or not _may_name_an_alias(rest[0]):
            return rest
        if external(rest[0], environ):
            return rest
        value = given.get(f"alias.{rest[0].lower()}")
        aliases = clone_aliases(root) if value is None and root is not None else {}
        if aliases is None:
            return [UNREAD]  # not read under HEAD's lock: any git (careful)
        value = aliases.get(rest[0].lower()) if value is None else value
        if value is None:
            said = given.get("help.autocorrect", aliases.get(AUTOCORRECT, "0"))
            if not corrected(rest[0], said, program):
                return rest
            return [PAGED_GUESS] if pages_a_writer(given, aliases) else [GUESSED]
        if value.startswith("!"):
            return [SHELL_ALIAS]
        import shlex  # only for an alias: not on the hook path

        try:
            words_of = shlex.split(value)
        except ValueError:
            return [SHELL_ALIAS]  # git would refuse it; not known
        at = command_at(words_of)
        if at is None:
            return [SHELL_ALIAS]
        rest = [*words_of[at:], *rest[1:]]
    return [SHELL_ALIAS]


def external(word: str, environ: bytes = b"") -> bool:
    """Whether the git whose raw /proc/<pid>/environ is `environ` runs a `git-<word>` for `git
    <word>` (its GIT_EXEC_PATH, then its PATH; memidx's PATH where that cannot be read, `b""`,
    another user's git): git runs it before any alias of that name and guesses no other
    command for it. memidx's own PATH told a person's `git-st` script from memidx's view."""
    import shutil  # only for a word that is no command of git's: not on the hook path

    if environ:
        path = [*_environ(environ, b"GIT_EXEC_PATH"), *(_environ(environ, b"PATH") or [os.defpath])]
    else:
        path = [os.environ.get("PATH", os.defpath)]
    folders = [part for entry in path for part in entry.split(os.pathsep) if part.startswith("/")]
    return shutil.which(f"git-{word}", path=os.pathsep.join(folders)) is not None


def _may_name_an_alias(word: str) -> bool:
    """Whether git could read `word` as an alias: a config key's name, a letter then letters,
    digits and dashes (`/tmp/x/git` cannot be one: a git's /proc line whose first word is a
    script's path, a shim's, was taken for an alias not read under HEAD's lock, i.e. any git,
    and held every move of memidx's own)."""
    return word[:1].isalpha() and word.isascii() and word.replace("-", "").isalnum()


def in_clone(cwd: Path, words: Sequence[str], environ: bytes, trees: Sequence[Path]) -> bool:
    """Whether a git (its folder `cwd`, its arguments `words`, its raw environ) works in the
    clone whose work trees are `trees`: the repository its --git-dir or GIT_DIR names, else
    its folder, or where its `-C`s lead from there (it may not have gone there yet)."""
    named = named_git_dir(words, cwd, environ)
    if named:
        return not git_dirs(trees).isdisjoint(named)
    start = cwd
    for name, value in options(words):
        if name == "-C" and value:
            start = start / value
    places = {cwd, Path(os.path.normpath(start))}
    return any(place == top or top in place.parents for place in places for top in trees)


def named_git_dir(words: Sequence[str], cwd: Path, environ: bytes = b"") -> list[str]:
    """The repository a git process names (`--git-dir`, else GIT_DIR in its `environ`, the
    raw /proc/<pid>/environ), resolved as git would: after its `-C`s (or, once it went to its
    work tree, from there: both are given, and the folders it went there from, _came_from);
    [] when it names none."""
    given = [value for name, value in options(words) if name == "--git-dir"]
    if not given:
        given = _environ(environ, b"GIT_DIR")
    if not given:
        return []
    start = cwd
    for name, value in options(words):
        if name == "-C" and value:
            start = start / value
    bases = [start, cwd]
    if not Path(given[-1]).is_absolute():
        trees = [value for name, value in options(words) if name == "--work-tree"]
        bases += _came_from(cwd, trees[-1:] or _environ(environ, b"GIT_WORK_TREE"))
    return list(dict.fromkeys(os.path.realpath(base / given[-1]) for base in bases))


def _came_from(cwd: Path, trees: Sequence[str]) -> list[Path]:
    """The folders a git with a relative work tree (`trees`, its last) may have started in:
    it went to that work tree (its cwd now) at once, so a relative --git-dir, resolved from
    the folder it started in, was resolved from the work tree (`cd /tmp && git
    --git-dir=clone/.git --work-tree=clone commit`: no git of the clone)."""
    if not trees or not trees[-1] or Path(trees[-1]).is_absolute():
        return []
    here = os.path.realpath(cwd)
    return [top for top in (cwd, *cwd.parents) if os.path.realpath(top / trees[-1]) == here]


def _environ(raw: bytes, name: bytes) -> list[str]:
    """The value of variable `name` in a raw /proc/<pid>/environ; [] when it is not set."""
    prefix = name + b"="
    return [
        entry[len(prefix) :].decode("utf-8", "replace")
        for entry in raw.split(b"\0")
        if entry.startswith(prefix)
    ]


def git_dirs(trees: Sequence[Path]) -> set[str]:
    """The git folders of the work trees `trees` (a linked one's `.git` file followed)."""
    found: set[str] = set()
    for tree in trees:
        dot = tree / ".git"
        try:
            said = dot.read_text(encoding="utf-8").strip() if dot.is_file() else ""
        except (OSError, ValueError):
            said = ""
        folder = tree / said.removeprefix("gitdir:").strip() if said else dot
        found.add(os.path.realpath(folder))
    return found

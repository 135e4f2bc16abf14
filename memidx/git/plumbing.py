"""git's commands called as methods (`repo.git.read_tree(head, env=...)`), the way memidx's
commits called them through GitPython's command wrapper, without importing GitPython: the
import alone cost ~0.1 s of CPU (and a `git version` child) in every remember, forget, share
and haystack commit. Each call runs as GitPython ran it: in the work tree, with git's words in
English (LANGUAGE=C, LC_ALL=C) and the given variables over this process's environment (less
what names another repository: memidx.children.for_this_clone), no input, one trailing newline
cut from its output; CommandFailed on a non-zero exit. A git that cannot start (none on PATH,
the work tree deleted meanwhile: an OSError from the child's working directory) or that fails
because the work tree is gone raises GitError saying so, never an OSError or git's words."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memidx.children import for_this_clone
from memidx.errors import GitError
from memidx.git.process import ended, run_process
from memidx.git.root_gone import cannot_run, root_gone


class CommandFailed(GitError):
    """A git command exited non-zero (GitPython's GitCommandError): `stderr` holds its words,
    or, for a git a signal ended (or that said nothing), `git <command> was killed by SIG...`
    with its last words after the kill's. A GitError: one that no caller expects reaches the
    command line as one line, not a traceback."""

    def __init__(self, command: str, status: int, stderr: str) -> None:
        how = f"git {command} {ended(status, stderr)}"
        if not stderr.strip() or not how.startswith(f"git {command} failed: "):
            stderr = how  # the kill said first, for commit_error too
        super().__init__(how, "git's words; fix what they name")
        self.status = status
        self.stderr = stderr


class Commands:
    """`git <name>` as `.name(*args)` (underscores read as dashes), with `prefix` (`-c k=v`)
    before the command's name."""

    def __init__(self, root: Path, prefix: tuple[str, ...] = ()) -> None:
        self._root = root
        self._prefix = prefix

    def __call__(self, c: str) -> Commands:
        """The commands with `-c c` (a configuration `key=value`) before each one."""
        return Commands(self._root, (*self._prefix, "-c", c))

    def run(
        self,
        command: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        with_exceptions: bool = True,
    ) -> str:
        """Run `git <command> args...` in the work tree; its stdout without the final newline."""
        argv = ["git", *self._prefix, command, *args]  # in the work tree, as GitPython ran it:
        # the command's name first, where a person's git wrapper looks for it (not `-C`)
        full = {**for_this_clone(os.environ), "LANGUAGE": "C", "LC_ALL": "C", **(env or {})}
        try:
            done = run_process(argv, full, cwd=self._root)
        except OSError as exc:  # no git on PATH, or the work tree gone (the child's cwd)
            raise cannot_run(self._root, exc) from exc
        if done.returncode != 0 and (gone := root_gone(self._root)) is not None:
            raise gone  # whatever the caller would make of git's failure: nothing works now
        if with_exceptions and done.returncode != 0:
            said = done.stderr.decode("utf-8", "surrogateescape").removesuffix("\n")
            raise CommandFailed(command, done.returncode, said)
        return done.stdout.removesuffix(b"\n").decode("utf-8", "surrogateescape")

    def __getattr__(self, name: str) -> Command:
        if name.startswith("_"):
            raise AttributeError(name)
        return Command(self, name.replace("_", "-"))


class Command:
    """One git command of `Commands`, to be called with its arguments."""

    def __init__(self, commands: Commands, name: str) -> None:
        self._commands = commands
        self._name = name

    def __call__(
        self, *args: str, env: Mapping[str, str] | None = None, with_exceptions: bool = True
    ) -> str:
        return self._commands.run(self._name, *args, env=env, with_exceptions=with_exceptions)


class Plumbing:
    """A work tree whose git commands memidx runs by name (`.git.write_tree()`)."""

    def __init__(self, root: Path) -> None:
        self.working_tree_dir = str(root)
        self.git = Commands(root)
        self._git_dir: str | None = None

    @property
    def git_dir(self) -> str:
        """git's folder of this work tree (a linked work tree's own), asked of git once."""
        if self._git_dir is None:
            self._git_dir = self.git.rev_parse("--absolute-git-dir")
        return self._git_dir

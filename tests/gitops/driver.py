"""The seeded driver: two clones of a bare remote, random git operations, a check after each."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.frozen import replace
from memidx.haystack.indexing import sync_records
from memidx.index.store import Store, open_store
from memidx.index.sync import ingest, note_source
from tests.gitops.compare import compare_indexes
from tests.gitops.content import (
    FOLDERS,
    HOT,
    MAX_NOTE_BYTES,
    WORDS,
    Writer,
    indexable,
    is_note_path,
)
from tests.gitops.deck import Deck, change_weights
from tests.gitops.results import Divergence, GitFailure, RunResult
from tests.helpers import GIT_IDENTITY, FakeEmbedder, run_in_process
from tests.machines import Machine, clone, hook_env, make_template


@dataclass(slots=True)
class Clone:
    """One machine of the run: a clone with the hooks, and git run the way a user runs it."""

    name: str
    machine: Machine

    @property
    def root(self) -> Path:
        return self.machine.root

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.machine.run_git(*args)

    def git(self, *args: str) -> str:
        done = self.run(*args)
        if done.returncode != 0:
            raise GitFailure(f"{self.name}: git {' '.join(args)}: {done.stdout}{done.stderr}")
        return done.stdout

    def ok(self, *args: str) -> bool:
        return self.run(*args).returncode == 0

    def blob(self, spec: str) -> bytes | None:
        """The bytes of `git cat-file blob SPEC`, or None when there is no such blob."""
        done = subprocess.run(
            ["git", "cat-file", "blob", spec],
            cwd=self.root,
            env=self.machine.env,
            capture_output=True,
            check=False,
        )
        return done.stdout if done.returncode == 0 else None

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def branch(self) -> str | None:
        """The current branch, None on a detached HEAD."""
        done = self.run("symbolic-ref", "-q", "--short", "HEAD")
        return done.stdout.strip() or None

    def refs(self, prefix: str) -> list[str]:
        out = self.git("for-each-ref", "--format=%(refname:short)", prefix)
        return [r for r in out.split() if r and not r.endswith("/HEAD")]

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self.ok("merge-base", "--is-ancestor", older, newer)

    def lines(self, *args: str) -> list[str]:
        return [x for x in self.git(*args).split("\0" if "-z" in args else "\n") if x]

    def files(self, top: str) -> list[str]:
        """Every file and symlink under `top` in the working tree (dot-named ones too)."""
        found: list[str] = []
        for folder, dirs, names in os.walk(self.root / top):
            dirs.sort()
            found += [Path(folder, n).relative_to(self.root).as_posix() for n in sorted(names)]
        return found

    def indexable_or_gone(self, path: str) -> bool:
        full = self.root / path
        if full.is_symlink():
            return False
        return not full.exists() or indexable(full.read_bytes())

    def read(self, path: str) -> bytes | None:
        full = self.root / path
        return None if full.is_symlink() or not full.is_file() else full.read_bytes()

    def write(self, path: str, data: bytes) -> None:
        """Replace `path` by a regular file (a symlink is removed, never written through)."""
        full = self.root / path
        if full.is_symlink():
            full.unlink()
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_bytes(data)

    def remove(self, path: str) -> None:
        (self.root / path).unlink()

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(self.root / new)

    def in_progress(self, name: str) -> bool:
        return (self.root / ".git" / name).exists()


def make_remote(workdir: Path, env: dict[str, str]) -> Path:
    """The template of tests.machines, with a small max_note_bytes and a few "hot" notes that
    both machines edit (so merges conflict), folded into the first commit."""
    remote = make_template(workdir, env)
    template = workdir / "template"
    (template / "pyproject.toml").write_text(
        f"[tool.memidx]\nmax_note_bytes = {MAX_NOTE_BYTES}\n", encoding="utf-8"
    )
    writer = Writer(random.Random(0))
    for path in HOT:
        (template / path).parent.mkdir(parents=True, exist_ok=True)
        (template / path).write_bytes(writer.note())
    for args in (
        ["add", "-A"],
        ["commit", "-q", "--amend", "--no-verify", "-m", "template"],
        ["push", "-q", "-f", "origin", "main"],
    ):
        subprocess.run(
            ["git", *GIT_IDENTITY, *args], cwd=template, env=env, check=True, capture_output=True
        )
    return remote


Operation = Callable[[Clone], str | None]
KINDS = (
    *("commit", "amend", "branch", "checkout", "track", "detach", "merge", "rebase"),
    *("cherry-pick", "revert", "reset", "push", "pull", "turn", "haystack"),
)


class GitOpsDriver:
    """Random git operations over machines "a" and "b", checked after each one."""

    def __init__(
        self, seed: int, workdir: Path, pre_commit_home: Path | None = None, decks: bool = False
    ) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.writer = Writer(self.rng)
        self.workdir = workdir
        env = hook_env(pre_commit_home or workdir / "pre-commit-home")
        remote = make_remote(workdir, env)
        self.clones = [Clone(n, clone(remote, workdir / n, env)) for n in ("a", "b")]
        self.embedder = FakeEmbedder("test/gitops", dim=32)
        self.result = RunResult(seed, decks=decks)
        self.op = 0
        # author dates of the driver's commits: a clock that moves on, sometimes set back (a
        # skewed clock, `commit --date`), so a note's fallback date depends on which commits
        # HEAD's history holds; its own random, so the operations stay those of the seed
        self.dates = random.Random(f"{seed}/dates")
        self.clock = 1_700_000_000
        self.pending = ""
        self.branches = 0
        self.operations: dict[str, tuple[int, Operation]] = {
            "commit": (30, self.commit_op),
            "amend": (4, self.amend),
            "branch": (4, self.create_branch),
            "checkout": (6, self.checkout_branch),
            "track": (4, self.track_remote_branch),
            "detach": (3, self.detach),
            "merge": (8, self.merge),
            "rebase": (5, self.rebase),
            "cherry-pick": (5, self.cherry_pick),
            "revert": (4, self.revert),
            "reset": (4, self.reset),
            "push": (12, self.push),
            "pull": (14, self.pull),
            "turn": (6, self.file_turn),
            "haystack": (3, self.commit_haystack),
        }
        assert tuple(self.operations) == KINDS
        # decks (tests.gitops.deck): a short run tries every kind; else each kind at random
        weights = {kind: weight for kind, (weight, _) in self.operations.items()}
        self.op_deck = Deck(weights, 3, self.rng) if decks else None
        self.change_deck = Deck(change_weights(), 8, self.rng) if decks else None

    # -- running -------------------------------------------------------------------------------
    def run(self, ops: int) -> RunResult:
        """Run `ops` operations (fewer when git fails unexpectedly: that stops the run)."""
        kinds = list(self.operations)
        weights = [self.operations[k][0] for k in kinds]
        try:
            for _ in range(ops):
                self.op += 1
                target = self.rng.choice(self.clones)
                self.pending = f"#{self.op} {target.name}"
                target.machine.env["GIT_AUTHOR_DATE"] = self.author_date()
                started = time.perf_counter()
                kind, text = self._one(target, kinds, weights)
                self.result.op_seconds.append(time.perf_counter() - started)
                self.result.kinds[kind] += 1
                self.result.ops = self.op
                self.result.log.append(f"#{self.op} {target.name}: {kind}: {text}")
                started = time.perf_counter()
                self.check(target)
                self.result.check_seconds.append(time.perf_counter() - started)
        except GitFailure as exc:
            self.stop("git", str(exc))
        except Exception:  # noqa: BLE001 - memidx crashed in-process: a finding, not a driver bug
            self.stop("exception", traceback.format_exc())
        return self.result

    def author_date(self) -> str:
        """The author date of the next operation's commits."""
        self.clock += self.dates.randint(1, 3 * 86400)
        if self.dates.random() < 0.15:
            return f"@{self.clock - self.dates.randint(1, 400 * 86400)} +0000"
        return f"@{self.clock} +0000"

    def stop(self, what: str, detail: str) -> None:
        self.result.log.append(f"{self.pending} (failed)")
        self.result.failure = f"op #{self.op}: {detail}"
        self.result.divergences.append(Divergence(self.seed, self.op, "-", what, detail))

    def _one(self, target: Clone, kinds: list[str], weights: list[int]) -> tuple[str, str]:
        refused: set[str] = set()  # kinds that could not run now (decks: none drawn twice)
        for _ in range(30):
            drawn = self.op_deck.draw(refused) if self.op_deck else None
            kind = drawn or self._at_random(kinds, weights, refused)
            self.pending = f"#{self.op} {target.name}: {kind}"
            text = self.operations[kind][1](target)
            if text is not None:
                return kind, text
            if self.op_deck:
                refused.add(kind)
                if drawn:
                    self.op_deck.put_back(drawn)
        self.result.fallbacks += 1
        return "commit", self.commit_op(target) or ""

    def _at_random(self, kinds: list[str], weights: list[int], refused: set[str]) -> str:
        """A kind by its weight, of those not `refused` (decks: each card left was refused)."""
        left = [(k, w) for k, w in zip(kinds, weights, strict=True) if k not in refused]
        return self.rng.choices([k for k, _ in left], [w for _, w in left])[0]

    def check(self, target: Clone) -> None:
        """Compare the machine's index with a fresh rebuild of its HEAD; record divergences."""
        found: list[tuple[str, str]] = []
        hook_log = target.root / ".memidx" / "hook-error.log"
        if hook_log.exists() and hook_log.read_text().strip():
            found.append(("hook", hook_log.read_text().strip()))
        config = load_config(target.root, env={})
        try:
            # a reader's open: a damaged index is reported, not silently rebuilt
            ours, _ = open_store(config.index_path, write=False)
        except MemidxError as exc:
            found.append(("index unusable", str(exc)))
        else:
            ours.conn.close()  # a reader is read-only: the comparison embeds into the index
            ours, said = open_store(config.index_path, write=True)
            if said is not None:
                found.append(("index reopened", said))
            found += self.compare_with_rebuild(target, config, ours)
        reconcile = run_in_process(target.root, "reconcile")
        if reconcile.code != 0:
            found.append(("reconcile", f"exit {reconcile.code}: {reconcile.out}{reconcile.err}"))
        for what, detail in found:
            self.result.divergences.append(
                Divergence(self.seed, self.op, target.name, what, detail)
            )
        if found:
            self.rebuild(target, config.index_path)

    def compare_with_rebuild(
        self, target: Clone, config: Config, ours: Store
    ) -> list[tuple[str, str]]:
        """Differences between `ours` and an index built from nothing at the same HEAD."""
        fresh_path = self.workdir / "fresh" / f"{target.name}-{self.op}.sqlite"
        fresh, _ = open_store(fresh_path, write=True)
        found: list[tuple[str, str]] = []
        try:
            fresh_config = replace(config, index_path=fresh_path)
            ingest(fresh_config, fresh, note_source(config))
            sync_records(fresh_config, fresh)  # the haystack's turns, as on disk
            indexed, head = ours.get_state("indexed_commit"), target.head()
            if indexed != head:
                found.append(("indexed commit", f"the index says {indexed}, HEAD is {head}"))
            found += compare_indexes(ours, fresh, self.embedder, self.search_words(fresh))
        finally:
            ours.conn.close()
            fresh.conn.close()
            for suffix in ("", "-wal", "-shm"):
                Path(f"{fresh_path}{suffix}").unlink(missing_ok=True)
        return found

    def search_words(self, fresh: Store) -> list[str]:
        """Four words the notes at HEAD contain (chosen apart from the operations' random)."""
        text = " ".join(f"{row[2]} {row[3]} {row[5]}" for row in fresh.document_rows("note"))
        present = [w for w in WORDS if w in text]
        pick = random.Random(f"{self.seed}/{self.op}")
        return pick.sample(present, 4) if len(present) >= 4 else pick.sample(WORDS, 4)

    def rebuild(self, target: Clone, index: Path) -> None:
        """Start the machine over from a new index, so later divergences are new ones."""
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
        (target.root / ".memidx" / "hook-error.log").unlink(missing_ok=True)
        run_in_process(target.root, "ingest")
        self.result.log.append(f"   (divergence: {target.name}'s index rebuilt from scratch)")

    # -- commits -------------------------------------------------------------------------------
    def commit_all(self, c: Clone, *args: str) -> str:
        """`git add -A` and commit with the hooks; files that cannot be indexed are committed
        with --no-verify (the pre-commit check would refuse them), as a person would."""
        c.git("add", "-A")
        staged = c.lines("diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD")
        bad = [p for p in staged if is_note_path(p) and not c.indexable_or_gone(p)]
        c.git("commit", "-q", *(["--no-verify"] if bad else []), *args)
        return " (--no-verify)" if bad else ""

    def commit_op(self, c: Clone) -> str:
        changes = [self.change(c) for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3)))]
        if not c.lines("status", "--porcelain"):
            changes.append(self.add_note(c))
        return "; ".join(changes) + self.commit_all(c, "-m", f"change {self.op}")

    def amend(self, c: Clone) -> str | None:
        if not c.ok("rev-parse", "-q", "--verify", "HEAD~1"):
            return None
        what = self.change(c) if self.rng.random() < 0.7 else "message only"
        # --allow-empty: the change may undo all the commit did (deleting the note it added)
        return what + self.commit_all(c, "--amend", "--allow-empty", "-m", f"amended {self.op}")

    def change(self, c: Clone) -> str:
        """One change of the working tree under notes/ (or next to it)."""
        text = self._change(c)
        self.pending += f": {text}"
        self.result.changes[text.split(" ", 1)[0]] += 1
        return text

    def _change(self, c: Clone) -> str:
        notes = [p for p in c.files("notes") if is_note_path(p)]
        # the bands of `choice` are tests.gitops.deck.CHANGES
        choice = self.change_deck.choice() if self.change_deck else self.rng.random()
        if choice < 0.3 or not notes:
            return self.add_note(c)
        path = self.rng.choice(notes)
        if self.rng.random() < 0.3:
            hot = [p for p in HOT if p in notes]
            path = self.rng.choice(hot) if hot else path
        if choice < 0.55:
            data, how = self.writer.edited(c.read(path) or b"")
            c.write(path, data)
            return f"edit {path} ({how})"
        if choice < 0.63:
            c.remove(path)
            return f"delete {path}"
        if choice < 0.74:
            new = self.new_path()
            c.move(path, new)
            if self.rng.random() < 0.3 and indexable(c.read(new) or b""):
                c.write(new, self.writer.edited(c.read(new) or b"")[0])
                return f"rename {path} -> {new} (edited)"
            return f"rename {path} -> {new}"
        if choice < 0.77 and c.read(path) is not None:
            new = self.new_path()
            c.write(new, c.read(path) or b"")
            return f"copy {path} -> {new}"
        if choice < 0.85:
            data, kind = self.writer.unindexable()
            target = path if self.rng.random() < 0.4 else self.new_path()
            c.write(target, data)
            return f"unindexable {target} ({kind})"
        if choice < 0.88:
            return self.symlink(c, notes)
        if choice < 0.93:
            return self.other_file(c)
        if choice < 0.97 and (restored := self.restore(c)) is not None:
            return restored
        return self.move_across(c, path)

    def restore(self, c: Clone) -> str | None:
        """A note deleted earlier, added again with the bytes it had: the same blob at the same
        path from another commit, whose date its row (untouched by a later checkout) must
        follow."""
        out = c.lines("log", "--diff-filter=D", "--no-renames", "--name-only", "--format=%H",
                      "-z", "--max-count=40", "HEAD", "--", "notes/")  # fmt: skip
        commit, candidates = "", list[tuple[str, str]]()
        for field in out:
            name = field.lstrip("\n")
            if len(name) == 40 and all(ch in "0123456789abcdef" for ch in name):
                commit = name
            elif commit and is_note_path(name) and not (c.root / name).exists():
                candidates.append((commit, name))
        if not candidates:
            return None
        commit, path = self.rng.choice(sorted(set(candidates)))
        data = c.blob(f"{commit}^:{path}")
        if data is None:
            return None
        c.write(path, data)
        return f"restore {path} (deleted in {commit[:10]})"

    def add_note(self, c: Clone) -> str:
        hot = [p for p in HOT if not (c.root / p).exists()]
        path = self.rng.choice(hot) if hot and self.rng.random() < 0.3 else self.new_path()
        c.write(path, self.writer.note())
        return f"add {path}"

    def new_path(self, folder: str | None = None) -> str:
        folder = folder or self.rng.choice(FOLDERS)
        word = self.rng.choice(WORDS)
        if self.rng.random() < 0.08:  # spaces and non-ASCII letters in the file name
            word = self.rng.choice((f"{word} and crème brûlée", f"Zoë's {word} notes"))
        serial = self.writer.next()
        # `.md` in any case is a note; chosen by the serial, not the rng, so every other
        # choice a seed makes stays as it was
        suffix = ".MD" if serial % 13 == 0 else ".md"
        return f"{folder}/{word}-{serial}{suffix}"

    def symlink(self, c: Clone, notes: list[str]) -> str:
        """A symlink under notes/: new, or in place of a note (a type change); to a note (maybe
        a link itself, or itself: a loop) or outside the repository."""
        path = self.new_path() if self.rng.random() < 0.6 else self.rng.choice(notes)
        outside = ["../../outside-nowhere.md", "/nonexistent/memidx-target.md"]
        inside = [os.path.relpath(self.rng.choice(notes), Path(path).parent)] if notes else []
        target = self.rng.choice(inside + outside)
        (c.root / path).parent.mkdir(parents=True, exist_ok=True)
        (c.root / path).unlink(missing_ok=True)
        (c.root / path).symlink_to(target)
        return f"symlink {path} -> {target}"

    def other_file(self, c: Clone) -> str:
        """A file that is not a note: beside notes, in a dot-folder, dot-named, or outside."""
        word, n = self.rng.choice(WORDS), self.writer.next()
        path = self.rng.choice(
            (
                f"notes/assets/{word}-{n}.txt",
                f"notes/.drafts/{word}-{n}.md",
                f"notes/ops/.{word}-{n}.md",
                f"docs/{word}-{n}.txt",
                f"notes/db/{word}-{n}.markdown",  # `.md` in any case is a note
            )
        )
        c.write(path, self.writer.note())
        return f"non-note {path}"

    def move_across(self, c: Clone, path: str) -> str:
        """Move a note out of notes/ (or into a dot-folder), or one back in."""
        outside = [
            p for p in c.files("archive") + c.files("notes/.drafts") if p.lower().endswith(".md")
        ]
        if outside and self.rng.random() < 0.5:
            old = self.rng.choice(outside)
            new = self.new_path()
        else:
            old = path
            new = self.new_path(self.rng.choice(("archive", "notes/.drafts")))
        c.move(old, new)
        return f"move {old} -> {new}"

    # -- branches ------------------------------------------------------------------------------
    def create_branch(self, c: Clone) -> str | None:
        if len(c.refs("refs/heads")) >= 8:
            return None
        self.branches += 1
        name = f"{c.name}-topic-{self.branches}"
        start = self.rng.choice(["HEAD", "HEAD", *c.refs("refs/heads")])
        c.git("checkout", "-q", "-b", name, start)
        return f"checkout -b {name} {start}"

    def checkout_branch(self, c: Clone) -> str | None:
        others = [b for b in c.refs("refs/heads") if b != c.branch()]
        if not others:
            return None
        name = self.rng.choice(others)
        c.git("checkout", "-q", name)
        return f"checkout {name}"

    def track_remote_branch(self, c: Clone) -> str | None:
        c.git("fetch", "-q", "origin")
        local = set(c.refs("refs/heads"))
        remote = [
            r for r in c.refs("refs/remotes/origin") if r.removeprefix("origin/") not in local
        ]
        if not remote:
            return None
        ref = self.rng.choice(remote)
        c.git("checkout", "-q", "-b", ref.removeprefix("origin/"), "--track", ref)
        return f"checkout -b {ref.removeprefix('origin/')} --track {ref}"

    def detach(self, c: Clone) -> str:
        commits = c.lines("rev-list", "--all", "--max-count=60")
        target = self.rng.choice(["HEAD~1", *c.refs("refs/remotes/origin"), *commits[:40]])
        if not c.ok("rev-parse", "-q", "--verify", f"{target}^{{commit}}"):
            target = "HEAD"
        c.git("checkout", "-q", "--detach", target)
        return f"checkout --detach {target}"

    def reset(self, c: Clone) -> str:
        commits = c.lines("rev-list", "--all", "--max-count=40")
        target = self.rng.choice(
            ["HEAD~1", "HEAD~2", *c.refs("refs/heads"), *c.refs("refs/remotes/origin"), *commits]
        )
        if not c.ok("rev-parse", "-q", "--verify", f"{target}^{{commit}}"):
            target = "HEAD"
        c.git("reset", "-q", "--hard", target)
        # git reset runs no hook: the index stays behind until `memidx sync` (documented).
        synced = run_in_process(c.root, "sync")
        skipped_only = synced.code == 1 and "skipped:" in synced.err
        if synced.code != 0 and not skipped_only:
            raise GitFailure(f"memidx sync after reset: exit {synced.code}: {synced.err}")
        return f"reset --hard {target}, then memidx sync"

    # -- the haystack: turns filed between git operations, segments committed ------------------
    def file_turn(self, c: Clone) -> str:
        """An agent files a turn: appended to this clone's own segment, which git operations
        (and `git add -A` in commit_all) then carry along; reconcile checks it is indexed."""
        words = self.rng.sample(WORDS, 6)
        turn = {"user": " ".join(words[:3]), "assistant": " ".join(words[3:])}
        filed = c.machine.memidx_process("file-turn", stdin=json.dumps({**turn, "session": "g"}))
        if filed.code != 0:
            failed = f"exit {filed.code}: {filed.err}"
            self.result.divergences.append(
                Divergence(self.seed, self.op, c.name, "file-turn", failed)
            )
        return f"file-turn {' '.join(words)}"

    def commit_haystack(self, c: Clone) -> str | None:
        """`memidx haystack commit`, which refuses a detached HEAD (tested on its own)."""
        if c.branch() is None:
            return None
        done = c.machine.memidx_process("haystack", "commit")
        if done.code != 0:
            raise GitFailure(f"{c.name}: memidx haystack commit: exit {done.code}: {done.err}")
        return "haystack commit: " + (done.out.strip().splitlines() or ["nothing to commit"])[-1]

    # -- combining histories -------------------------------------------------------------------
    def candidates(self, c: Clone) -> list[str]:
        """Branches (local and fetched) with commits that HEAD does not have."""
        c.git("fetch", "-q", "origin")
        here = c.branch()
        refs = [r for r in c.refs("refs/heads") + c.refs("refs/remotes/origin") if r != here]
        return [r for r in refs if not c.is_ancestor(r, "HEAD")]

    def merge(self, c: Clone) -> str | None:
        others = self.candidates(c)
        if not others:
            return None
        other = self.rng.choice(others)
        if c.is_ancestor("HEAD", other) and self.rng.random() < 0.7:
            c.git("merge", "-q", "--ff-only", other)
            return f"merge --ff-only {other}"
        if self.rng.random() < 0.15:  # post-merge with the squash flag, then a plain commit
            done = c.run("merge", "-q", "--squash", other)
            resolved = self.resolve(c) if done.returncode != 0 else []
            if done.returncode != 0 and not resolved:
                raise GitFailure(f"{c.name}: {done.args}: {done.stdout}{done.stderr}")
            note = self.commit_all(c, "--no-edit", "--allow-empty")
            return f"merge --squash {other}, commit" + (
                f" (conflict in {', '.join(resolved)} resolved{note})" if resolved else note
            )
        return f"merge --no-ff {other}" + self.settle(
            c, c.run("merge", "-q", "--no-ff", "--no-edit", other)
        )

    def rebase(self, c: Clone) -> str | None:
        others = self.candidates(c)
        if not others:
            return None
        other = self.rng.choice(others)
        return f"rebase {other}" + self.settle_rebase(c, c.run("rebase", "-q", other))

    def cherry_pick(self, c: Clone) -> str | None:
        picks = [
            (r, p)
            for r in self.candidates(c)
            for p in c.lines("rev-list", "--no-merges", "--max-count=20", f"HEAD..{r}")
        ]
        if not picks:
            return None
        ref, pick = self.rng.choice(picks)
        done = c.run("cherry-pick", "--allow-empty", "--keep-redundant-commits", pick)
        return f"cherry-pick {pick[:10]} (from {ref})" + self.settle(c, done)

    def revert(self, c: Clone) -> str | None:
        commits = c.lines("rev-list", "--no-merges", "--max-count=30", "HEAD")
        root = c.lines("rev-list", "--max-parents=0", "HEAD")
        commits = [x for x in commits if x not in root]  # the root holds the hooks themselves
        if not commits:
            return None
        pick = self.rng.choice(commits)
        done = c.run("revert", "--no-edit", pick)
        empty = ("nothing to commit", "nothing added to commit")  # the latter: turns untracked
        if done.returncode != 0 and not self.unmerged(c) and any(e in done.stdout for e in empty):
            return f"revert {pick[:10]}: nothing left to revert (no commit)"
        return f"revert {pick[:10]}" + self.settle(c, done)

    def push(self, c: Clone) -> str | None:
        branch = c.branch()
        if branch is None:
            return None
        c.git("fetch", "-q", "origin")
        remote = f"origin/{branch}"
        known = c.ok("rev-parse", "-q", "--verify", remote)
        if known and (not c.is_ancestor(remote, "HEAD") or c.is_ancestor("HEAD", remote)):
            return None
        c.git("push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return f"push {branch}"

    def pull(self, c: Clone) -> str | None:
        branch = c.branch()
        if branch is None:
            return None
        c.git("fetch", "-q", "origin")
        remote = f"origin/{branch}"
        if not c.ok("rev-parse", "-q", "--verify", remote) or c.is_ancestor(remote, "HEAD"):
            return None
        how = self.rng.choice(("merge", "rebase", "ff-only"))
        if how == "ff-only" and not c.is_ancestor("HEAD", remote):
            how = "merge"
        if how == "ff-only":
            c.git("pull", "-q", "--ff-only", "origin", branch)
            return f"pull --ff-only origin {branch}"
        if how == "rebase":
            done = c.run("pull", "-q", "--rebase", "origin", branch)
            return f"pull --rebase origin {branch}" + self.settle_rebase(c, done)
        done = c.run("pull", "-q", "--no-rebase", "--no-edit", "origin", branch)
        return f"pull --no-rebase origin {branch}" + self.settle(c, done)

    # -- conflicts -----------------------------------------------------------------------------
    def unmerged(self, c: Clone) -> list[str]:
        return sorted(set(c.lines("diff", "--name-only", "-z", "--diff-filter=U")))

    def resolve(self, c: Clone) -> list[str]:
        """Write a merged text over every conflicted path, as a person would, and stage it."""
        paths = self.unmerged(c)
        for path in paths:
            sides = [c.blob(f":{stage}:{path}") for stage in (2, 3)]
            c.write(path, self.writer.merged(path, sides))
        c.git("add", "-A")
        return paths

    def settle(self, c: Clone, done: subprocess.CompletedProcess[str]) -> str:
        """After a merge, pull, cherry-pick or revert: resolve a conflict and commit it."""
        if done.returncode == 0:
            return ""
        paths = self.resolve(c)
        if not paths:
            raise GitFailure(f"{c.name}: {done.args}: {done.stdout}{done.stderr}")
        note = self.commit_all(c, "--no-edit", "--allow-empty")
        return f" (conflict in {', '.join(paths)} resolved and committed{note})"

    def settle_rebase(self, c: Clone, done: subprocess.CompletedProcess[str]) -> str:
        resolved: list[str] = []
        for _ in range(500):  # a rebase that linearizes merges can stop once per commit
            if done.returncode == 0:
                break
            paths = self.resolve(c)
            if not paths or not (c.in_progress("rebase-merge") or c.in_progress("rebase-apply")):
                raise GitFailure(f"{c.name}: {done.args}: {done.stdout}{done.stderr}")
            resolved += paths
            done = c.run("-c", "core.editor=true", "rebase", "--continue")
        else:
            raise GitFailure(f"{c.name}: rebase did not finish: {done.stdout}{done.stderr}")
        return f" (conflicts resolved: {', '.join(resolved)})" if resolved else ""


def run_seed(
    seed: int, ops: int, workdir: Path, pre_commit_home: Path | None = None, decks: bool = False
) -> RunResult:
    """One seeded run in a fresh folder (removed afterwards); `decks`: see tests.gitops.deck."""
    folder = workdir / f"seed-{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        return GitOpsDriver(seed, folder, pre_commit_home, decks).run(ops)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

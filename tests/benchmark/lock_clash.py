"""How often memidx's hold of `.git/index.lock` makes a person's git fail: a throwaway clone
(memidx's hooks installed) where one thread runs a person's git commands in a loop (add and
commit, switch, merge with a dirty work tree, stash and pop, pull from a bare remote a second
clone pushes to) while another runs memidx `remember`, `file-turn`, `haystack commit` and
`forget` one after the other. Counts the person's commands that failed naming index.lock or
"stash failed" (memidx's doing), and apart from them any other failure (the harness's own).

    python -m tests.benchmark.lock_clash --rounds 200 [--runs 3] [--no-hooks]

Run from outside any checkout of this project (memidx runs with the current folder first on
sys.path): `cd /tmp && PYTHONPATH=<checkout> python -m tests.benchmark.lock_clash`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from tests.helpers import GIT_IDENTITY, clean_env

PROJECT = Path(__file__).resolve().parents[2]
# what a person's git says when memidx held git's index, or moved HEAD under it (a `git stash`
# that read HEAD before memidx's move: "cannot lock ref 'HEAD': is at X but expected Y")
CLASHES = ("index.lock", "stash failed", "cannot lock ref 'HEAD'")
BODY = "The person kept working in git while the agent wrote this note about lock clash {n}."


@dataclass(slots=True)
class Tally:
    """One run's counts: the person's commands, those memidx made fail, other failures."""

    commands: int = 0
    clashes: Counter[str] = field(default_factory=Counter[str])
    others: Counter[str] = field(default_factory=Counter[str])
    said: list[str] = field(default_factory=list[str])
    memidx: Counter[str] = field(default_factory=Counter[str])
    memidx_said: list[str] = field(default_factory=list[str])
    memidx_seconds: list[float] = field(default_factory=list[float])  # each remember's
    seconds: float = 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.lock_clash")
    parser.add_argument("--rounds", type=int, default=200, help="the person's rounds per run")
    parser.add_argument("--runs", type=int, default=1, help="runs (medians over them)")
    parser.add_argument("--no-hooks", action="store_true", help="without memidx's git hooks")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stopped)  # the clones removed, memidx's last run waited for
    tallies: list[Tally] = []
    for run in range(args.runs):
        tally = one_run(args.rounds, hooks=not args.no_hooks)
        tallies.append(tally)
        failed = sum(tally.clashes.values())
        print(
            f"run {run + 1}: {tally.commands} git commands of the person in "
            f"{tally.seconds:.0f} s, {failed} failed on memidx's lock "
            f"({_listed(tally.clashes)}); other failures {sum(tally.others.values())} "
            f"({_listed(tally.others)}); memidx ran {_listed(tally.memidx)}; remember took "
            f"{median(tally.memidx_seconds or [0]):.2f} s median, "
            f"{max(tally.memidx_seconds or [0]):.2f} s at most",
            flush=True,
        )
        for line in [*tally.said[:8], *tally.memidx_said[:6]]:
            print(f"    {line}")
    clashes = [sum(t.clashes.values()) for t in tallies]
    print(f"median failures on memidx's lock per {args.rounds} rounds: {median(clashes):g} "
          f"(runs: {', '.join(map(str, clashes))})")  # fmt: skip
    return 0


def _stopped(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _listed(counts: Counter[str]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) or "none"


def one_run(rounds: int, *, hooks: bool) -> Tally:
    """One throwaway clone, the person's `rounds` and memidx alongside until they end."""
    with tempfile.TemporaryDirectory(prefix="memidx-lock-clash-") as scratch:
        top = Path(scratch)
        env = _env(top)
        work, peer = _clones(top, env, hooks=hooks)
        tally, stop = Tally(), threading.Event()
        agent = threading.Thread(target=_agent, args=(top, work, env, stop, tally))
        started = time.monotonic()
        agent.start()
        try:
            person = Person(work, peer, env, tally)
            for n in range(rounds):
                person.round(n)
        finally:
            stop.set()
            agent.join(timeout=120)
        tally.seconds = time.monotonic() - started
        return tally


def _env(top: Path) -> dict[str, str]:
    home = top / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = person\n\temail = person@memidx.invalid\n")
    env = clean_env(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        PRE_COMMIT_HOME=str(top / "pre-commit-home"),
        MEMIDX_PYTHON=sys.executable,
        MEMIDX_HOOK_EMBED="0",
        PYTHONPATH=str(PROJECT),
    )
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        env.pop(key, None)
    return env


def _git(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = ["git", *GIT_IDENTITY, *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def _clones(top: Path, env: dict[str, str], *, hooks: bool) -> tuple[Path, Path]:
    """The person's clone (memidx's hooks in it) and a peer clone, of one bare remote."""
    remote, seed = top / "remote.git", top / "seed"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], env=env, check=True)
    (seed / "notes").mkdir(parents=True)
    (seed / "person").mkdir()
    shutil.copytree(PROJECT / "hooks", seed / "hooks")
    shutil.copy(PROJECT / ".pre-commit-config.yaml", seed / ".pre-commit-config.yaml")
    (seed / ".gitignore").write_text(".memidx/\n")
    (seed / "notes" / "welcome.md").write_text(
        "---\ntitle: Welcome\ntags: [memidx]\n---\n\nSearch before you start a task.\n"
    )
    for name in ("main.txt", "side.txt", "dirty.txt", "peer.txt"):
        (seed / "person" / name).write_text("start\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "seed"]):
        assert _git(seed, env, *args).returncode == 0
    assert _git(seed, env, "push", "-q", str(remote), "main").returncode == 0
    work, peer = top / "work", top / "peer"
    for clone in (work, peer):
        assert _git(top, env, "clone", "-q", str(remote), str(clone)).returncode == 0
        _git(clone, env, "config", "pull.rebase", "false")
    assert _git(work, env, "branch", "side").returncode == 0
    if hooks:
        _memidx(top, work, env, "hooks", "install")
        _memidx(top, work, env, "ingest")
    return work, peer


def _memidx(top: Path, work: Path, env: dict[str, str], *args: str, stdin: str = "") -> str:
    """Run memidx on the person's clone from `top` (never this project's checkout); its
    error line, "" when it succeeded."""
    argv = [sys.executable, "-m", "memidx", "-C", str(work), *args]
    done = subprocess.run(
        argv, cwd=top, env=env, input=stdin, capture_output=True, text=True, check=False
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return "" if done.returncode == 0 else (lines or [f"exit {done.returncode}"])[-1]


def _agent(top: Path, work: Path, env: dict[str, str], stop: threading.Event, tally: Tally) -> None:
    """memidx as an agent runs it, one command after another, until `stop`."""
    for n in itertools.count():
        if stop.is_set():
            return
        turn = json.dumps({"user": f"question {n}", "assistant": f"answer about locks {n}"})
        note = ("remember", "--title", f"Clash note {n}", "--tags", "bench")
        steps = [
            ("remember", note, BODY.format(n=n)),
            ("file-turn", ("file-turn",), turn),
            ("haystack commit", ("haystack", "commit"), ""),
        ]
        if n % 3 == 2:  # one note in three forgotten again
            steps.append(("forget", ("forget", f"notes/clash-note-{n - 1}.md"), ""))
        for name, args, stdin in steps:
            began = time.monotonic()
            failed = _memidx(top, work, env, *args, stdin=stdin)
            if name == "remember":
                tally.memidx_seconds.append(time.monotonic() - began)
            tally.memidx[f"{name} failed" if failed else name] += 1
            if failed and len(tally.memidx_said) < 20:
                tally.memidx_said.append(f"memidx {name}: {failed}")


class Person:
    """A person's git commands in their clone, one round after another."""

    def __init__(self, work: Path, peer: Path, env: dict[str, str], tally: Tally) -> None:
        self.work, self.peer, self.env, self.tally = work, peer, env, tally

    def git(self, *args: str) -> bool:
        """Run one of the person's git commands; counted, and its failure classified."""
        done = _git(self.work, self.env, *args)
        self.tally.commands += 1
        if done.returncode == 0:
            return True
        said = (done.stderr + done.stdout).strip().splitlines()
        name = args[0]
        if clash := next((line for line in said if any(c in line for c in CLASHES)), ""):
            self.tally.clashes[name] += 1
            self.tally.said.append(f"git {' '.join(args)}: {clash}")
        else:
            self.tally.others[name] += 1
            self.tally.said.append(f"(other) git {' '.join(args)}: {' | '.join(said[-3:])}")
        return False

    def write(self, name: str, text: str) -> None:
        with (self.work / "person" / name).open("a") as file:
            file.write(text)

    def round(self, n: int) -> None:
        """add, commit; switch to side, commit there, back; merge with a dirty tree; stash
        and pop; pull what the peer pushed (every fifth round)."""
        self.write("main.txt", f"main {n}\n")
        self.git("add", "person/main.txt")
        self.git("commit", "-q", "-m", f"person {n}")
        if self.git("switch", "-q", "side"):
            self.write("side.txt", f"side {n}\n")
            self.git("add", "person/side.txt")
            self.git("commit", "-q", "-m", f"side {n}")
            for _ in range(20):  # bounded: back home before the merge
                if self.git("switch", "-q", "main"):
                    break
                time.sleep(0.05)
        self.write("dirty.txt", f"dirty {n}\n")  # an edit of the person's, not staged
        self.git("merge", "-q", "--no-edit", "side")
        self.git("stash")
        self.git("stash", "pop")
        if n % 5 == 4:
            with (self.peer / "person" / "peer.txt").open("a") as file:
                file.write(f"peer {n}\n")
            _git(self.peer, self.env, "commit", "-qam", f"peer {n}")
            _git(self.peer, self.env, "pull", "-q", "--no-edit")
            _git(self.peer, self.env, "push", "-q")
            self.git("pull", "-q", "--no-edit")
        self.git("checkout", "-q", "--", "person/dirty.txt")


if __name__ == "__main__":
    raise SystemExit(main())

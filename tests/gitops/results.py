"""What a run did and found: divergences between the incremental index and a rebuild."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class GitFailure(Exception):
    """A git command failed where it should have succeeded."""


@dataclass(frozen=True, slots=True)
class Divergence:
    """One way the incremental index differed from a fresh rebuild after an operation."""

    seed: int
    op: int
    machine: str
    what: str
    detail: str

    def __str__(self) -> str:
        return f"seed {self.seed} op #{self.op} machine {self.machine}: {self.what}: {self.detail}"


@dataclass(slots=True)
class RunResult:
    """What one seeded run did and found."""

    seed: int
    ops: int = 0
    decks: bool = False  # kinds drawn from decks (tests.gitops.deck), not at random
    log: list[str] = field(default_factory=list[str])
    kinds: Counter[str] = field(default_factory=Counter[str])
    changes: Counter[str] = field(default_factory=Counter[str])  # of the working tree, by kind
    fallbacks: int = 0  # operations run as a commit once 30 kinds drawn could not run
    divergences: list[Divergence] = field(default_factory=list[Divergence])
    op_seconds: list[float] = field(default_factory=list[float])
    check_seconds: list[float] = field(default_factory=list[float])
    failure: str | None = None

    def report(self) -> str:
        """The seed, how to reproduce, what went wrong and the operation log."""
        lines = [
            f"seed {self.seed}: {self.ops} operations, {len(self.divergences)} divergences"
            + (", stopped early" if self.failure else "")
            + (
                f", {self.fallbacks} run as a commit after 30 kinds could not"
                if self.fallbacks
                else ""
            ),
            f"reproduce: .venv/bin/python -m tests.benchmark.gitops --seed {self.seed} "
            f"--ops {self.ops}" + (" --decks" if self.decks else ""),
            *(str(d) for d in self.divergences[:50]),
        ]
        if self.failure:
            lines.append(f"stopped: {self.failure}")
        return "\n".join([*lines, "operation log:", *self.log])

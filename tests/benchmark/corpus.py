"""Benchmark corpora built from ../shared/data: the real TIL notes and a perturbed enlargement."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

from tests.helpers import GIT_IDENTITY, clean_env

# Queries written for this benchmark by the memidx developers (not part of the TIL data set).
TIL_QUERIES = [
    "git reflog lost commit",
    "postgres jsonb",
    "vim macro",
    "tmux copy mode",
    "rails migration rollback",
    "ruby hash default value",
    "unix find files modified",
    "javascript array destructuring",
    "react useEffect cleanup",
    "docker compose logs",
    "python virtual environment",
    "elixir pattern matching",
    "zsh history search",
    "sql window function",
    "git stash untracked files",
    "mac screenshot shortcut",
    "postgres explain analyze",
    "vim split window",
    "curl post json",
    "typescript union type",
    "rspec let",
    "go error handling",
    "jq select",
    "github actions cache",
]

_WORD = re.compile(r"\b([A-Za-z]{5,})\b")


def til_notes(data: Path) -> list[Path]:
    """Every TIL note (one level below a topic folder), sorted."""
    root = data / "til-jbranchaud"
    return sorted(p for p in root.glob("*/*.md"))


def write_til(dest: Path, data: Path, copies: int, seed: int = 7) -> int:
    """Write the TIL notes `copies` times under dest/notes/ (perturbed copies after the first);
    returns the number of notes."""
    rng = random.Random(seed)
    notes = til_notes(data)
    count = 0
    for copy in range(copies):
        for src in notes:
            text = src.read_text(encoding="utf-8")
            name = src.stem if copy == 0 else f"{src.stem}-{copy}"
            out = dest / "notes" / src.parent.name / f"{name}.md"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text if copy == 0 else perturb(text, rng, copy), encoding="utf-8")
            count += 1
    return count


def perturb(text: str, rng: random.Random, copy: int) -> str:
    """A near-copy: a retitled heading, paragraphs in another order, a few words dropped or
    misspelt, so copies are not byte-identical and ranking has to separate them."""
    lines = text.split("\n")
    if lines and lines[0].startswith("# "):
        lines[0] = f"{lines[0]} (take {copy})"
    paragraphs = "\n".join(lines[1:]).split("\n\n")
    if len(paragraphs) > 2:
        i, j = rng.sample(range(len(paragraphs)), 2)
        paragraphs[i], paragraphs[j] = paragraphs[j], paragraphs[i]
    body = "\n\n".join(paragraphs)

    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        roll = rng.random()
        if roll < 0.03:
            return ""
        if roll < 0.06:
            k = rng.randrange(1, len(word) - 1)
            return word[:k] + word[k + 1] + word[k] + word[k + 2 :]
        return word

    return lines[0] + "\n" + _WORD.sub(swap, body)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *GIT_IDENTITY, *args], cwd=root, env=clean_env(), check=True)

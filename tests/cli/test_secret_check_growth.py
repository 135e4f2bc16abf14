"""The pre-commit secret check's cost grows linearly with a note: nested-key YAML (keys alone,
`token:|` and `password:|` nested 8 deep, each line below them a value found), plain
`password: <value>` lines and allow-marked ones, each a finding a line. Each finding's line
was counted from the note's start (quadratic: a MB of nested keys took 9.5 s, a quarter of it
for 128 KB), every key above a line yielded its finding again (64 nested keys: 1.2 million
findings a MB, sorted and merged), and each finding was compared with every allow-marked
line (1 MB of them: ~15 s). Figures: `make bench ONLY=secrets`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memidx.config import load_config
from memidx.githooks.secret_check import Flagged, flagged
from tests.cpu_cost import least_ratio
from tests.helpers import NotesRepo

KB = 1 << 10
NESTED = "".join(" " * d + ("token", "password")[d % 2] + ":|#Zk9xQ7mL2pWq8\n" for d in range(8))
SHAPES = {
    "nested keys": NESTED,
    "assignments": "password: Zq8vT2mW9pLqXk\n",
    "allow-marked": "password: Zq8vT2mW9pLqXk1  # memidx: allow-secret\ntoken: Zq8vT2mW9pLqXk2\n",
}
SMALL, DOUBLINGS = 128 * KB, 3  # 128 KB, then 1 MB
# Linear work doubles as the note does (8 times over three doublings); quadratic work, four
# times (64). Before, the growth was 20.8 (nested keys), 40 and 50 or more; after, 7 to 9.5.
MAX_PER_DOUBLING = 2.4  # 13.8 over three doublings


def _checked(repo: NotesRepo, unit: str, size: int) -> Callable[[], list[Flagged]]:
    text = (unit * (size // len(unit) + 1))[:size]
    ref = f"notes/n{size}.md"
    repo.write(ref, text)
    repo.git("add", ref)
    config = load_config(repo.root)
    return lambda: list(flagged(config, [ref]))


@pytest.mark.parametrize("unit", SHAPES.values(), ids=SHAPES.keys())
def test_the_check_grows_linearly_with_the_note(repo: NotesRepo, unit: str) -> None:
    small = _checked(repo, unit, SMALL)
    assert len(small()) >= SMALL // len(unit)  # a finding a line at least: the lines' numbers
    large = _checked(repo, unit, SMALL << DOUBLINGS)
    bound = MAX_PER_DOUBLING**DOUBLINGS
    growth, ratios = least_ratio(large, small, below=bound)
    assert growth < bound, f"the check's cost grew {ratios} times for 8 times the note"

"""The secret detector finds what tests/benchmark/secrets/findings.json froze: a change made for
speed must change no finding (the check `python -m tests.benchmark.secrets.equivalence` runs,
which nothing ran before: a regression it would show passed `make test`)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.benchmark.secrets.equivalence import differences, findings, frozen_findings
from tests.benchmark.secrets.transcript import PINNED, ROOT
from tests.benchmark.til_eval import til_folder


def test_the_detector_finds_the_frozen_findings() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    pinned = subprocess.run(
        ["git", "cat-file", "-e", f"{PINNED}^{{commit}}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
    )
    if pinned.returncode != 0:  # a shallow clone: the transcript is made of memidx at PINNED
        pytest.skip(f"commit {PINNED} (the transcript's sources) is not in this clone")
    til = til_folder().is_dir()  # without the shared data, the labeled set and the transcript
    frozen = frozen_findings()
    if not til:
        frozen = {name: found for name, found in frozen.items() if not name.startswith("til")}

    assert differences(findings(til=til), frozen) == []

"""A transcript's parts are redacted one at a time as they are filed: a secret a cut runs
through, or whose name the cut leaves in the part before, was a secret to neither part and
went to the log in plain halves (memidx.agents.part_cuts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.capture import transcript_parts
from memidx.agents.copy_source import open_copy
from memidx.agents.transcript_cuts import cut
from memidx.secrets.detect import redact_text

KEY = "AKIAIOSFODNN7QUILLWX"  # an AWS access key's shape
# a JSONL line longer than a part (a tool's output read whole): cut at a character's end
LONG_LINE = '{"type":"user","content":"' + "word " * 20 + KEY + ' more words"}\n'
YAML = "config:\n  password: |\n    Zq8vLm3Rt7Wp2Xk9\nother: 1\n"


@pytest.mark.parametrize(
    ("text", "limit", "secret"),
    [
        (LONG_LINE, LONG_LINE.index(KEY) + 10, ("AKIAIOSFOD", "NN7QUILLWX")),
        (YAML, 24, ("Zq8vLm3Rt7Wp2Xk9",)),
        (YAML, 16, ("Zq8vLm3Rt7Wp", "2Xk9")),
    ],
    ids=["key-cut-in-two", "yaml-value-below-its-name", "yaml-value-cut-in-two"],
)
def test_a_secret_at_a_cut_is_masked_in_every_part(
    text: str, limit: int, secret: tuple[str, ...]
) -> None:
    parts = transcript_parts(text, limit)

    assert len(parts) > 1
    stored = [redact_text(part).text for part in parts]  # as filing stores each part
    assert not [s for s in secret for part in stored if s in part]
    assert any("[REDACTED:" in part for part in stored)


def test_parts_without_a_secret_near_a_cut_are_the_texts_exact_slices() -> None:
    text = "".join(f"line {n}: café 𝄞 naïve €{n}\n" for n in range(200))

    parts = transcript_parts(text, 97)

    assert len(parts) > 10 and "".join(parts) == text


@pytest.mark.parametrize("limit", [7, 16, 24, 97, 4096])
def test_a_copy_read_from_disk_a_part_at_a_time_is_cut_as_its_text(
    tmp_path: Path, limit: int
) -> None:
    # 300 lines (10 KB, three parts of 4096); 100 for the small parts: 531 parts of 7 bytes
    # (1,531 took 1.5 s of CPU a cutting, cut three times: 68 s of the suite under load)
    lines = 300 if limit >= 97 else 100
    text = "".join(f"line {n}: café 𝄞 naïve €{n}\n" for n in range(lines)) + LONG_LINE + YAML
    path = tmp_path / "copy"
    path.write_bytes(text.encode())
    source = open_copy(path)
    assert source is not None
    expected = transcript_parts(text, limit)

    parts = cut(source, limit)

    assert list(parts) == expected and len(expected) > 1
    assert parts.count == len(expected)
    source.close()

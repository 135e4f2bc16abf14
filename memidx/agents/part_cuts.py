"""Where a transcript's parts meet (memidx.agents.transcript_cuts). Each part is redacted alone
as it is filed, and a secret a cut runs through was a secret to neither half: an AWS key cut
in two inside a JSONL line over a part's size (a tool's output read whole) went to the log in
two plain halves, and so did a value whose name the cut left in the part before (YAML's
`password: |`). The detectors read each cut with memidx.secrets.cuts.REACH characters either
side, and every secret they find there is masked in full before the parts are filed."""

from __future__ import annotations

from collections.abc import Sequence


def spans_in_windows(windows: Sequence[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """The secrets found in each window (the text around a cut, and where it starts in the
    whole text's characters), in one pass of the detectors: (start, end, kind) in the whole
    text's characters."""
    from memidx.secrets.cuts import piece_findings

    found = piece_findings([(text, 0, len(text)) for _, text in windows])
    return [
        (low + f.start, low + f.end, f.kind)
        for (low, _), own in zip(windows, found, strict=True)
        for f in own
    ]

"""Where a transcript's parts meet (memidx.agents.capture.transcript_parts). Each part is
redacted alone as it is filed, and a secret a cut runs through was a secret to neither half:
an AWS key cut in two inside a JSONL line over a part's size (a tool's output read whole) went
to the log in two plain halves, and so did a value whose name the cut left in the part before
(YAML's `password: |`). The detectors read each cut with memidx.secrets.cuts.REACH characters
either side, and every secret they find there is masked in full before the parts are filed."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise


def masked_at_cuts(text: str, cuts: Sequence[int]) -> list[str]:
    """`text` cut at `cuts` (ascending character offsets inside it) into len(cuts) + 1 pieces,
    each secret found within REACH of a cut masked as `[REDACTED:<kind>]` in the piece or
    pieces it falls in; the pieces of a text with no secret there are its exact slices."""
    bounds = [0, *cuts, len(text)]
    if not cuts:
        return [text]
    from memidx.secrets.cuts import REACH, piece_findings
    from memidx.secrets.patterns import Finding, merged, redact

    windows = [(max(0, cut - REACH), min(len(text), cut + REACH)) for cut in cuts]
    found = piece_findings([(text[low:high], 0, high - low) for low, high in windows])
    spans = [
        (low + f.start, low + f.end, f.kind)
        for (low, _), own in zip(windows, found, strict=True)
        for f in own
    ]
    pieces: list[str] = []
    for start, end in pairwise(bounds):
        own = [
            Finding(max(s, start) - start, min(e, end) - start, kind)
            for s, e, kind in spans
            if s < end and e > start
        ]
        piece = text[start:end]
        pieces.append(redact(piece, merged(own)) if own else piece)
    return pieces

"""What a word is, as the index's FTS5 tokenizer (unicode61) sees it: a run of letters and
digits; everything else, `_` included, separates words. Queries are split by it, snippets are
cut along it, and the chunker counts its tokens from it, so all three agree with the index."""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+")

"""Output for people drops what a terminal does not show but acts on (bidi overrides and
isolates, zero-width characters, the BOM, control characters): a note or a filed turn could
otherwise make its text read as something else (Trojan Source). JSON stays verbatim."""

from __future__ import annotations

import json

from tests.helpers import NotesRepo

HIDDEN = ("\u202e", "\u202c", "\u2066", "\u2069", "\u200b", "\u200d", "\ufeff", "\x1b", "\x85")
# reads "if admin then grant" in a terminal that honours the overrides
TRICK = "zebra if \u202e\u2066nimda\u2069\u2066 then grant\u202c wi\u200bth\ufeff \x1b[2Jend\x85"


def test_search_for_people_drops_invisible_characters_json_keeps_them(repo: NotesRepo) -> None:
    title = "Access\u202e rules\u200b"
    repo.write(
        "notes/access.md", f'---\ntitle: "{title}"\n---\n\n## Grant\u2066 steps\n\n{TRICK}\n'
    )
    repo.commit()
    assert repo.memidx("ingest").code == 0

    run = repo.memidx("search", "--mode", "bm25", "zebra")
    data = repo.memidx("search", "--json", "--mode", "bm25", "zebra").json()

    assert run.code == 0 and "notes/access.md" in run.out
    assert not [c for c in HIDDEN if c in run.out]
    assert "1. Access rules  [note]" in run.out and "§ Grant steps" in run.out
    assert "nimda then grant with [2Jend" in run.out
    hit = data["hits"][0]
    assert hit["title"] == title and "\u202e\u2066nimda\u2069" in hit["snippet"]


def test_show_for_people_drops_invisible_characters_json_keeps_them(repo: NotesRepo) -> None:
    text = f"line one\n\tindented {TRICK}\n"
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert filed.code == 0, filed.err
    ref = filed.json()["ref"]

    shown = repo.memidx("show", ref)
    record = json.loads(repo.memidx("show", "--json", ref).out)

    assert shown.code == 0
    assert not [c for c in HIDDEN if c in shown.out]
    assert shown.out == "line one\n\tindented zebra if nimda then grant with [2Jend\n"
    assert record["text"] == text

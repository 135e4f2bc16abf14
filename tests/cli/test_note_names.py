"""A note is a `.md` file in any case: `Deploy.MD` is indexed by ingest and the hooks, read by
the pre-commit checks, counted by status and served by the MCP server's `get`. It was neither
indexed nor listed anywhere, so a note written that way was lost without a word."""

from __future__ import annotations

from memidx.config import load_config
from memidx.mcp.answers import get
from memidx.mcp.warm import WarmIndex
from tests.helpers import NotesRepo

GOOD = "---\ntitle: Good note\n---\nThe corpus word appears here.\n"
DEPLOY = "# Deploy steps\n\nThe corpus deploy runs at night, after the backups.\n"


def test_a_note_named_in_capitals_is_indexed_by_ingest_and_the_hook(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.write("notes/ops/Deploy.MD", DEPLOY)
    repo.commit()
    ingest = repo.memidx("ingest")
    repo.write("notes/ops/Runbook.Md", DEPLOY.replace("Deploy steps", "Runbook"))
    repo.commit("a second one")
    hook = repo.memidx("hook", "post-commit")

    assert (ingest.code, ingest.err) == (0, "")
    assert hook.code == 0 and "1 written" in hook.out
    hits = repo.memidx("search", "corpus", "deploy", "--json").json()["hits"]
    titles = {h["ref"]: h["title"] for h in hits}
    assert titles == {"notes/ops/Deploy.MD": "Deploy steps", "notes/ops/Runbook.Md": "Runbook"}
    status = repo.memidx("status", "--json")
    assert status.code == 0  # in step: the hook indexed what the commit brought
    assert (status.json()["notes"], status.json()["skipped"]) == (3, [])
    warm = WarmIndex(load_config(repo.root))
    try:
        served = get(warm, "notes/ops/Deploy.MD", 10_000)
    finally:
        warm.close()
    assert (served["schema"], served["text"]) == ("memidx.note/1", DEPLOY)


def test_the_checks_read_a_staged_note_named_in_capitals(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/Broken.MD", "---\ntitle: [unclosed\n---\nThe corpus.\n")
    repo.write("notes/Spanish.MD", "La base de datos se bloquea cuando dos procesos escriben. " * 4)
    repo.git("add", "-A")

    drift = repo.memidx("check", "drift", "notes/Broken.MD")
    english = repo.memidx("check", "english", "notes/Spanish.MD")

    assert drift.code == 1 and "notes/Broken.MD:3: cannot be indexed" in drift.out + drift.err
    assert english.code == 1 and "notes/Spanish.MD" in english.out + english.err

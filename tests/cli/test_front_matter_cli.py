"""Front matter as ingest, the hooks and the pre-commit check read it: a value YAML cuts at a
` #` is told in one line, and a note that opens with a horizontal rule is indexed."""

from __future__ import annotations

from tests.helpers import NotesRepo

GOOD = "---\ntitle: Good note\n---\nThe corpus word appears here.\n"
CUT = "---\ntitle: Fix #123 in the parser\ntags: [parser]\n---\nThe corpus word, cut.\n"
CUT_LINE = (
    "notes/fix.md:2: 'title' stops at ' #': YAML reads the rest of the line as a comment "
    '(quote the value to keep it: title: "...")'
)


def test_a_title_cut_at_a_hash_is_said_by_the_check_the_hook_and_ingest(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/fix.md", CUT)
    repo.git("add", "notes/fix.md")

    check = repo.memidx("check", "drift", "notes/fix.md")  # what pre-commit runs
    repo.commit("a title with an issue number")
    hook = repo.memidx("hook", "post-commit")  # what git runs after the commit
    ingest = repo.memidx("ingest")

    assert (check.code, check.out, check.err) == (0, "", f"memidx: warning: {CUT_LINE}\n")
    assert hook.code == 0 and f"memidx: warning: {CUT_LINE}\n" in hook.out
    assert (ingest.code, ingest.err) == (0, f"memidx: warning: {CUT_LINE}\n")
    hits = repo.memidx("search", "corpus", "--json").json()["hits"]
    titles = {h["ref"]: h["title"] for h in hits}
    assert titles == {"notes/good.md": "Good note", "notes/fix.md": "Fix"}


RULE = "---\n\nThe corpus deploy runs at night, after the backups.\n\n---\n\nIt takes an hour.\n"


def test_a_note_that_opens_with_a_horizontal_rule_is_indexed_and_passes_the_checks(
    repo: NotesRepo,
) -> None:
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/deploy.md", RULE)
    repo.git("add", "notes/deploy.md")

    checks = [repo.memidx("check", name, "notes/deploy.md") for name in ("drift", "english")]
    repo.commit("a note under a rule")
    hook = repo.memidx("hook", "post-commit")

    assert [(c.code, c.out, c.err) for c in checks] == [(0, "", "")] * 2
    assert hook.code == 0 and "skipped" not in hook.out
    hits = repo.memidx("search", "corpus", "deploy", "--json").json()["hits"]
    assert [(h["ref"], h["title"]) for h in hits] == [("notes/deploy.md", "deploy")]
    assert repo.memidx("status", "--json").json()["skipped"] == []

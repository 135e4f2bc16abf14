"""The everyday surface (`search`, `show`, `status`, `remember`, `file-turn`) as an independent
tester tried to break it: each test is a failure found that way, run in-process."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.haystack.frames import Record
from memidx.index.store import open_store
from memidx.mcp import answers
from memidx.mcp.warm import WarmIndex
from memidx.search.query import clip_query
from memidx.search.recent import recent
from memidx.secrets.detect import mask
from tests.helpers import NotesRepo, Run, run_in_process

# a Slack bot token the detector flags, in lower case as memidx stores tags
TOKEN = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
BODY = "The build cache is invalidated when the copy step changes.\n"


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("sqlite.md", "SQLite database is locked", "Parallel writers hit a busy timeout.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def with_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def one_line(done: Run) -> str:
    """The run's stderr, which must be one line and no traceback."""
    assert "Traceback" not in done.err and done.err.count("\n") <= 1, done.err
    return done.err


def test_remember_keeps_a_secret_in_tags_out_of_the_commit(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--tags` went into the front matter unredacted: the title and body were redacted, the
    tag was committed as it came, which the pre-commit check would have refused."""
    with_stdin(monkeypatch, BODY.encode())
    done = indexed.memidx(
        "remember", "--title", "Slack bot", "--tags", f"ci,{TOKEN}", "--summary-of", TOKEN
    )
    assert done.code == 0, done.err
    committed = indexed.git("show", f"HEAD:{done.out.strip()}")
    assert TOKEN not in committed
    assert "[REDACTED:slack-token]" in committed and "redacted: 2" in committed


def test_a_secret_in_a_turns_tags_or_labels_never_reaches_the_log(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """file-turn redacted the text alone: tags, drawer, agent and session went into the
    segment (committed and pushed by `make sync`) and into search output verbatim."""
    turn = (
        f'{{"text": "the pelican deploy failed", "tags": ["{TOKEN}"], "drawer": "{TOKEN}",'
        f' "agent": "{TOKEN}", "session": "{TOKEN}", "summary_of": "{TOKEN}"}}'
    )
    with_stdin(monkeypatch, turn.encode())
    done = indexed.memidx("file-turn", "--json")
    assert done.code == 0, done.err
    log = b"".join(p.read_bytes() for p in (indexed.root / "notes/haystack").rglob("*.krd"))
    assert TOKEN.encode() not in log
    shown = indexed.memidx("show", "--json", done.json()["id"])
    assert TOKEN not in shown.out and shown.json()["redacted"] == 5
    assert TOKEN not in indexed.memidx("search", "--json", "pelican").out


def test_search_masks_a_secret_in_a_notes_tags(repo: NotesRepo) -> None:
    """A note committed before the check existed: its title, heading and snippet were masked
    in the output, its tags were printed as they were."""
    repo.note("bot.md", "Slack bot", "the heron bot posts here", tags=["ci", TOKEN])
    repo.commit()
    assert repo.memidx("ingest").code == 0
    as_json = repo.memidx("search", "--json", "heron")
    assert as_json.json()["hits"][0]["tags"] == ["ci", "[REDACTED:slack-token]"]
    for_people = repo.memidx("search", "heron")
    assert for_people.code == 0 and TOKEN not in for_people.out, for_people.out


@pytest.mark.parametrize("max_chars", [20_000, 60])
def test_mcp_get_masks_a_note_as_search_does(repo: NotesRepo, max_chars: int) -> None:
    """A note committed before the check existed: search masked it, MCP `get` (and the
    note resource behind it) returned its title, tags and text as they were. `chars` and
    `truncated` describe the masked text that is returned."""
    body = f"the egret bot posts with {TOKEN} in its header"
    ref = repo.note("bot.md", f"Slack bot {TOKEN}", body, tags=["ci", TOKEN])
    repo.commit()
    assert repo.memidx("ingest").code == 0
    warm = WarmIndex(load_config(repo.root, env={"MEMIDX_ROOT": str(repo.root)}))
    try:
        got = answers.get(warm, ref, max_chars)
    finally:
        warm.close()
    assert TOKEN not in json.dumps(got) and TOKEN[:12] not in json.dumps(got)
    whole = mask((repo.root / ref).read_text())
    assert got["text"] == whole[:max_chars] and "[REDACTED:slack-token]" in whole
    assert got["chars"] == len(whole) and got["truncated"] == (len(whole) > max_chars)
    assert got["tags"] == ["ci", "[REDACTED:slack-token]"]
    assert got["title"] == "Slack bot [REDACTED:slack-token]"


def test_an_index_path_that_is_a_folder_is_named_not_called_missing(indexed: NotesRepo) -> None:
    """search and status said "no index ... (run `make ingest`)", and `make ingest` then
    refused the folder: the hint sent the user round in a circle."""
    index = indexed.root / ".memidx" / "index.sqlite"
    for left in index.parent.glob("index.sqlite*"):
        left.unlink()
    index.mkdir()
    ingest = indexed.memidx("ingest")
    assert ingest.code == 1 and "not a regular file" in one_line(ingest)
    for command in (["search", "busy"], ["status"]):
        done = indexed.memidx(*command)
        assert done.code == 1
        said = done.err + done.out
        assert "not a regular file" in said and "no index at" not in said, said


def test_a_long_query_is_cut_between_words(indexed: NotesRepo) -> None:
    """The query was cut at 10,000 characters wherever that fell: `sqlite ` pasted over and
    over searched `sqlite` and `sqli`, so no note had every word."""
    done = indexed.memidx("search", "--json", "--mode", "bm25", "sqlite " * 2000)
    assert done.code == 0, done.err
    assert done.json()["terms"] == ["sqlite"] and done.json()["match"] == "and"
    assert done.json()["unsearched"] == [] and done.err == ""  # every word was searched


@pytest.mark.parametrize(
    ("query", "left", "why"),
    [
        ("sqlite " * 2000 + "busy timeout", ["busy", "timeout"], "over 10,000 characters"),
        (" ".join(f"w{i}" for i in range(40)), [f"w{i}" for i in range(32, 40)], "over 32"),
    ],
)
def test_the_words_a_long_query_leaves_unsearched_are_named(
    indexed: NotesRepo, query: str, left: list[str], why: str
) -> None:
    """Past 10,000 characters a query was cut without a word: `busy timeout` at its end was
    never searched, and nothing said so (past 32 words a warning said only how many were)."""
    from memidx.config import load_config
    from memidx.mcp import answers
    from memidx.mcp.warm import WarmIndex

    done = indexed.memidx("search", "--json", "--mode", "bm25", query)
    assert done.code == 0 and why in one_line(done)
    assert (done.json()["unsearched"], done.json()["unsearched_count"]) == (left, len(left))
    assert f"{len(left)} of its words were not searched ({left[0]}, {left[1]}" in done.err
    assert done.json()["warnings"] == [done.err.removeprefix("memidx: warning: ").strip()]
    warm = WarmIndex(load_config(indexed.root))
    try:  # the MCP search tool, the same
        found = answers.search(warm, query, mode="bm25")
    finally:
        warm.close()
    assert (found["unsearched"], found["unsearched_count"]) == (left, len(left))
    assert found["warnings"] == done.json()["warnings"]


@pytest.mark.parametrize(
    ("text", "limit", "clipped"),
    [
        ("sqlite sqlite", 9, "sqlite "),
        ("sqlite sqlite", 7, "sqlite "),
        ("sqlite sqlite", 6, "sqlite"),
        ("sqlite, lock", 7, "sqlite,"),
        ("aaaaaaaa", 4, "aaaa"),  # one word longer than the limit keeps its head
        ("short", 10, "short"),
    ],
)
def test_clip_query_never_cuts_a_word_in_two(text: str, limit: int, clipped: str) -> None:
    assert clip_query(text, limit) == clipped


def test_show_of_an_empty_ref_is_a_usage_error(indexed: NotesRepo) -> None:
    """`memidx show ''` was "no record with id ''", exit 1: an empty ref is no ref (exit 2)."""
    for ref in ("", "   "):
        done = indexed.memidx("show", "--", ref)
        assert done.code == 2 and "usage error" in one_line(done)


def test_show_of_a_note_says_show_is_for_records(indexed: NotesRepo) -> None:
    """A person copies `notes/sqlite.md:1` from a hit into `memidx show` and was told "no
    record with id" and to search for it: the note exists, show only prints records."""
    for ref in ("notes/sqlite.md", "notes/sqlite.md:1"):
        done = indexed.memidx("show", ref)
        line = one_line(done)
        assert done.code == 1 and "notes/sqlite.md is a note: `memidx show` shows" in line
        assert "git show HEAD:notes/sqlite.md" in line, line


@pytest.mark.parametrize(
    "ref",
    [
        "notes//sqlite.md",
        "./notes/sqlite.md",
        "notes/./sqlite.md:1",
        "notes/../notes/sqlite.md",
        "{root}/notes/sqlite.md:2",
        "{link}/notes/sqlite.md",  # through a link to the memory (`-C ~/memory`, say)
    ],
)
def test_show_of_a_committed_note_spelled_another_way_says_it_is_at_head(
    indexed: NotesRepo, ref: str
) -> None:
    """`notes//sqlite.md`, committed, was said `staged but not committed yet` (git reads no
    `HEAD:notes//sqlite.md`, its index the same path), and `./notes/sqlite.md` gave `git show
    HEAD:./notes/sqlite.md`, which git reads from the folder it runs in. The note's absolute
    path, or one through `..`, was `no note ... in this memory`, the note there; so was its
    path through a link to the memory (memidx reads the memory's root with links resolved)."""
    link = indexed.root.parent / "memory-link"
    link.symlink_to(indexed.root, target_is_directory=True)
    said = one_line(indexed.memidx("show", ref.format(root=indexed.root, link=link)))
    assert "is a note: `memidx show` shows" in said, said
    assert "`git show HEAD:notes/sqlite.md`" in said, said


def test_show_of_a_file_past_a_link_in_the_notes_folder_is_no_note(indexed: NotesRepo) -> None:
    """`notes/shared/x.md`, `notes/shared` a link to a folder outside the memory, was `a note
    file git does not track yet` with `git add notes/shared/x.md`, which git refuses (`beyond
    a symbolic link`): the file is outside the memory, no note of it."""
    outside = indexed.root.parent / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("# Outside\n\nNot in this memory.\n", encoding="utf-8")
    (indexed.root / "notes" / "shared").symlink_to(outside, target_is_directory=True)

    for ref in ("notes/shared/x.md", f"{indexed.root}/notes/shared/x.md"):
        said = one_line(indexed.memidx("show", ref))
        assert "no note notes/shared/x.md in this memory" in said, said


def test_show_of_a_path_through_a_link_loop_says_one_line(indexed: NotesRepo) -> None:
    """An absolute path whose folders hold a link loop (`a` to `b`, `b` to `a`): looking for
    a link to the memory among its folders resolved each, and Python's resolve() raised
    `Symlink loop from ...`, a traceback."""
    loop = indexed.root.parent / "loop-a"
    loop.symlink_to(indexed.root.parent / "loop-b")
    (indexed.root.parent / "loop-b").symlink_to(loop)

    said = one_line(indexed.memidx("show", f"{loop}/notes/sqlite.md"))

    assert "no note" in said, said


def test_show_of_a_note_not_committed_says_what_git_holds(indexed: NotesRepo) -> None:
    """`memidx show notes/new.md` for a note not committed yet said to run `git show
    HEAD:notes/new.md`, which fails (`exists on disk, but not in 'HEAD'`): it says whether git
    tracks the file at all, and how it becomes memory."""
    indexed.note("new.md", "WAL mode needs shared memory", "Network drives break it.")
    untracked = one_line(indexed.memidx("show", "notes/new.md"))
    assert "notes/new.md is a note file git does not track yet: " in untracked, untracked
    assert "HEAD:" not in untracked and "git add notes/new.md" in untracked, untracked
    indexed.git("add", "notes/new.md")
    done = indexed.memidx("show", "notes/new.md:1")
    staged = one_line(done)
    assert done.code == 1 and "notes/new.md is a note staged but not committed yet: " in staged
    assert "HEAD:" not in staged and "commit it" in staged, staged


def test_show_of_a_note_git_ignores_or_with_a_space_gives_a_hint_that_works(
    indexed: NotesRepo,
) -> None:
    """For a note .gitignore ignores, show said to `git add` it, which git refuses (`The
    following paths are ignored`); for `notes/new one.md`, `git add notes/new one.md`, which
    adds two paths: the ignored note is said ignored, and a path the shell splits is quoted."""
    indexed.note("kept out.md", "WAL mode needs shared memory", "Network drives break it.")
    indexed.write(".gitignore", "notes/kept*\n")
    ignored = one_line(indexed.memidx("show", "notes/kept out.md"))
    assert "notes/kept out.md is a note file git ignores: " in ignored, ignored
    assert "`git add -f 'notes/kept out.md'`" in ignored, ignored
    assert "`git check-ignore -v 'notes/kept out.md'`" in ignored, ignored
    indexed.write(".gitignore", "")
    untracked = one_line(indexed.memidx("show", "notes/kept out.md"))
    assert "git does not track yet" in untracked, untracked
    assert "`git add 'notes/kept out.md'` and commit it" in untracked, untracked
    indexed.commit()
    committed = one_line(indexed.memidx("show", "notes/kept out.md"))
    assert "`git show 'HEAD:notes/kept out.md'`" in committed, committed


def test_show_of_a_note_with_no_index_says_it_is_a_note(repo: NotesRepo) -> None:
    """In a clone with no index yet (a fresh clone), `memidx show notes/x.md` said `no index
    ... run memidx ingest`, which, run, only led to `notes/x.md is a note`."""
    repo.note("wal.md", "WAL mode needs shared memory", "Network drives break it.")
    repo.commit()
    assert not (repo.root / ".memidx" / "index.sqlite").exists()
    done = repo.memidx("show", "notes/wal.md:2")
    said = one_line(done)
    assert done.code == 1 and "notes/wal.md is a note: " in said, said
    assert "git show HEAD:notes/wal.md" in said and "ingest" not in said, said
    assert "no note notes/gone.md in this memory" in one_line(repo.memidx("show", "notes/gone.md"))


@pytest.mark.parametrize("ref", ["notes/nope.md", "notes/nope.md:3", "../sqlite.md", "nope.md"])
def test_show_of_a_note_that_does_not_exist_says_so(indexed: NotesRepo, ref: str) -> None:
    """`memidx show notes/nope.md` was "no record with id ...: this names a note", as if the
    note existed: it says there is no such note, and how to list the notes."""
    done = indexed.memidx("show", ref)
    line = one_line(done)
    path = ref.partition(":")[0]
    assert done.code == 1 and line.startswith(f"memidx: error: no note {path} "), line
    assert "git ls-files notes/" in line and "record" not in line, line


def test_remember_refuses_a_nul_byte_before_writing(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body with a NUL byte was written to notes/ as a binary file, refused by the check
    and left there (exit 1); body that is not UTF-8 is a usage error before anything is
    written, and so is this."""
    with_stdin(monkeypatch, b"a log\x00with a NUL byte in the build output\n")
    done = indexed.memidx("remember", "--title", "Binary paste")
    assert done.code == 2 and "NUL" in one_line(done)
    assert not list((indexed.root / "notes").glob("binary-paste*"))


def test_remember_refuses_a_secret_in_the_folder_it_would_commit(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--dir` went into the committed path as typed, `notes/x/<token>/deploy.md`: the title
    and tags were redacted, the folder's name was committed and pushed with the token."""
    head = indexed.git("rev-parse", "HEAD")
    with_stdin(monkeypatch, BODY.encode())
    done = indexed.memidx("remember", "--title", "Deploy", "--dir", f"ops/{TOKEN}")
    assert done.code == 2 and "--dir holds a secret (slack-token)" in one_line(done)
    assert TOKEN not in done.err and indexed.git("rev-parse", "HEAD") == head
    assert not (indexed.root / "notes" / "ops").exists()


def test_forget_of_a_folder_named_like_a_note_touches_no_note(indexed: NotesRepo) -> None:
    """`notes/x.md/` is a folder git holds: `forget notes/x.md` printed the raw OSError (no
    hint); with a file of that name in the work tree it committed the deletion of the notes
    inside the folder, which were never named."""
    indexed.write("notes/x.md/inside.md", "# Inside\n\nthe kestrel note\n")
    indexed.commit()
    assert indexed.memidx("sync").code == 0
    done = indexed.memidx("forget", "notes/x.md")
    assert done.code == 1 and "no note notes/x.md in memory" in one_line(done)
    (indexed.root / "notes/x.md/inside.md").unlink()
    (indexed.root / "notes/x.md").rmdir()
    (indexed.root / "notes/x.md").write_text("# A file now\n\nnot committed\n")
    indexed.memidx("forget", "notes/x.md")
    assert "notes/x.md/inside.md" in indexed.git("ls-tree", "-r", "--name-only", "HEAD")


def test_forget_of_an_empty_ref_is_a_usage_error_as_for_show(indexed: NotesRepo) -> None:
    for ref in ("", "  "):
        done = indexed.memidx("forget", "--", ref)
        assert done.code == 2 and "usage error" in one_line(done)


def as_filed(record: Record) -> Record:
    return record


def test_a_record_filed_before_its_labels_were_redacted_shows_them_masked(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn an older memidx filed with a token as its agent, session and tag: show --json
    masked its text only, search --json printed the labels in `meta` and `tags`."""
    import memidx.haystack.indexing

    turn = (
        f'{{"text": "the osprey nests", "tags": ["{TOKEN}"], "agent": "{TOKEN}",'
        f' "session": "{TOKEN}"}}'
    )
    with monkeypatch.context() as older:  # filing as a memidx that redacted text alone
        older.setattr(memidx.haystack.indexing, "redacted", as_filed)
        with_stdin(older, turn.encode())
        filed = indexed.memidx("file-turn", "--json")
    assert filed.code == 0, filed.err
    for command in (["show", "--json", filed.json()["id"]], ["search", "--json", "osprey"]):
        done = indexed.memidx(*command)
        assert done.code == 0 and TOKEN not in done.out, done.out
    warm = WarmIndex(load_config(indexed.root, env={"MEMIDX_ROOT": str(indexed.root)}))
    try:  # MCP's `get` of the record, as `show --json`
        got = answers.get(warm, filed.json()["id"], 20_000)
    finally:
        warm.close()
    assert "osprey" in str(got["text"]) and TOKEN not in json.dumps(got)
    store, _ = open_store(indexed.root / ".memidx" / "index.sqlite", write=False)
    try:  # MCP's `recent`, which an agent reads at the start of a session, printed them all
        listed = recent(store, 10, notes_dir="notes", project=None, kind=None)
    finally:
        store.conn.close()
    assert "osprey" in str(listed) and TOKEN not in str(listed)


def test_a_file_in_place_of_the_memidx_folder_is_named_not_called_missing(
    indexed: NotesRepo,
) -> None:
    """`.memidx` a file: search and status said "no index ... (run `make ingest`)", which
    then refused, saying to move the file away."""
    state = indexed.root / ".memidx"
    shutil.rmtree(state)
    state.write_text("not a folder\n")
    for command in (["search", "busy"], ["status"], ["ingest"]):
        done = indexed.memidx(*command)
        said = done.err + done.out
        assert done.code == 1 and ".memidx is a file" in said and "no index at" not in said, said


def run_here(*args: str) -> Run:
    """memidx's main() in-process, without -C: the memory is found from where the test stands."""
    from memidx.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return Run(code, out.getvalue(), err.getvalue())


def test_a_bare_repository_named_as_the_memory_is_refused_in_one_line(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare repository named by MEMIDX_ROOT or -C was read as a folder outside git: status
    said "not a git repository", ingest indexed 0 notes, exited 0 and wrote its .memidx/ into
    the repository. It has no work tree of notes: one line says to name a clone's."""
    repo.note("sqlite.md", "SQLite database is locked", "Parallel writers hit a busy timeout.")
    repo.commit()
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    monkeypatch.chdir(bare / "refs")  # standing in it, no memory recorded
    runs = [run_here("ingest"), run_here("status")]
    runs += [run_in_process(bare, "ingest"), run_in_process(bare / "refs", "search", "busy")]
    monkeypatch.setenv("MEMIDX_ROOT", str(bare))
    runs += [run_here("ingest"), run_here("status", "--json")]
    for done in runs:
        assert done.code == 1 and "bare git repository" in one_line(done), done
        assert str(bare) in done.err
    assert "clone's work tree" in runs[-1].err
    assert not (bare / ".memidx").exists() and not (bare / "refs" / ".memidx").exists()


@pytest.mark.parametrize("command", [["status"], ["search", "busy"], ["search", "--json", "busy"]])
def test_a_closed_standard_output_is_no_traceback(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """`memidx status >&-`: Python has no sys.stdout then, and status, show and people's
    search died in a traceback (AttributeError), where search --json exited 0."""
    from memidx.cli.main import main

    monkeypatch.setattr(sys, "stdout", None)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["-C", str(indexed.root), *command])
    assert code == 0, err.getvalue()
    assert "Traceback" not in err.getvalue()


@pytest.mark.parametrize("command", [["remember", "--title", "Closed input"], ["file-turn"]])
def test_a_closed_standard_input_is_one_usage_line(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """`memidx remember ... <&-`: no sys.stdin, and remember and file-turn died in a traceback
    (AttributeError) instead of saying that nothing came on stdin."""
    monkeypatch.setattr(sys, "stdin", None)
    done = indexed.memidx(*command)
    assert done.code == 2 and "usage error" in one_line(done)


def test_a_match_in_the_title_alone_points_at_the_title_line(indexed: NotesRepo) -> None:
    """A note whose words matched only in its front-matter title pointed at its first body
    line, here a blank one: the index keeps no line of the front matter."""
    done = indexed.memidx("search", "--json", "--mode", "bm25", "database")
    hit = done.json()["hits"][0]
    line = (indexed.root / hit["ref"]).read_text().splitlines()[hit["line"] - 1]
    assert "database" in line.lower() and line.startswith("title:"), (hit["line"], line)
    assert hit["heading"] is None
    in_body = indexed.memidx("search", "--json", "--mode", "bm25", "database", "busy")
    assert in_body.json()["hits"][0]["line"] == 5  # a word in the body: the body's line


@pytest.mark.parametrize("argv", [["search", "-fPIC"], ["search", "-x"]])
def test_a_query_that_begins_with_a_dash_is_told_to_go_after_double_dash(
    indexed: NotesRepo, argv: list[str]
) -> None:
    """`memidx search -fPIC` got argparse's "unrecognized arguments" (or "required: query")
    with no word of `--`, which is how such a query is given."""
    run = run_in_process(indexed.root, *argv)

    assert run.code == 2
    assert "goes after `--`: memidx search -- -fPIC" in run.err, run.err
    assert run_in_process(indexed.root, "search", "--", argv[1]).code in (0, 1)


def test_show_of_a_record_whose_bytes_changed_says_so(indexed: NotesRepo) -> None:
    """`show` printed a record whose text no longer matched its hash as if it were intact."""
    filed = indexed.memidx_process("file-turn", "--json", stdin='{"text": "the key is xyzzy"}')
    assert filed.code == 0, filed.err
    ref = str(filed.json()["ref"])
    segment = indexed.root / ref.rpartition("@")[0]
    clean = run_in_process(indexed.root, "show", ref)
    segment.write_bytes(segment.read_bytes().replace(b"xyzzy", b"plugh"))

    changed = run_in_process(indexed.root, "show", ref)

    assert clean.code == 0 and "warning" not in clean.err
    assert changed.code == 0 and "plugh" in changed.out
    assert "does not match the hash it was written with" in changed.err, changed.err


def test_a_dangling_link_at_the_index_path_is_named(repo: NotesRepo, tmp_path: Path) -> None:
    """A link to a folder that is gone (a disk not mounted) was called "no index ... run make
    ingest", and ingest then failed with SQLite's "unable to open database file"."""
    repo.note("a.md", "A", "alpha words")
    repo.commit()
    index = repo.root / ".memidx" / "index.sqlite"
    index.parent.mkdir(exist_ok=True)
    index.symlink_to(tmp_path / "unmounted" / "index.sqlite")

    for argv in (["search", "alpha"], ["ingest"]):
        run = run_in_process(repo.root, *argv)
        assert run.code == 1, (argv, run)
        assert "is a link to" in run.err and "which does not exist" in run.err, (argv, run.err)
    assert index.is_symlink() and not (tmp_path / "unmounted").exists()  # nothing made there

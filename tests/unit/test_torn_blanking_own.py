"""Purge blanks bytes that are no whole record only when they are a cut frame of a forgotten
record: its own `id`, or its own `hash` (the same text filed again after a crash). A cut
frame of another record keeps its bytes, as the writer promised when it moved it aside
(README, "Forget and purge"): one whose text only mentions a forgotten id (a turn about
running `memidx forget`), a torn tombstone (its text is "forgets <id>"), and another cut
frame that shares the damage or the torn tail with one that is forgotten."""

from __future__ import annotations

from dataclasses import replace

from memidx.haystack.blanking import blanked, blanked_torn, hashes_of, names_any
from memidx.haystack.frames import FORGET, frame, new_record, scan_bytes

SECRET = "the deploy password is hunter2-walrus"


def _forgotten(gone_text: str = SECRET) -> tuple[str, set[str]]:
    gone = new_record("turn", gone_text)
    return gone.id, {gone.id} | hashes_of([frame(gone)], {gone.id})


def test_a_torn_tail_whose_text_only_mentions_a_forgotten_id_keeps_its_bytes() -> None:
    gone, forgotten = _forgotten()
    about = frame(new_record("turn", f"I ran `memidx forget {gone}` as you asked"))[:-4]
    whole = frame(new_record("turn", "a whole turn"))

    assert blanked_torn(about, forgotten) == (about, 0)
    assert blanked(whole + about, forgotten) == (whole + about, 0)  # a segment's torn tail
    assert blanked(about + whole, forgotten) == (about + whole, 0)  # damage


def test_a_torn_tombstone_keeps_its_bytes() -> None:
    gone, forgotten = _forgotten()
    tombstone = replace(new_record(FORGET, f"forgets {gone}"), forgets=gone)
    cut = frame(tombstone)[:-3]

    assert blanked_torn(cut, forgotten) == (cut, 0)
    assert blanked(frame(new_record("turn", "a whole turn")) + cut, forgotten)[1] == 0


def test_damage_of_two_cut_frames_blanks_only_the_forgotten_one() -> None:
    _, forgotten = _forgotten()
    other = frame(new_record("turn", "an unrelated turn cut short"))[:-3]
    mine = frame(new_record("turn", SECRET))[:-9]
    after = frame(new_record("turn", "after the damage"))
    data = other + mine + after
    assert [(d.offset, d.length) for d in scan_bytes(data).damaged] == [(0, len(other + mine))]

    new, count = blanked(data, forgotten)

    assert count == 1 and SECRET.encode() not in new
    assert new.startswith(other) and new.endswith(after)
    assert new[len(other) : len(other) + 8] == mine[:8]  # the cut frame's header stays


def test_a_segment_is_looked_at_only_for_a_frame_whose_own_id_or_hash_is_forgotten() -> None:
    gone, forgotten = _forgotten()
    tombstone = frame(replace(new_record(FORGET, f"forgets {gone}"), forgets=gone))
    about = frame(new_record("turn", f"memidx forget {gone}"))
    retry = frame(new_record("turn", SECRET))

    assert not names_any(tombstone + about, forgotten)  # nothing in it to blank
    assert names_any(about + retry[:-9], forgotten)  # a cut frame, by its hash
    assert names_any(frame(replace(new_record("turn", "x"), id=gone)), forgotten)  # by its id

"""Purge blanks a forgotten record's text wherever a crash left it torn (README, "Forget and
purge"): the torn tail of a segment, damage between records, the tails in a `.torn` file,
named by the record's id or by the hash of its text (a retry files the same text anew)."""

from __future__ import annotations

from memidx.haystack.blanking import blanked, blanked_torn, hashes_of
from memidx.haystack.frames import frame, new_record, scan_bytes

SECRET = "the deploy password is hunter2-walrus"


def test_a_torn_tail_holding_a_forgotten_records_text_is_blanked_in_place() -> None:
    kept, gone = new_record("turn", "keep this turn"), new_record("turn", SECRET)
    retry = frame(new_record("turn", SECRET))  # the same text, cut by a crash: another id
    data = frame(kept) + frame(gone) + retry[: len(retry) - 5]
    forgotten = {gone.id} | hashes_of([data], {gone.id})

    new, count = blanked(data, forgotten)

    assert count == 2  # the record and the torn tail
    assert len(new) == len(data) and SECRET.encode() not in new
    assert new[len(frame(kept)) + len(frame(gone)) :][:8] == retry[:8]  # its header stays
    scan = scan_bytes(new)
    assert scan.records[0].record.text == "keep this turn"
    assert scan.torn == len(retry) - 5  # still a torn tail of the same size


def test_a_record_with_the_same_text_but_not_forgotten_stays() -> None:
    gone, twin = new_record("turn", SECRET), new_record("turn", SECRET)
    data = frame(gone) + frame(twin)
    forgotten = {gone.id} | hashes_of([data], {gone.id})

    new, count = blanked(data, forgotten)

    assert count == 1
    assert [r.record.text for r in scan_bytes(new).records][1] == SECRET


def test_damage_between_records_naming_a_forgotten_hash_is_blanked() -> None:
    gone = new_record("turn", SECRET)
    cut = frame(new_record("turn", SECRET))[:-7]
    data = frame(gone) + cut + frame(new_record("turn", "after the damage"))
    forgotten = {gone.id} | hashes_of([data], {gone.id})

    new, count = blanked(data, forgotten)

    assert count == 2 and SECRET.encode() not in new
    assert [d.offset for d in scan_bytes(new).damaged] == [len(frame(gone))]
    assert scan_bytes(new).records[-1].record.text == "after the damage"


def test_only_the_tails_of_a_torn_file_that_name_a_forgotten_record_are_blanked() -> None:
    gone = new_record("turn", SECRET)
    other = frame(new_record("turn", "an unrelated turn cut short"))[:-3]
    mine = frame(new_record("turn", SECRET))[:-9]
    header_only = b"KRD1\x40"  # a tail cut inside its header
    data = other + header_only + mine + other
    forgotten = {gone.id} | hashes_of([frame(gone)], {gone.id})

    new, count = blanked_torn(data, forgotten)

    assert count == 1
    assert len(new) == len(data) and SECRET.encode() not in new
    assert new.startswith(other + header_only) and new.endswith(other)
    assert blanked_torn(new, forgotten) == (new, 0)  # twice changes nothing


def test_hashes_are_taken_from_forgotten_records_only_never_from_blank_frames() -> None:
    gone, kept = new_record("turn", SECRET), new_record("turn", "kept")
    data = frame(gone) + frame(kept)
    assert hashes_of([data], {gone.id}) == {gone.hash}
    blank, _ = blanked(data, {gone.id})
    assert hashes_of([blank], {gone.id}) == set()

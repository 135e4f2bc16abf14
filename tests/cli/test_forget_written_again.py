"""A note forgotten, then written again at the same path before another clone (or the next
sync) followed: the sync sees the note changed, not removed, and kept the forgotten text's
vector as a cache, where a rebuild has none; the new text's vector is kept."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_forget_record_vectors import assert_as_rebuilt, blobs, embedded_on_both, run


def test_a_note_forgotten_then_written_again_leaves_no_vector_of_the_forgotten_text(
    tmp_path: Path, models_dir: Path
) -> None:
    one, two, before = embedded_on_both(tmp_path, models_dir)

    run(one, models_dir, "forget", "notes/secret.md")
    one.note("secret.md", "Secret", "The passphrase was rotated; ask the on-call lead.")
    one.commit("written again")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    run(two, models_dir, "sync")

    assert len(blobs(two.root)) == len(before) - 1  # the seed's, not the forgotten text's
    assert set(blobs(two.root)) < set(before)
    run(two, models_dir, "embed")  # the new text's vector: as a rebuild has it
    assert len(blobs(two.root)) == len(before)
    assert_as_rebuilt(two, models_dir, tmp_path)


def test_a_forget_pulled_with_other_settings_leaves_no_vector_of_the_forgotten_text(
    tmp_path: Path, models_dir: Path
) -> None:
    """Other settings (a size limit, a newer memidx's note reader) have the sync compare the
    whole tree, which never asked git which notes a forget deleted."""
    one, two, before = embedded_on_both(tmp_path, models_dir)

    run(one, models_dir, "forget", "notes/secret.md")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    env = {"MEMIDX_MODELS_DIR": str(models_dir), "MEMIDX_HOOK_EMBED": "0"}
    synced = two.memidx_process("sync", MEMIDX_MAX_NOTE_BYTES="300000", **env)

    assert synced.code == 0, synced.err
    assert len(blobs(two.root)) == len(before) - 1
    assert set(blobs(two.root)) < set(before)

"""What only git's own merge honours stops share's plumbing merge too: merge.verifySignatures
(an upstream commit without a good signature is never merged nor pushed on) and
branch.<name>.mergeOptions (--ff-only, --no-ff). The plumbing merge (memidx.memory.share_move)
merged and pushed past both, where share's `git merge` had refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.memory.share import share
from tests.cli.test_share_in_the_way import behind, state, unrelated_staged_then_deleted


@pytest.mark.parametrize("diverged", [False, True], ids=["fast-forward", "merge"])
def test_an_unsigned_upstream_commit_is_not_merged_under_merge_verify_signatures(
    tmp_path: Path, diverged: bool
) -> None:
    two = behind(tmp_path, diverged=diverged)
    two.git("config", "merge.verifySignatures", "true")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "does not have a GPG signature" in raised.value.message
    assert "so nothing was pulled or pushed" in raised.value.message
    assert "tries" not in raised.value.message  # at once, not after 40 tries
    assert state(two) == before
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote


def test_merge_options_ff_only_stops_a_merge_that_is_not_a_fast_forward(
    tmp_path: Path,
) -> None:
    two = behind(tmp_path, diverged=True)
    two.git("config", "branch.main.mergeOptions", "--ff-only")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    with pytest.raises(MemidxError, match="may only fast-forward"):
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert state(two) == before
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote


def test_merge_options_no_ff_makes_a_merge_commit_of_a_fast_forward(
    tmp_path: Path,
) -> None:
    two = behind(tmp_path, diverged=False)
    two.git("config", "branch.main.mergeOptions", "--no-ff")
    head = two.git("rev-parse", "HEAD").strip()
    theirs = two.git("ls-remote", "origin", "refs/heads/main").split()[0]

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("rev-parse", "HEAD^1", "HEAD^2").split() == [head, theirs]


FAKE_GPG = """#!/bin/sh
cat >/dev/null
echo "[GNUPG:] SIG_CREATED D 1 8 00 0 0 FAKE" >&2
printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nfake gpg signature\\n-----END PGP SIGNATURE-----\\n'
"""


@pytest.mark.parametrize("signs", [True, False], ids=["signs", "fails"])
def test_shares_merge_commit_is_signed_under_commit_gpg_sign(tmp_path: Path, signs: bool) -> None:
    """git merge signs its merge commit when commit.gpgSign is set; git commit-tree does not
    read that setting. A gpg that fails stops share in one line, nothing merged or pushed."""
    two = behind(tmp_path, diverged=True)
    gpg = tmp_path / "gpg"
    gpg.write_text(FAKE_GPG if signs else "#!/bin/sh\necho 'gpg: no secret key' >&2\nexit 2\n")
    gpg.chmod(0o755)
    two.git("config", "commit.gpgSign", "true")
    two.git("config", "gpg.program", str(gpg))
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    if not signs:
        with pytest.raises(MemidxError, match="nothing was merged, pulled or pushed"):
            share(load_config(two.root, env={}), sleep=lambda _: None)
        assert (state(two), two.git("ls-remote", "origin", "refs/heads/main")) == (before, remote)
        return
    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert "fake gpg signature" in two.git("cat-file", "commit", "HEAD")
    assert two.git("rev-list", "--count", "--merges", "-1", "HEAD").strip() == "1"


@pytest.mark.parametrize(
    ("setting", "value", "diverged"),
    [
        ("branch.main.mergeOptions", "--no-ff", False),
        ("merge.verifySignatures", "true", True),
    ],
)
def test_when_git_merge_decides_a_staged_note_stops_share_and_stays_as_it_was(
    tmp_path: Path, setting: str, value: str, diverged: bool
) -> None:
    """git's merge (a real one: --no-ff turns a fast-forward into one) stashes, resets and
    re-applies the person's work: a note staged then deleted came back."""
    two = behind(tmp_path, diverged=diverged)
    two.git("config", setting, value)
    unrelated_staged_then_deleted(two)
    before = state(two)

    with pytest.raises(MemidxError, match="needs nothing staged") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert setting in raised.value.message and "notes/draft.md" in raised.value.message
    assert state(two) == before


@pytest.mark.parametrize("log", ["true", ""], ids=["merge.log", "plain"])
@pytest.mark.parametrize("branch", ["main", "notes"])
def test_shares_merge_commit_has_git_merge_s_message(tmp_path: Path, log: str, branch: str) -> None:
    """share's merge commit said `Merge remote-tracking branch 'origin/main'` whatever the
    settings: without the shortlog merge.log asks for, and without ` into notes`, which git
    merge adds on a branch other than main or master. Now git's own fmt-merge-msg makes it."""
    two = behind(tmp_path, diverged=True)
    if branch != "main":
        two.git("branch", "-q", "-m", branch)
    if log:
        two.git("config", "merge.log", log)
    two.git("fetch", "-q")
    two.git("merge", "-q", "--no-edit", "@{upstream}")
    expected = two.git("cat-file", "commit", "HEAD").split("\n\n", 1)[1]
    two.git("reset", "-q", "--hard", "ORIG_HEAD")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("cat-file", "commit", "HEAD").split("\n\n", 1)[1] == expected
    assert ("one's notes" in expected) == bool(log)
    assert (f"into {branch}" in expected) == (branch != "main")


@pytest.mark.parametrize(
    ("strategy", "diverged", "refused"),
    [
        ("ours", True, True),
        ("ours", False, True),  # git merge -s ours makes a merge commit of a fast-forward too
        ("resolve", True, True),
        ("resolve", False, False),  # a fast-forward, as git merge makes it
        ("recursive", True, False),
        ("ort resolve", True, False),  # git tries resolve only when ort stops
    ],
)
def test_a_strategy_pull_twohead_names_is_refused_where_share_would_not_honour_it(
    tmp_path: Path, strategy: str, diverged: bool, refused: bool
) -> None:
    """git merge reads pull.twohead (its default strategy for one branch merged); share's
    merge-tree merges as ort and merged past it: under `ours`, git merge keeps this clone's
    tree, share took the other clone's notes in."""
    two = behind(tmp_path, diverged=diverged)
    two.git("config", "pull.twohead", strategy)
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    if not refused:
        assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed
        return
    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert raised.value.message.startswith(f"pull.twohead names the merge strategy {strategy}")
    assert "nothing was merged, pulled or pushed" in raised.value.message
    assert "git config --unset pull.twohead" in raised.value.hint
    assert (state(two), two.git("ls-remote", "origin", "refs/heads/main")) == (before, remote)

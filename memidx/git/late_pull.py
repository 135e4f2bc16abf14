"""A person's `git pull` that started in the instant memidx moved HEAD: HEAD put back while the
pull is still before its merge.

`git pull` reads git's index and HEAD, fetches, then reads HEAD again; found moved, HEAD is
taken for its own fetch's update ("fetch updated the current branch head") and the work tree
fast-forwarded from the index it read at its start, which lacks memidx's new files: "untracked
working tree files would be overwritten by merge ... run `git reset --hard` to recover" (the
chaos bench; tests/cli/test_late_pull_fetch.py). The index memidx brings to its commit does not
help. So when the look after the move (memidx.git.late) finds a pull that has not begun its
merge or rebase (no child but its `git fetch`), memidx puts HEAD back where the pull read it
(`update-ref` of the very ref it moved, with the commit checked: through HEAD, a `git switch
-c other` since had `other` put back), takes its paths in git's index back as they were (both
in one child process of its own session: memidx killed between the two left its note staged
on the HEAD put back; and the index only while HEAD still names that ref), and removes the
files the move wrote while they still hold memidx's bytes (one the HEAD put back
holds, a purge's blanked segment, gets that HEAD's bytes back: deleted, it was tracked and
gone): the pull then finds HEAD where it was, and memidx's commit is made again once it ends
(GitBusy: pending). Only when every committing git of the clone is such a pull, looked at
again right before: a person's `git commit` that read memidx's HEAD would fail at its end
("cannot lock ref 'HEAD'") on a HEAD put back under it. A git that runs under such a pull
(one its fetch starts: `git index-pack`, `git-remote-https`, in its exec named git with its
command line not set yet, taken for any git), or one that ended since the look, is none: taken
for a person's, nothing was put back and the pull failed (~1 look in 100 under load, in
tests/cli/test_late_pull_fetch.py). So did the pull itself when its own child, its fetch, was
in its exec (forked: the pull's command line; exec'ing: none), taken for its merge: such a
child is looked at again until it runs its program (memidx.git.pull_children.EXEC_WAIT at most). Nor
is anything put back while a git of the clone is stopped in the midst of its work (STOPPED): a `git
rebase -i` that read memidx's HEAD and stopped at a `break` ended before the put-back, and its end
failed on the branch put back (tests/cli/test_late_pull_stopped.py). Nor for memidx's commits that
remove files (a forget, share's twin rename: said_of_a_removal). Each pull not put back for leaves a
line for `memidx status` (memidx.git.late_pull_line), none for one that ended with its branch
holding what it pulled and lacked as it read HEAD (a pull again merged meanwhile); one that
had nothing new to merge failed all the same, and leaves it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path

from memidx.children import SHELL, run_in_session
from memidx.errors import GitBusy
from memidx.git.index_refresh import SHELL_FRESH, refreshed, reset_words
from memidx.git.judged_unlink import unlink_judged
from memidx.git.late_pull_line import say_unhelped
from memidx.git.newcomers import parents
from memidx.git.publish import committers, started
from memidx.git.pull_children import fetching as _fetching
from memidx.git.repo import git_env

UNDONE_HINT = "it is committed again once that pull ends (`memidx sync` does it too)"
NOT_PUT_BACK = "its ref's lock held for over 1 s, or HEAD moved since"
NOT_BACK, ELSEWHERE = 91, 92  # PUT_BACK's: nothing put back; the ref put back, HEAD elsewhere
# what a git stopped in the midst of its work leaves in the work tree's git folder
STOPPED = ("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD",
           "sequencer")  # fmt: skip
# ms the put-back's update-ref waits for HEAD's or the ref's lock (git's own wait, 100 ms, was
# shorter than a `git gc --auto`'s reflog expire: nothing put back, the pull failed)
LOCK_WAIT = 1000
# $1 the reflog's words, $2 the ref memidx moved (HEAD: a detached one), $3 from, $4 to, then
# the reset of the paths (index_refresh.reset_words: no whole refresh of the index under its
# lock while the pull waits, those paths' entries refreshed alone by `fresh`): the ref put
# back, then git's index at the paths, while HEAD still names that ref.
# The index is reset on a copy under `.git/index.lock` (taken as git takes it, set -C; none
# when another git holds it, as git's reset refused then), HEAD looked at under it before the
# reset and before the copy is renamed over the index: looked at once, then reset, a person's
# `git checkout x` in between had the reset stage the deletion of memidx's note on x (and its
# file removed) where x holds it (tests/cli/test_late_pull_put_back_branch.py). The copy is
# renamed only once made whole and reset: one `cp` cut short (a full disk) was renamed over
# the index, and every git failed on it; and the lock is let go when its token cannot be
# written in it (`mine`: the lock made, its write failed), never another git's: a write that
# failed left it, empty, for good, and every `git add` or `commit` failed
# (tests/cli/test_late_pull_put_back_full_disk.py).
# The copy is named as memidx.git.folder_asides finds it: one a kill of the shell left stayed
# in the git folder for good, unnamed
PUT_BACK = (
    f"{SHELL_FRESH}said=$1 ref=$2 new=$3 old=$4; shift 4; deref=; "
    "named=$(git symbolic-ref -q HEAD) || "
    'named=HEAD; if [ "$ref" = HEAD ]; then [ "$named" = HEAD ] || exit 91; deref=--no-deref; '
    f"fi; git -c core.filesRefLockTimeout={LOCK_WAIT} update-ref $deref "
    '-m "$said" "$ref" "$old" "$new" || exit 91; '
    'at() { [ "$(git symbolic-ref -q HEAD || echo HEAD)" = "$ref" ] || exit 92; }; at; '
    "dir=$(git rev-parse --absolute-git-dir) || exit 0; "
    "lock=$dir/index.lock copy=$dir/.memidx-put-back-$$.memidx-$$; "
    'mine=; set -C; { mine=1; printf "memidx %s %s" "$$" "$new"; } 2>/dev/null >"$lock" || '
    '{ [ -z "$mine" ] || rm -f "$lock"; exit 0; }; set +C; trap \'rm -f "$copy" "$lock"\' EXIT; '
    "at; "
    'cp -p "$dir/index" "$copy" && GIT_INDEX_FILE=$copy git "$@" && { fresh "$@"; at; } && '
    'mv -f "$copy" "$dir/index"'
)


def put_back_for_a_pull(
    root: Path,
    late: Mapping[str, str],
    commit: str,
    paths: Sequence[str],
    *,
    written: Mapping[str, bytes],
    literal: Sequence[str],
    ref: str,
    unhelped: Callable[[str, str], None] = lambda _, __: None,
) -> None:
    """GitBusy once `ref` (the one memidx moved: refs/heads/<name>, or HEAD when detached) is
    put back from `commit` for a late pull still before its merge (see above); nothing when
    there is none, or when `ref` is not `commit` any more. `written`: the files the move wrote
    (removed while they hold these bytes); `literal`: `paths` as literal pathspecs.
    `unhelped` hears the line for `memidx status` when there is such a pull and nothing was
    put back for it (it fails as before: the person's only word was git's own advice), and
    what it pulled (say_unhelped)."""
    pulls = _pulls_alone(late)
    old = _git(root, "rev-parse", "-q", "--verify", f"{commit}^1")  # where the pull read it
    said = partial(say_unhelped, root, paths=paths, ref=ref, old=old, unhelped=unhelped)
    if not pulls:  # none, or one beside a git of the person's that a put-back would fail
        if beside := _late_pulls(late):
            said((beside[0], late[beside[0]]), why="another git of the clone ran beside it")
        return
    why = _in_the_way(root, pulls[0])
    put = _put_back(root, ref, commit, old, literal) if old and not why else NOT_BACK
    if put == NOT_BACK:
        why = why or (NOT_PUT_BACK if old else "memidx's commit is its branch's first")
        said((pulls[0], late[pulls[0]]), why=why)
        return
    if put == ELSEWHERE:  # switched since: the index and the files are the other branch's
        raise GitBusy(
            f"{_started(pulls[0], paths)}, so memidx put {ref.removeprefix('refs/heads/')} "
            "back (HEAD names another branch since)",
            UNDONE_HINT,
        )
    held = _held(root, old, literal)
    for path, data in written.items():
        file = root / path
        try:
            if file.is_symlink() or file.read_bytes() != data:
                continue  # the person's since: theirs
            if path in held:  # a file HEAD held (a purge's blanked segment): its bytes back
                _ok(root, "-c", "core.hooksPath=/dev/null", "checkout", "-q", old, "--",
                    f":(literal){path}")  # fmt: skip
            else:  # judged aside: an edit saved since the read above stays
                unlink_judged(file, data)
        except OSError:
            continue
    raise GitBusy(f"{_started(pulls[0], paths)}, so memidx put HEAD back", UNDONE_HINT)


def said_of_a_removal(
    root: Path,
    late: Mapping[str, str],
    commit: str,
    paths: Sequence[str],
    *,
    ref: str,
    unhelped: Callable[[str, str], None],
) -> None:
    """`unhelped` hears the line of a late pull before its merge (as put_back_for_a_pull's)
    beside memidx's `commit` that removed files (a forget, share's twin rename), for which
    nothing is put back: the pull fails on the files the commit wrote, and said nothing."""
    if pulls := _late_pulls(late):
        why = "memidx's commit removed files, and HEAD is put back only for one that adds them"
        old = _git(root, "rev-parse", "-q", "--verify", f"{commit}^1")  # where the pull read it
        say_unhelped(root, (pulls[0], late[pulls[0]]), paths, why, ref=ref, old=old,
                     unhelped=unhelped)  # fmt: skip


def _in_the_way(root: Path, pid: str) -> str:
    """Why nothing may be put back now for pull `pid`, "" when nothing is in the way: it
    ended or began its merge since the look, a git of the person's started, or one is
    stopped midway."""
    now = committers(root)  # looked at again right before (see above)
    if _pulls_alone(now):
        return _stopped(root)
    if pid not in now:
        return "it ended before HEAD could be put back"
    if pid not in _late_pulls(now):
        return "it began its merge meanwhile"
    return "another git of the clone started meanwhile"


def _started(pid: str, paths: Sequence[str]) -> str:
    """What GitBusy says of the pull: whether it read HEAD before the move (it would have
    failed) or just after (it goes through either way, with git's warning) is not known."""
    return (
        f"a git pull of this clone (pid {pid}) started as memidx committed {', '.join(paths)} "
        "(a pull that read HEAD before that fails on it; one that read it after does not)"
    )


def _put_back(root: Path, ref: str, commit: str, old: str, literal: Sequence[str]) -> int:
    """PUT_BACK run to its end in a session of its own (memidx killed meanwhile, it goes on):
    0 once all is done (a reset git refused too), NOT_BACK or ELSEWHERE."""
    said = "memidx: put back for a git pull"
    if SHELL is None:  # no shell to count on (Windows): one git after the other
        detached = ref == "HEAD" and not _git(root, "symbolic-ref", "-q", "HEAD")
        deref = ("--no-deref",) if detached else ()
        waits = f"core.filesRefLockTimeout={LOCK_WAIT}"
        if (ref == "HEAD" and not detached) or not _ok(
            root, "-c", waits, "update-ref", *deref, "-m", said, ref, old, commit
        ):
            return NOT_BACK
        if (_git(root, "symbolic-ref", "-q", "HEAD") or "HEAD") != ref:
            return ELSEWHERE
        if _ok(root, *(reset := reset_words(old, literal))):
            refreshed(root, git_env(), reset)  # its paths alone (index_refresh)
        return 0
    with Path(os.devnull).open("wb") as errors:  # a file, not a pipe a kill closes
        reset = reset_words(old, literal)  # with no whole refresh (git 2.36 on)
        argv = [SHELL, "-c", PUT_BACK, "memidx", said, ref, commit, old, *reset]
        done = run_in_session(argv, root, errors)
    return done if done in (NOT_BACK, ELSEWHERE) else 0


def _pulls_alone(late: Mapping[str, str]) -> list[str]:
    """The pids of `late` (committers' answer) that are pulls before their merge; [] when
    another is not one (a person's commit, merge, rebase, a pull that began its merge), unless
    it runs under one of them or ended since (see above)."""
    pulls = _late_pulls(late)
    others = [(pid, said) for pid, said in late.items() if pid not in pulls]
    return pulls if all(_pulls_own(pid, said, pulls) for pid, said in others) else []


def _late_pulls(late: Mapping[str, str]) -> list[str]:
    """The pids of `late` that are pulls before their merge."""
    return [pid for pid, said in late.items() if said.split()[:1] == ["pull"] and _fetching(pid)]


def _pulls_own(pid: str, said: str, pulls: Sequence[str]) -> bool:
    """Whether git `pid` (committers' `said`: `<command> <start>`) ended since that look, or
    runs under one of `pulls` (a child its fetch started)."""
    now = started(pid)
    return not now or now != said.rpartition(" ")[2] or not set(pulls).isdisjoint(parents(pid))


def _stopped(root: Path) -> str:
    """Why a git of the clone is judged stopped in the midst of its work (a rebase at a
    conflict or a `break`, a merge, cherry-pick, revert or `git am`), "" when none is: one that
    read memidx's HEAD and ended since the look is no git running, and the rebase's end failed
    on the branch put back."""
    found = _git(root, "rev-parse", "--absolute-git-dir")
    if not found:
        return "git's folder could not be read"
    names = [name for name in STOPPED if (Path(found) / name).exists()]
    return f"a git of yours stopped midway: git's folder holds {names[0]}" if names else ""


def _held(root: Path, commit: str, literal: Sequence[str]) -> set[str]:
    """The paths of `literal` (literal pathspecs) that `commit` holds."""
    argv = ["git", "ls-tree", "-r", "-z", "--name-only", commit, "--", *literal]
    done = subprocess.run(
        argv, cwd=root, env=git_env(), capture_output=True, text=True, check=False
    )
    return set(done.stdout.split("\0")) - {""} if done.returncode == 0 else set()


def _git(root: Path, *args: str) -> str:
    """git `args` in `root`'s clone, never another a hook caller's GIT_DIR, GIT_WORK_TREE or
    GIT_INDEX_FILE names (git_env): where there is no shell (Windows), the put-back's own
    gits ran there, and put HEAD back in the caller's repository."""
    env = git_env()
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    return done.stdout.strip() if done.returncode == 0 else ""


def _ok(root: Path, *args: str) -> bool:
    done = subprocess.run(["git", *args], cwd=root, env=git_env(), capture_output=True,
                          check=False)  # fmt: skip
    return done.returncode == 0

"""The refs a push updates, as git's pre-push hook is told them, and what the remote is known
to hold: the old values git gives, the tracking branches of the remote named (those of a
branch pushed, when git says the remote moved it, not), the type each object named has."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.errors import UsageError
from memidx.frozen import Value
from memidx.git.repo import GitRepo

Kinds = dict[str, tuple[str, str]]  # an object's name: its type and id (peeled for `X^{}`)
REMOTES, HEADS = "refs/remotes/", "refs/heads/"


class Update(Value):
    """One line of git's pre-push input: a ref the push updates."""

    local_ref: str
    local_oid: str
    remote_ref: str
    remote_oid: str


def absent(oid: str) -> bool:
    """git's all-zero id: a deletion (local) or a ref the remote lacks (remote)."""
    return not oid.strip("0")


def parse_updates(text: str) -> list[Update]:
    """The refs of git's pre-push input; UsageError naming a line that is none."""
    updates: list[Update] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(" ")
        if len(fields) != 4 or not all(_hex(field) for field in fields[1::2]):
            raise UsageError(
                f"line {number} of the standard input is no `<local ref> <local oid> <remote "
                "ref> <remote oid>` line of git's pre-push hook",
                "run it as git's pre-push hook does",
            )
        updates.append(Update(*fields))
    return updates


def _hex(oid: str) -> bool:
    return len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid)


def tracking_branches(remote: str, sent: Sequence[Update]) -> dict[str, str]:
    """The tracking branch (`refs/remotes/origin/main`, as git's default fetch names it) of
    each branch pushed and the value git says the remote holds now (`` for a branch it lacks).
    One that disagrees is stale: the remote's branch moved or was deleted (from another clone,
    to take a secret out) since the last fetch, and what the tracking branch holds is no longer
    known to be on the remote (git sends what the remote's own refs lack). `share` gives the
    tracking branch's own value (memidx.githooks.outgoing_check), as git's own log trusts it."""
    if not remote or "\n" in remote:
        return {}
    return {
        f"{REMOTES}{remote}/{u.remote_ref[len(HEADS) :]}": ""
        if absent(u.remote_oid)
        else u.remote_oid
        for u in sent
        if u.remote_ref.startswith(HEADS)
    }


def kind_of(kinds: Kinds, name: str) -> str | None:
    """The type of the object named, None when this repository lacks it."""
    return kinds[name][0] if name in kinds else None


def object_types(repo: GitRepo, names: Sequence[str]) -> Kinds:
    """The type and id of each object named (none for one this repository lacks)."""
    unique = list(dict.fromkeys(names))
    out = repo.run(
        "cat-file", "--batch-check", input_bytes="".join(f"{o}\n" for o in unique).encode()
    )
    kinds: Kinds = {}
    for name, line in zip(unique, out.decode("ascii", "replace").splitlines(), strict=False):
        fields = line.split()
        if len(fields) == 3:
            kinds[name] = (fields[1], fields[0])
    return kinds


def remote_settings(repo: GitRepo, remote: str) -> tuple[bool, bool, list[str]]:
    """Whether git named a configured remote (not a URL or path given to `git push`): its
    tracking branches are refs/remotes/<name>/*. A name may hold `/` (`team/origin`); one
    holding a glob character would match other remotes' branches too. Whether this is a
    partial clone (memidx.git.inherited.partial_clone). And the remotes under its folder
    (`team/origin` for `team`) as `--exclude` patterns: it holds none of theirs. One call."""
    keys = r"^(remote\..*\.(url|promisor)|extensions\.partialclone)$"
    out = repo.run("config", "-z", "--get-regexp", keys, check=False)
    named = partial = False
    nested: dict[str, None] = {}
    for entry in out.split(b"\0"):
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        if key == f"remote.{remote}.url" and value.strip():
            named = not any(c in remote for c in "*?[\\")
        elif key.startswith(f"remote.{remote}/") and key.endswith(".url"):
            name = key[len("remote.") : -len(".url")]  # as a pattern that matches only it
            nested["".join(f"\\{c}" if c in "*?[\\" else c for c in name) + "/*"] = None
        elif key.endswith((".promisor", ".partialclone")):
            partial = partial or value != "false"
    return named, partial, list(nested)

"""Codex CLI's project trust (0.171.0): in a project the user's config.toml does not trust
(`[projects."<root>"] trust_level = "trusted"`), Codex reads no part of the project's
`.codex/`: it runs none of the hooks there and starts none of the MCP servers
(`codex mcp list` leaves them out). Interactive, Codex asks at its first start in the
project; headless, `codex exec --trust` records the answer. memidx reads it, never writes it
(trusting a project lets its own files run commands: the person's call)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from memidx.agents.config_text import read_config, read_found
from memidx.agents.hooks_off import Switch, toml_table
from memidx.agents.settings import get_entry
from memidx.agents.text_install import BEGIN
from memidx.agents.toml_text import project_header
from memidx.errors import MemidxError

UNTRUSTED = "untrusted"  # the person's answer "no": `codex exec --trust` does not override it


def trust_level(user: Path, root: Path) -> object:
    """The `trust_level` `user` (the user's config.toml) gives the project at `root`, None for
    none (Codex asks at its first start there) or a file it cannot read."""
    try:
        return get_entry(toml_table(read_config(user)), ["projects", str(root), "trust_level"])
    except (MemidxError, ValueError, RecursionError):
        return None


def said_level(user: Path, root: Path) -> tuple[object, Path]:
    """The `trust_level` Codex takes for the project at `root` and the folder `user` gives it
    to: `root`'s own, or, for a linked work tree (`git worktree add`) it says nothing of, the
    repository's it belongs to, as Codex does; (None, root) when neither has one."""
    for key in _keys(root):
        if (level := trust_level(user, key)) is not None:
            return level, key
    return None, root


def trusted(user: Path, root: Path) -> bool:
    """Whether `user` (the user's config.toml) trusts the project at `root` (said_level): the
    work tree's own word comes first (one marked untrusted in a trusted repository was said
    trusted, and `codex mcp list` there listed no server)."""
    return said_level(user, root)[0] == "trusted"


def _keys(root: Path) -> list[Path]:
    """`root`, then the main work tree when `root` is a linked one: its `.git` file names a
    folder under the main `.git/worktrees/` (Codex trusted it there; memidx said it did not)."""
    try:
        named = (root / ".git").read_text(encoding="utf-8").strip().removeprefix("gitdir:")
        folder = (root / named.strip()).resolve()
        common = (folder / (folder / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, ValueError):  # a .git folder (no linked work tree), or none
        return [root]
    return [root, common.parent] if common.name == ".git" else [root]


def ignored(user: Path, root: Path) -> bool:
    """Whether Codex ignores the project's `.codex/`: not trusted, and not the user's own
    folder (a dotfiles repository at HOME: Codex reads ~/.codex whatever the trust)."""
    own = root / ".codex" == user.parent or _same(root / ".codex", user.parent)
    return not own and not trusted(user, root)


def _same(one: Path, other: Path) -> bool:
    try:
        return one.samefile(other)
    except OSError:
        return False


def distrust_switch(user: Path, root: Path) -> Switch:
    """The user's config.toml as the switch of the hooks in the project's `.codex/`: off
    while it does not trust the project (status listed them as installed, and none ran)."""
    level, key = said_level(user, root)  # a worktree's main tree's mark too: it was not said
    marked = f"the project{_of(key, root)}"
    why = f'{marked} is marked trust_level = "{UNTRUSTED}" there' if level == UNTRUSTED else ""
    # not yet trusted: the file holds no word of the hooks, and said no more than its name
    why = why or f"{marked} is not trusted there yet, so Codex reads no .codex/ of it"
    return Switch(user, lambda _text: True, within=root / ".codex", why=why)


def untrusted_note(user: Path, root: Path) -> str:
    """What status adds to memidx's MCP server in a project's `.codex/` Codex ignores."""
    level, key = said_level(user, root)
    if level == UNTRUSTED:  # it said "does not trust", as if never asked
        marks = f"{user} marks the project{_of(key, root)} untrusted"
        return f"not started: {marks}, so Codex reads no .codex/"
    return f"not started: Codex reads no .codex/ in a project {user} does not trust"


def _of(key: Path, root: Path) -> str:
    """Whose trust_level it is when not the work tree's own: its main work tree's."""
    return "" if key == root else f"'s main work tree {key}"


def _holds_memidx(toml: Path) -> bool:
    try:
        return BEGIN in read_config(toml)
    except MemidxError:
        return False


def untrusted_warning(user: Path, root: Path, planned: Collection[Path] = ()) -> str | None:
    """What install says when memidx's files in the project's `.codex/` do nothing (or a dry
    run's, which would write the `planned` files)."""
    toml = root / ".codex" / "config.toml"
    if not ignored(user, root) or not (toml in planned or _holds_memidx(toml)):
        return None  # (a user install warned of a .codex/ of the person's own)
    # it said "not trusted yet" (a worktree of a repository marked so too), and to trust it
    # when Codex asks, or with `codex exec --trust`, which leaves this as it is
    level, key = said_level(user, root)
    if level == UNTRUSTED:
        of = "" if key == root else f", whose worktree {root} has no trust_level of its own"
        return (
            f"Codex CLI reads no .codex/ in a project marked untrusted, and {user} marks {key}"
            f' so (trust_level = "{UNTRUSTED}"{of}): memidx\'s hooks and MCP server there do'
            " nothing,"
            " and `codex exec --trust` does not change that: if you trust the folder, set"
            f' trust_level = "trusted" under {project_header(str(root))} there (memidx never does)'
        )
    return (
        f"Codex CLI reads no .codex/ in a project you have not trusted, and {root} is not"
        f" trusted yet ({user}): memidx's hooks and MCP server there do nothing until you run"
        " `codex` there and trust the folder when it asks (headless, `codex exec --trust`)"
    )


def main_tree(root: Path) -> Path | None:
    """The main work tree when `root` is a linked one (`git worktree add`), else None."""
    keys = _keys(root)
    return keys[1] if len(keys) > 1 else None


def elsewhere_switches(root: Path) -> list[Switch]:
    """In a linked work tree Codex (0.171.0) runs the hooks of the main work tree's
    `.codex/hooks.json`, never the linked one's (its MCP servers it reads from the linked
    one): that file stands as the switch of the hooks there (status called them on), and
    status says so: it said `switched off in <main>/.codex/hooks.json` where no such file was."""
    main = main_tree(root)
    if main is None:
        return []
    hooks = main / ".codex" / "hooks.json"
    # whatever that file is: a folder or a FIFO there let the next switch speak for it
    note = _elsewhere(main)
    return [Switch(hooks, lambda _text: True, within=root / ".codex", note=note, unread=True)]


def _elsewhere(main: Path) -> str:
    """What status says of memidx's hooks in a linked work tree's `.codex/`."""
    hooks, to_do = main / ".codex" / "hooks.json", f"install in {main} for memidx's hooks"
    try:
        found = read_found(hooks)
    except MemidxError:
        found = ""
        to_do = f"which is no file Codex CLI can read: move it away and {to_do}"
    if found is None:
        to_do = f"which does not exist: {to_do}"
    elif "memidx" in found:
        to_do = "memidx's are there"
    return (
        "installed, but Codex CLI runs none of them: in a git worktree it runs only the hooks"
        f" of {hooks} ({to_do})"
    )


def elsewhere_warning(root: Path, planned: Collection[Path] = ()) -> str | None:
    """What install says of memidx's hooks in a linked work tree's `.codex/` (or would put)."""
    main, hooks = main_tree(root), root / ".codex" / "hooks.json"
    try:
        if main is None or (hooks not in planned and "memidx" not in read_config(hooks)):
            return None
    except MemidxError:
        return None
    return (
        f"in a git worktree Codex CLI runs the hooks of {main / '.codex' / 'hooks.json'},"
        f" never those of {hooks}: memidx's hooks here do nothing (install in {main} for"
        " them; the MCP server here is read)"
    )

"""`memidx agent install|uninstall|status` against what real users' configurations meet: a link
planted where a backup is drafted, a Codex `config.toml` that Codex itself rewrote (its writer
drops comments, memidx's marker lines with them), files that start with a byte-order mark.
In-process and on small files: each test costs milliseconds."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import backups
from memidx.drafts import draft_path


def test_a_link_planted_at_the_backup_draft_is_never_written_through(user_home: Path) -> None:
    """The draft's name is predictable (the pid): `shutil.copy2` opened a link there and wrote
    the settings (tokens, say) into whatever file it named, truncating it."""
    settings = user_home / ".claude.json"
    settings.write_text('{"oauthAccount": "secret"}')
    settings.chmod(0o600)
    victim = user_home / "victim.txt"
    victim.write_text("someone else's file\n")
    backups.prepare_backup(settings)
    draft = draft_path(backups.backup_folder(settings) / settings.name, "partial")
    draft.symlink_to(victim)

    saved = backups.backup(settings)

    assert victim.read_text() == "someone else's file\n"
    assert saved is not None and saved.read_text() == '{"oauthAccount": "secret"}'
    assert not saved.is_symlink() and saved.stat().st_mode & 0o777 == 0o600
    assert not draft.exists() and not draft.is_symlink()

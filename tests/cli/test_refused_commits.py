"""Real `git commit`s refused by the secret checks memidx's hooks run (the pre-commit check on
the staged notes, the commit-msg check on the message), in forms the keyword rules once let
through: a quoted value its line's end leaves open, and the values XML names (an element, a
`key`/`name` attribute with a `value`). Placeholders and prose in the same forms commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

SECRET = "hunter2secret"  # memidx: allow-secret


@pytest.fixture
def hooked(tmp_path: Path) -> NotesRepo:
    """A memory whose pre-commit and commit-msg hooks run memidx's secret checks, given the
    staged files as the pre-commit framework gives them."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.commit("Start")
    staged = " $(git diff --cached --name-only --diff-filter=ACMR)"
    checks = {"pre-commit": staged, "commit-msg": ' --message "$1"'}
    for name, argument in checks.items():
        hook = repo.root / ".git" / "hooks" / name
        hook.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memidx check secrets{argument}\n')
        hook.chmod(0o755)
    return repo


def committed(repo: NotesRepo, body: str, message: str = "Add the database note") -> str:
    """What `git commit` printed when it refused, or "" when it made the commit."""
    repo.note("db.md", "Database", body)
    repo.git("add", "-A")
    head = repo.git("rev-parse", "HEAD")
    argv = ["git", *GIT_IDENTITY, "commit", "-q", "-m", message]
    done = subprocess.run(
        argv, cwd=repo.root, env=clean_env(), capture_output=True, text=True, check=False
    )
    moved = repo.git("rev-parse", "HEAD") != head
    assert moved == (done.returncode == 0), done.stdout + done.stderr
    return "" if moved else done.stdout + done.stderr


@pytest.mark.parametrize(
    "body",
    [
        f'password = "{SECRET}',
        f"api_key: '{SECRET}",
        f"<password>{SECRET}</password>",
        f"<apiKey>{SECRET}</apiKey>",
        f'<add key="ApiKey" value="{SECRET}"/>',
        f'<entry name="token">{SECRET}</entry>',
        f'<datasource user="app" password="{SECRET}"/>',
        f"SECRET_KEY = b'{SECRET}'",  # a Python string's prefix
        f"password = '''{SECRET}'''",
        f'DB_PASSWORD="#{SECRET}"',  # a sign first
        f'<meta-data android:name="io.fabric.ApiKey" android:value="{SECRET}"/>',
    ],
)
def test_a_note_holding_a_secret_is_refused(hooked: NotesRepo, body: str) -> None:
    said = committed(hooked, body)

    assert said.startswith("notes/db.md:5: secret-assignment\n")
    assert SECRET not in said


def test_a_message_holding_a_value_left_open_is_refused(hooked: NotesRepo) -> None:
    said = committed(hooked, "the database note", f'Deploy\n\npassword = "{SECRET}')

    assert ":3: secret-assignment in the commit message" in said
    assert SECRET not in said


@pytest.mark.parametrize(
    "body",
    [
        'password = "changeme',
        "<password>${DB_PASS}</password>",
        "<password>changeme</password>",
        "<password></password>",
        "<password>***</password>",
        '<add key="ApiKey" value="${API_KEY}"/>',
        "Set the `<password>` element to the database's password.",
        '<string name="api_key">@string/maps_api_key</string>',  # an Android resource
        'password = "%DB_PASSWORD%"',
    ],
)
def test_a_placeholder_or_prose_commits(hooked: NotesRepo, body: str) -> None:
    assert committed(hooked, body) == ""


@pytest.mark.parametrize(
    "body",
    [
        'password = "en_US.Zq8vT2mW9pL"',  # a random part after a locale's name and a dot
        'db_password = "Passw0rd(x)"',  # a digit for the letter it looks like, an argument
        "secret=ab&cd=Zq8vT2mW9pLq",  # the pair after a secret's, outside a query string
        "password: ${resolve:ssm:/x}Zq8vT2mW9pLq",  # a literal beside a reference
        "password: ${resolve:ssm:/x} Zq8vT2mW9pLq",  # and after it in the plain scalar
        "cacheToken = !zqvtmwplxk",  # a cache's token given a word without a vowel
        "savePassword = !letmein",  # one of the commonest passwords
    ],
)
def test_a_line_the_review_found_let_through_is_refused(hooked: NotesRepo, body: str) -> None:
    said = committed(hooked, body)

    assert said.startswith("notes/db.md:5: secret-assignment\n")


@pytest.mark.parametrize(
    "body",
    [
        'pwd: "@/projects/app2"',  # a path from the bundler's alias of the project
        'storeSecret("prod/db-password", value)',  # a secret's name in a store
        "filter=credentials%3Ais_expired%3Dtrue",  # a condition
        "  password: {{ randAlphaNum 16 | b64enc | quote }}",  # words inside Helm's reference
        "  token: ${{ steps.app-token.outputs.token }}",  # and a GitHub Actions expression
    ],
)
def test_a_line_the_review_found_refused_commits(hooked: NotesRepo, body: str) -> None:
    assert committed(hooked, body) == ""

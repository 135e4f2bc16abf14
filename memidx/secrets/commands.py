"""Passwords given on a command line where no name says `password` (pure patterns)."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# A password on a command line, where no name says `password`: `curl -u user:password` (and
# `--user`), HTTPie's `-a`/`--auth user:password`, `mysql -pPASSWORD` (the mysql clients take
# it glued to `-p`, in quotes too: `-p'PASSWORD'` was let through), `sshpass -p PASSWORD`.
# Each is looked for only on a line naming its command, at most 200 characters on (so a line
# of many `curl` words stays linear); group 1 is the password. Each starts with a look-ahead
# for its command's first letter: the engine then skips to that letter, where `\b` first
# tried every character (half the time, over a whole transcript each).
_NEAR, _ON = r"\b", r"[^\n]{0,200}?\s"
_USER_PASSWORD = r"[\"']?[^\s:\"']+:([^\s\"']+)"
COMMAND_PASSWORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("curl", lazy(r"(?=c)" + _NEAR + r"curl\b" + _ON + r"(?:-u\s*|--user[\s=]+)" + _USER_PASSWORD)),
    (
        "http",
        lazy(
            r"(?=h)" + _NEAR + r"https?(?=[ \t])" + _ON + r"(?:-a\s*|--auth[\s=]+)" + _USER_PASSWORD
        ),
    ),
    ("mysql", lazy(r"(?=m)" + _NEAR + r"mysql\w*\b" + _ON + r"-p[\"']?([^\s\"'-][^\s\"']*)")),
    ("sshpass", lazy(r"(?=s)" + _NEAR + r"sshpass\b" + _ON + r"-p\s*[\"']?([^\s\"']+)")),
    (
        "login",  # `docker login -p PASSWORD` (`--password`; `-p` of `docker run` is a port)
        lazy(
            r"(?=[dp])"
            + _NEAR
            + r"(?:docker|podman)\s+login\b"
            + _ON
            + r"(?:-p\s*|--password[\s=]+)"
            r"[\"']?([^\s\"']+)"
        ),
    ),
    (  # PowerShell: the keyword check took the command's name for the password, and kept it
        "ConvertTo-SecureString",
        lazy(r"(?=C)\bConvertTo-SecureString\s+(?:-String\s+)?[\"']([^\"'\n]+)[\"']"),
    ),
)

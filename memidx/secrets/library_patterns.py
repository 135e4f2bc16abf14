"""Copies of detect-secrets 1.5.0's patterns and secret-sounding names, so that a text none of
them matches never loads the library (pure: its plugins are loaded by memidx.secrets.library)."""

from __future__ import annotations

import re

# detect-secrets 1.5.0's token patterns as its plugins compile them (by plugin module), and its
# keyword plugin's secret-sounding names: copies, so that a text none of the patterns matches
# never loads the plugins (~40 ms of imports and regular expressions, on every search), and
# the keyword lines are found without them. tests/unit/test_secret_screen.py checks that they
# are the library's own, and that masking finds the same with and without the screen.
TOKEN_PATTERNS: dict[str, tuple[tuple[str, int], ...]] = {
    "aws": (
        (r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}", 0),
        (
            r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?"
            r"""[\'\"]([0-9a-zA-Z/+]{40})[\'\"]""",
            re.I,
        ),
    ),
    "github_token": ((r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}", 0),),
    "gitlab_token": (
        (r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
        (r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
        (r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
        (r"glimt-[A-Za-z0-9_\-]{25}(?!\w)", 0),
        (r"glptt-[A-Za-z0-9_\-]{40}(?!\w)", 0),
        (r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)", 0),
        (r"gloas-[A-Za-z0-9_\-]{64}(?!\w)", 0),
    ),
    "slack": (
        (r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+", re.I),
        (
            r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+",
            re.I | re.X,
        ),
    ),
    "stripe": ((r"(?:r|s)k_live_[0-9a-zA-Z]{24}", 0),),
    "openai": ((r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", 0),),
    "private_key": (
        (r"BEGIN DSA PRIVATE KEY", 0),
        (r"BEGIN EC PRIVATE KEY", 0),
        (r"BEGIN OPENSSH PRIVATE KEY", 0),
        (r"BEGIN PGP PRIVATE KEY BLOCK", 0),
        (r"BEGIN PRIVATE KEY", 0),
        (r"BEGIN RSA PRIVATE KEY", 0),
        (r"BEGIN SSH2 ENCRYPTED PRIVATE KEY", 0),
        (r"PuTTY-User-Key-File-2", 0),
    ),
    "jwt": ((r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?", 0),),
    "basic_auth": (
        (r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@", 0),
    ),
    "npm": ((r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*", 0),),
    "pypi_token": (
        (r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}", 0),
        (r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}", 0),
    ),
    "discord": ((r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}", 0),),
    "sendgrid": ((r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}", 0),),
    "twilio": (
        (r"AC[a-z0-9]{32}", 0),
        (r"SK[a-z0-9]{32}", 0),
    ),
    "telegram_token": ((r"\d{8,10}:[0-9A-Za-z_-]{35}", 0),),
    "mailchimp": ((r"[0-9a-z]{32}-us[0-9]{1,2}", 0),),
    "azure_storage_key": ((r"AccountKey=[a-zA-Z0-9+\/=]{88}", 0),),
    "square_oauth": ((r"sq0csp-[0-9A-Za-z\\\-_]{43}", 0),),
}
KEYWORD_WORDS = (
    "api_?key",
    "auth_?key",
    "service_?key",
    "account_?key",
    "db_?key",
    "database_?key",
    "priv_?key",
    "private_?key",
    "client_?key",
    "db_?pass",
    "database_?pass",
    "key_?pass",
    "password",
    "passwd",
    "pwd",
    "secret",
    "contraseña",
    "contrasena",
)


# A literal every match holds, found first by str.find (0.02-0.03 s a MB of runs each, tried)
NEEDED = {"openai": "T3BlbkFJ", "jwt": "eyJ", "npm": "_authToken=", "mailchimp": "-us"}

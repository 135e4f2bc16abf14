"""detect-secrets, kept inside this adapter: its plugins' patterns, and never its network.

detect-secrets' plugins import `requests` for `verify()`, which asks a provider whether a token
is live. memidx never verifies (it must never send a packet) and only calls `analyze_string`,
which matches text. The plugins are imported with a stand-in `requests` whose every function
raises, so no verification can reach the network even by mistake; importing the real one would
also cost ~60 ms and urllib3's IPv6 probe socket (memidx.secrets.plugins.STAND_INS). The
package's `__init__` (its whole scan engine, filters and baseline code, ~50 ms more) is not
run: only the plugins load.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache

from memidx.secrets.entropy import shannon
from memidx.secrets.linear import every_match, linear

TYPE_CHECKING = False  # not typing's: importing typing costs every commit-msg check ~2 ms
if TYPE_CHECKING:
    from typing import Any

# plugin module, class, memidx's kind: the detectors memidx uses from the library
PLUGINS = (
    ("aws", "AWSKeyDetector", "aws-access-key"),
    ("github_token", "GitHubTokenDetector", "github-token"),
    ("gitlab_token", "GitLabTokenDetector", "gitlab-token"),
    ("slack", "SlackDetector", "slack-token"),
    ("stripe", "StripeDetector", "stripe-key"),
    ("openai", "OpenAIDetector", "openai-key"),
    ("private_key", "PrivateKeyDetector", "private-key"),
    ("jwt", "JwtTokenDetector", "jwt"),
    ("basic_auth", "BasicAuthDetector", "basic-auth"),
    ("npm", "NpmDetector", "npm-token"),
    ("pypi_token", "PypiTokenDetector", "pypi-token"),
    ("discord", "DiscordBotTokenDetector", "discord-token"),
    ("sendgrid", "SendGridDetector", "sendgrid-key"),
    ("twilio", "TwilioKeyDetector", "twilio-key"),
    ("telegram_token", "TelegramBotTokenDetector", "telegram-token"),
    ("mailchimp", "MailchimpDetector", "mailchimp-key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key"),
    ("square_oauth", "SquareOAuthDetector", "square-oauth"),
)


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


@cache
def _screen() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple(
        (linear(re.compile(pattern, flags))[0], NEEDED.get(kind, ""))
        for kind, patterns in TOKEN_PATTERNS.items()
        for pattern, flags in patterns
    )


def may_find(text: str) -> bool:
    """Whether a library detector could find a secret in `text`: each of them reads only what
    one of its TOKEN_PATTERNS matches."""
    return any(needed in text and pattern.search(text) for pattern, needed in _screen())


@cache
def _plugin_modules() -> dict[str, Any]:
    """The plugin modules (memidx.secrets.plugins), loaded once: imported only then, as what
    loads them (importlib.util: ~5 ms) is needed by no text the screen passes."""
    from memidx.secrets.plugins import plugin_modules

    return plugin_modules(tuple(module for module, _, _ in PLUGINS))


Spans = Callable[[str], Iterator[tuple[int, int]]]


@cache
def library_finders() -> tuple[tuple[str, Spans], ...]:
    """(kind, spans) for each library detector: spans(text) yields where its secrets stand."""
    from memidx.secrets.plugins import refuse

    modules = _plugin_modules()
    found: list[tuple[str, Spans]] = []
    for module, name, kind in PLUGINS:
        plugin: Any = getattr(modules[module], name)()
        plugin.verify = refuse  # belt and braces: never called, and never able to send
        if "analyze_string" in type(plugin).__dict__:  # it reads its denylist's findall
            plugin.denylist = [linear(pattern)[0] for pattern in plugin.denylist]
        found.append((kind, _spans(plugin)))
    return tuple(found)


def _spans(plugin: Any) -> Spans:
    """Where a plugin's patterns match. A pattern's longest group (8 characters or more) is
    the secret (a URL's password, a quoted key); else the whole match: the library returns
    groups, and some are only a prefix (`ghp`). A plugin that checks its matches (JWT) is
    asked through analyze_string."""
    denylist: list[re.Pattern[str]] = list(plugin.denylist)
    cls: type[object] = plugin.__class__
    checks = "analyze_string" in cls.__dict__  # its own: it checks its matches

    def spans(text: str) -> Iterator[tuple[int, int]]:
        if checks:
            for secret in set(plugin.analyze_string(text)):
                start = text.find(secret)
                while start != -1 and secret:
                    yield start, start + len(secret)
                    start = text.find(secret, start + len(secret))
            return
        for library_pattern in denylist:
            pattern, whole = linear(library_pattern)
            for match in pattern.finditer(text):
                groups = [g for g in range(whole + 1, pattern.groups + 1) if match.group(g)]
                best = max(groups, key=lambda g: len(match.group(g)), default=whole)
                if best != whole and len(match.group(best)) >= 8:
                    yield match.span(best)
                else:
                    yield match.span(whole)

    return spans


RULE_SETS = (  # the keyword plugin's rules for each kind of file: memidx reads notes of any
    "CONFIG_DENYLIST_REGEX_TO_GROUP",  # `KEY=value`, `key: value`, `"v" == key`, `key "v";`
    "GOLANG_DENYLIST_REGEX_TO_GROUP",  # `key := "v"`
    "QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP",  # `key => "v"`
    "COMMON_C_DENYLIST_REGEX_TO_GROUP",  # `char key[25] = "v";`, `key = @"v"`
    "C_PLUS_PLUS_REGEX_TO_GROUP",  # `std::string key("v");`, `key.assign("v", 1)`
)


@cache
def keyword_finder() -> Callable[[str], Iterator[str]]:
    """The library's keyword detector over one line, with its rules for every kind of file
    (`KEY=value`, `key: value`, `key := "value"`, `char key[] = "value";`...): the values
    assigned to secret-sounding names, every match of each rule (linear.every_match)."""
    module: Any = _plugin_modules()["keyword"]
    rules: dict[re.Pattern[str], int] = {}
    for name in RULE_SETS:  # the sets share rules: each is read once
        rules.update(getattr(module, name))

    from memidx.secrets.windows import secret_word  # windows reads this module's words

    def find(line: str) -> Iterator[str]:
        yield from every_match(rules, line, secret_word)

    return find


def keyword_words() -> tuple[str, ...]:
    """The library's secret-sounding names (regular expressions, lower case)."""
    return KEYWORD_WORDS


@cache
def entropy() -> Callable[[str], float]:
    """The library's Shannon entropy over the base64 alphabet (its high-entropy plugin)."""
    module: Any = _plugin_modules()["high_entropy_strings"]
    charset = str(module.Base64HighEntropyString().charset)
    return lambda text: shannon(text, charset)

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
from functools import cache, lru_cache

from memidx.secrets.entropy import shannon
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.library_patterns import KEYWORD_WORDS, NEEDED, TOKEN_PATTERNS
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
        spans = _spans(plugin)
        if kind in RUN_TAILS:
            spans = _to_runs_end(spans, RUN_TAILS[kind], BODIES[kind])
        found.append((kind, spans))
    return tuple(found)


# the rest of a run a library pattern of fixed length stops inside: GitHub's reads exactly 36
# characters after `ghp_`, so a longer run (a token pasted twice, characters typed after it)
# showed its tail beside the mask; and a match inside a word is none (`weighs_only_the_...`
# was a `ghs_` token) unless what follows its prefix is a token's own (BODIES)
RUN_TAILS = {"github-token": lazy(r"[A-Za-z0-9_]*+")}
# a GitHub token's characters after its `_` (base62, a digit among them): `xghp_<that>` is one
# glued to a word, as `tokenghp_...` (a shell's `$Xghp_...`); a name's words are joined by `_`
BODIES = {"github-token": lazy(r"[A-Za-z]*+[0-9][A-Za-z0-9]*+")}


def _to_runs_end(spans: Spans, tail: re.Pattern[str], body: re.Pattern[str]) -> Spans:
    """`spans`, each taken on to the end of the run of `tail`'s characters it stops inside,
    but those that begin inside a word (_outside_words)."""

    def extended(text: str) -> Iterator[tuple[int, int]]:
        for start, end in spans(text):
            found = _outside_words(text, start, end, spans, body)
            if found is not None:
                run = tail.match(text, found[1])
                yield found[0], run.end() if run else found[1]

    return extended


def _outside_words(
    text: str, start: int, end: int, spans: Spans, body: re.Pattern[str]
) -> tuple[int, int] | None:
    """`(start, end)`, a match, when no word holds its start or its body is a token's; else the
    first match that begins inside it and is one (`weighs_ghp_<token>`: the library read
    `ghs_ghp_...`, a name's, and looks for the next match from its end on, so the token
    inside was let through whole), or None."""
    limit = end  # what begins from there on, the library finds itself
    while start and text[start - 1].isalnum():
        if body.fullmatch(text, text.index("_", start, end) + 1, end):
            break  # `tokenghp_<token>`: a token glued to a word
        window = text[start + 1 : limit + end - start]  # a match begun before `limit` ends in it
        inner = next(spans(window), None)
        if inner is None or start + 1 + inner[0] >= limit:
            return None
        start, end = start + 1 + inner[0], start + 1 + inner[1]
    return start, end


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
                    yield start, _signed_end(text, start + len(secret))
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


# a JWT's signature (base64url), after the `header.payload.` the library's pattern stops at:
# its lazy tail matches nothing, so the signature was shown beside the mask
SIGNATURE = lazy(r"[A-Za-z0-9_+/=-]*+")


def _signed_end(text: str, end: int) -> int:
    """Where a JWT the library found up to `end` ends: past its signature, or before its
    last `.` when none follows (a sentence's full stop, or an unsigned token's, no secret)."""
    if text[end - 1 : end] != ".":
        return end
    signed = SIGNATURE.match(text, end)
    return signed.end() if signed and signed.end() > end else end - 1


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

    # a window's values, kept: a transcript reads one file again and again (the windows of
    # 3,234 texts were read 5,078 times in a 9.5 MB one), a window is at most ~300 characters
    @lru_cache(maxsize=4096)
    def window_values(window: str) -> tuple[str, ...]:
        return tuple(every_match(rules, window, secret_word))

    def find(line: str) -> Iterator[str]:
        if len(line) <= WINDOW_KEPT:
            yield from window_values(line)
        else:
            yield from every_match(rules, line, secret_word)

    return find


WINDOW_KEPT = 512  # the longest text whose values keyword_finder keeps


def keyword_words() -> tuple[str, ...]:
    """The library's secret-sounding names (regular expressions, lower case)."""
    return KEYWORD_WORDS


@cache
def entropy() -> Callable[[str], float]:
    """The library's Shannon entropy over the base64 alphabet (its high-entropy plugin)."""
    module: Any = _plugin_modules()["high_entropy_strings"]
    charset = str(module.Base64HighEntropyString().charset)
    return lambda text: shannon(text, charset)

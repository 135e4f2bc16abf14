"""A value of words joined by `-` that names a thing of a cloud or of an identity service, not
a passphrase (pure).

A note names such things by their words: `auth: azure-active-directory-default`,
`auth: aws-iam-identity-center`, `credentials: gcp-service-account-impersonation`,
`token: read-write`. Each was refused as a passphrase: one word outside a list of method
names (`default`, `center`) made four words a passphrase, and fewer words were judged by
their entropy. A diceware passphrase's words are drawn at random from a list of common words
(EFF's 7,776: `correct-horse-battery-staple`), of which few are such terms (30 of the 125
first listed, 0.4 %, fewer since PERSONAL_WORDS left them): 26 of 200,000 random passphrases
of four words (0.013 %; 12 of three words, 2 of two) were read as names, where the names
above have three or four TERMS. So a value whose words are at least half TERMS, two at least,
is a name; a passphrase under any key is still judged as before, and one of a person's words
(`password: Secret-Admin-Key`) is no name.

But a value given to a password's own name (`password`, `passwd`, `pwd`, `passphrase`:
PASSWORD_GIVEN) is what a person types, never a thing's name: no configuration names a method
or a service under it (they go under `auth`, `credentials`, `method`, `mode`...), and a
passphrase of a cloud's words (`password: aws-iam-identity-center`, `azure-cloud-portal`) is
one a cloud engineer may well choose; it is judged as any password is, on the name's line
(keywords), below its YAML key (blocks) or inside its XML element (markup: password_named)
(the 1,871 TIL notes hold no secret-sounding name given words joined by `-`, under any key:
the rule refuses none).
"""

from __future__ import annotations

from memidx.secrets.lazy_pattern import lazy

# Words of the names of authentication methods, grants and directories (`Resource-Owner-
# Password`, `Client-Credentials`, `Active-Directory`)
AUTH_NAME_WORDS = frozenset(
    {"active", "directory", "windows", "server", "azure", "entra", "federation", "services",
     "resource", "owner", "password", "credentials", "client", "authorization", "code",
     "implicit", "device", "refresh", "token", "grant", "bearer", "basic", "digest", "negotiate",
     "kerberos", "ldap", "saml", "oidc", "openid", "connect", "mutual", "service", "account",
     "managed", "identity", "workload", "single", "sign", "google", "workspace", "okta"}
)  # fmt: skip
# Words of a cloud's, a vendor's or a permission's names (`aws-iam-identity-center`,
# `application-default`, `read-only-access`)
CLOUD_WORDS = frozenset(
    {"aws", "gcp", "gke", "eks", "aks", "amazon", "microsoft", "github", "gitlab", "iam",
     "sso", "mfa", "sts", "oauth", "jwt", "mtls", "tls", "ssl", "cert", "certificate",
     "center", "accounts", "impersonation", "impersonate", "default", "application", "app",
     "credential", "federated", "role", "roles", "principal", "tenant", "subscription",
     "project", "key", "keys", "access", "read", "write", "only", "admin", "scope", "scopes",
     "profile", "instance", "metadata", "env", "environment", "vault", "secret", "secrets",
     "manager", "provider", "chain", "web", "api", "assume", "session", "cli", "sdk",
     "cloud", "platform", "compute", "engine", "cluster", "kubernetes", "pod", "node",
     "user", "users", "group", "groups", "personal", "machine", "pool", "auth",
     "authentication", "login", "interactive", "browser", "msi", "ad", "entra", "aad"}
)  # fmt: skip
# Words a person's own passphrase leans on (`Secret-Admin-Key`, `sunshine-admin-login`): they
# say what a thing is for, never which cloud's thing it names, so they count for neither side
PERSONAL_WORDS = frozenset(
    {"secret", "secrets", "admin", "key", "keys", "login", "access", "user", "users",
     "password", "personal", "session", "pass", "root", "master"}
)  # fmt: skip
TERMS = (AUTH_NAME_WORDS | CLOUD_WORDS) - PERSONAL_WORDS
# those left out of a value's count: only a cloud's words (left out of TERMS too); one never
# a TERM (`pass`, `root`, `master`) counts against a name still, as it did: left out, it made
# `Horse-Azure-Default-Pass-Root` two TERMS of three words, a name, let through
_LEFT_OUT = PERSONAL_WORDS & (AUTH_NAME_WORDS | CLOUD_WORDS)
# words of letters joined by `-`, each in small letters, a capital and small letters, or an
# acronym in capitals (`Azure-AD-Default`)
DASHED = lazy(r"(?:[a-z]++|[A-Z][a-z]*+|[A-Z]++)(?:-(?:[a-z]++|[A-Z][a-z]*+|[A-Z]++))++")


def dashed_name(value: str) -> bool:
    """Whether `value`, words of letters joined by `-`, names a thing (see the module): two of
    its words or more are TERMS, and at least half of them."""
    if DASHED.fullmatch(value) is None:
        return False
    words = [word for word in value.lower().split("-") if word not in _LEFT_OUT]
    terms = sum(word in TERMS for word in words)
    return terms >= 2 and 2 * terms >= len(words)


# a password's own name, right before a value's place: `password: `, `DB_PASSWORD=`, `"pwd": "`,
# `userPassword = `, `PGPASSWORD=` (not `bypass:`, `compass=`; nor `pass:`, a test's verdict)
PASSWORD_GIVEN = lazy(
    r"(?:(?<![A-Za-z])(?i:pass(?:word|wd|phrase)|pwd)|(?<=[a-z])(?:Pass(?:word|wd|phrase)|Pwd)"
    r"|(?<=[A-Z])PASS(?:WORD|WD|PHRASE))"
    r"[\"'`]?[ \t]*+(?::=|=>|[:=])[ \t]*+[\"'`]?\Z"
)


def given_to_a_password(line: str, value: str) -> bool:
    """Whether `value` stands in `line` right after a password's own name and its sign."""
    at = line.find(value)
    while at != -1:
        if PASSWORD_GIVEN.search(line[max(0, at - 64) : at]):
            return True
        at = line.find(value, at + 1)
    return False


def password_named(name: str) -> bool:
    """Whether `name`, a YAML key's or an XML element's given a value below or inside it
    (`password:` over `  aws-iam-identity-center`), is a password's own (PASSWORD_GIVEN)."""
    return PASSWORD_GIVEN.search(name + ":") is not None

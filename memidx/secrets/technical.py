"""A value that names a technical thing, not a password (pure): an encoding, a type, a
protocol, an algorithm, a platform or a step (`utf8`, `int32`, `ipv4`, `sha256`,
`scram-sha-256`, `x86_64`, `node18`, `ubuntu-22.04`, `step1`, `mem2reg`), a password
manager's reference (`1Password/Prod-DB`), a file's mode or a well-known port (`0644`,
`8080`), and a name that counts or times a password (`max_password`, `on_pass`).

Given to a person's password each was refused as a short password (`pass: mem2reg`,
`password: utf8`, `passwd: 0644`), and a longer one as a secret (`auth: kerberos5`,
`password_encryption = scram-sha-256`). Each is read by a vocabulary, never by its shape
alone: a word and a small number is a password's shape as often (`hunter2`, `admin1`,
`linux123`), so every word must be one of the words below and its digits the numbers that
word takes (a width, a version, a step)."""

from __future__ import annotations

from memidx.secrets.identifiers import WORD
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.signs import PERSONAL

# A word and the numbers it takes: a width or a size in bits (`int32`, `sha256`, `crc32`,
# `h264`, `x86`, `ed25519`, `chacha20`, `cp1252`)
WIDTH_WORDS = frozenset(
    {"utf", "ucs", "int", "uint", "float", "crc", "base", "sha", "md", "fp", "bf", "adler",
     "fnv", "xxh", "murmur", "blake", "i", "u", "f", "rsa", "aes", "ed", "x", "p", "h",
     "hs", "rs", "es", "ps", "vp", "av", "mp", "arm", "amd", "aarch", "ppc", "riscv", "s",
     "win", "mips", "sparc", "ia", "latin", "cp", "koi", "gb", "big", "chacha", "poly",
     "salsa", "curve", "sm", "des", "rc", "pbkdf", "argon", "keccak", "ripemd", "secp",
     "pkcs", "ecdsa", "dsa", "hmac", "xchacha"}
)  # fmt: skip
WIDTH = lazy(
    r"[1-9]|16|20|32|36|58|62|64|80|85|86|91|128|160|224|256|264|265|384|386|390|437|448"
    r"|486|512|686|850|1024|1252|1305|2048|2312|3072|4096|18030|25519"
)
# A protocol, a standard, a platform or a runtime and its version (`ipv4`, `oauth2`,
# `kerberos5`, `node18`, `python3`, `debian12`, `c99`, `go1.21`)
VERSION_WORDS = frozenset(
    {"ipv", "ip", "http", "tls", "tlsv", "ssl", "sslv", "oauth", "saml", "krb", "kerberos",
     "ntlm", "ntlmv", "smb", "snmp", "snmpv", "socks", "imap", "pop", "mqtt", "c", "gnu",
     "ecma", "py", "python", "pypy", "node", "nodejs", "java", "jdk", "jre", "openjdk", "go",
     "php", "ruby", "perl", "lua", "dotnet", "net", "ubuntu", "debian", "centos", "rhel",
     "el", "fc", "fedora", "alpine", "macos", "osx", "ios", "android", "windows", "linux",
     "freebsd", "sles", "amzn", "al", "cuda", "armv", "v", "ver", "version", "scram", "tz",
     "dx", "opengl", "vulkan", "es", "unicode", "jwt"}
)  # fmt: skip
VERSION = lazy(r"[0-9]{1,2}")
# the longer versions some take: Ubuntu's year and month (`ubuntu2204`), Python's minor
# (`py311`, `cp312`), a year (`es2020`, `al2023`)
LONG_VERSIONS = {
    "ubuntu": lazy(r"[12][0-9](?:04|10)"),
    "py": lazy(r"3[0-9]{1,2}"),
    "python": lazy(r"3[0-9]{1,2}"),
    "cp": lazy(r"3[0-9]{1,2}"),
    "es": lazy(r"20[0-9]{2}"),
    "ecma": lazy(r"20[0-9]{2}"),
    "al": lazy(r"20[0-9]{2}"),
}
# A step of a procedure and its small number (`step1`, `phase2`, `rc1`)
STEP_WORDS = frozenset(
    {"step", "phase", "stage", "round", "part", "tier", "iter", "epoch", "layer", "sprint",
     "rev", "attempt", "rc", "beta", "alpha", "gen", "level", "lesson", "chapter", "task",
     "shard", "replica", "worker", "slot"}
)  # fmt: skip
# What converts one thing into another, `2` between them (`mem2reg`, LLVM's pass;
# `pdf2txt`, `seq2seq`, `word2vec`)
CONVERT_WORDS = frozenset(
    {"mem", "reg", "pdf", "txt", "md", "html", "img", "seq", "vec", "str", "num", "hex", "bin",
     "dec", "utf", "ascii", "json", "yaml", "xml", "csv", "doc", "word", "text", "tex", "svg",
     "png", "jpg", "wav", "ssa", "dot", "onnx", "tf", "pt", "idx", "ptr", "ref", "arr", "obj",
     "sql", "rgb", "hsv", "node", "graph", "ipa", "unix", "dos", "mac"}
)  # fmt: skip
# Words with no number of their own, after one (`argon2id`, `armv7l`, `ppc64le`, `s390x`,
# `secp256k1`, `aes-256-gcm`) or alone (`scram-sha-256`, `hmac-sha256`, `linux/amd64`)
PLAIN_WORDS = frozenset(
    {"i", "d", "id", "l", "hf", "le", "be", "k", "r", "x", "gcm", "cbc", "ctr", "ecb", "ofb",
     "cfb", "ccm", "siv", "ocb", "xts", "ascii", "utf", "hmac", "scram", "sha", "md", "pss",
     "oaep", "pem", "der", "plus", "linux", "darwin", "windows", "musl", "gnu", "msvc",
     "lts", "base", "slim", "bookworm", "bullseye", "jammy", "focal", "noble", "alpine",
     "ubuntu", "debian", "node", "python", "bit", "bits", "sv", "hd", "kb", "v"}
)  # fmt: skip
VOCABULARY = WIDTH_WORDS | VERSION_WORDS | STEP_WORDS | CONVERT_WORDS | PLAIN_WORDS
# A value of words and numbers joined by `-`, `_`, `.` or `/` (group 1 each letters' run,
# group 2 its digits); a number alone after a join
ATOM = lazy(r"([A-Za-z]++)([0-9]*+)|([0-9]++)")
JOINS = lazy(r"[-_./]")
# A word as written: small letters, capitals or a capital and small letters (`Argon2id`)
CASED = lazy(r"[a-z]++|[A-Z]++|[A-Z][a-z]++")
CAPITALISED = lazy(r"[A-Z][a-z]++")  # a version's or a step's word so written, numbered
# A password manager's item (`1Password/Prod-DB`, `op://Prod/db/password`, Bitwarden's): the
# manager's name, then the item's path of names, words without digits (`vault:hunter2` is a
# password); 1Password's name alone
VAULT = lazy(
    r"(?i:1password|op:/|bitwarden|lastpass|keepass(?:xc)?|keychain|vault|gopass)"
    r"(?:[:/]/?[A-Za-z]++(?:[-_. ]?+[A-Za-z]++)*+)++|1Password"
)
VAULT_PATH = lazy(r"[:/]++")


def vault_parts(value: str) -> list[str] | None:
    """The parts of a password manager's reference (VAULT) after the manager's name, each to
    be judged as a value (`op://QzkvTwpLmxRbNhYt`, a literal secret written as the item's
    name, was let through); None when `value` is none."""
    if VAULT.fullmatch(value) is None:
        return None
    return VAULT_PATH.split(value)[1:]


# A file's mode in octal (`0644`, `0755`, `0600`), or a well-known port as a whole value
MODE = lazy(r"0[4-7][0-7]{2}")
PORTS = frozenset(
    {"1080", "1194", "1433", "1521", "1883", "2181", "2375", "2376", "2379", "2380", "3000",
     "3306", "3389", "4222", "4317", "4318", "5000", "5044", "5432", "5601", "5672", "5900",
     "5984", "6379", "6443", "7474", "7687", "8000", "8008", "8080", "8081", "8086", "8088",
     "8125", "8200", "8443", "8500", "8883", "8983", "9000", "9042", "9090", "9092", "9100",
     "9200", "9300", "9411", "9418", "10250", "11211", "15672", "16686", "26257", "27017",
     "50051", "51820"}
)  # fmt: skip


def technical(value: str) -> bool:
    """Whether `value` names a technical thing (see the module), not a password."""
    if VAULT.fullmatch(value) or MODE.fullmatch(value) or value in PORTS:
        return True
    if not value[:1].isalpha() or len(value) > 40:
        return False
    return all(_piece(piece) for piece in JOINS.split(value))


def _piece(piece: str) -> bool:
    """Whether one piece between joins is vocabulary words with their numbers, or a small
    number alone (`22`, `04`, `64`, `256`)."""
    if piece.isdigit():
        return bool(VERSION.fullmatch(piece) or WIDTH.fullmatch(piece))
    at, before = 0, ""
    while at < len(piece):
        atom = ATOM.match(piece, at)
        if atom is None or atom[3] is not None:
            return False
        word, digits = atom[1], atom[2]
        if not CASED.fullmatch(word) or not _numbered(word.lower(), digits, before):
            return False
        if digits and CAPITALISED.fullmatch(word) and word.lower() not in WIDTH_WORDS:
            return False  # a password's shape: `Linux99`, `Java8` (a width's too: `Argon2id`)
        at, before = atom.end(), word.lower()
    return bool(piece)


def _numbered(word: str, digits: str, before: str) -> bool:
    """Whether `word` is in the vocabulary and takes `digits` (none, or its kind's numbers)."""
    if word not in VOCABULARY:
        return False
    if not digits:
        return True
    if word in WIDTH_WORDS and WIDTH.fullmatch(digits) and (len(word) > 1 or len(digits) > 1):
        return True  # a letter alone takes a width of two digits or more: `x86`, `h264`
    if word in VERSION_WORDS and (VERSION.fullmatch(digits) or _long_version(word, digits)):
        return True
    if word in STEP_WORDS and VERSION.fullmatch(digits):
        return True
    if word in CONVERT_WORDS and digits == "2":
        return True
    return word in PLAIN_WORDS and bool(before) and digits == "1"  # `secp256k1`


def _long_version(word: str, digits: str) -> bool:
    version = LONG_VERSIONS.get(word)
    return version is not None and version.fullmatch(digits) is not None


# A name that counts, limits or times a password, or an event of one: not the password
# (`max_password: 1000`, `password_attempts: 5`, `on_pass: 1234`, `pass_rate: 95`)
QUANTITY_WORDS = frozenset(
    {"max", "min", "maximum", "minimum", "length", "len", "count", "attempts", "attempt",
     "age", "days", "ttl", "timeout", "policy", "rate", "expiry", "expires", "lifetime",
     "history", "retries", "tries", "limit", "size", "interval", "score", "strength",
     "complexity", "rounds", "cost", "num", "number", "total", "per", "duration"}
)  # fmt: skip
# one word in small letters or capitals, `maxpassword`, `MINPASSWORDLENGTH`
JOINED = lazy(r"(?i:max|min|num)(?:pass|pw)")
EVENT = "on"  # an event's handler or hook, `on_pass`, `onPassword`: the event's first word


def counted(name: str) -> bool:
    """Whether `name` names a quantity or an event of a password (QUANTITY_WORDS, `on_`),
    whose value is a number or a setting, not the password: the quantity's word right before
    or after the password's, the event's first and right before it. A word elsewhere in the
    name says whose password it is (`on_prem_password`, `rate_limiter_password`,
    `per_user_password`: each short password was let through)."""
    words = [word.lower() for word in WORD.findall(name)]
    for at, word in enumerate(words):
        if word in PERSONAL:
            beside = words[max(0, at - 1) : at] + words[at + 1 : at + 2]
            if any(near in QUANTITY_WORDS for near in beside) or words[:at] == [EVENT]:
                return True
    return JOINED.match(name) is not None

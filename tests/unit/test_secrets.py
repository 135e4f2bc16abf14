"""The secret detector: every kind it names (the library's and memidx's own patterns), the
look-alikes it leaves alone, private spans, allow markers, and never the network."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from memidx.haystack.blanking import blank_frame, blanked
from memidx.haystack.frames import Located, frame, frame_at, new_record
from memidx.secrets import library
from memidx.secrets.detect import find_secrets, mask, redact_text
from memidx.secrets.patterns import OWN_PATTERNS
from memidx.secrets.values import looks_secret
from tests.benchmark.secrets.labeled import LOOK_ALIKES, SECRETS, samples
from tests.cpu_cost import least_ratio

SECRET_SAMPLES, LOOK_ALIKE_SAMPLES = samples(seed=16, per_kind=3)


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=lambda s: s.kind)
def test_every_listed_kind_is_redacted(sample: object) -> None:
    from tests.benchmark.secrets.labeled import Sample

    assert isinstance(sample, Sample)
    done = redact_text(f"Notes from the session.\n{sample.line}\nThat was all.")

    assert sample.secret not in done.text
    assert "[REDACTED:" in done.text and done.count >= 1
    assert done.text.startswith("Notes from the session.\n") and done.text.endswith("That was all.")


@pytest.mark.parametrize("sample", LOOK_ALIKE_SAMPLES, ids=lambda s: s.secret[:24])
def test_look_alikes_are_left_alone(sample: object) -> None:
    from tests.benchmark.secrets.labeled import Sample

    assert isinstance(sample, Sample)
    assert find_secrets(sample.line) == []
    assert redact_text(sample.line).text == sample.line


# memidx's own patterns, one case each: kinds detect-secrets 1.5.0 has no plugin for
OWN_CASES = {
    "anthropic-key": "anthropic-key",
    "openai-project-key": "openai-key",
    "github-fine-grained": "github-token",
    "google-api-key": "google-api-key",
    "huggingface-token": "huggingface-token",
    "npm-token": "npm-token",
    "digitalocean-token": "digitalocean-token",
    "private-key": "private-key",
    "bearer-token": "bearer-token",
    "password-assignment": "secret-assignment",
}


@pytest.mark.parametrize(("label", "kind"), OWN_CASES.items())
def test_own_patterns_name_their_kind(label: str, kind: str) -> None:
    make, template = SECRETS[label]
    secret = make(random.Random(1))
    text = template.format(s=secret)

    found = find_secrets(text)

    assert [f.kind for f in found] == [kind]
    assert (
        secret in text[found[0].start : found[0].end]
        or text[found[0].start : found[0].end] in secret
    )


def test_own_patterns_cover_kinds_and_the_library_lacks_them() -> None:
    own = {kind for kind, _ in OWN_PATTERNS}
    lib = {kind for _, _, kind in library.PLUGINS}
    assert {"anthropic-key", "google-api-key", "huggingface-token", "digitalocean-token"} <= own
    assert not {"anthropic-key", "google-api-key", "huggingface-token"} & lib


def test_a_private_key_block_is_redacted_whole() -> None:
    make, _ = SECRETS["private-key"]
    block = make(random.Random(2))
    done = redact_text(f"before\n{block}\nafter")
    assert done.text == "before\n[REDACTED:private-key]\nafter"


@pytest.mark.parametrize(
    "pem",
    [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "DSA PRIVATE KEY",
    ],
)
def test_a_private_key_block_in_base64_is_redacted(pem: str) -> None:
    """kubeconfig's `client-key-data:` holds the block in base64, which no pattern read."""
    import base64

    make, _ = SECRETS["private-key"]
    block = make(random.Random(3)).replace("RSA PRIVATE KEY", pem)
    encoded = base64.b64encode(block.encode()).decode()
    done = redact_text(f"  user:\n    client-key-data: {encoded}\n")
    assert done.text == "  user:\n    client-key-data: [REDACTED:private-key]\n"


def test_a_certificate_in_base64_is_left_alone() -> None:
    """A certificate is public: kubeconfig's `client-certificate-data:` stays as it is."""
    import base64

    make, _ = SECRETS["private-key"]
    block = make(random.Random(3)).replace("RSA PRIVATE KEY", "CERTIFICATE")
    text = f"client-certificate-data: {base64.b64encode(block.encode()).decode()}\n"
    assert redact_text(text).text == text


def test_a_url_password_is_redacted_and_the_rest_of_the_url_kept() -> None:
    password = "pa" + "ss!W0rd#x9Z"
    done = redact_text(f"postgres://app:{password}@db.internal:5432/app")
    assert done.text == "postgres://app:[REDACTED:basic-auth]@db.internal:5432/app"


@pytest.mark.parametrize(
    ("url", "placeholder"),
    [
        ('mongodump --uri="mongodb+srv://<USER>:{p}@<CLUSTER-HOST-URL>"', "<PASSWORD>"),
        ("psql postgres://username:{p}@host.com/dbname?sslmode=require", "password"),
        ("DATABASE_URL=postgres://app:{p}@db.internal:5432/app", "changeme"),
        ("redis://default:{p}@cache:6379", "your-password-here"),
    ],
)
def test_a_placeholder_in_a_urls_password_is_no_secret(url: str, placeholder: str) -> None:
    """Connection strings in docs and how-tos (real notes of til-jbranchaud among them) show
    where the password goes; the library's detector flagged them, memidx's own did not."""
    assert find_secrets(url.format(p=placeholder)) == []
    assert [f.kind for f in find_secrets(url.format(p="Zq8vX2m1k"))] == ["basic-auth"]


@pytest.mark.parametrize(
    "url",
    ["x1+postgres://app:pw-{}@db", "12.ab://app:pw-{}@db", "see(https://u:pw-{}@h)"],
)
def test_a_url_password_is_found_whatever_comes_before_the_scheme(url: str) -> None:
    secret = "Zq9" + "xT4mLw8vR2"
    text = url.format(secret)
    assert [text[f.start : f.end] for f in find_secrets(text)] == [f"pw-{secret}"]


def test_a_long_run_of_letters_is_scanned_in_linear_time() -> None:
    url = f"https://app:{'Zq9' + 'xT4mLw8vR2'}@db"
    large, small = (f"{'x' * n} {url} {'x' * n}A" for n in (100_000, 6_250))  # a tool's output

    # at every letter the URL pattern took O(n) (~25 s): 16x the letters took ~256x the CPU
    # time of the fewer read just before, linear ~16x (a ratio: a slower machine slows both)
    least, ratios = least_ratio(lambda: find_secrets(large), lambda: find_secrets(small), below=64)

    assert least < 64, f"16x the letters took {ratios}x the time"
    assert [f.kind for f in find_secrets(large)] == ["basic-auth"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("a <private>my home address</private> b", "a [REDACTED:private] b"),
        ("a <PRIVATE>x\ny</Private> b", "a [REDACTED:private] b"),
        ("a <private>never closed\nmore", "a [REDACTED:private]"),
        # nested: the span ends at the close of its own open ("z" was kept)
        ("a <private>x <private>y</private> z</private> w", "a [REDACTED:private] w"),
        ("a <private >x</private > b", "a [REDACTED:private] b"),
        ("a </private> b <private>c</private>", "a </private> b [REDACTED:private]"),
    ],
)
def test_private_spans_are_never_kept(text: str, kept: str) -> None:
    done = redact_text(text)
    assert done.text == kept and done.count == 1 and done.kinds == ("private",)


def test_an_allow_marker_keeps_its_line_only_where_allowed() -> None:
    key = "AK" + "IA" + "Q" * 8 + "7EXAMPLE"
    text = f"doc example {key}  memidx: allow-secret\nreal {key}x"
    assert [f.kind for f in find_secrets(text, allow=True)] == ["aws-access-key"]
    assert len(find_secrets(text)) == 2
    assert redact_text(text, allow=True).text.startswith(f"doc example {key}")
    assert key not in redact_text(text).text  # records ignore markers: always redacted
    assert mask(text).startswith(f"doc example {key}")


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("Tr0ub4dor&3xyz", True),
        ("8f7a9c2d1e4b", True),
        ("<your-token-here>", False),
        ("${DB_PASSWORD}", False),
        ("changeme", False),
        ("xxxxxxxxxxxx", False),
        ("settings.password", False),
        ("short1A", False),
        ("/run/secrets/db", False),
    ],
)
def test_assigned_values_that_look_like_secrets(value: str, secret: bool) -> None:
    assert looks_secret(value, library.entropy()) is secret


def test_the_library_loads_without_requests_and_cannot_verify() -> None:
    code = (
        "import sys\n"
        "from memidx.secrets import library\n"
        "library.library_finders(); library.keyword_finder()\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('requests', 'urllib3', 'socket')]\n"
        "assert not bad, bad\n"
        "import detect_secrets.plugins.aws as aws\n"
        "try:\n"
        "    aws.requests.post('http://127.0.0.1:9/', data='never sent')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "NetworkRefused"


def test_the_labeled_set_has_fifteen_kinds_or_more() -> None:
    assert len(SECRETS) >= 15 and len(LOOK_ALIKES) >= 10


def test_a_forgotten_record_is_blanked_in_place_at_the_same_length() -> None:
    keep, gone = new_record("turn", "keep me"), new_record("turn", "forget the zebra")
    data = frame(keep) + frame(gone) + frame(keep)

    new, count = blanked(data, {gone.id})

    assert count == 1 and len(new) == len(data) and b"zebra" not in new
    assert new.startswith(frame(keep)) and new.endswith(frame(keep))
    located = frame_at(new, len(frame(keep)))
    assert located is not None and located.intact and located.record.id == gone.id
    assert located.record.text.strip() == ""
    assert (
        blank_frame(Located(gone, 0, len(frame(gone)))) == new[len(frame(keep)) : -len(frame(keep))]
    )


@pytest.mark.parametrize(
    "text",
    [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ],
)
def test_aws_s_published_example_keys_are_no_secret(text: str) -> None:
    """A note quoting AWS's documentation was blocked for its example keys."""
    assert find_secrets(text) == []
    real = text.replace("EXAMPLE", "Q7ZK3RM")
    assert [f.kind for f in find_secrets(real)] != []


@pytest.mark.parametrize(
    ("line", "password"),
    [
        ("curl -u admin:Zq8vX2m1k https://api.example.com/v1", "Zq8vX2m1k"),
        ("curl -s --user 'deploy:s3cr3t!Pw' https://ci.internal/job", "s3cr3t!Pw"),
        ("http -a alice:Wonder1and! example.org", "Wonder1and!"),
        ("mysqldump -uroot -phunter22 app > dump.sql", "hunter22"),
        ("mysql -u root -p'Zq8vX2m1k' app", "Zq8vX2m1k"),  # quoted: let through
        ('mysqldump -u root -p"hunter22" app', "hunter22"),
        ("sshpass -p 'Tr0ub4dor&3' ssh deploy@host", "Tr0ub4dor&3"),
    ],
)
def test_a_password_on_a_command_line_is_a_secret(line: str, password: str) -> None:
    """No word says `password` there, so neither the library nor the keyword check saw it."""
    found = find_secrets(f"ran this:\n{line}\nand it worked")
    assert [f.kind for f in found] == ["command-password"]
    assert redact_text(line).text == line.replace(password, "[REDACTED:command-password]")


@pytest.mark.parametrize(
    "line",
    [
        "curl -u username:password https://x",  # the usual example
        "curl -u user:pass http://localhost:8080",
        'curl -u "$USER:$TOKEN" https://x',
        "curl -u username https://x",  # curl asks for the password
        "docker run -u 1000:1000 image",  # user and group, not curl
        "mysql -u root -p app",  # asks for it
        "mysql -u root -p$MYSQL_PWD app",
        'mysql -u root -p"$MYSQL_PWD" app',
        "mysql is slow here; mkdir -pv build",
        "sshpass -p $SSHPASS ssh host",
        "git push -u origin main",
        "see https://x.org then rsync -a host:/srv/data .",
    ],
)
def test_command_lines_without_a_password_are_left_alone(line: str) -> None:
    assert find_secrets(line) == []


NETRC = "Zq8vX2m1kT"  # a fake password, assembled nowhere else


@pytest.mark.parametrize(
    ("text", "passwords"),
    [
        (f"machine api.example.com login bob password {NETRC}", [NETRC]),
        (f"machine api.example.com\n  login bob\n  password {NETRC}\n", [NETRC]),
        (f"machine api.example.com\npassword {NETRC}\nlogin bob", [NETRC]),  # login after
        (f"default login anonymous password {NETRC}", [NETRC]),
        (f"  default\n    login ci\n    password {NETRC}", [NETRC]),
        (
            f"machine a.com login bob password {NETRC} account x\n"
            f"machine b.com login amy port 443 password {NETRC[::-1]}\n"
            f"default login anonymous password {NETRC}9",
            [NETRC, NETRC[::-1], f"{NETRC}9"],
        ),
        (f'echo "machine git.example.com login ci password {NETRC}" >> ~/.netrc', [NETRC]),
        (f"`machine api.example.com login bob password {NETRC}`", [NETRC]),
        (f"```\nmachine api.example.com login bob password {NETRC}\n```", [NETRC]),
        (f"machine nas login bob password {NETRC}", [NETRC]),  # a one-word host, a real one
        ("machine 10.0.0.7 login root password hunter22", ["hunter22"]),
        ("machine build.internal login deploy password rotated", ["rotated"]),
        (f'machine "api.example.com" login "bob" password "{NETRC}"', [NETRC]),  # quoted
        (f"machine 'nas' login bob password {NETRC}", [NETRC]),
    ],
)
def test_a_netrc_entrys_password_is_a_secret(text: str, passwords: list[str]) -> None:
    """`~/.netrc` (curl, git, ftp and pip read it) names its password with a bare word: no
    `=` or `:` for the keyword check, no URL, no command."""
    found = find_secrets(f"my netrc:\n{text}\nand it worked")

    assert [(f.kind) for f in found] == ["netrc-password"] * len(passwords)
    assert [f"my netrc:\n{text}\nand it worked"[f.start : f.end] for f in found] == passwords
    assert NETRC not in redact_text(text).text


@pytest.mark.parametrize(
    "text",
    [
        "machine api.example.com login bob password <PASSWORD>",
        "machine api.example.com login bob password $NETRC_PASSWORD",
        "machine api.example.com login you password yourpassword",
        "machine api.example.com login bob password changeme",
        "machine api.example.com login bob password xxxxxxxx",
        f"machine api.example.com password {NETRC}",  # no login: no entry curl would use
        f"machine api.example.com login bob\n\npassword {NETRC}",  # a blank line ends it
        f"machine api.example.com login bob macdef init password {NETRC}",  # a macro's text
        "the machine learning model's password field is masked",
        "By default login uses password authentication",
        "The default username is `root` and the default password is empty",
        "Log in to the machine with the password from the vault",
        "machine api.example.com login USERNAME password TOKEN",  # SHOUTED as HOST is
        "machine api.example.com login USER password API_TOKEN",
        "machine build login deploy password rotated",  # a sentence's words, no host
        "machine login login password password account",  # the keywords, listed
        "In ~/.netrc each entry reads machine, login then password; `curl -n` reads it.",
        "A .netrc entry: machine <host> login <user> password <token>",
        "On this machine login fails and the password prompt times out",
    ],
)
def test_netrc_placeholders_and_prose_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []


def test_a_long_netrc_file_is_read_in_linear_time() -> None:
    entry = f"machine h.example.com\n  login bob\n  password {NETRC}\n"
    found: list[int] = []

    # ~1.5 s for 2.2 MB, each entry read once: 16x the entries ~16x the CPU time of the fewer
    # read just before (a ratio: a slower machine slows both), each read with all after ~256x
    least, ratios = least_ratio(
        lambda: found.append(len(find_secrets(entry * 40_000))),
        lambda: find_secrets(entry * 2_500),
        below=64,
        runs=1,
    )

    assert least < 64, f"16x the entries took {ratios}x the time"
    assert found[-1] == 40_000


def test_many_command_words_on_one_line_are_scanned_in_linear_time() -> None:
    # ~1 s; a pattern without its bound took minutes: 16x the words ~16x the CPU time of the
    # fewer read just before (a ratio: a slower machine slows both), unbounded ~256x
    least, ratios = least_ratio(
        lambda: find_secrets("curl " * 200_000 + "mysql " * 100_000),
        lambda: find_secrets("curl " * 12_500 + "mysql " * 6_250),
        below=64,
        runs=1,
    )
    assert least < 64, f"16x the words took {ratios}x the time"

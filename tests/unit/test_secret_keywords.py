"""Values given to secret-sounding names in every form the library's keyword rules read: a
name with no assignment after it, several values on one line, Go's `:=` and the C family's."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text
from memidx.secrets.quotes import plain_quotes
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"
OTHER = "hV4mB9cQ1sXe6Ty"


@pytest.mark.parametrize(
    "line",
    [
        f'if (password !== "{VALUE}") {{ go() }}',
        f'if (password != "{VALUE}") return',
        f'db_password "{VALUE}";',
        f'ssl private_key "{VALUE}";',
        f'if "{VALUE}" == password {{ }}',
        f'"{VALUE}" != password',
    ],
)
def test_a_name_compared_or_closed_by_a_semicolon_is_read(line: str) -> None:
    """The library's comparison and `;` forms: no `=`, `:` or `(` follows the name."""
    assert VALUE not in redact_text(line).text


FILLER = "x " * 150


@pytest.mark.parametrize(
    "line",
    [
        f'password: "{VALUE}", secret: "{OTHER}" and more',  # one window, one rule, two values
        f'{FILLER}password: "{VALUE}", secret: "{OTHER}" and more',
        f'password=a password="{OTHER}"',  # the first value swallows the second name
        f'if (password != "{VALUE}" && secret != "{OTHER}") {{ go() }}',
    ],
)
def test_every_value_a_rule_matches_on_a_line_is_read(line: str) -> None:
    """The library reports each of its rules' first match on a line (or a long line's window)."""
    redacted = redact_text(line).text
    assert OTHER not in redacted and VALUE not in redacted


@pytest.mark.parametrize("unit", ["pwd=a ", "`PASSWORD:", "'a' == pwd ", 'pwd "a"; '])
def test_reading_every_value_stays_linear(unit: str) -> None:
    """Each rule read again after each match: a line dense with names (each value read to the
    end of its window) stays linear in the line."""
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (1_000, 16_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    "line",
    [
        f'private_key := "{VALUE}"',  # Go
        f"password := {VALUE}",
        f'password => "{VALUE}"',  # PHP, Ruby
        f'char password[25] = "{VALUE}";',  # C
        f'NSString *password = @"{VALUE}";',  # Objective-C
        f'std::string secret("{VALUE}");',  # C++
        f'secret.assign("{VALUE}", 15);',
    ],
)
def test_the_librarys_rules_for_code_are_read(line: str) -> None:
    """Its config-file rules alone lack `:=`, `=>`, `[25] =`, `@"` and a constructor's call."""
    assert VALUE not in redact_text(line).text


@pytest.mark.parametrize(
    "line",
    [
        "password: \u201cZk9xQ7mL2pWq8\u201d",  # as a word processor or a chat pastes it
        "password: \u2018Zk9xQ7mL2pWq8\u2019",
        "password = \u00abZk9xQ7mL2pWq8\u00bb",
        "api_key = \u201eZk9xQ7mL2pWq8\u201c",
        "Set password: \u201cZk9xQ7mL2pWq8\u201d.",  # a sentence's end after it
        "password = \u2018Zk9xQ7mL2pWq8\u2019!",
        "password: \u300cZk9xQ7mL2pWq8\u300d",  # CJK corner brackets
        "password: \uff02Zk9xQ7mL2pWq8\uff02",  # fullwidth quotes
        "password\uff1aZk9xQ7mL2pWq8",  # a fullwidth colon, as a CJK input method types it
        "api_key\uff1d\u300eZk9xQ7mL2pWq8\u300f",
    ],
)
def test_a_value_in_typographic_quotes_is_found_as_in_plain_ones(line: str) -> None:
    """`password: \u201cv4lue\u201d` was no assignment, where `password: "v4lue"` was one."""
    found = find_secrets(line, allow=True)
    assert [line[f.start : f.end] for f in found] == ["Zk9xQ7mL2pWq8"], line


@pytest.mark.parametrize(
    "line",
    [
        "password = \"Zk9xQ7mL2pWq8'",  # opened by one quote, closed by another
        "password = 'Zk9xQ7mL2pWq8\"",
        '{"password": "Zk9xQ7mL2pWq8\', "user": "bob"}',
        "Set password: `Zk9xQ7mL2pWq8'.",  # TeX's quotes, a sentence's end after them
        "password = \u201cZk9xQ7mL2pWq8'",  # a curly one, then a plain one
        "password: \u2033Zk9xQ7mL2pWq8\u2033",  # double primes
        "password: \u301dZk9xQ7mL2pWq8\u301e",  # CJK double prime quotation marks
        "api_key = \u2032Zk9xQ7mL2pWq8\u2032",  # primes
        'password=\'Zk9xQ7mL2pWq8""',  # a stray quote after the closing one hid it
        "secret = \"Zk9xQ7mL2pWq8'''",
        "api_key: `Zk9xQ7mL2pWq8'\" # the old one",
    ],
)
def test_a_value_between_two_different_quotes_or_primes_is_found(line: str) -> None:
    """A demanding user reads a value between an opening quote and another closing one: the
    detectors, asking for the same quote at both ends, missed it, and double primes too."""
    found = find_secrets(line, allow=True)
    assert [line[f.start : f.end] for f in found] == ["Zk9xQ7mL2pWq8"], line


@pytest.mark.parametrize(
    "line",
    [
        'the password: "don\'t" share it',  # a quote inside a word closes nothing
        "token: 'it is what it is\"",  # no run: words
        "password: \"changeme'",  # a placeholder between any quotes
        "secret height: 5\u203211\u2033, key: 6\u20322\u2033 tall",  # feet and inches
        "password = 'Zk9xQ7mL2pWq8\"x",  # a quote no sign or space follows closes nothing
        'password = \'Zk9xQ7mL2pWq8""x',
        'password = "a\'"',  # a string holding a quote, no run that looks secret
        "I don't know the password: \"don't'\" he said",
        'secret: "it\'s\'" and "changeme\'""',
    ],
)
def test_prose_with_different_quotes_holds_no_secret(line: str) -> None:
    assert find_secrets(line, allow=True) == [], line


def test_a_name_in_typographic_quotes_with_no_value_is_no_secret() -> None:
    assert find_secrets("the word \u201cpassword\u201d and \u201cchangeme\u201d", allow=True) == []
    assert find_secrets("token\uff1a\u7ba1\u7406\u8005\u306b\u805e\u304f", allow=True) == []


@pytest.mark.parametrize(
    "line",
    [
        "password=Zk9q\u201dW2mX7pL4vB8n",  # read as a plain quote, it cut the value in two
        "password: Zk9q\u2019W2mX7pL4vB8n",
        "token: Zk9qW2mX7p\u2018L4vB8nQ",  # its start alone was masked, the rest shown
    ],
)
def test_a_typographic_quote_inside_a_value_is_part_of_it(line: str) -> None:
    found = find_secrets(line, allow=True)
    assert [line[f.start : f.end] for f in found] == [line.partition(" ")[2] or line[9:]], line
    assert redact_text(line).text.endswith("[REDACTED:secret-assignment]")


def test_a_text_whose_quotes_delimit_nothing_is_read_as_it_is() -> None:
    """A long transcript with an apostrophe was translated whole at every detector pass
    (~0.3 s for 5 MB of text that is not ASCII)."""
    text = "it\u2019s the user\u2019s build, d\u00e9j\u00e0 vu\n" * 10
    assert plain_quotes(text) is text
    assert plain_quotes("a \u201cb\u201d c\u2019d") == 'a "b" c\u2019d'


@pytest.mark.parametrize(
    "text",
    [
        "stringData:\n  password: |\n    Zk9xQ7mL2pWq8\n",  # a Kubernetes secret's block
        "db_password: >-\n\n  Zk9xQ7mL2pWq8\nport: 5432\n",
        "- api_key:\n    Zk9xQ7mL2pWq8\n",  # a plain value on the next line
        "'token': |2  # the deploy's\n   Zk9xQ7mL2pWq8\n",
        # a file saved on Windows (CRLF): its key's line ends in \r, which passed it unread
        "password:\r\n  Zk9xQ7mL2pWq8\r\n",
        "stringData:\r\n  token: |\r\n\r\n    Zk9xQ7mL2pWq8\r\n",
        # a list's item, and a flow collection's value: their lines hold a space
        "password:\n  - Zk9xQ7mL2pWq8\n",
        "password:\n- Zk9xQ7mL2pWq8\nport: 5432\n",  # a list as indented as its key
        "api_keys:\n  - name: ci\n  -   Zk9xQ7mL2pWq8  # the deploy's\n",
        "password:\n  {value: Zk9xQ7mL2pWq8}\n",
        "token:\n  {name: ci, value: Zk9xQ7mL2pWq8}\n",
        "password:\n  [Zk9xQ7mL2pWq8]\n",
    ],
)
def test_a_value_below_its_key_is_found(text: str) -> None:
    found = find_secrets(text, allow=True)
    assert [text[f.start : f.end] for f in found] == ["Zk9xQ7mL2pWq8"], text


@pytest.mark.parametrize(
    "text",
    [
        "password:\n  type: string\n  minLength: 12\n",  # a schema, no value
        "password: |\nZk9xQ7mL2pWq8\n",  # not indented: no block of the key
        "token:\n  ${DEPLOY_TOKEN}\n",
        "notes: |\n  Zk9xQ7mL2pWq8\n",  # no secret-sounding key
        "password:\n  secretKeyRef:\n    name: db\n",  # a nested mapping: its key no value
        "- token:\n    valueFrom:\n      configMapKeyRef: {}\n",
        "password:\r\n  secretKeyRef:\r\n    name: db\r\n",
        "- password:\n- Zk9xQ7mL2pWq8\n",  # a list's next item: no value of the key's
        "Password rules:\n- use a long one\n- Zk9 with spaces\n",  # prose
        "password:\n  - name: Zk9xQ7mL2pWq8\n",  # an item that is a mapping: a key's value
        "password:\n  {connectionString: x, minLength: 12}\n",  # no key judged as a value
        "password: |\n  [a, b]\n",  # a block's text, not a flow collection
        "password:\n  {{ vault_db_password }}\n",  # a template (Ansible, Helm), no collection
    ],
)
def test_what_stands_below_a_key_is_no_value_of_it_unless_it_is_one(text: str) -> None:
    assert find_secrets(text, allow=True) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("password: {value: Zk9xQ7mL2pWq8}\n", ["Zk9xQ7mL2pWq8"]),
        ("- token: {name: ci, value: Zk9xQ7mL2pWq8}  # the deploy's\n", ["Zk9xQ7mL2pWq8"]),
        ('"password": {"value": "Zk9xQ7mL2pWq8"}\n', ['"Zk9xQ7mL2pWq8"']),
        ("api_keys: [Zk9xQ7mL2pWq8, hV4mB9cQ1sXe6Ty]\n", ["Zk9xQ7mL2pWq8", "hV4mB9cQ1sXe6Ty"]),
        ("Password: [see the docs]\n", []),  # prose in brackets
        ("password: {connectionString: x, minLength: 12}\n", []),  # keys are no values
        ("notes: {value: Zk9xQ7mL2pWq8}\n", []),  # no secret-sounding key
        # a template's expression (Ansible's Jinja, Helm's), no collection: a name, no value
        ("token: {{ vault_api_token }}\n", []),
        ("- api_key: {{ lookup_api_key }}  # from the vault\n", []),
        # a flow mapping on its own: its value was read as `Zk9...}`, a reference by its brace
        ("{api_key: Zk9xQ7mL2pWq8}\n", ["Zk9xQ7mL2pWq8"]),
        ("- [{password: Zk9xQ7mL2pWq8}]\n", ["Zk9xQ7mL2pWq8"]),
        ("{password: ${DB_PASSWORD}}\n", []),  # a reference closes its own brace
        ("{token: [see the docs]}\n", []),
        # ... and one a sentence or a call closes after its brace: `}.` was a reference still
        ("Set the client to {api_key: Zk9xQ7mL2pWq8}.\n", ["Zk9xQ7mL2pWq8"]),
        ("Client({password: Zk9xQ7mL2pWq8})\n", ["Zk9xQ7mL2pWq8"]),
        ("{password: ${DB_PASSWORD}}.\n", []),
        ("{password: getpass()}.\n", []),
        ("client = Client(api_key=settings.api_key)\n", []),  # a call's own parenthesis
        # a variable named after the secret it holds is no secret (a call's `)` made a
        # reference of it before a brace was taken off with it)
        ("fetch(url, {token: authToken})\n", []),
        ("const opts = {password: userPassword};\n", []),
        ("Client({password: correctHorseBattery})\n", ["correctHorseBattery"]),  # no such word
    ],
)
def test_a_flow_collection_on_its_keys_line_is_read(text: str, found: list[str]) -> None:
    """No keyword rule read into `{...}` or `[...]`: its value went through every check."""
    assert [text[f.start : f.end] for f in find_secrets(text, allow=True)] == found


def test_a_line_below_nested_keys_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each key of 64 nested ones read the lines below it: the entropy of each line was
    measured up to 64 times (a megabyte of such lines took 19 s, 3 s before blocks)."""
    from memidx.secrets import blocks

    calls: list[str] = []

    def counted(value: str, entropy: object, *, names: bool = True) -> bool:
        calls.append(value)
        return False

    monkeypatch.setattr(blocks, "looks_secret", counted)
    text = "".join(" " * depth + "token:|#Zk9xQ7mL2pWq8\n" for depth in range(64))
    find_secrets(text)
    assert len(calls) == 63  # each line below the first, once


def test_a_block_is_read_to_its_64th_line_and_no_further() -> None:
    """As the README says: each key reads at most 64 lines, so nested keys over a long block
    cost 64 readings a line at most, never one for every key above it."""
    filler = "  some words\n" * 63
    assert find_secrets(f"password: |\n{filler}  Zk9xQ7mL2pWq8\n", allow=True) != []
    assert find_secrets(f"password: |\n{filler}  more words\n  Zk9xQ7mL2pWq8\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "stringData:\n  password: |  # memidx: allow-secret\n    Zk9xQ7mL2pWq8\n\n    x8Lq\n",
        f"ci_key: >-  # pragma: allowlist secret\n  {'ghp_' + 'a1b2c3d4e5' * 4}\n",
        "- api_key:  # memidx: allow-secret\n    Zk9xQ7mL2pWq8\n",  # a plain value below
        "db_password\uff1a|  # memidx: allow-secret\n  Zk9xQ7mL2pWq8\n",  # a fullwidth colon
        # an indentation indicator: the block's first line more indented than the block
        "password: |2  # memidx: allow-secret\n      x\n  Zk9xQ7mL2pWq8\n",
        "passwords:  # memidx: allow-secret\n- Zk9xQ7mL2pWq8\n  # one\n- hV4mB9cQ1sXe6Ty\n",
        "password:  # memidx: allow-secret\n  {value: Zk9xQ7mL2pWq8}\n",
    ],
)
def test_an_allow_marker_on_a_keys_line_allows_the_value_below_it(text: str) -> None:
    """As it allows a value on the key's line: the block below was still refused."""
    assert find_secrets(text, allow=True) == []
    assert find_secrets(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "password: |  # memidx: allow-secret\n  Zk9xQ7mL2pWq8\ntoken: |\n  Zk9xQ7mL2pWq8x\n",
        "password:  # memidx: allow-secret\n  Zk9xQ7mL2pWq8\n  token: Zk9xQ7mL2pWq8x\n",
        "creds:  # memidx: allow-secret\n  password: Zk9xQ7mL2pWq8x\n",  # a mapping: no value
        "password: |  # memidx: allow-secret\n  x\napi_key: Zk9xQ7mL2pWq8x\n",  # a key after
        # a list item's sibling key: the item's keys stand after its dash, past its indent
        "- password: |  # memidx: allow-secret\n    x\n  api_key: Zk9xQ7mL2pWq8x\n",
        "env:\n  - password:  # memidx: allow-secret\n      x\n    api_key: Zk9xQ7mL2pWq8x\n",
        # less indented than the block's first line, more than its key: the block has ended
        "a:\n  password: |  # memidx: allow-secret\n      x\n    api_key: Zk9xQ7mL2pWq8x\n",
        "password: |  # memidx: allow-secret\n  x\n\u3000api_key: Zk9xQ7mL2pWq8x\n",  # no indent
        "password: |  # memidx: allow-secret\n  x\n\tapi_key: Zk9xQ7mL2pWq8x\n",
        # keys below a plain key: a list of mappings, a key with a space
        "password:  # memidx: allow-secret\n  - api_key: Zk9xQ7mL2pWq8x\n",
        "password:  # memidx: allow-secret\n  db api_key: Zk9xQ7mL2pWq8x\n",
        "password:  # memidx: allow-secret\n  - Zk9xQ7mL2pWq8\ntoken:\n- Zk9xQ7mL2pWq8x\n",
        # a list's item that is a mapping: its keys are no value of the key above the list
        "passwords:  # memidx: allow-secret\n  - Zk9xQ7mL2pWq8\n  - name: db\n"
        "    api_key: Zk9xQ7mL2pWq8x\n",
    ],
)
def test_an_allow_marker_on_a_keys_line_allows_nothing_past_its_value(text: str) -> None:
    found = find_secrets(text, allow=True)
    assert [text[f.start : f.end] for f in found] == ["Zk9xQ7mL2pWq8x"], text


def test_allow_marked_keys_nested_in_a_block_are_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each marked key alone read its block to its end: nested ones read every line below
    them again, quadratic in a long transcript of them."""
    from memidx.secrets import allowed
    from memidx.secrets.patterns import allowed_lines

    read: list[str] = []

    def counted(text: str) -> str:
        read.append(text)
        return text

    monkeypatch.setattr(allowed, "plain_quotes", counted)
    text = "".join(" " * depth + "k: |  # memidx: allow-secret\n" for depth in range(500))
    spans = allowed.allowed_values(text, allowed_lines(text))
    assert spans[0] == (0, len(text) - 1)  # the first key's block holds all the others
    assert len(read) <= 2 * 500


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("password = DB_PASSWORD\n", []),
        ("token: auth_token\n", []),
        ("const secret = process.env.X || clientSecret;\n", []),
        ("password: correctHorseBattery\n", ["correctHorseBattery"]),  # a passphrase
        ("POSTGRES_PASSWORD: SuperSecret\n", ["SuperSecret"]),  # no variable's way of naming
        ("token = authToken2x\n", ["authToken2x"]),  # a digit: no variable's name of words
        ("api_key = ZkxqWpLmRtYuNv\n", ["ZkxqWpLmRtYuNv"]),  # letters, none a secret word
    ],
)
def test_a_variable_named_after_a_secret_is_no_secret(line: str, found: list[str]) -> None:
    """Code gives a secret's key the variable holding it: `password = DB_PASSWORD`, mixed
    characters and entropy enough, was refused as a secret."""
    assert [line[f.start : f.end] for f in find_secrets(line, allow=True)] == found


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("The staging DB (password: Zk9xQ7mL2pWq8) is shared.\n", ["Zk9xQ7mL2pWq8"]),
        ("Log in as admin (password=Zk9xQ7mL2pWq8).\n", ["Zk9xQ7mL2pWq8"]),
        ("login(user, password=Zk9xQ7mL2pWq8)\n", ["Zk9xQ7mL2pWq8"]),  # as before a `,`
        ("login(password=getpass.getpass())\n", []),  # a call's own parentheses
        ("secret = get_secret(name)\n", []),
        ("(token: ${API_TOKEN})\n", []),
    ],
)
def test_a_value_a_parenthesis_closes_is_read_without_it(line: str, found: list[str]) -> None:
    """A value in parentheses was read with the `)` that closes them, a reference by it: a
    password in a parenthesis of prose went into the commit."""
    assert [line[f.start : f.end] for f in find_secrets(line, allow=True)] == found

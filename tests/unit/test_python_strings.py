"""A Python string given to a secret-sounding name is read as a plain quoted value: with its
prefix (`b"..."`, `r'...'`, `f"..."`) or in tripled quotes (`'''...'''`, `\"\"\"...\"\"\"`, or
left open at its line's end). The keyword rules, asking for one quote right after the sign,
let them through where `password = "v4lue"` was refused."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from memidx.secrets.quotes import python_strings
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        f'password = b"{VALUE}"',  # Flask's SECRET_KEY is often bytes
        f"SECRET_KEY = b'{VALUE}'",
        f'password = r"{VALUE}"',
        f'password = f"{VALUE}"',
        f"api_key = rb'{VALUE}'",
        f'{{"password": u"{VALUE}"}}',
        f"password = '''{VALUE}'''",
        f'API_KEY = """{VALUE}"""',
        f"password = '''{VALUE}",  # left open at its line's end
        f'token = """{VALUE}\r\nnext line',
        f'connect(password=b"{VALUE}")',
        f'password   =   b"{VALUE}"',  # aligned: more than one space after the sign
        f"SECRET_KEY =\tb'{VALUE}'",
    ],
)
def test_a_python_string_given_a_secret_name_is_found(text: str) -> None:
    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        'password = b"changeme"',
        'password = f"{prefix}-{suffix}"',
        'TOKEN_RE = r"ghp_[A-Za-z0-9]{36}"',  # a pattern, no token
        'password = r"${DB_PASSWORD}"',
        '"""Return the token the password gives."""',  # a docstring
        'secret = """',  # a block opened, its value below
        f"the keyword b'{VALUE}' is a word",  # no assignment
    ],
)
def test_a_placeholder_a_pattern_or_prose_in_python_strings_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_reading_python_strings_moves_nothing() -> None:
    text = f"x = 1\npassword = rb'''{VALUE}'''\ntoken = \"\"\"{VALUE}\n"

    read = python_strings(text)

    assert read == f"x = 1\npassword =     '{VALUE}'  \ntoken =   \"{VALUE}\n"
    assert len(read) == len(text)
    assert python_strings("no strings here") == "no strings here"
    assert python_strings('<a href="?a=A&b=B">') == '<a href="?a=A&b=B">'  # a value, `B`


@pytest.mark.parametrize("unit", ["'''", "=b", "password = '''ab", "=   "])
def test_reading_python_strings_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (1_000, 16_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    "text",
    [
        f"SECRET_KEY = B'{VALUE}'",  # a prefix in capitals, as Python allows
        f'password = R"{VALUE}"',
        f'password = F"{VALUE}"',
        f"api_key = RB'{VALUE}'",
        f"api_key = Rb'{VALUE}'",
        f'connect(password=U"{VALUE}")',
    ],
)
def test_a_python_string_with_a_prefix_in_capitals_is_found(text: str) -> None:
    """`B'...'`, `R"..."`, `F"..."`, `RB'...'` were let through where `b'...'` was refused."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == [VALUE]


def test_a_one_letter_value_in_capitals_before_a_closing_quote_is_no_prefix() -> None:
    assert python_strings('<a href="?a=A&b=B">') == '<a href="?a=A&b=B">'
    assert python_strings('<a href="?b=B" class="x">') == '<a href="?b=B" class="x">'


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f'password = """\n{VALUE}\n"""', [VALUE]),
        (f"SECRET_KEY = b'''\n    {VALUE}'''\nDEBUG = True", [VALUE]),
        (f'API_KEY = R"""\r\n{VALUE}\r\n"""\r\n', [VALUE]),
        (f'client = Client(token="""\n{VALUE}""")', [VALUE]),
        ('settings.password = """\n  Zq8vN3k\n  Lp2Rt7Wx\n"""', ["Zq8vN3k", "Lp2Rt7Wx"]),
    ],
)
def test_a_value_in_tripled_quotes_below_its_name_is_found(text: str, found: list[str]) -> None:
    """A string in tripled quotes whose text starts on the next line was let through."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == found


@pytest.mark.parametrize(
    "text",
    [
        'secret = """\nThe secret the app signs requests with.\n"""',  # prose
        'password = """\n${DB_PASSWORD}\n"""',
        f'def password():\n    """\n    {VALUE}\n    """',  # a docstring, no value
        f'password = """\n{VALUE}',  # never closed
        f'password = """\n{VALUE}""" + suffix',  # more than a value
        f'message = """\n{VALUE}\n"""',  # no secret-sounding name
    ],
)
def test_prose_or_a_placeholder_in_tripled_quotes_below_a_name_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("unit", ['password = """\n', 'password = """\na\n', "=B'", "=B'a"])
def test_reading_tripled_quotes_below_a_name_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (6_000, 100_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"

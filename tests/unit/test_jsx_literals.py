"""JSX's string literal in braces given to a secret-sounding prop (`apiKey={"v4lue"}`) is read as
a quoted value: its braces made it a reference, and it was let through where `apiKey="v4lue"`
was refused. A variable, an expression or a template with `${` stays a reference."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from memidx.secrets.quotes import jsx_literals
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        f'<GoogleMap apiKey={{"{VALUE}"}} />',
        f"<Stripe secretKey={{`{VALUE}`}} />",
        f"<input name=\"password\" value={{'{VALUE}'}} />",
        f'password = {{"{VALUE}"}}',
        f'<GoogleMap apiKey={{ "{VALUE}" }} />',  # spaces inside the braces, as typed by hand
        f"<Stripe secretKey={{\t'{VALUE}'  }}/>",
    ],
)
def test_a_braced_literal_given_a_secret_name_is_found(text: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        '<input name="password" value={password} />',
        "<X token={`${prefix}${suffix}abcdef`} />",
        '<X apiKey={"changeme"} />',
        '<X apiKey={process.env.MAPS_KEY} onLoad={() => setKey("x")} />',
    ],
)
def test_a_variable_or_a_placeholder_in_braces_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_reading_braced_literals_moves_nothing() -> None:
    text = f'a\n<X apiKey={{"{VALUE}"}} />\n'

    assert jsx_literals(text) == f'a\n<X apiKey= "{VALUE}"  />\n'
    assert jsx_literals("no braces") == "no braces"
    assert jsx_literals(f'<X apiKey={{  "{VALUE}" }} />') == f'<X apiKey=   "{VALUE}"   />'


@pytest.mark.parametrize("unit", ['={"', "={'ab", "= {`a`", "={ ", '={ "a" '])
def test_reading_braced_literals_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (1_000, 16_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"

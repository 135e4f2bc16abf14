"""The values XML gives secret-sounding names with no assignment sign: an element's text, one
a `name`/`key` attribute names, and a `value` attribute beside such a name. Placeholders,
empty elements and prose pass, as in every other form."""

from __future__ import annotations

import pytest

from memidx.secrets import library
from memidx.secrets.detect import find_secrets, redact_text
from memidx.secrets.markup import STEMS
from memidx.secrets.windows import secret_word
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        f"<password>{VALUE}</password>",
        f"<apiKey>{VALUE}</apiKey>",
        f"<db:password>{VALUE}</db:password>",  # a namespace's prefix
        f"<password>\n    {VALUE}\n  </password>",  # pretty-printed
        f"<password><![CDATA[{VALUE}]]></password>",
        f'<add key="ApiKey" value="{VALUE}"/>',  # .NET's appSettings
        f'<add key="ApiKey" value="{VALUE}" />',
        f"<property name='password' value='{VALUE}'/>",  # Spring
        f'<entry name="token">{VALUE}</entry>',
        f'<entry key="db.password">{VALUE}</entry>',  # Java's XML properties
        f'<datasource user="app" password="{VALUE}"/>',  # an attribute: the keyword rules'
        f'<password value="{VALUE}"/>',
        f'<input type="password" name="password" value="{VALUE}">',
        f"<settings><password>{VALUE}</password><port>5432</port></settings>",
    ],
)
def test_a_value_xml_names_secret_is_found(text: str) -> None:
    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [VALUE]
    assert redact_text(text).text == text.replace(VALUE, "[REDACTED:secret-assignment]")


@pytest.mark.parametrize(
    "text",
    [
        "<password>${DB_PASS}</password>",
        "<password>changeme</password>",
        "<password></password>",
        "<password/>",
        "<password>***</password>",
        "<apiKey><your-api-key></apiKey>",
        '<add key="ApiKey" value="${API_KEY}"/>',
        '<add key="ApiKey" value=""/>',
        '<input type="password" name="password" value="">',
        f'<username value="{VALUE}"/>',
        f'<add key="Timeout" value="{VALUE}"/>',  # no secret-sounding name
        f"<username>{VALUE}</username>",
        f"<password>{VALUE}</username>",  # not one element
        "Set the <password> element to the database password in config.xml.",
        f"<password>a few words {VALUE}</password>",  # prose, not a value
    ],
)
def test_a_placeholder_an_empty_element_or_prose_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "unit",
    [
        "<password>",
        '<a b="x',
        '<add key="token" value="a"/>',
        "<a b ",
        "<a b={c ",
        "<a b=c ",
        "<a b=/c/ ",
        "<password>\na\n",  # a wrapped value's lines, read to the next `<`
        "<password>\nab\n</password>",
    ],
)
def test_reading_tags_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (1_000, 16_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    "text",
    [
        f'<meta-data android:name="io.fabric.ApiKey" android:value="{VALUE}"/>',
        f'<meta-data\n  android:name="com.facebook.sdk.ClientToken"\n  android:value="{VALUE}" />',
        f'<add x:key="ApiKey" x:value="{VALUE}"/>',
    ],
)
def test_a_value_a_prefixed_name_names_secret_is_found(text: str) -> None:
    """Android's manifest names a value with `android:name` and gives it in `android:value`:
    only an unprefixed `name`/`key` and `value` were read, and an SDK's key was let through."""
    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        '<meta-data android:name="com.facebook.sdk.ClientToken" android:value="@string/token"/>',
        '<string name="api_key">@string/maps_api_key</string>',  # a resource: a reference
        '<string name="token">@android:string/ok</string>',
        f'<meta-data android:name="com.example.Timeout" android:value="{VALUE}"/>',
        f'<meta-data android:name="io.fabric.ApiKey" tools:value="{VALUE}"/>',  # another prefix
    ],
)
def test_a_prefixed_value_of_no_secret_name_or_a_reference_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f'<input type="password" name="password" required value="{VALUE}">',  # HTML's bare one
        f'<input type="password" name="password" value="{VALUE}" disabled>',
        f'<input name="password" onChange={{setPassword}} value="{VALUE}" />',  # JSX's braces
        f"<input type=password name=password value={VALUE}>",  # HTML's unquoted values
        f"<password required>{VALUE}</password>",
        f'<input name=api_key value="{VALUE}" data-url=/api/keys>',  # a `/` unquoted: unread
        f"<input name=password value={VALUE}/>",  # `/>` closes it, the value is before
    ],
)
def test_a_value_in_a_tag_with_a_bare_braced_or_unquoted_attribute_is_found(text: str) -> None:
    """A start tag was read only when every attribute was `name="..."`: one `required`, JSX's
    `onChange={f}` or HTML's `value=v4lue` left the whole tag unread, its value let through."""
    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        '<input type="password" name="password" value={password} required />',
        "<Field name='password' component={PasswordInput} />",
        '<input type=password name=password value="" autofocus>',
        f"<input type=password name=username value={VALUE}>",  # no secret-sounding name
    ],
)
def test_a_braced_an_empty_or_an_unnamed_value_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_every_secret_sounding_word_holds_a_stem_markup_looks_for() -> None:
    """markup reads a tag's names only when it holds a stem: a word with none was unread."""
    words = [*library.keyword_words(), "token", "credential", "access_key", "bearer", "_pass"]
    words += ["pass", "login_pw", "auth"]

    assert all(any(stem in word for stem in STEMS) for word in words), words
    assert all(secret_word(word.replace("_?", "_")) for word in words)


KEY_LINES = ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("<privateKey>\n  {0}\n  {1}\n</privateKey>", list(KEY_LINES)),
        ("<password>\r\n  {0}\r\n  {1}\r\n</password>", list(KEY_LINES)),  # CRLF
        ("<password>{0}\n{1}</password>", list(KEY_LINES)),
        ("<password>\n  s3cr3t\n  V4lue9Zq\n</password>", ["s3cr3t", "V4lue9Zq"]),  # one value
    ],
)
def test_a_value_wrapped_over_several_lines_of_an_element_is_found(
    text: str, found: list[str]
) -> None:
    """Element text over several lines (a key in base64, wrapped) was let through: only a
    run alone between the tags or on one line of its own was read. Each line is masked."""
    text = text.format(*KEY_LINES)

    assert [text[f.start : f.end] for f in find_secrets(text)] == found


@pytest.mark.parametrize(
    "text",
    [
        "<password>\n  Enter your\n  password here\n</password>",  # prose
        "<password>\n  ${DB_PASS}\n  \n</password>",
        "<password>\n  abc\n  def\n</password>",  # too short as a whole
        f"<password>\n  {KEY_LINES[0]}\n  {KEY_LINES[1]}\n</secret>",  # another element closes
        f"<password>\n  {KEY_LINES[0]}\n  <b>{KEY_LINES[1]}</b>\n</password>",  # markup within
    ],
)
def test_wrapped_prose_or_a_placeholder_in_an_element_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f'<meta name="csrf-token" content="{VALUE}">',  # Rails', Laravel's page head
        f'<META NAME="csrf-token" CONTENT="{VALUE}">',
        f"<meta name='secret' content='{VALUE}' />",
        f'<meta content="{VALUE}" name="csrf-token">',
    ],
)
def test_the_content_of_a_meta_tag_named_secret_is_found(text: str) -> None:
    """`<meta name="csrf-token" content="...">` was let through: only `value` was read."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        '<meta name="csrf-param" content="authenticity_token">',
        '<meta name="csrf-token" content="{{ csrf_token() }}">',  # a template
        '<meta name="csrf-token" content="<%= form_authenticity_token %>">',
        f'<meta name="description" content="{VALUE}">',
        '<meta property="og:title" content="Reset your password">',
        f'<div name="token" content="{VALUE}"></div>',  # `content` is `<meta>`\'s only
    ],
)
def test_a_meta_tag_naming_no_secret_or_holding_a_template_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []

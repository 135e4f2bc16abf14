"""memidx's Codex block read a key at a time (memidx/agents/codex_block.py), pure: what it
costs on a block that is no TOML."""

from __future__ import annotations

import tomllib
from collections.abc import Callable

import pytest

from memidx.agents.codex_block import added_to_block
from memidx.agents.text_install import BEGIN, END
from tests.cpu_cost import least_ratio

HEAD = '[mcp_servers.memidx]\ncommand = "/clone/.venv/bin/memidx"\nargs = ["mcp"]\n'


def test_broken_lines_in_memidx_block_cost_one_parse_each() -> None:
    """Each line that is no TOML was tried with every run of lines after it: 800 such lines
    took 9 s (1,000 took about 18), cubic, at every install and uninstall."""
    broken, fewer = ("".join(f"key{n} =\n" for n in range(lines)) for lines in (1000, 250))
    text = f"{BEGIN}\n{HEAD}{broken}{END}\n"

    # 4x the lines take ~4x the CPU time of the fewer parsed just before, cubic ~64x (a ratio,
    # not seconds: a slower machine or a busy neighbour slows both)
    least, ratios = least_ratio(
        lambda: added_to_block(text),
        lambda: added_to_block(f"{BEGIN}\n{HEAD}{fewer}{END}\n"),
        below=16,
        runs=1,
    )

    assert least < 16, f"4x the lines took {ratios}x the time"
    assert added_to_block(text) == broken


def test_lines_opening_an_array_that_never_closes_cost_one_parse_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each line opening an array (or multi-line string) that never closed was tried with
    every run of lines after it, to the block's end: 200 such lines took 0.9 s, 400 took 7."""
    opened = "".join(f"key{n} = [\n" for n in range(300))
    text = f"{BEGIN}\n{HEAD}{opened}{END}\n"
    parses: list[str] = []
    loads = tomllib.loads

    def counted(doc: str) -> dict[str, object]:
        parses.append(doc)
        return loads(doc)

    monkeypatch.setattr(tomllib, "loads", counted)

    added = added_to_block(text)

    assert added == opened
    assert len(parses) < 4 * 300


def _array_reader(lines: int) -> Callable[[], object]:
    """Reading memidx's block holding one array of `lines` lines."""
    array = "env_vars = [\n" + "".join(f'  "V{n}",\n' for n in range(lines)) + "]\n"
    text = f"{BEGIN}\n{HEAD}{array}{END}\n"
    assert added_to_block(text) == array
    return lambda: added_to_block(text)


def test_one_long_array_in_memidx_block_is_read_in_linear_time() -> None:
    """Each run of lines from the array's first was parsed until one read as TOML: quadratic,
    1,000 lines took 2.9 s and 4,000 took 50 s at every install, uninstall and status. Linear
    takes about 16x the time for 16x the lines; quadratic, 256x."""
    least, ratios = least_ratio(_array_reader(2_000), _array_reader(125), below=64, runs=5)
    assert least < 64, f"16x the lines took {ratios}x the time"


def _unclosed_reader(lines: int, line: str = "  1, [\n") -> Callable[[], object]:
    """Reading memidx's block holding `x = [` and `lines` lines like `line`, none of which
    ever closes."""
    opened = "x = [\n" + line * lines
    text = f"{BEGIN}\n{HEAD}{opened}{END}\n"
    assert added_to_block(text) == opened
    return lambda: added_to_block(text)


def test_lines_no_toml_starts_with_are_read_in_linear_time() -> None:
    """Each line like `  1, [` (no key, no table header) was read to the block's end for the
    bracket it opened: quadratic, 1,000 lines took 0.27 s, 4,000 took 4.5 s. Linear takes
    about 16x the time for 16x the lines; quadratic, 256x."""
    least, ratios = least_ratio(_unclosed_reader(4_000), _unclosed_reader(250), below=64, runs=5)
    assert least < 64, f"16x the lines took {ratios}x the time"


def _reads_tables_over_lines() -> bool:
    try:
        return tomllib.loads("a = {\n}\n") == {"a": {}}
    except tomllib.TOMLDecodeError:
        return False


@pytest.mark.skipif(_reads_tables_over_lines(), reason="this tomllib reads TOML 1.1")
@pytest.mark.parametrize("line", ["a = [{\n", "a = [{b = 1,\n"])
def test_keys_opening_an_inline_table_never_closed_are_read_in_linear_time(line: str) -> None:
    """Each `a = [{` line was read to the block's end, since a `=` in an inline table is
    TOML: quadratic, 2,000 lines 2.9 s, 4,000 about 12. TOML 1.0 (tomllib before TOML 1.1)
    reads no inline table over several lines, so none is read past its first line's end."""
    least, ratios = least_ratio(
        _unclosed_reader(4_000, line), _unclosed_reader(250, line), below=64, runs=5
    )
    assert least < 64, f"16x the lines took {ratios}x the time"


@pytest.mark.parametrize("line", ['a = \\"""\n', '"k" = 1\\"""\n'])
def test_key_lines_with_a_backslash_out_of_strings_are_read_in_linear_time(line: str) -> None:
    """`a = \\\"""` opened a multi-line string the next such line never closed (`\\"` is an
    escape in it), so each was read to the block's end: quadratic, 800 lines 0.27 s, 4,000
    about 7. No TOML has a backslash out of a string: such lines are read once."""
    least, ratios = least_ratio(
        _unclosed_reader(4_000, line), _unclosed_reader(250, line), below=64, runs=5
    )
    assert least < 64, f"16x the lines took {ratios}x the time"

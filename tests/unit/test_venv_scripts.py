"""pip's sh form of a script, requoted so that sh reads the interpreter's path literally."""

from __future__ import annotations

import shlex

import pytest

from memidx.cli.venv_scripts import requoted

BODY = "' '''\nimport sys\nprint(sys.argv)\n"


def pips_script(python: str, *, quoted: bool = True) -> str:
    """What pip (distlib) writes for an interpreter path with a space, or too long for `#!`."""
    name = f'"{python}"' if quoted else python
    return f"#!/bin/sh\n'''exec' {name} \"$0\" \"$@\"\n" + BODY


@pytest.mark.parametrize(
    "python",
    [
        "/tmp/my $HOME memidx/.venv/bin/python",
        "/tmp/x #1 %2 'q' \"d\" `b`/.venv/bin/python",
        "/tmp/two '' quotes/.venv/bin/python",
    ],
)
@pytest.mark.parametrize("quoted", [True, False])
def test_the_exec_line_names_the_interpreter_in_single_quotes(python: str, quoted: bool) -> None:
    text = requoted(pips_script(python, quoted=quoted), python)
    assert text is not None
    head, line, rest = text.split("\n", 2)
    assert head == "#!/bin/sh" and rest == BODY
    assert shlex.split(line) == ["exec", python, "$0", "$@"]  # sh reads the path as it is
    compile(text, "memidx", "exec")  # and Python still reads the line as one string


@pytest.mark.parametrize(
    "script",
    [
        "#!/tmp/clone/.venv/bin/python\nimport sys\n",  # a #! line: the kernel reads it as is
        pips_script("/tmp/other clone/.venv/bin/python"),  # another interpreter's script
        "#!/bin/sh\necho hello\n",  # not pip's
        requoted(pips_script("/tmp/my $HOME/.venv/bin/python"), "/tmp/my $HOME/.venv/bin/python"),
    ],
)
def test_any_other_script_is_left_as_it_is(script: str | None) -> None:
    assert script is not None
    assert requoted(script, "/tmp/my $HOME/.venv/bin/python") is None

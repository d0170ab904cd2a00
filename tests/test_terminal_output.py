"""Nothing raw reaches the terminal: terminal controls in a source line, a file name or a
noqa comment are left out of the human outputs (gpulint's own colours stay), and the
machine formats keep the text as it is, escaped their own way."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import write

#: A window title and a hyperlink (OSC, ended by BEL), a screen clear (CSI),
#: a C1 control and a backspace, written raw in a source file.
HOSTILE = (
    "import pandas as pd\n"
    "\n"
    "def f(sales: pd.DataFrame) -> list:\n"
    '    out = ["\x1b]0;pwned\x07", "\x1b]8;;http://x\x07link\x1b]8;;\x07"]\n'
    '    title = "\x1b]0;t\x07"; rows = [r for _, r in sales.iterrows()]  # \x1b[2J\x9b\x08hidden\n'
    "    return out\n"
)
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def no_colour(monkeypatch):
    for name in ("GPULINT_OUTPUT_FORMAT", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("output_format", ["full", "concise"])
def test_a_source_line_with_terminal_controls_prints_without_them(project, cli, no_colour, output_format):
    write(project / "sales.py", HOSTILE)
    for cached in ("--no-cache", "--jobs=1", "--jobs=1"):  # linted, stored, served from the cache
        run = cli("check", "--show-fixes", "--output-format", output_format, cached, "sales.py")
        assert run.code == 1
        assert not CONTROLS.search(run.stdout + run.stderr), run.stdout
    if output_format == "full":
        lines = run.lines
        shown = next(line for line in lines if line.startswith("5 |"))
        assert shown == '5 |     title = ""; rows = [r for _, r in sales.iterrows()]  # hidden'
        carets = lines[lines.index(shown) + 1]
        start = carets.index("^")
        assert shown[start : start + carets.count("^")] == "sales.iterrows()"
        assert '4 |     out = ["", "link"]' in lines


def test_colour_is_kept_and_only_gpulint_s(project, cli, no_colour, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    write(project / "sales.py", HOSTILE)
    run = cli("check", "sales.py")
    assert ANSI_COLOUR.search(run.stdout)
    assert not CONTROLS.search(ANSI_COLOUR.sub("", run.stdout))
    assert "[2J" not in run.stdout


def test_a_file_name_and_a_noqa_comment_print_without_terminal_controls(project, cli, no_colour):
    name = "sales\x1b]0;pwned\x07.py"
    write(
        project / name,
        "import pandas as pd\n\nfor _, r in pd.DataFrame().iterrows():  # noqa: GPU9\x1b[8m\n    print(r)\n",
    )
    for output_format in ("full", "concise"):
        run = cli("check", "--output-format", output_format, ".")
        assert run.code == 1
        assert "sales.py:" in run.stdout and "sales.py:3: unknown" in run.stderr
        assert not CONTROLS.search(run.stdout + run.stderr)
    # Machine formats keep the name as it is: JSON escapes it.
    report = json.loads(cli("check", "--output-format", "json", ".").stdout)
    assert report[0]["filename"].endswith(name)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b]0;title\x07b", "ab"),
        ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),
        ("x\x1b[2Jy\x1b[1;31mz\x1b[?25l", "xyz"),
        ("\x1b7saved\x1b(B\x1b8", "saved"),
        ("C1\x9b31m\x85 DEL\x7f", "C131m DEL"),
        ("cr\rover\x08written\x00", "croverwritten"),
        ("unterminated \x1b]0;title", "unterminated "),
        ("lone escape\x1b", "lone escape"),
        ("tab\tand\nnewline, é東😀", "tab\tand\nnewline, é東😀"),
    ],
)
def test_printable(raw, shown):
    from gpulint.output.terminal import printable

    assert printable(raw) == shown


def test_github_annotations_carry_no_terminal_controls():
    from gpulint.output.github import escape_data, escape_property

    assert escape_data("a\x1b]0;title\x07b\x1b[31mc%") == "abc%25"
    assert "\x1b" not in escape_property("x\x1b[2Jy:z")

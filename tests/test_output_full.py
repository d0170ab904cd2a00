"""The human-readable formats: `full` (the default: source lines, carets, `help:` lines,
fixes as diffs with --show-fixes), `concise` (one line a finding; `text` its former name),
colour only where wanted, and the summary (what --fix fixed, what could not be checked)."""

from __future__ import annotations

import io
import json
import re
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpulint.diagnostic import Diagnostic, Position
from gpulint.output.full import snippet, width
from gpulint.output.style import Style, wants_color
from gpulint.source import Source

from .conftest import ITERROWS, ITERROWS_DISPLAY_ONLY, ITERROWS_POSITION, write

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LINE, COL = ITERROWS_POSITION
CONCISE = (
    f"sales.py:{LINE}:{COL}: GPU102 `iterrows()` builds a Series per row; use a vectorized column "
    "expression (or `itertuples()`)"
)
#: Two safe fixes (GPU403, GPU304) and nothing else; both are preview rules, so the
#: project that lints them turns preview on (`PREVIEW_ON`).
PREVIEW_ON = "[tool.gpulint]\npreview = true\n"
SAFE_TWO = textwrap.dedent("""\
    import torch
    from sklearn.ensemble import RandomForestClassifier

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = RandomForestClassifier()
    for n in range(len(model.classes_)):
        print(torch.zeros(n).to(device))
""")


@pytest.fixture
def default_format(monkeypatch):
    """No format chosen anywhere (the suite otherwise asks for `concise`), no colour asked."""
    for name in ("GPULINT_OUTPUT_FORMAT", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)


def _block(lines: list[str], header: str) -> list[str]:
    """The lines of the finding whose first line starts with `header`, up to the blank line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    end = lines.index("", start)
    return lines[start:end]


# -- full ------------------------------------------------------------------------------------------


def test_full_is_the_default_with_source_line_carets_and_help(project, cli, default_format):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "sales.py")
    assert run.code == 1
    block = _block(run.lines, "GPU102")
    source_lines = ITERROWS.splitlines()
    assert block[0].startswith("GPU102 `iterrows()` builds a Series per row")
    assert block[1] == f" --> sales.py:{LINE}:{COL}"
    shown = [line for line in block if re.match(r"^\s*\d+ \|", line)]
    assert [line.split("|", 1)[1][1:] for line in shown] == source_lines[LINE - 2 : LINE + 1]
    carets = next(line for line in block if "^" in line)
    bar = carets.index("|") + 2
    assert carets.index("^") - bar == COL - 1
    assert carets.count("^") == len("sales.iterrows()")
    assert block[-1].startswith("help: replace the row loop")
    assert "Found 1 finding in 1 file." in run.lines  # the summary CI reads is unchanged
    assert not ANSI.search(run.stdout)  # not a terminal


def test_full_shows_a_display_only_suggestion_as_help(project, cli, default_format):
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    help_lines = [line for line in cli("check", "notify.py").lines if line.startswith("help: ")]
    assert len(help_lines) == 1 and "itertuples()" in help_lines[0]


def test_finding_without_suggestion_has_no_help_line(project, cli, default_format):
    write(project / "broken.py", "import pandas as pd\nvalue = (1,\n")
    run = cli("check", "broken.py")
    assert run.lines[0].startswith("GPU001")
    assert not any(line.startswith("help:") for line in run.lines)


def test_concise_and_its_former_name_text_give_one_line_a_finding(project, cli, default_format):
    write(project / "sales.py", ITERROWS)
    for name in ("concise", "text"):
        run = cli("check", "--output-format", name, "sales.py")
        assert run.lines[0] == CONCISE
        assert run.lines[1] == "Found 1 finding in 1 file."


def test_output_format_from_the_configuration_and_the_command_line_beats_it(project, cli, default_format):
    write(project / "sales.py", ITERROWS)
    write(project / "pyproject.toml", '[tool.gpulint]\noutput-format = "concise"\n')
    assert cli("check", "sales.py").lines[0] == CONCISE
    assert cli("check", "--output-format", "full", "sales.py").lines[1] == f" --> sales.py:{LINE}:{COL}"
    write(project / "pyproject.toml", '[tool.gpulint]\noutput-format = "json"\n')
    assert json.loads(cli("check", "sales.py").stdout)[0]["code"] == "GPU102"


def test_output_format_from_the_environment_beats_the_configuration(project, cli, default_format, monkeypatch):
    write(project / "sales.py", ITERROWS)
    write(project / "pyproject.toml", '[tool.gpulint]\noutput-format = "full"\n')
    monkeypatch.setenv("GPULINT_OUTPUT_FORMAT", "concise")
    assert cli("check", "sales.py").lines[0] == CONCISE


def test_bad_output_format_in_the_configuration_is_one_clear_error(project, cli, default_format):
    write(project / "sales.py", ITERROWS)
    write(project / "pyproject.toml", '[tool.gpulint]\noutput-format = "fancy"\n')
    run = cli("check", "sales.py")
    assert run.code == 2
    assert any("`output-format` must be one of full, concise" in line for line in run.errors)


def test_show_fixes_prints_each_fix_as_a_diff(project, cli, default_format):
    write(project / "model.py", SAFE_TWO)
    write(project / "pyproject.toml", PREVIEW_ON)
    plain = cli("check", "model.py").stdout
    run = cli("check", "--show-fixes", "model.py")
    assert "Safe fix" not in plain and "Safe fix" in run.stdout
    block = _block(run.lines, "GPU403")
    assert "5   |-model = RandomForestClassifier()" in block
    assert "  5 |+model = RandomForestClassifier(n_jobs=-1)" in block
    assert any(line.startswith("4 4 |") for line in block)  # the context, numbered
    assert "6 6 | for n in range(len(model.classes_)):" in block
    # An unsafe fix is shown too, saying how it is applied.
    write(project / "sales.py", ITERROWS)
    block = _block(cli("check", "--show-fixes", "sales.py").lines, "GPU102")
    assert any(line.startswith("Unsafe fix (`--fix --unsafe-fixes` applies it") for line in block)
    assert any(line.endswith('|+    out = (sales["price"] - sales["cost"]).tolist()') for line in block)


def test_fix_reports_what_it_fixed_per_rule_and_what_remains(project, cli, default_format):
    write(project / "model.py", SAFE_TWO)
    write(project / "pyproject.toml", PREVIEW_ON)
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--fix", "--show-fixes", "model.py", "sales.py")
    assert run.code == 1
    start = run.lines.index("Fixed 2 findings in 1 file:")
    assert run.lines[start + 1 : start + 4] == [
        "- model.py:",
        "    1 × GPU304 (tensor-created-on-host)",
        "    1 × GPU403 (estimator-without-n-jobs)",
    ]
    assert "Found 1 finding in 1 file (remaining)." in run.lines
    # Without --show-fixes: the counts only.
    write(project / "model.py", SAFE_TWO)
    lines = cli("check", "--fix", "model.py", "sales.py").lines
    assert "Fixed 2 findings in 1 file." in lines and "- model.py:" not in lines


def test_notebook_source_lines_come_from_the_cell(project, cli, default_format):
    cells = [
        ["import pandas as pd\n", "sales = pd.read_csv('s.csv')"],
        ["total = 0\n", "for _, row in sales.iterrows():\n", "    total += row['price']"],
    ]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
            for source in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write(project / "sales.ipynb", json.dumps(notebook, indent=1))
    block = _block(cli("check", "sales.ipynb").lines, "GPU102")
    assert block[1] == " --> sales.ipynb:cell 2:2:15"
    assert "2 | for _, row in sales.iterrows():" in block
    assert "1 | total = 0" in block


def test_paths_that_could_not_be_checked_are_repeated_in_the_summary(project, cli, default_format):
    write(project / "sales.py", ITERROWS)
    (project / "a.ipynb").write_text("{not json", encoding="utf-8")
    (project / "b.py").write_bytes(b"\xff\xfe\x00binary")
    run = cli("check", "a.ipynb", "sales.py", "b.py")
    assert run.code == 2
    last = run.lines[-1]
    assert last.startswith("2 files could not be checked: a.ipynb (not a notebook: invalid JSON")
    assert ", b.py (" in last
    assert run.lines.index("Found 1 finding in 1 file.") < len(run.lines) - 1


# -- colour ----------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "env, terminal, expected",
    [
        ({}, True, True),
        ({}, False, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # set but empty: not set
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": ""}, False, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),
        ({"TERM": "dumb"}, True, False),
    ],
)
def test_colour_only_where_wanted(env, terminal, expected):
    stream = _Terminal() if terminal else io.StringIO()
    assert wants_color(stream, env) is expected


def test_force_color_colours_and_no_color_does_not(project, cli, default_format, monkeypatch):
    write(project / "sales.py", ITERROWS)
    for name in ("full", "concise"):
        monkeypatch.setenv("NO_COLOR", "1")
        assert not ANSI.search(cli("check", "--output-format", name, "sales.py").stdout)
        monkeypatch.delenv("NO_COLOR")
        monkeypatch.setenv("FORCE_COLOR", "1")
        coloured = cli("check", "--output-format", name, "sales.py").stdout
        monkeypatch.delenv("FORCE_COLOR")
        assert ANSI.search(coloured)
        # Colour changes nothing but the codes.
        assert ANSI.sub("", coloured) == cli("check", "--output-format", name, "sales.py").stdout


# -- the snippet -----------------------------------------------------------------------------------


def _diagnostic(start: tuple[int, int], end: tuple[int, int]) -> Diagnostic:
    return Diagnostic("GPU102", "iterrows-loop", "m", Position(*start), Position(*end))


def _caret_columns(lines: list[str]) -> list[tuple[int, int]]:
    """(first column, count) of the carets on each caret line, relative to the text after the gutter."""
    found = []
    for line in lines:
        body = line.split("|", 1)[1][1:] if "|" in line else ""
        if "^" in body and not re.match(r"^\s*\d+ \|", line):
            found.append((body.index("^"), body.count("^")))
    return found


def test_carets_line_up_under_tabs_and_wide_characters():
    source = Source("x = 1\n\tnom = '東京'; f(nom)\n")
    line = source.line(2)
    start = line.index("f(nom)")
    lines = snippet(source, _diagnostic((2, start), (2, start + len("f(nom)"))))
    printed = next(line for line in lines if line.startswith("2 |"))[4:]
    assert "\t" not in printed
    assert _caret_columns(lines) == [(width(line[:start]), len("f(nom)"))]
    assert width(line[:start]) == printed.index("f(nom)") + 2  # the two wide characters take two columns each


def test_a_long_span_shows_its_first_and_last_lines():
    text = "".join(f"line_{n} = {n}\n" for n in range(1, 31))
    lines = snippet(Source(text), _diagnostic((5, 0), (20, 10)))
    numbers = [int(m.group(1)) for m in (re.match(r"^\s*(\d+) \|", line) for line in lines) if m]
    assert numbers[0] == 4 and numbers[-1] == 21
    assert 12 not in numbers
    assert any(line.strip() == "..." for line in lines)
    assert len(_caret_columns(lines)) == 2  # under the first line and under the last


def test_a_span_past_the_text_shows_no_snippet():
    assert snippet(Source("x = 1\n"), _diagnostic((9, 0), (9, 1))) == []


def test_style_leaves_text_alone_when_off():
    assert Style(False).paint("GPU102", "bold", "red") == "GPU102"
    assert Style(True).paint("GPU102", "bold", "red") == "\x1b[1;31mGPU102\x1b[0m"


def test_every_output_format_has_a_renderer():
    from gpulint.config import OUTPUT_FORMATS
    from gpulint.output import FORMATS, HUMAN, renderer

    assert set(OUTPUT_FORMATS) == set(FORMATS) | set(HUMAN)
    assert not set(FORMATS) & set(HUMAN)
    assert all(callable(renderer(name)) for name in FORMATS)


def test_diff_with_a_machine_format_configured_prints_the_diff(project, cli, default_format):
    write(project / "model.py", SAFE_TWO)
    write(project / "pyproject.toml", PREVIEW_ON + 'output-format = "json"\n')
    run = cli("check", "--diff", "model.py")
    assert run.code == 1
    assert "+model = RandomForestClassifier(n_jobs=-1)" in run.lines
    # Asked for on the command line, the combination stays an error.
    assert cli("check", "--diff", "--output-format", "json", "model.py").code == 2


def test_a_very_long_line_is_cut_around_the_span():
    prefix = "x = [" + "1, " * 400
    line = prefix + "frame.iterrows()" + ", 2" * 400 + "]"
    source = Source(f"import pandas as pd\n{line}\n")
    start = len(prefix)
    lines = snippet(source, _diagnostic((2, start), (2, start + len("frame.iterrows()"))))
    printed = next(text for text in lines if text.startswith("2 |"))[4:]
    assert printed.startswith("...") and printed.endswith("...") and len(printed) < 220
    [(column, count)] = _caret_columns(lines)
    assert printed[column : column + count] == "frame.iterrows()"


@pytest.mark.slow
def test_a_reader_that_stops_reading_gets_no_error(project):
    import os
    import subprocess

    from .conftest import GPULINT

    # More output than a pipe holds, so that writing meets the closed pipe.
    loops = "".join(ITERROWS.replace("def f(", f"def f{n}(").split("\n", 1)[1] for n in range(300))
    write(project / "sales.py", "import pandas as pd\n" + loops)
    env = {k: v for k, v in os.environ.items() if k != "GPULINT_OUTPUT_FORMAT"}
    process = subprocess.Popen(
        [GPULINT, "check", "--no-cache", "sales.py"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"GPU102")
    process.stdout.close()  # as `| head -1` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1
    assert "internal error" not in stderr and "Traceback" not in stderr


def test_a_result_without_its_text_shows_the_finding_without_lines():
    from gpulint.cache import LineMap
    from gpulint.output import full
    from gpulint.runner import FileResult

    d = _diagnostic((2, 0), (2, 3))
    for cell in (None, 1):
        # What a run keeps of a file once its output is written: no text, a notebook's line map.
        result = FileResult(
            display="x.ipynb",
            notebook=LineMap({}) if cell else None,
            diagnostics=[Diagnostic(d.code, d.name, d.message, d.start, d.end, cell=cell)],
        )
        lines = full.findings([result])
        assert lines[:2] == ["GPU102 m", f" --> x.ipynb:{'cell 1:' if cell else ''}2:1"] and lines[2] == ""


@given(text=st.text(alphabet=st.sampled_from("ab =\t\n\r\x0c\x00é東😀\u0301"), max_size=60), data=st.data())
def test_snippet_of_any_text_and_span_prints_no_control_characters(text: str, data: st.DataObject):
    source = Source(text)
    count = len(source.line_starts)
    first = data.draw(st.integers(1, count + 1))
    last = data.draw(st.integers(first, count + 1))
    start = data.draw(st.integers(0, len(source.line(first)) + 1))
    end = data.draw(st.integers(0 if last > first else start, len(source.line(last)) + 1))
    lines = snippet(source, _diagnostic((first, start), (last, end)))
    for line in lines:
        assert not any(ch in line for ch in "\t\n\r\x0c\x00"), line
    for column, count_ in _caret_columns(lines):
        assert column >= 0 and count_ >= 1

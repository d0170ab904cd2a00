"""Files written for a newer Python than the one gpulint runs on are linted, not reported as
syntax errors: PEP 695 (`type X = ...`, type parameters), PEP 701 (f-strings that reuse
their quotes, hold comments or backslashes) and PEP 750 (t-strings)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gpulint import fix_text, lint_source
from gpulint.newer_syntax import lowered
from gpulint.notebook import lint_cells

HEAD = "import pandas as pd\n\n"
ITERROWS = "for _, row in frame.iterrows():\n    total += row['price']\n"

NEWER = {
    "type statement": "type Frame = pd.DataFrame\n",
    "generic type statement": "type Pair[T] = tuple[T, T]\n",
    "generic function": "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    "generic class with a bound and a default": "class Box[T: int = int]:\n    pass\n",
    "f-string reusing its quotes": 'label = f"{frame["name"].iloc[0]}"\n',
    "f-string with a backslash": 'label = f"{"\\n".join(frame.columns)}"\n',
    "f-string with a comment across lines": 'label = f"{\n    frame["x"]  # the x column\n}"\n',
    "t-string": 'label = t"{frame!r} rows"\n',
    "nested f-strings reusing quotes": 'label = f"{f"{f"{1}"}"}"\n',
}


def _codes(source: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.start.line, d.start.col) for d in lint_source(source)]


@pytest.mark.parametrize("case", sorted(NEWER))
def test_newer_syntax_is_linted_with_its_findings_and_no_syntax_error(case):
    source = HEAD + NEWER[case] + "frame = pd.read_csv('sales.csv')\ntotal = 0\n" + ITERROWS
    lines_before = source.count("\n", 0, source.index("for _, row"))
    assert _codes(source) == [("GPU102", lines_before + 1, 14)]


def test_a_finding_after_a_lowered_string_on_the_same_line_keeps_its_column():
    source = HEAD + (
        'frame = pd.read_csv("a.csv")\nx = (f"{frame["a"]}", frame.apply(lambda r: r["a"] + r["b"], axis=1))\n'
    )
    [(code, line, column)] = _codes(source)
    assert (code, line) == ("GPU104", 4)
    assert source.splitlines()[line - 1][column:].startswith("frame.apply(")


def test_lowering_keeps_every_line_and_its_length():
    source = HEAD + "".join(NEWER.values())
    found = lowered(source)
    assert found is not None
    text = found[0]
    ast.parse(text)
    assert [len(line) for line in text.splitlines()] == [len(line) for line in source.splitlines()]


@pytest.mark.parametrize(
    "broken",
    [
        "def f(:\n    pass\n",
        "type = = 3\n",
        'x = f"{"\n',
        "class C[T](:\n    pass\n",
    ],
)
def test_code_no_python_accepts_is_still_a_syntax_error(broken):
    assert [code for code, _, _ in _codes(broken)] == ["GPU001"]


def test_a_notebook_cell_with_newer_syntax_is_linted():
    cells = [HEAD + "type Frame = pd.DataFrame\nframe = pd.read_csv('a.csv')\n", "total = 0\n" + ITERROWS]
    assert [d.code for cell in lint_cells(cells) for d in cell] == ["GPU102"]


def test_fixes_apply_in_a_file_with_newer_syntax_and_keep_it():
    source = HEAD + textwrap.dedent("""\
        type Frame = pd.DataFrame


        def margins[T](frame: Frame, tag: T) -> pd.Series:
            label = f"{frame["name"].iloc[0]}"
            return frame.apply(lambda r: r["price"] - r["cost"], axis=1)
        """)
    fixed = fix_text(source, unsafe_fixes=True)
    assert 'return frame["price"] - frame["cost"]' in fixed
    assert "type Frame = pd.DataFrame" in fixed and "def margins[T](" in fixed and 'f"{frame["name"]' in fixed


def test_target_version_reports_syntax_newer_than_it_and_checks_the_rest():
    from gpulint.config import Config

    source = (
        HEAD + NEWER["type statement"] + 'label = t"{1}"\n' + "frame = pd.read_csv('a.csv')\ntotal = 0\n" + ITERROWS
    )
    found = [
        (d.code, d.start.line, d.start.col, d.message)
        for d in lint_source(source, config=Config(target_version=(3, 12)))
    ]
    assert found[0] == ("GPU001", 4, 8, "t-string needs Python 3.14; `target-version` is py312")
    assert [code for code, *_ in found] == ["GPU001", "GPU102"]
    older = [(d.code, d.start.line) for d in lint_source(source, config=Config(target_version=(3, 11)))]
    assert older == [("GPU001", 3), ("GPU001", 4), ("GPU102", 7)]
    assert [d.code for d in lint_source(source)] == ["GPU102"]  # no target: any version


def test_target_version_is_read_from_pyproject_and_the_command_line(tmp_path):
    import pytest as _pytest

    from gpulint.config import ConfigError, load_config

    (tmp_path / "pyproject.toml").write_text('[tool.gpulint]\ntarget-version = "py311"\n')
    assert load_config(tmp_path / "pyproject.toml").target_version == (3, 11)
    (tmp_path / "pyproject.toml").write_text('[tool.gpulint]\ntarget-version = "3.11"\n')
    with _pytest.raises(ConfigError, match="target-version"):
        load_config(tmp_path / "pyproject.toml")


@pytest.mark.slow
def test_target_version_on_the_command_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "new.py").write_text("type Frame = dict\nx = 1\n")
    run = [sys.executable, "-m", "gpulint", "check", "--no-cache", "--output-format", "concise", "new.py"]
    assert subprocess.run(run, cwd=tmp_path, capture_output=True, text=True).returncode == 0
    old = subprocess.run([*run, "--target-version", "py311"], cwd=tmp_path, capture_output=True, text=True)
    assert old.returncode == 1
    assert "new.py:1:1: GPU001 `type` statement needs Python 3.12; `target-version` is py311" in old.stdout

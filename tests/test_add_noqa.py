"""`gpulint check --add-noqa`: a `# noqa: CODE` on every line with a finding, merged into
the comments already there, in files and notebook cells, keeping the file's bytes
otherwise; afterwards the check is clean, and a second run adds nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpulint import lint_source
from gpulint.add_noqa import noqa_edits
from gpulint.fixing import apply_edits
from gpulint.source import Source

from .conftest import CLEAN, ITERROWS, write

ROOT = Path(__file__).resolve().parent.parent
LOOP = "    for _, row in sales.iterrows():"
TWO = ITERROWS + "\n\ndef g(sales: pd.DataFrame):\n    return sales.apply(lambda r: r['a'] + 1, axis=1)\n"


def _added(text: str) -> str:
    """`text` with the comments --add-noqa adds (computed on the text itself)."""
    edits, unplaced = noqa_edits(text, lint_source(text, "sales.py"))
    assert unplaced == []
    return apply_edits(Source.from_text(text), edits)


def _codes(text: str) -> list[str]:
    return sorted(d.code for d in lint_source(text, "sales.py"))


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("", "  # noqa: GPU102"),
        ("  # noqa: E501", "  # noqa: E501, GPU102"),
        ("  # noqa:E501,W291", "  # noqa: E501, W291, GPU102"),
        ("  # noqa: E501 (long URL)", "  # noqa: E501, GPU102 (long URL)"),
        ("  # keep the loop readable", "  # keep the loop readable  # noqa: GPU102"),
        ("  # type: ignore  # noqa: E501", "  # type: ignore  # noqa: E501, GPU102"),
        ("  # noqa: GPU101", "  # noqa: GPU101, GPU102"),
        ("  # noqa:", "  # noqa: GPU102"),
        ("   ", "  # noqa: GPU102"),  # trailing blanks go
    ],
)
def test_comment_added_or_merged_on_the_finding_line(comment, expected):
    text = ITERROWS.replace(LOOP, LOOP + comment)
    fixed = _added(text)
    assert fixed == ITERROWS.replace(LOOP, LOOP + expected)
    assert _codes(fixed) == []
    assert _added(fixed) == fixed  # idempotent


def test_several_findings_on_one_line_get_one_sorted_list():
    text = (
        "import pandas as pd\n\ndef f(a: pd.DataFrame, b: pd.DataFrame):\n"
        "    return a.apply(lambda r: r['x'], axis=1), [r for _, r in b.iterrows()]\n"
    )
    assert _codes(text) == ["GPU102", "GPU104"]
    fixed = _added(text)
    assert fixed.splitlines()[3].endswith("]  # noqa: GPU102, GPU104")
    assert _codes(fixed) == []


def test_a_finding_starting_in_a_multi_line_string_gets_it_on_its_last_line():
    text = (
        "import pandas as pd\n\ndef f(df: pd.DataFrame):\n"
        "    return df.apply(lambda r: r['a'], axis=1, meta='''x\ny''')\n"
    )
    assert _codes(text) == ["GPU104"]
    fixed = _added(text)
    assert fixed.endswith("y''')  # noqa: GPU104\n")
    assert "'''x\n" in fixed  # nothing written inside the string
    assert _codes(fixed) == []


def test_a_formatted_call_prefers_the_line_with_a_code_list():
    text = (
        "import pandas as pd\n\ndef f(df: pd.DataFrame):\n"
        "    return df.apply(\n        lambda r: r['a'],\n        axis=1,\n    )  # noqa: E501\n"
    )
    fixed = _added(text)
    assert fixed.splitlines()[3] == "    return df.apply("
    assert fixed.splitlines()[6] == "    )  # noqa: E501, GPU104"
    assert _codes(fixed) == []


def test_no_comment_where_the_lines_end_inside_a_continuation():
    text = "import pandas as pd\n\ndef f(df: pd.DataFrame):\n    return df.apply(lambda r: r['a'], \\\naxis=1)\n"
    findings = lint_source(text, "sales.py")
    edits, unplaced = noqa_edits(text, findings)
    # the last line ends the statement: the comment goes there, never after the backslash
    assert [e.start.line for e in edits] == [5] and unplaced == []
    assert _codes(apply_edits(Source.from_text(text), edits)) == []
    assert noqa_edits("x = (\n", findings) == ([], findings)  # does not tokenize: nothing placed


# -- the command -------------------------------------------------------------------------------


def test_cli_adds_comments_reports_the_count_and_exits_0(project, cli):
    path = write(project / "sales.py", TWO)
    write(project / "clean.py", CLEAN)
    run = cli("check", "--add-noqa", ".")
    assert run.code == 0
    assert run.stdout == ""
    assert run.errors[-1] == "Added 2 noqa directives."
    assert path.read_text().count("# noqa: GPU") == 2
    assert (project / "clean.py").read_text() == CLEAN
    assert cli("check", ".").code == 0
    again = cli("check", "--add-noqa", ".")
    assert again.code == 0 and again.errors[-1] == "Added 0 noqa directives."
    assert cli("check", "--add-noqa", "--quiet", ".").stderr == ""


def test_cli_keeps_encoding_bom_and_line_endings(project, cli):
    utf8 = "# caf\xe9\n" + ITERROWS
    latin = "# -*- coding: latin-1 -*-\n" + utf8
    (project / "bom.py").write_bytes(b"\xef\xbb\xbf" + utf8.replace("\n", "\r\n").encode("utf-8"))
    (project / "latin.py").write_bytes(latin.replace("\n", "\r\n").encode("latin-1"))
    assert cli("check", "--add-noqa", ".").code == 0
    for name, text, encoding, bom in (("bom.py", utf8, "utf-8", b"\xef\xbb\xbf"), ("latin.py", latin, "latin-1", b"")):
        expected = text.replace(LOOP, LOOP + "  # noqa: GPU102").replace("\n", "\r\n").encode(encoding)
        assert (project / name).read_bytes() == bom + expected


def test_cli_respects_selection_and_exclusion(project, cli):
    path = write(project / "sales.py", TWO)
    write(project / "build" / "gen.py", TWO)
    cli("check", "--add-noqa", "--select", "GPU104", "--extend-exclude", "build/", ".")
    assert "# noqa: GPU104" in path.read_text() and "GPU102" not in path.read_text()
    assert (project / "build" / "gen.py").read_text() == TWO


def test_cli_leaves_syntax_errors_alone(project, cli):
    write(project / "broken.py", "def f(:\n")
    run = cli("check", "--add-noqa", "broken.py")
    assert run.code == 0 and run.errors[-1] == "Added 0 noqa directives."
    assert (project / "broken.py").read_text() == "def f(:\n"


def test_cli_adds_to_notebook_cells_and_keeps_magics(project, cli):
    source = shutil.copy(ROOT / "examples" / "store_sales.ipynb", project / "nb.ipynb")
    before = json.loads(Path(source).read_text())
    # a magic line in the cell with a finding must survive untouched
    for cell in before["cells"]:
        if cell["cell_type"] == "code" and any("iterrows" in line for line in cell["source"]):
            cell["source"].insert(0, "%time x = 1\n")
    Path(source).write_text(json.dumps(before, indent=1) + "\n")
    original = Path(source).read_text()
    run = cli("check", "--add-noqa", "nb.ipynb")
    assert run.code == 0 and run.errors[-1] == "Added 2 noqa directives."
    after = json.loads(Path(source).read_text())
    changed = [(b["source"], a["source"]) for b, a in zip(before["cells"], after["cells"], strict=False) if b != a]
    assert len(changed) == 2
    for old, new in changed:
        assert len(old) == len(new)
        assert (
            [n for o, n in zip(old, new, strict=False) if o != n][0]
            .rstrip("\n")
            .endswith(("# noqa: GPU102", "# noqa: GPU104"))
        )
    assert "%time x = 1\n" in [line for _, new in changed for line in new]
    # only the source strings changed: the file is the original with the comments in it
    assert Path(source).read_text().replace("  # noqa: GPU102", "").replace("  # noqa: GPU104", "") == original
    assert cli("check", "nb.ipynb").code == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--add-noqa", "--fix"], "--add-noqa cannot be combined with --fix"),
        (["--add-noqa", "--diff"], "--add-noqa cannot be combined with --diff"),
        (["--add-noqa", "--watch"], "--add-noqa cannot be combined with --watch"),
        (["--add-noqa", "-"], "--add-noqa works on files, not on standard input"),
    ],
)
def test_cli_refuses_what_does_not_go_with_it(project, cli, args, message):
    path = write(project / "sales.py", ITERROWS)
    run = cli("check", *args, "sales.py")
    assert run.code == 2
    assert message in run.stderr
    assert path.read_text() == ITERROWS


def test_cli_reports_a_file_it_cannot_write(project, cli):
    path = write(project / "sales.py", ITERROWS)
    path.chmod(0o444)
    try:
        run = cli("check", "--add-noqa", "sales.py")
    finally:
        path.chmod(0o644)
    assert run.code == 2
    assert any(
        line.startswith("error: sales.py: no noqa added: not written: file is read-only") for line in run.errors
    ), run.errors
    assert path.read_text() == ITERROWS


def test_cli_adds_to_a_statement_timed_with_time(project, cli):
    # the statement behind `%time` is linted: its comment goes on the magic's line
    cells = ["import pandas as pd\nsales = pd.read_csv('sales.csv')", "%time sales.apply(lambda r: r['a'] + 1, axis=1)"]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (project / "nb.ipynb").write_text(json.dumps(notebook))
    run = cli("check", "--add-noqa", "nb.ipynb")
    assert run.code == 0 and run.errors[-1] == "Added 1 noqa directive."
    after = json.loads((project / "nb.ipynb").read_text())
    assert after["cells"][1]["source"] == "%time sales.apply(lambda r: r['a'] + 1, axis=1)  # noqa: GPU104"
    assert cli("check", "nb.ipynb").code == 0

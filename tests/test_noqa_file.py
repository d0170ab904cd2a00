"""File-level suppressions: `# gpulint: noqa` and `# gpulint: noqa: CODES` on a line of
their own, anywhere in the file (ruff's `# ruff: noqa`), in notebooks in any cell."""

from __future__ import annotations

import json

import pytest

from gpulint import lint_source
from gpulint.notebook import lint_cells

from .conftest import ITERROWS, write

# Two findings of different rules: GPU102 (iterrows) and GPU104 (apply axis=1).
TWO = ITERROWS + "\n\ndef g(sales: pd.DataFrame):\n    return sales.apply(lambda r: r['a'] + 1, axis=1)\n"


def _codes(text: str) -> list[str]:
    return sorted(d.code for d in lint_source(text, "sales.py"))


def test_the_sample_has_two_findings():
    assert _codes(TWO) == ["GPU102", "GPU104"]


@pytest.mark.parametrize("where", ["top", "middle", "bottom", "indented"])
@pytest.mark.parametrize(
    "comment",
    [
        "# gpulint: noqa",
        "#gpulint:noqa",
        "# GPULINT: NOQA",
        "# gpulint : noqa",
        "# gpulint: noqa because the data is tiny",
    ],
)
def test_blanket_file_directive_anywhere_suppresses_every_finding(comment, where):
    lines = TWO.splitlines(keepends=True)
    if where == "top":
        text = comment + "\n" + TWO
    elif where == "bottom":
        text = TWO + comment + "\n"
    elif where == "middle":
        text = "".join(lines[:2]) + comment + "\n" + "".join(lines[2:])
    else:  # inside the function body, on a line of its own
        text = "".join(lines[:4]) + "    " + comment + "\n" + "".join(lines[4:])
    assert _codes(text) == []


@pytest.mark.parametrize(
    "comment, remaining",
    [
        ("# gpulint: noqa: GPU102", ["GPU104"]),
        ("# gpulint: noqa:GPU104", ["GPU102"]),
        ("# gpulint: noqa: GPU102, GPU104", []),
        ("# gpulint: noqa: E501, GPU104 (the frame is tiny)", ["GPU102"]),
        ("# gpulint: noqa: E501", ["GPU102", "GPU104"]),
    ],
)
def test_file_directive_with_codes_suppresses_only_those(comment, remaining):
    assert _codes(comment + "\n" + TWO) == remaining


def test_several_file_directives_add_up():
    assert _codes("# gpulint: noqa: GPU102\n" + TWO + "# gpulint: noqa: GPU104\n") == []
    assert _codes("# gpulint: noqa: GPU102\n" + TWO + "# gpulint: noqa\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "# noqa\n" + TWO,  # a line directive on its own line: that line only
        "# ruff: noqa\n" + TWO,  # another tool's file directive
        "# flake8: noqa\n" + TWO,
        "# gpulint: noqa-all\n" + TWO,
        "# gpulint: noqaGPU102\n" + TWO,
        "# gpulint is fine here, noqa\n" + TWO,
        TWO + 'label = """\n# gpulint: noqa\n"""\n',  # inside a string: not a comment
        TWO + 'label = "# gpulint: noqa"\n',
    ],
)
def test_near_misses_suppress_nothing(text):
    assert _codes(text) == ["GPU102", "GPU104"]


def test_after_code_it_suppresses_nothing_and_says_so(project, cli):
    write(project / "sales.py", TWO.replace("    out = []\n", "    out = []  # gpulint: noqa\n"))
    run = cli("check", "sales.py")
    assert run.code == 1
    assert "GPU102" in run.stdout and "GPU104" in run.stdout
    assert any(
        line.startswith("warning: sales.py:4: `# gpulint: noqa` after code suppresses nothing") for line in run.errors
    ), run.errors


@pytest.mark.parametrize(
    "comment, warning",
    [
        ("# gpulint: noqa:", "`# gpulint: noqa:` without codes"),
        ("# gpulint: noqa: GPU10x", "malformed code(s) in noqa directive: GPU10x"),
        ("# gpulint: noqa: GPU999", "unknown gpulint code(s) in noqa directive: GPU999"),
    ],
)
def test_malformed_file_directive_is_warned_and_never_blanket(project, cli, comment, warning):
    write(project / "sales.py", comment + "\n" + TWO)
    run = cli("check", "sales.py")
    assert run.code == 1
    assert "GPU102" in run.stdout and "GPU104" in run.stdout
    assert any(line.startswith("warning: sales.py:1: ") and warning in line for line in run.errors), run.errors


def test_cli_exits_0_on_a_file_suppressed_as_a_whole(project, cli):
    write(project / "sales.py", "# gpulint: noqa\n" + TWO)
    run = cli("check", "sales.py")
    assert run.code == 0 and run.stderr == ""


def test_file_directive_with_crlf_line_endings():
    assert _codes(("# gpulint: noqa: GPU104\n" + TWO).replace("\n", "\r\n")) == ["GPU102"]


# -- notebooks ---------------------------------------------------------------------------------

CELLS = [
    "import pandas as pd\nsales = pd.read_csv('s.csv')\n",
    "for _, row in sales.iterrows():\n    print(row['a'])\n",
    "sales.apply(lambda r: r['a'] + 1, axis=1)\n",
]


def _cell_codes(cells: list[str]) -> list[str]:
    return sorted(d.code for found in lint_cells(cells, "nb.ipynb") for d in found)


@pytest.mark.parametrize("cell", [0, 1, 2])
def test_notebook_file_directive_in_any_cell_applies_to_the_notebook(cell):
    assert _cell_codes(CELLS) == ["GPU102", "GPU104"]
    cells = list(CELLS)
    cells[cell] = "# gpulint: noqa\n" + cells[cell]
    assert _cell_codes(cells) == []
    cells = list(CELLS)
    cells[cell] = cells[cell] + "# gpulint: noqa: GPU104\n"
    assert _cell_codes(cells) == ["GPU102"]


def test_notebook_file_directive_from_the_command_line(project, cli):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
        for source in CELLS
    ]
    cells[0]["source"] = "# gpulint: noqa: GPU102\n" + CELLS[0]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write(project / "nb.ipynb", json.dumps(notebook))
    run = cli("check", "nb.ipynb")
    assert run.code == 1
    assert "GPU104" in run.stdout and "GPU102" not in run.stdout


def test_notebook_file_directive_in_a_cell_that_does_not_parse_still_applies():
    broken = "def f(:\n"
    assert _cell_codes([CELLS[0], broken, CELLS[1]]) == ["GPU001", "GPU102"]
    # in the broken cell, linted alone: it still exempts the other cells
    assert _cell_codes([CELLS[0], broken + "# gpulint: noqa: GPU102\n", CELLS[1]]) == ["GPU001"]
    # a blanket directive elsewhere silences the broken cell's syntax error too, as `# noqa` does
    assert _cell_codes(["# gpulint: noqa\n" + CELLS[0], broken, CELLS[1]]) == []


def test_notebook_directive_in_a_cell_run_by_another_language_is_not_python():
    bash = "%%bash\n# gpulint: noqa\necho hi\n"
    assert _cell_codes([CELLS[0], bash, CELLS[1]]) == ["GPU102"]


def test_notebook_fix_leaves_exempted_findings_alone():
    from gpulint.notebook import fix_cells

    cells = ["import numpy as np\n", "out = np.array([])\nfor i in range(steps):\n    out = np.append(out, i)\n"]
    fixed = fix_cells(cells, "nb.ipynb", unsafe_fixes=True)
    assert fixed != cells  # GPU202's fix applies...
    exempted = [cells[0], cells[1], "def g(:\n# gpulint: noqa: GPU202\n"]
    assert fix_cells(exempted, "nb.ipynb", unsafe_fixes=True) == exempted  # ...unless a cell exempts it


def test_notebook_file_directive_for_the_code_a_rule_was_split_from_covers_it():
    cells = [
        "import torch\nmodel = torch.nn.Linear(4, 1).cuda()\n",
        'for batch in range(10_000):\n    print(model(torch.randn(2, 4, device="cuda")).sum().item())\n',
    ]
    assert _cell_codes(cells) == ["GPU307"]
    assert _cell_codes([cells[0] + "# gpulint: noqa: GPU301\n", cells[1]]) == []
    assert _cell_codes([cells[0] + "# gpulint: noqa: GPU308\n", cells[1]]) == ["GPU307"]

"""Format 3 notebooks (IPython 1 and 2): cells kept in worksheets, a code cell's text in
`input`. They are linted like format 4, cells numbered as converting the file numbers them,
and fixes are written back into `input` with every other byte kept."""

from __future__ import annotations

import json

import pytest

from gpulint import all_rules
from gpulint.notebook import Notebook, NotebookError, _decode

nbformat = pytest.importorskip("nbformat")
v3 = pytest.importorskip("nbformat.v3")

MESSAGES = {rule.code: rule.message for rule in all_rules()}

FRAME = "import pandas as pd\nsales = pd.DataFrame({'price': [3.0, 5.0, 8.0] * 400, 'cost': [1.0, 2.0, 9.0] * 400})"
ITERROWS = "margins = []\nfor _, row in sales.iterrows():\n    margins.append(row['price'] - row['cost'])\nmargins"


def _course_notebook() -> str:
    """Two worksheets: a heading, markdown and code cells with outputs, as IPython 2 wrote them."""
    notebook = v3.new_notebook(
        worksheets=[
            v3.new_worksheet(
                cells=[
                    v3.new_heading_cell("Margins", level=1),
                    v3.new_code_cell(input=FRAME, prompt_number=1),
                ]
            ),
            v3.new_worksheet(
                cells=[
                    v3.new_text_cell("markdown", source="Row by row:"),
                    v3.new_code_cell(
                        input=ITERROWS,
                        prompt_number=2,
                        outputs=[v3.new_output("pyout", output_text="[2.0, 3.0, -1.0]", prompt_number=2)],
                    ),
                ]
            ),
        ]
    )
    return v3.writes_json(notebook)


def _converted_code_cells(text: str) -> list[tuple[int, str]]:
    """(number, source) of the code cells as Jupyter shows the notebook: converted to format 4."""
    cells = nbformat.reads(text, as_version=4).cells
    return [(number, cell.source) for number, cell in enumerate(cells, 1) if cell.cell_type == "code"]


def test_cells_are_numbered_across_worksheets_as_converting_the_file_numbers_them():
    text = _course_notebook()
    notebook = Notebook(text)
    assert [(cell.number, cell.text) for cell in notebook.cells] == _converted_code_cells(text)
    assert [cell.number for cell in notebook.cells] == [2, 4]


def test_a_format_3_notebook_is_linted_and_fixed_in_its_input(project, cli):
    text = _course_notebook()
    path = project / "course.ipynb"
    path.write_text(text, encoding="utf-8")

    run = cli("check", "course.ipynb")
    assert run.code == 1
    assert run.lines[0] == f"course.ipynb:cell 4:2:15: GPU102 {MESSAGES['GPU102']}"

    assert cli("check", "--fix", "--unsafe-fixes", "course.ipynb").code == 0
    after = path.read_text(encoding="utf-8")
    fixed = json.loads(after)
    assert fixed["nbformat"] == 3
    nbformat.validate(nbformat.reads(after, as_version=3), version=3)
    cell = fixed["worksheets"][1]["cells"][1]
    assert "iterrows" not in "".join(cell["input"]) and "source" not in cell
    # Only the fixed cell's `input` changed: the rest of the file is as it was.
    before = json.loads(text)
    before["worksheets"][1]["cells"][1]["input"] = cell["input"]
    assert fixed == before
    assert cli("check", "--fix", "--unsafe-fixes", "course.ipynb").code == 0
    assert path.read_text(encoding="utf-8") == after


def test_a_format_3_notebook_in_another_language_is_skipped(project, cli):
    notebook = v3.new_notebook(worksheets=[v3.new_worksheet(cells=[v3.new_code_cell(input="x <- 1", language="r")])])
    (project / "r.ipynb").write_text(v3.writes_json(notebook), encoding="utf-8")
    run = cli("check", "r.ipynb")
    assert run.code == 0
    assert run.errors == ["warning: r.ipynb: not a Python notebook (language: r); skipped"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"nbformat": 3}', "not a notebook: no `worksheets` list"),
        ('{"nbformat": 3, "worksheets": {}}', "not a notebook: `worksheets` is not a list"),
        ('{"nbformat": 3, "worksheets": [{"metadata": {}}]}', "not a notebook: worksheet 1 has no `cells` list"),
        (
            '{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "source": "x = 1"}]}]}',
            "not a notebook: the `input` of cell 1 is not text",
        ),
        ('{"nbformat": 2, "worksheets": []}', "notebook format 2 is not supported (3 and 4 are)"),
        # A format 4 notebook keeps its code in `source`, whatever else a cell holds.
        ('{"nbformat": 4, "cells": [{"cell_type": "code", "input": "x = 1"}]}', "the `source` of cell 1 is not text"),
    ],
)
def test_a_broken_format_3_notebook_gets_one_error_line(project, cli, content, message):
    (project / "old.ipynb").write_text(content, encoding="utf-8")
    with pytest.raises(NotebookError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Notebook(content)
    run = cli("check", "old.ipynb")
    assert run.code == 2 and len(run.errors) == 1 and message in run.errors[0]


def test_where_the_code_sits_is_found_in_one_pass_as_by_decoding_again():
    """The spans the decoding pass finds are those found by decoding the file again (what a
    notebook the pass cannot take falls back to), a repeated key keeping its last value."""
    text = _course_notebook()
    _, found = _decode(text)
    assert found is not None and found.cells == {}
    notebook = Notebook(text)
    fallback = Notebook(text)
    fallback._source_spans = None
    assert {c.number: notebook._span(c).span for c in notebook.cells} == {
        c.number: fallback._span(c).span for c in fallback.cells
    }
    assert all(text[begin:end].startswith("[") for begin, end in found.worksheets.values())

    repeated = (
        '{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": "x = 1"}],'
        ' "cells": [{"cell_type": "markdown", "source": "m"}, {"cell_type": "code", "input": "y = 2"}]},'
        ' {"cells": [{"cell_type": "code", "input": "z = 3"}]}]}'
    )
    notebook = Notebook(repeated)
    assert [(c.number, c.text) for c in notebook.cells] == [(2, "y = 2"), (3, "z = 3")]
    assert json.loads(notebook.with_sources({3: "w = 4"}))["worksheets"][1]["cells"][0]["input"] == "w = 4"


def test_a_format_3_notebook_whose_metadata_names_another_language_is_skipped(project, cli):
    """IJulia wrote the language in the notebook's metadata and "python" in every cell."""
    notebook = v3.new_notebook(
        worksheets=[v3.new_worksheet(cells=[v3.new_code_cell(input="function f(x)\n    return x^2\nend")])]
    )
    notebook.metadata["language"] = "Julia"
    (project / "julia.ipynb").write_text(v3.writes_json(notebook), encoding="utf-8")
    run = cli("check", "julia.ipynb")
    assert run.code == 0
    assert run.errors == ["warning: julia.ipynb: not a Python notebook (language: julia); skipped"]

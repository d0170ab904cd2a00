"""Jupyter notebooks: code cells linted as one program, positions per cell, IPython syntax
tolerated, fixes written back into the changed cells only, broken notebooks reported."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest


from gpulint import Applicability, all_rules, lint_source
from gpulint.config import Config
from gpulint.diagnostic import Edit, Fix, Position
from gpulint.fixing import apply_edits
from gpulint.ipython import mask_ipython, unmask_ipython
from gpulint.notebook import fix_cells, lint_cells
from gpulint.source import Source

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

MESSAGES = {rule.code: rule.message for rule in all_rules()}

IMPORTS = "%matplotlib inline\nimport pandas as pd"
FRAME = "sales = pd.DataFrame({'price': [3.0, 5.0, 8.0] * 400, 'cost': [1.0, 2.0, 9.0] * 400})\nsales.head()"
ITERROWS = "margins = []\nfor _, row in sales.iterrows():\n    margins.append(row['price'] - row['cost'])\nmargins"
TOTAL = "total = sales['price'].sum()\nprint(total)"


def _notebook(*cells) -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = list(cells)
    return notebook


def _sales_notebook() -> nbformat.NotebookNode:
    """Markdown, a `%matplotlib inline` cell, cells with outputs, and an `iterrows` cell."""
    return _notebook(
        new_markdown_cell("# Margins\n\nfor _, row in sales.iterrows(): is slow"),
        new_code_cell(IMPORTS),
        new_code_cell(
            FRAME,
            execution_count=2,
            outputs=[
                new_output("execute_result", data={"text/plain": "   price  cost\n0    3.0   1.0"}, execution_count=2)
            ],
        ),
        new_code_cell(
            ITERROWS,
            execution_count=3,
            outputs=[new_output("execute_result", data={"text/plain": "[2.0, 3.0, -1.0]"}, execution_count=3)],
        ),
        new_code_cell(TOTAL, execution_count=4, outputs=[new_output("stream", name="stdout", text="16.0\n")]),
    )


def _write(path: Path, notebook) -> Path:
    nbformat.validate(notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


def _position(cell_source: str, needle: str) -> tuple[int, int]:
    """1-based line and column of `needle` in a cell."""
    for number, line in enumerate(cell_source.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def _list_block(source: str) -> str:
    """A cell source as nbformat writes it (a list of lines, indent 1, inside a cell)."""
    lines = re.findall(r"[^\n]*\n|[^\n]+", source)
    return "[\n" + ",\n".join("    " + json.dumps(line, ensure_ascii=False) for line in lines) + "\n   ]"


def _run_cells(sources: list[str]) -> dict:
    """Execute code cells (IPython lines dropped) and return the namespace."""
    pytest.importorskip("pandas")
    code = "\n".join(line for source in sources for line in source.splitlines() if not line.startswith("%"))
    namespace: dict = {}
    exec(compile(code, "<notebook>", "exec"), namespace)
    return namespace


# -- the notebook test ------------------------------------------------------------------


def test_notebook_is_linted_with_cell_positions_fixed_and_still_valid(project, cli):
    notebook = _sales_notebook()
    path = _write(project / "margins.ipynb", notebook)
    before = path.read_text(encoding="utf-8")
    line, col = _position(ITERROWS, "sales.iterrows()")

    run = cli("check", "margins.ipynb")
    assert run.code == 1
    # cell 4: the markdown cell counts, as Jupyter counts it; nothing on `%matplotlib inline`
    assert run.lines[0] == f"margins.ipynb:cell 4:{line}:{col}: GPU102 {MESSAGES['GPU102']}"
    assert run.lines[1] == "Found 1 finding in 1 file."

    run = cli("check", "--fix", "--unsafe-fixes", "margins.ipynb")
    assert run.code == 0, run.stdout + run.stderr
    assert run.lines[0] == "Fixed 1 finding in 1 file."
    after = path.read_text(encoding="utf-8")

    fixed = nbformat.reads(after, as_version=4)
    nbformat.validate(fixed)
    assert "iterrows" not in fixed.cells[3].source
    assert fixed.cells[3].source.endswith("\nmargins")  # the rest of the cell is kept
    for old, new in zip(notebook.cells, fixed.cells, strict=False):
        assert new.get("outputs") == old.get("outputs")
        assert new.get("execution_count") == old.get("execution_count")
        assert new.metadata == old.metadata and new.id == old.id
    # Every byte but the fixed cell's source is as it was, and the source is written the
    # way nbformat writes it.
    old_block, new_block = _list_block(ITERROWS), _list_block(fixed.cells[3].source)
    assert before.count(old_block) == 1
    assert after == before.replace(old_block, new_block)
    assert after == nbformat.writes(fixed) + "\n"

    # The fixed cells compute the same margins.
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    fixed_sources = [cell.source for cell in fixed.cells if cell.cell_type == "code"]
    assert _run_cells(fixed_sources)["margins"] == _run_cells(sources)["margins"]


def test_fix_is_idempotent(project, cli):
    path = _write(project / "nb.ipynb", _sales_notebook())
    assert cli("check", "--fix", "--unsafe-fixes", "nb.ipynb").code == 0
    once = path.read_bytes()
    run = cli("check", "--fix", "--unsafe-fixes", "nb.ipynb")
    assert run.code == 0 and run.lines == ["All checks passed."]
    assert path.read_bytes() == once


def test_safe_fix_only_without_unsafe_fixes(project, cli):
    path = _write(project / "nb.ipynb", _sales_notebook())
    before = path.read_bytes()
    run = cli("check", "--fix", "nb.ipynb")  # the iterrows fix is unsafe: nothing written
    assert run.code == 1
    assert path.read_bytes() == before


def test_diff_shows_only_the_cell_source_and_applies(project, cli, tmp_path):
    path = _write(project / "nb.ipynb", _sales_notebook())
    before = path.read_bytes()
    run = cli("check", "--diff", "--unsafe-fixes", "nb.ipynb")
    assert run.code == 1
    assert path.read_bytes() == before  # --diff writes nothing
    changed = [line for line in run.lines if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed and all("iterrows" in line or "margins" in line or "row[" in line for line in changed)
    assert "Would fix 1 finding in 1 file." in run.errors

    cli("check", "--fix", "--unsafe-fixes", "nb.ipynb")
    fixed = path.read_bytes()
    path.write_bytes(before)
    subprocess.run(["git", "apply", "-p1", "-"], input=run.stdout.encode(), cwd=project, check=True)
    assert path.read_bytes() == fixed


# -- fixes that would cross cells --------------------------------------------------------------------

#: Code cells where one fix would move code from one cell into another: the list a GPU102
#: loop appends to is created in cell 2, the loop is cell 3, the list is read in cell 4. A
#: frame is grown (GPU101) in cell 5 from a frame created in cell 1 and read in cell 6; an
#: array is grown (GPU202) in cell 7. Cells end without a line break, as Jupyter saves them.
CROSSING = [
    "import os\nimport numpy as np\nimport pandas as pd\nsales = pd.DataFrame({'price': [3.0, 5.0] * 100, 'cost': [1.0, 2.0] * 100})"
    "\nframe = pd.DataFrame()\nsteps = int(os.environ.get('STEPS', '3'))",
    "margins = []",
    "for _, row in sales.iterrows():\n    margins.append(row['price'] - row['cost'])",
    "print(margins)",
    "for i in range(steps):\n    frame = pd.concat([frame, pd.DataFrame({'a': [i]})])",
    "print(len(frame))",
    "values = np.array([])\nfor i in range(steps):\n    values = np.append(values, i)\nprint(values)",
]


def _fixable(cells: list[str], unsafe: bool) -> list[str]:
    """The codes of the fixable findings of every rule (as `fix_cells` without a
    configuration fixes them: preview rules too, without their preview behaviour)."""
    every_rule = all_rules()
    return sorted(d.code for cell in lint_cells(cells, rules=every_rule) for d in cell if d.fixable(unsafe))


def test_a_fix_that_would_cross_cells_is_display_only_and_the_others_apply():
    found = {d.code: d for cell in lint_cells(CROSSING, config=Config(unsafe_fixes=True, preview=True)) for d in cell}
    assert sorted(found) == ["GPU101", "GPU102", "GPU202"]
    assert found["GPU102"].fix is not None and found["GPU102"].fix.applicability is Applicability.DISPLAY
    assert _fixable(CROSSING, unsafe=True) == ["GPU101", "GPU202"]
    # As one file, the GPU102 loop does get its fix: only the cell boundary declines it.
    assert "GPU102" in [
        d.code for d in lint_source("\n".join(CROSSING), config=Config(unsafe_fixes=True)) if d.fixable(True)
    ]

    fixed = fix_cells(CROSSING, unsafe_fixes=True)
    assert fixed[:4] == CROSSING[:4]  # the list and its loop stay in their cells, unchanged
    assert "concat" in fixed[4] and fixed[4] != CROSSING[4] and fixed[6] != CROSSING[6]
    assert _fixable(fixed, unsafe=True) == []  # nothing left to fix: `--fix` is done after one run
    assert fix_cells(fixed, unsafe_fixes=True) == fixed
    before, after = _run_cells(CROSSING), _run_cells(fixed)
    assert after["margins"] == before["margins"] and after["frame"].equals(before["frame"])
    assert list(after["values"]) == list(before["values"])
    # Safe fixes only: both fixes are unsafe, so nothing changes.
    assert fix_cells(CROSSING) == CROSSING


def test_check_fix_and_diff_leave_a_fix_that_would_cross_cells_and_apply_the_others(project, cli):
    path = _write(project / "crossing.ipynb", _notebook(*(new_code_cell(c) for c in CROSSING)))
    before = path.read_bytes()
    run = cli("check", "--preview", "--unsafe-fixes", "crossing.ipynb")
    marked = {line.split(": ")[1].split()[0]: "[*]" in line for line in run.lines if ": GPU" in line}
    assert marked == {"GPU101": True, "GPU102": False, "GPU202": True}
    assert "[*] 2 fixable with `gpulint check --fix --unsafe-fixes`." in run.lines

    diff = cli("check", "--preview", "--diff", "--unsafe-fixes", "crossing.ipynb")
    assert "Would fix 2 findings in 1 file." in diff.errors and path.read_bytes() == before
    changed = "\n".join(line for line in diff.lines if line[:1] in "+-" and not line.startswith(("+++", "---")))
    assert "np.append" in changed and "pd.concat" in changed and "iterrows" not in changed

    run = cli("check", "--preview", "--fix", "--unsafe-fixes", "crossing.ipynb")
    assert "Fixed 2 findings in 1 file." in run.lines and run.code == 1
    assert [line.split(": ")[1].split()[0] for line in run.lines if ": GPU" in line] == ["GPU102"]
    assert not any("[*]" in line for line in run.lines)
    fixed = [cell.source for cell in nbformat.read(str(path), as_version=4).cells]
    assert fixed == fix_cells(CROSSING, unsafe_fixes=True)
    again = cli("check", "--preview", "--fix", "--unsafe-fixes", "crossing.ipynb")
    assert again.code == 1 and not any(line.startswith("Fixed") for line in again.lines)


def test_a_fix_that_takes_whole_cells_away_applies():
    # The manual pipeline (GPU401): scaling in cells 2 and 3, fitting in cell 4. The fix
    # removes both scaling cells' statements: those cells become empty.
    cells = [
        "import numpy as np\nfrom sklearn.linear_model import LogisticRegression\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "X_train, y_train = np.arange(8.0).reshape(4, 2), [0, 1, 0, 1]\nX_test = np.arange(4.0).reshape(2, 2)\n"
        "scaler = StandardScaler()\nmodel = LogisticRegression()",
        "X_train_scaled = scaler.fit_transform(X_train)",
        "X_test_scaled = scaler.transform(X_test)",
        "model.fit(X_train_scaled, y_train)\npredicted = model.predict_proba(X_test_scaled)",
    ]
    assert _fixable(cells, unsafe=True) == ["GPU401"]
    fixed = fix_cells(cells, unsafe_fixes=True)
    assert fixed[1:3] == ["", ""] and "make_pipeline" in fixed[3]
    assert _fixable(fixed, unsafe=True) == []
    assert (_run_cells(fixed)["predicted"] == _run_cells(cells)["predicted"]).all()


def test_a_fix_that_would_write_over_an_ipython_line_is_left_out_and_the_others_apply(monkeypatch):
    from gpulint import notebook as notebook_module, pipeline

    cells = ["import numpy as np\n%matplotlib inline", CROSSING[6]]
    overwrite = Edit(Position(3, 0), Position(3, len("%matplotlib inline")), "pass")  # the masked line
    expected = fix_cells(cells, unsafe_fixes=True)
    assert expected[0] == cells[0] and expected[1] != cells[1]
    real = pipeline.attach_fixes

    def with_a_bad_fix(source, tree, diagnostics, rules, unsafe_fixes, index=None, render=True):
        diagnostics, warnings = real(source, tree, diagnostics, rules, unsafe_fixes, index, render)
        if "np.append" not in source.text:
            return diagnostics, warnings
        bad = diagnostics[0]._replace(code="GPU999", fix=Fix(Applicability.SAFE, "overwrite", (overwrite,)))
        return [bad, *diagnostics], warnings

    monkeypatch.setattr(pipeline, "attach_fixes", with_a_bad_fix)
    outcome = notebook_module._run(notebook_module._cells(cells), all_rules(), True, "<notebook>", fix=True)
    assert outcome.fixed == {2: expected[1]}
    assert [d.code for d in outcome.applied] == ["GPU202"]
    assert any("GPU999" in warning and "IPython" in warning for warning in outcome.warnings)


# -- IPython syntax -------------------------------------------------------------------------------

MAGICS = [
    "%matplotlib inline",
    "%load_ext autoreload\n%autoreload 2",
    "x = %timeit -o sum(range(10))",
    "!ls -la",
    "!!pip list",
    "files = !ls *.csv",
    "a, b = %who_ls",
    "sales.head?",
    "?sales",
    "pd.DataFrame.iterrows??",
    "%time total = sales['price'].sum()",
    "%timeit \\\n    sum(range(10))",
    "for _ in range(2):\n    %time sum(range(10))\n    !echo hi",
    "/print 'autocall'",
    "text = '''\n%not a magic, inside a string\n'''\n!echo after the string",
    # automagic (a line magic or a shell alias without its `%`) and pasted prompts
    "pip install diffusers torch",
    "conda install -y pandas",
    "cd ..",
    "mkdir -p data",
    ">>> import os\n>>> os.sep",
    ">>> import os\n\n  >>> os.sep\n  ... ",  # doctest prompts indented: stripped with their indentation
]


@pytest.mark.parametrize("magic", MAGICS)
def test_ipython_lines_are_tolerated_and_kept_by_fixes(magic):
    cells = [IMPORTS, FRAME, magic + "\n" + ITERROWS]
    found = lint_cells(cells)
    codes = [d.code for cell in found for d in cell]
    assert codes == ["GPU102"], found
    (diagnostic,) = found[2]
    line, col = _position(ITERROWS, "sales.iterrows()")
    assert (diagnostic.cell, diagnostic.start.line, diagnostic.start.col + 1) == (3, magic.count("\n") + 1 + line, col)

    fixed = fix_cells(cells, unsafe_fixes=True)
    assert fixed[:2] == cells[:2]  # untouched cells are returned as given
    assert fixed[2].startswith(magic + "\n") and "iterrows" not in fixed[2][len(magic) :]


@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 1", "%%capture captured"])
def test_python_cell_magics_are_linted(magic):
    cells = [IMPORTS, FRAME, f"{magic}\n{ITERROWS}"]
    found = lint_cells(cells)
    assert [(d.cell, d.code) for d in found[2]] == [(3, "GPU102")]
    assert found[2][0].start.line == 3  # the magic line counts
    assert fix_cells(cells, unsafe_fixes=True)[2].startswith(magic + "\nmargins = ")


@pytest.mark.parametrize("magic", ["%%bash", "%%writefile helper.py", "%%html", "%%script python3", "%%sql"])
def test_cells_of_other_cell_magics_are_skipped(magic):
    body = f"{magic}\n{ITERROWS}\nthis is not python ("
    cells = [IMPORTS, FRAME, body]
    assert lint_cells(cells) == [[], [], []]
    assert fix_cells(cells, unsafe_fixes=True) == cells


def test_masking_keeps_lines_and_columns():
    source = "import os\nfiles = !ls\n%time x = 1\nfor i in range(2):\n    !echo $i\nos.sep?"
    masked = mask_ipython(source)
    assert masked.text.count("\n") == source.count("\n")
    assert masked.text.splitlines()[0] == "import os"
    assert masked.text.splitlines()[1].startswith("files = ")
    assert masked.text.splitlines()[4].startswith("    ")
    compile(masked.text, "<cell>", "exec")
    assert unmask_ipython(masked.text, masked) == source


CHAIN = [
    "from sklearn.feature_extraction.text import CountVectorizer\nfrom sklearn.naive_bayes import MultinomialNB",
    "vect = CountVectorizer()\nX_train_dtm = vect.fit_transform(X_train)\nX_test_dtm = vect.transform(X_test)",
    "nb = MultinomialNB()",
    "{magic}nb.fit(X_train_dtm, y_train)\n!echo fitted",
    "y_pred = nb.predict(X_test_dtm)",
]


def test_a_statement_timed_with_time_is_seen_where_it_stands():
    # `%time` runs its statement once in the cell's namespace: the fit closes the chain
    cells = [cell.format(magic="%time ") for cell in CHAIN]
    found = lint_cells(cells)
    assert [(d.cell, d.start.line, d.code) for cell in found for d in cell] == [(2, 2, "GPU401")]
    masked = mask_ipython(cells[3])
    assert masked.text.splitlines()[0].startswith("0;    nb.fit(X_train_dtm, y_train)")
    assert fix_cells(cells, unsafe_fixes=True) == cells
    # with the magic gone the chain is the same one
    assert [len(cell) for cell in lint_cells([cell.format(magic="") for cell in CHAIN])] == [0, 1, 0, 0, 0]


def test_a_fix_of_a_timed_statement_is_written_behind_its_magic():
    cells = [
        "from sklearn.ensemble import RandomForestClassifier",
        "%time rf = RandomForestClassifier(n_estimators=100).fit(X, y)\n!echo fitted",
    ]
    config = Config(preview=True)
    assert [(d.cell, d.code) for cell in lint_cells(cells, config=config) for d in cell] == [(2, "GPU403")]
    fixed = fix_cells(cells, config=config)
    assert fixed[1] == "%time rf = RandomForestClassifier(n_estimators=100, n_jobs=-1).fit(X, y)\n!echo fitted"
    # a placeholder copied elsewhere still refuses the fix
    masked = mask_ipython(cells[1])
    timed = masked.text.splitlines()[0]
    assert unmask_ipython(f"{timed}\n{timed}\n" + masked.text.splitlines()[1], masked) is None


@pytest.mark.parametrize("magic", ["%timeit ", "%timeit -n 1 ", "%time \\\n    "])
def test_a_statement_timed_apart_or_over_lines_stays_masked(magic):
    # `%timeit` runs it in a namespace of its own; a continued line is left masked
    cells = [cell.format(magic=magic) for cell in CHAIN]
    assert [d for cell in lint_cells(cells) for d in cell] == []
    assert fix_cells(cells, unsafe_fixes=True) == cells


def test_python_that_looks_like_ipython_is_left_alone():
    source = "x = 5 % 3\ny = '''\n%not a magic\n!nor this\n'''\nz = [1,\n     2]"
    assert mask_ipython(source).text == source


@pytest.mark.parametrize(
    "source",
    [
        "pip = 3\npip (1)",  # names used as Python
        "ls -la",  # `ls - la` is Python
        "time.sleep(1)\nrun(train)",
        "cd = 'x'\ncd in paths",
    ],
)
def test_automagic_names_used_as_python_are_left_alone(source):
    assert mask_ipython(source).text == source


def test_real_syntax_errors_next_to_automagic_are_still_reported():
    found = lint_cells([IMPORTS, "pip install torch\nprint 'python 2'"])
    assert [(d.cell, d.code, d.start.line) for cell in found for d in cell] == [(2, "GPU001", 2)]


@pytest.mark.parametrize(
    "cell",
    [
        " Image(filename='figure.png', width=600) ",  # pasted with a space in front
        " def compute(a, b):\n    return a - b\n\nprint(compute(1, 2))",  # lines not starting with it stay
        "    model.add(layer)\n    \nmodel.summary()",
        "   %time f()\n   y = 2",  # dedented, then masked
        " >>> x = 1",  # dedented, then its prompt stripped
    ],
)
def test_a_cell_indented_as_a_whole_is_valid_ipython_and_is_skipped(cell):
    cells = [IMPORTS, FRAME, cell, "print 'python 2'"]
    found = lint_cells(cells)
    assert [(d.cell, d.code) for cell in found for d in cell] == [(4, "GPU001")]
    assert fix_cells(cells, unsafe_fixes=True)[2] == cell


@pytest.mark.parametrize(
    "cell",
    [
        "    x = (1",
        "  y = 1\n    z = 2",
        "\n    x = 1",
        "x = 1\n  ... y = 2",  # an indented continuation prompt, but no `>>>` in the cell: IPython strips nothing
    ],
)
def test_an_indented_cell_that_ipython_cannot_run_is_a_syntax_error(cell):
    found = lint_cells([IMPORTS, cell])
    assert [(d.cell, d.code) for cell in found for d in cell] == [(2, "GPU001")]


@pytest.mark.parametrize(
    ("cell", "runs"),
    [
        ("pd.DataFrame.iterrows?", True),
        ("  pd.DataFrame.iterrows??", True),  # indented: IPython strips it
        ("pd.DataFrame.iterrows? ", False),  # a space after the question mark: IPython leaves the line as it is
        ("x = 1\npd.DataFrame.iterrows?\t", False),
        ("pd.DataFrame.iterrows?  # help", False),
    ],
)
def test_help_at_the_end_of_a_line_is_ipython_only_as_ipython_reads_it(cell, runs):
    found = lint_cells([IMPORTS, cell])
    assert [(d.cell, d.code) for cell in found for d in cell] == ([] if runs else [(2, "GPU001")])


@pytest.mark.parametrize(
    "cell",
    [
        "s = pd.Series(\n  ....:     ['A', 'B'], dtype='string'\n  ....: )\n  ....: \nprint(s)",  # continuation prompts
        "In [3]: x = (1,\n   ...:      2)",  # the first prompt and one continuation
        "In [12]: %timeit sales.sum()",  # the prompt stripped, then the magic masked
        "y = 1\n   ...: z = 2",  # the second line's prompt makes IPython strip every line
    ],
)
def test_a_cell_pasted_from_an_ipython_session_is_valid_ipython_and_is_skipped(cell):
    cells = [IMPORTS, FRAME, cell, "print 'python 2'"]
    found = lint_cells(cells)
    assert [(d.cell, d.code) for cell in found for d in cell] == [(4, "GPU001")]
    assert fix_cells(cells, unsafe_fixes=True)[2] == cell


@pytest.mark.parametrize(
    "cell",
    [
        "In [3]: x = (1,\n   ...: ",  # still unclosed once stripped
        "x = (1,\n2\n   ...: )",  # a prompt on the third line only: IPython strips nothing
    ],
)
def test_a_session_cell_that_ipython_cannot_run_is_a_syntax_error(cell):
    found = lint_cells([IMPORTS, cell])
    assert [(d.cell, d.code) for cell in found for d in cell] == [(2, "GPU001")]


def test_a_fix_that_drops_an_ipython_line_is_refused():
    masked = mask_ipython("%time x = 1\ny = 2")
    placeholder = masked.text.splitlines()[0]
    assert unmask_ipython("y = 2", masked) is None  # dropped
    assert unmask_ipython(f"{placeholder}\n{placeholder}\ny = 2", masked) is None  # copied
    assert unmask_ipython(f"print({placeholder})\ny = 2", masked) is None  # written into


# -- one program ------------------------------------------------------------------------------------

APPLY = "features = sales.apply(lambda r: r['price'] * 2, axis=1)"


def test_evidence_flows_from_cell_to_cell():
    cells = ["import pandas as pd", "sales = pd.read_csv('sales.csv')", "print('hello')", "x = 1", APPLY]
    found = lint_cells(cells)
    assert [[d.code for d in cell] for cell in found] == [[], [], [], [], ["GPU104"]]
    assert found[4][0].cell == 5 and found[4][0].start.line == 1


def test_evidence_is_replaced_across_cells():
    # without the reader, only the use (`apply(..., axis=1)`) says `sales` is a frame
    assert [d.code for d in lint_cells(["import pandas as pd", "sales = load()", APPLY])[2]] == ["GPU104"]
    # rebinding to a cuDF frame in a later cell replaces the pandas evidence: cuDF compiles
    # the row function, which GPU104 leaves alone
    cells = [
        "import pandas as pd\nimport cudf",
        "sales = pd.read_csv('s.csv')",
        "sales = cudf.read_csv('s.csv')",
        APPLY,
    ]
    assert lint_cells(cells)[3] == []


def test_a_cell_with_a_syntax_error_is_reported_there_and_the_others_still_linted():
    cells = ["import pandas as pd", "sales = pd.read_csv('s.csv')", "x = 1\ndef broken(:\n    pass", APPLY]
    found = lint_cells(cells)
    (error,) = found[2]
    assert (error.code, error.cell, error.start.line) == ("GPU001", 3, 2)
    assert [d.code for d in found[3]] == ["GPU104"]


def test_noqa_in_a_cell():
    cells = ["import pandas as pd", "sales = pd.read_csv('s.csv')", APPLY + "  # noqa: GPU104"]
    assert lint_cells(cells)[2] == []


def test_fix_edits_are_relative_to_their_cells():
    # The iterrows fix needs numpy: the import goes into the cell with the imports.
    conditional = "margins.append(row['price'] if row['cost'] > 1 else 0)"
    cells = [IMPORTS, FRAME, f"margins = []\nfor _, row in sales.iterrows():\n    {conditional}"]
    found = lint_cells(cells)
    (diagnostic,) = found[2]
    assert diagnostic.fix is not None and diagnostic.fix.applicability is Applicability.UNSAFE
    assert {edit.cell for edit in diagnostic.fix.edits} == {1, 3}
    by_cell = {i: [e for e in diagnostic.fix.edits if e.cell == i] for i in (1, 2, 3)}
    applied = [apply_edits(Source.from_text(text), by_cell[i]) for i, text in enumerate(cells, 1)]
    assert applied == fix_cells(cells, unsafe_fixes=True)
    assert applied[0] == IMPORTS + "\nimport numpy as np"
    namespace_before, namespace_after = _run_cells(cells), _run_cells(applied)
    assert namespace_after["margins"] == namespace_before["margins"]


def test_empty_and_whitespace_cells():
    assert lint_cells([]) == []
    assert lint_cells(["", "\n\n", "   "]) == [[], [], []]
    assert fix_cells(["", "x = 1"]) == ["", "x = 1"]


# -- the file: formats, styles, errors -------------------------------------------------------------


def _raw_notebook(path: Path, cells: list[dict], **dump) -> Path:
    kernel = {"language": "python", "name": "python3", "display_name": "Python 3"}
    document = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document, **dump), encoding="utf-8")
    return path


def _code(source, **extra) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": extra.pop("id", "c0ffee"),
        "metadata": {},
        "outputs": [],
        "source": source,
        **extra,
    }


@pytest.mark.parametrize("dump", [{"indent": 2}, {}, {"indent": 1, "ensure_ascii": True}, {"indent": 4}])
def test_fix_keeps_the_files_json_style(project, cli, dump):
    cells = [
        _code(["import pandas as pd\n", "# naïve frame\n", "sales = pd.DataFrame({'price': [1.0] * 200})"], id="a"),
        _code(ITERROWS + "  # café", id="b"),  # a string, not a list; kept non-ASCII
        _code(["x = 'é'"], id="c"),
    ]
    path = _raw_notebook(project / "nb.ipynb", cells, **dump)
    before = path.read_text(encoding="utf-8")
    assert cli("check", "--fix", "--unsafe-fixes", "nb.ipynb").code == 0
    after = path.read_text(encoding="utf-8")
    document = json.loads(after)
    source = document["cells"][1]["source"]
    assert isinstance(source, str) and "iterrows" not in source and source.endswith("margins  # café")
    expected = dict(json.loads(before))
    expected["cells"][1]["source"] = source
    assert after == json.dumps(expected, **dump)  # same indentation, key order, escaping, no newline added
    nbformat.validate(nbformat.reads(after, as_version=4))


def test_written_list_style_follows_the_cell(project, cli):
    cells = [
        _code("import pandas as pd\nsales = pd.DataFrame({'price': [1.0] * 200, 'cost': [0.5] * 200})", id="a"),
        _code(re.findall(r"[^\n]*\n|[^\n]+", ITERROWS), id="b"),
    ]
    path = _raw_notebook(project / "nb.ipynb", cells, indent=1)
    assert cli("check", "--fix", "--unsafe-fixes", "nb.ipynb").code == 0
    document = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(document["cells"][1]["source"], list)
    assert all(line.count("\n") <= 1 for line in document["cells"][1]["source"])


BROKEN = {
    "bad.ipynb": ('{"cells": [', "not a notebook: invalid JSON"),
    "list.ipynb": ("[1, 2]", "not a notebook: the JSON is not an object"),
    "nocells.ipynb": ('{"metadata": {}, "nbformat": 4}', "not a notebook: no `cells` list"),
    "cellsdict.ipynb": ('{"cells": {}}', "not a notebook: `cells` is not a list"),
    "source.ipynb": ('{"cells": [{"cell_type": "code", "source": 5}]}', "the `source` of cell 1 is not text"),
    "type.ipynb": ('{"cells": [{"source": "x = 1"}]}', "cell 1 has no `cell_type`"),
    "old.ipynb": ('{"nbformat": 2, "worksheets": []}', "notebook format 2 is not supported"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_notebook_gets_one_error_line_and_the_others_are_linted(project, cli, name):
    content, message = BROKEN[name]
    (project / name).write_text(content, encoding="utf-8")
    _write(project / "good.ipynb", _sales_notebook())
    run = cli("check", name, "good.ipynb")
    assert run.code == 2
    assert len(run.errors) == 1
    assert run.errors[0].startswith(f"error: {name}: ") and message in run.errors[0]
    assert run.lines[0].startswith("good.ipynb:cell 4:")
    # --fix leaves a broken notebook alone
    assert cli("check", "--fix", name).code == 2
    assert (project / name).read_text(encoding="utf-8") == content


def test_undecodable_notebook(project, cli):
    (project / "binary.ipynb").write_bytes(b"\xff\xfe{}")
    run = cli("check", "binary.ipynb")
    assert run.code == 2 and run.errors == ["error: binary.ipynb: not a notebook: not UTF-8 (byte 0xff at offset 0)"]


def test_a_notebook_in_another_language_is_skipped(project, cli):
    notebook = _sales_notebook()
    notebook.metadata["kernelspec"]["language"] = "R"
    _write(project / "r.ipynb", notebook)
    run = cli("check", "r.ipynb")
    assert run.code == 0
    assert run.errors == ["warning: r.ipynb: not a Python notebook (language: r); skipped"]


def test_folders_include_notebooks_but_not_checkpoints(project, cli):
    _write(project / "analysis" / "nb.ipynb", _sales_notebook())
    _write(project / "analysis" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb", _sales_notebook())
    run = cli("check", ".")
    assert run.code == 1
    assert [line.split(":cell")[0] for line in run.lines[:-2]] == [str(Path("analysis") / "nb.ipynb")]


def test_stdin_with_a_notebook_filename(project, cli):
    text = nbformat.writes(_sales_notebook()) + "\n"
    run = cli("check", "-", "--stdin-filename", "nb.ipynb", input=text)
    assert run.code == 1 and run.lines[0].startswith("nb.ipynb:cell 4:")
    run = cli("check", "-", "--stdin-filename", "nb.ipynb", "--fix", "--unsafe-fixes", input=text)
    fixed = nbformat.reads(run.stdout, as_version=4)
    nbformat.validate(fixed)
    assert "iterrows" not in fixed.cells[3].source


# -- machine-readable outputs -----------------------------------------------------------------------


def test_json_output_carries_the_cell(project, cli):
    _write(project / "nb.ipynb", _sales_notebook())
    run = cli("check", "--output-format", "json", "nb.ipynb")
    (item,) = json.loads(run.stdout)
    line, col = _position(ITERROWS, "sales.iterrows()")
    assert item["cell"] == 4 and item["filename"] == "nb.ipynb"
    assert item["location"] == {"row": line, "column": col}
    assert item["noqa_row"] == line
    assert {edit["cell"] for edit in item["fix"]["edits"]} == {4}


def test_sarif_and_github_point_at_the_lines_of_the_file(project, cli):
    from .test_outputs import _validated_sarif

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    path = _write(project / "nb.ipynb", _sales_notebook())
    file_lines = path.read_text(encoding="utf-8").splitlines()
    line, _ = _position(ITERROWS, "sales.iterrows()")
    wanted = json.dumps(ITERROWS.splitlines(keepends=True)[line - 1])
    expected_line = next(i for i, text in enumerate(file_lines, 1) if wanted in text)

    log = _validated_sarif(cli("check", "--output-format", "sarif", "nb.ipynb").stdout)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == expected_line
    assert result["properties"]["cell"] == 4

    github = cli("check", "--output-format", "github", "nb.ipynb").lines
    assert len(github) == 1 and f",line={expected_line}," in github[0] and "cell 4" in github[0]


# -- warnings and internal errors name the cell ------------------------------------------------------


def test_noqa_warnings_name_the_cell(project, cli):
    notebook = _sales_notebook()
    notebook.cells[2].source = FRAME + "  # noqa GPU102"  # codes without a colon: a warning
    _write(project / "nb.ipynb", notebook)
    run = cli("check", "nb.ipynb")
    assert "warning: nb.ipynb:cell 3:2: `# noqa` codes need a colon: write `# noqa: GPU102`" in run.errors


def test_a_rule_crash_names_the_cell(monkeypatch):
    from gpulint import registry
    from gpulint.notebook import check_notebook
    from gpulint.registry import Rule

    class Exploding(Rule):
        """Raises on every `for` loop."""

        code = "GPU998"
        name = "exploding"
        message = "never shown"
        nodes = (ast.For,)

        def check(self, node, ctx):
            raise KeyError("boom")

    registry._REGISTRY.pop("GPU998", None)
    text = nbformat.writes(_sales_notebook())
    result = check_notebook(text, [Exploding], False, "nb.ipynb", fix=False)
    line, _ = _position(ITERROWS, "for _, row")
    assert result.error is not None and "GPU998" in result.error and f"near cell 4 line {line}" in result.error
    assert result.diagnostics == []


# -- a file split into cells is the same program ------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False
    return True


PROGRAMS = [p for p in sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("tests/fixtures/GPU*.py")]) if _parses(p)]


def _split_into_cells(text: str, step: int = 3) -> tuple[list[str], list[int]]:
    """The file cut before every `step`th top-level statement; the cells and their first lines."""
    tree = ast.parse(text)
    starts = [min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) for node in tree.body]
    cuts = sorted({1, *starts[::step]})
    lines = text.splitlines(keepends=True)
    cells = ["".join(lines[a - 1 : b - 1]) for a, b in zip(cuts, [*cuts[1:], len(lines) + 1], strict=False)]
    assert "".join(cells) == text
    return cells, cuts


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_a_file_split_into_cells_lints_and_fixes_the_same(path):
    from gpulint import fix_text, lint_source

    text = path.read_text(encoding="utf-8")
    cells, first_lines = _split_into_cells(text)
    assert len(cells) > 1
    expected = sorted((d.code, d.start.line, d.start.col, d.end.line, d.end.col) for d in lint_source(text))
    found = sorted(
        (
            d.code,
            d.start.line + first_lines[d.cell - 1] - 1,
            d.start.col,
            d.end.line + first_lines[d.cell - 1] - 1,
            d.end.col,
        )
        for cell in lint_cells(cells)
        for d in cell
    )
    assert found == expected
    assert "".join(fix_cells(cells, unsafe_fixes=True)) == fix_text(text, unsafe_fixes=True)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_one_fix_leaves_nothing_fixable_in_a_file_split_at_every_statement(path):
    """Every top-level statement its own cell, saved without a final line break as Jupyter
    does: fixes that would cross cells are display-only, so one `--fix` applies everything
    marked fixable and leaves nothing marked."""
    cells = [cell.rstrip("\n") for cell in _split_into_cells(path.read_text(encoding="utf-8"), step=1)[0]]
    fixable = _fixable(cells, unsafe=True)
    fixed = fix_cells(cells, unsafe_fixes=True)
    assert _fixable(fixed, unsafe=True) == []
    assert (fixed != cells) == bool(fixable)


def test_an_extension_loaded_with_a_magic_is_seen_by_the_rules():
    """`%load_ext cuml.accel` runs scikit-learn's estimators on the GPU: GPU403 stays
    silent there, and reports the same cells after another magic."""
    fit = (
        "import pandas as pd\nfrom sklearn.ensemble import RandomForestClassifier\n"
        "X = pd.read_csv('big.csv')\nmodel = RandomForestClassifier()\nmodel.fit(X, X['y'])\n"
    )
    assert lint_cells(["%load_ext cuml.accel", fit]) == [[], []]
    assert lint_cells(["load_ext cuml.accel", fit]) == [[], []]
    found = lint_cells(["%load_ext autoreload", fit])
    assert [d.code for d in found[1]] == ["GPU403"]
    masked = mask_ipython("%load_ext cuml.accel\n%load_ext cuml.accel")
    assert unmask_ipython(masked.text, masked) == "%load_ext cuml.accel\n%load_ext cuml.accel"

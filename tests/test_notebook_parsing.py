"""A notebook's cells are parsed as one program, not one by one: which cells parse on their
own is read from that parse, and must be what parsing each cell alone says."""

from __future__ import annotations

import bisect
import builtins
import json

import pytest
from hypothesis import given, settings, strategies as st

from gpulint import notebook as notebook_module
from gpulint.engine import analyze
from gpulint.ipython import mask_cell_magic, mask_lines, may_hold_ipython, parses
from gpulint.notebook import NotebookError, lint_cells
from gpulint.source import Source

#: Pieces of cells: Python, IPython, and code that only parses together with the next cell
#: (open brackets and strings, blocks and decorators continued, backslash continuations).
FRAGMENTS = [
    "x = 1",
    "import pandas as pd",
    "df = pd.DataFrame({'a': [1]})",
    "y = (1,",
    "2)",
    "if x:",
    "    z = 3",
    "else:",
    "    pass",
    "@decorator",
    "def f(): pass",
    "s = '''",
    "'''",
    "a = 1 \\",
    "b",
    "x = [",
    "]",
    "%matplotlib inline",
    "!ls",
    "files = !ls",
    "pd.read_csv?",
    "%%time\nx = 1",
    "%%bash\necho hi",
    "def g():\n    return 1",
    "    return 2",
    "print x",
    "",
    "# comment",
    "\\",
    "class A:\n    pass",
    "from __future__ import annotations",
    "\tw = 1",
    "  v = 2",
    "for i, r in df.iterrows(): pass",
    "try:",
    "except Exception:",
    "finally:",
    "elif y:",
    "'''",
    '"""',
    "u = 1;",
    "t = 1 \\\n",
    "q = f'{x'",
]


def reference(text: str) -> tuple[str, bool, bool]:
    """Masked text, skipped, parses: each cell on its own, as IPython sees it."""
    masked = mask_cell_magic(text)
    if not masked.skipped and not parses(masked.text):
        masked = mask_lines(masked)
    return masked.text, masked.skipped, not masked.skipped and parses(masked.text)


cells_strategy = st.lists(
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3).map("\n".join), min_size=1, max_size=8
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(cells_strategy)
def test_which_cells_parse_is_what_parsing_each_alone_says(cells):
    found = [
        (cell.masked.text, cell.masked.skipped, cell.parses and not cell.masked.skipped)
        for cell in notebook_module._cells(cells)
    ]
    assert found == [reference(text) for text in cells]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(cells_strategy)
def test_a_cell_without_ipython_looking_lines_is_never_masked(cells):
    for text in cells:
        plain = mask_cell_magic(text)
        if not plain.skipped and not may_hold_ipython(plain.text):
            assert mask_lines(plain) == plain


def count_compiles(monkeypatch, function, *args):
    calls = []
    real = builtins.compile

    def counting(*a, **k):
        calls.append(a[1] if len(a) > 1 else k.get("filename"))
        return real(*a, **k)

    monkeypatch.setattr(builtins, "compile", counting)
    function(*args)
    monkeypatch.setattr(builtins, "compile", real)
    return len(calls)


def test_a_notebook_is_parsed_a_constant_number_of_times_whatever_its_cells(monkeypatch):
    head = ["import pandas as pd", "df = pd.read_csv('a.csv')"]
    body = [
        "total = 0\nfor i, row in df.iterrows():\n    total += row['a']",
        "def f(x):\n    return x + 1",
        "values = [f(v) for v in range(3)]",
        "if total:\n    print(total)\nelse:\n    pass",
    ]
    lint_cells(head + body)  # imports and registries paid here
    few = count_compiles(monkeypatch, lint_cells, head + body)
    many = count_compiles(monkeypatch, lint_cells, head + body * 25)
    assert many == few
    assert few <= 2  # the program, parsed once (the engine takes that tree)


def test_a_cell_that_fails_is_located_when_the_error_shows_in_a_later_cell():
    # The program's error is reported in cell 3 (an indented block expected after cell 2's
    # `if`), but cell 3 parses on its own: cell 2 is the one left out.
    cells = [
        "import pandas as pd\ndf = pd.read_csv('a.csv')",
        "if ready:",
        "x = 1",
        "for i, row in df.iterrows():\n    print(row)",
        "y = [1,\n",
        "z = 2",
    ]
    assert [cell.parses for cell in notebook_module._cells(cells)] == [True, False, True, True, False, True]
    found = lint_cells(cells)
    for number in (2, 5):
        alone = analyze(Source.from_text(cells[number - 1])).diagnostics
        assert [(d.code, d.start, d.message) for d in found[number - 1]] == [
            (d.code, d.start, d.message) for d in alone
        ]
        assert found[number - 1][0].code == "GPU001" and found[number - 1][0].cell == number
    assert [d.code for d in found[3]] == ["GPU102"]  # evidence from cell 1 still reaches cell 4
    assert found[2] == [] and found[5] == []


def test_cells_that_parse_only_together_are_each_reported():
    cells = ["import numpy as np", "x = (1,", "2)", "@decorator", "def f():\n    pass", "a = 1 \\", "b = 2"]
    assert [cell.parses for cell in notebook_module._cells(cells)] == [True, False, False, False, True, False, True]
    found = lint_cells(cells)
    assert [[d.code for d in cell] for cell in found] == [[], ["GPU001"], ["GPU001"], ["GPU001"], [], ["GPU001"], []]


# -- the notebook's JSON, decoded once ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
code_sources = st.lists(st.text(alphabet='ab \n"\\é', max_size=6), max_size=3)
cells_json = st.lists(
    st.one_of(
        st.builds(
            lambda source, as_list, outputs: {
                "cell_type": "code",
                "metadata": {},
                "outputs": outputs,
                "source": source if as_list else "".join(source),
            },
            code_sources,
            st.booleans(),
            st.lists(json_values, max_size=2),
        ),
        st.builds(lambda text: {"cell_type": "markdown", "source": text}, st.text(max_size=5)),
    ),
    max_size=4,
)


def old_spans(text: str, cells: list, format3: bool) -> dict:
    """Where each code cell's code sits, found as before: decoding the file again."""
    root = notebook_module._members(text, notebook_module._skip(text, 0))
    if format3:
        sheets = notebook_module._elements(text, root["worksheets"][0])
        spans = [
            cell
            for sheet in sheets
            for cell in notebook_module._elements(text, notebook_module._members(text, sheet[0])["cells"][0])
        ]
    else:
        spans = notebook_module._elements(text, root["cells"][0])
    return {
        number: notebook_module._members(text, spans[number - 1][0])["input" if format3 else "source"]
        for number, cell in enumerate(cells, 1)
        if cell["cell_type"] == "code"
    }


def _format3(cells: list, split: int) -> list:
    """The cells as format 3 keeps them: code in `input`, in two worksheets split at `split`."""
    cells = [
        {("input" if key == "source" and cell["cell_type"] == "code" else key): value for key, value in cell.items()}
        for cell in cells
    ]
    return [{"cells": cells[:split], "metadata": {}}, {"cells": cells[split:]}]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    cells_json,
    json_values,
    st.sampled_from([None, 1, 2]),
    st.booleans(),
    st.booleans(),
    st.integers(min_value=0, max_value=4) | st.none(),
)
def test_decoding_once_finds_what_json_loads_and_the_spans_found(cells, extra, indent, ascii_only, cells_first, split):
    """`split` None: format 4; a number: format 3, its worksheets split there."""
    format3 = split is not None
    container = ("worksheets", _format3(cells, split)) if split is not None else ("cells", cells)
    members = {container[0]: container[1], "metadata": {"x": extra}, "nbformat": 3 if format3 else 4}
    if not cells_first:
        members = {"metadata": {"x": extra}, "nbformat": 3 if format3 else 4, container[0]: container[1]}
    text = json.dumps(members, indent=indent, ensure_ascii=ascii_only)
    data, found = notebook_module._decode(text)
    assert data == json.loads(text)
    notebook = notebook_module.Notebook(text)
    expected = old_spans(text, cells, format3)
    assert {cell.number: notebook._span(cell).span for cell in notebook.cells} == expected
    sources = found.worksheets if format3 else found.cells  # type: ignore[union-attr]
    assert all(sources[number - 1] == span for number, span in expected.items())


@pytest.mark.parametrize(
    "text",
    [
        '{"cells" []}',
        '{"cells": [],}',
        '{"cells": [1,]}',
        '{"cells": [] } x',
        '{"cells": [{"source": "a" "b"}]}',
        "",
        "  ",
        '{"cells": ["\\x"]}',
        '{"cells": [], "nbformat": 4}}',
        '{"cells": [{"a": 1,}]}',
    ],
)
def test_invalid_json_is_reported_as_json_loads_reports_it(text):
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(NotebookError) as found:
        notebook_module.Notebook(text)
    assert f"{expected.value.msg} at line {expected.value.lineno}, column {expected.value.colno}" in str(found.value)


def test_a_repeated_key_keeps_its_last_value_and_spans():
    text = (
        '{"cells": [{"cell_type": "code", "source": "x = 1"}], "nbformat": 4,\n'
        ' "cells": [{"cell_type": "code", "source": "a = 1", "source": ["y = 2\\n", "z = 3"]}]}'
    )
    notebook = notebook_module.Notebook(text)
    assert [cell.text for cell in notebook.cells] == ["y = 2\nz = 3"]
    assert notebook.file_line(1, 2) == 2
    assert json.loads(notebook.with_sources({1: "w = 4\n"})) == {
        "cells": [{"cell_type": "code", "source": ["w = 4\n"]}],
        "nbformat": 4,
    }


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\r\n", max_size=30), st.integers(min_value=0, max_value=30))
def test_the_line_of_an_offset_is_counted_as_the_line_table_counts_it(text, offset):
    offset = min(offset, len(text))
    if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
        offset += 1  # an offset inside a line break is no value's start
    assert notebook_module._line_at(text, offset) == bisect.bisect_right(Source.from_text(text).line_starts, offset)

"""A notebook's cells are parsed as one program, not one by one: which cells parse on their
own is read from that parse, and must be what parsing each cell alone says."""

from __future__ import annotations

import builtins

from hypothesis import given, settings, strategies as st

from gpulint import notebook as notebook_module
from gpulint.engine import analyze
from gpulint.ipython import mask_cell_magic, mask_lines, may_hold_ipython, parses
from gpulint.notebook import lint_cells
from gpulint.source import Source

#: Pieces of cells: Python, IPython, and code that only parses together with the next cell
#: (open brackets and strings, blocks and decorators continued, backslash continuations).
FRAGMENTS = [
    "x = 1", "import pandas as pd", "df = pd.DataFrame({'a': [1]})", "y = (1,", "2)", "if x:", "    z = 3",
    "else:", "    pass", "@decorator", "def f(): pass", "s = '''", "'''", "a = 1 \\", "b", "x = [", "]",
    "%matplotlib inline", "!ls", "files = !ls", "pd.read_csv?", "%%time\nx = 1", "%%bash\necho hi",
    "def g():\n    return 1", "    return 2", "print x", "", "# comment", "\\", "class A:\n    pass",
    "from __future__ import annotations", "\tw = 1", "  v = 2", "for i, r in df.iterrows(): pass",
    "try:", "except Exception:", "finally:", "elif y:", "'''", '"""', "u = 1;", "t = 1 \\\n", "q = f'{x'",
]


def reference(text: str) -> tuple[str, bool, bool]:
    """Masked text, skipped, parses: each cell on its own, as IPython sees it."""
    masked = mask_cell_magic(text)
    if not masked.skipped and not parses(masked.text):
        masked = mask_lines(masked)
    return masked.text, masked.skipped, not masked.skipped and parses(masked.text)


cells_strategy = st.lists(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3).map("\n".join),
                          min_size=1, max_size=8)


@settings(max_examples=400, deadline=None)
@given(cells_strategy)
def test_which_cells_parse_is_what_parsing_each_alone_says(cells):
    found = [(cell.masked.text, cell.masked.skipped, cell.parses and not cell.masked.skipped)
             for cell in notebook_module._cells(cells)]
    assert found == [reference(text) for text in cells]


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
    body = ["total = 0\nfor i, row in df.iterrows():\n    total += row['a']", "def f(x):\n    return x + 1",
            "values = [f(v) for v in range(3)]", "if total:\n    print(total)\nelse:\n    pass"]
    lint_cells(head + body)  # imports and registries paid here
    few = count_compiles(monkeypatch, lint_cells, head + body)
    many = count_compiles(monkeypatch, lint_cells, head + body * 25)
    assert many == few
    assert few <= 2  # the program, parsed once (the engine takes that tree)


def test_a_cell_that_fails_is_located_when_the_error_shows_in_a_later_cell():
    # The program's error is reported in cell 3 (an indented block expected after cell 2's
    # `if`), but cell 3 parses on its own: cell 2 is the one left out.
    cells = ["import pandas as pd\ndf = pd.read_csv('a.csv')", "if ready:", "x = 1",
             "for i, row in df.iterrows():\n    print(row)", "y = [1,\n", "z = 2"]
    assert [cell.parses for cell in notebook_module._cells(cells)] == [True, False, True, True, False, True]
    found = lint_cells(cells)
    for number in (2, 5):
        alone = analyze(Source.from_text(cells[number - 1])).diagnostics
        assert [(d.code, d.start, d.message) for d in found[number - 1]] == \
               [(d.code, d.start, d.message) for d in alone]
        assert found[number - 1][0].code == "GPU001" and found[number - 1][0].cell == number
    assert [d.code for d in found[3]] == ["GPU102"]  # evidence from cell 1 still reaches cell 4
    assert found[2] == [] and found[5] == []


def test_cells_that_parse_only_together_are_each_reported():
    cells = ["import numpy as np", "x = (1,", "2)", "@decorator", "def f():\n    pass", "a = 1 \\", "b = 2"]
    assert [cell.parses for cell in notebook_module._cells(cells)] == [True, False, False, False, True, False, True]
    found = lint_cells(cells)
    assert [[d.code for d in cell] for cell in found] == [[], ["GPU001"], ["GPU001"], ["GPU001"], [], ["GPU001"], []]

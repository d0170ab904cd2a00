"""GPU204 python-builtin-on-array: every rewrite in the rule's table is executed against
the builtin on the data where the rule promises equal values, and the evidence it needs."""

from __future__ import annotations

import textwrap
from functools import partial

import numpy as np
import pandas as pd
import pytest

from gpulint import Applicability, fix_text, lint_source
from gpulint.evidence import Ty

from .rule_helpers import only_finding
from .test_evidence import probe_one


_only = partial(only_finding, code="GPU204")


ARRAYS = {
    "ints": np.array([3, -1, 7, 0, 7]),
    "floats": np.array([0.5, -2.25, 3.0, 1e-3]),
    "floats-with-nan": np.array([1.0, np.nan, 3.0]),
    "bools": np.array([True, False, True]),
    "int8": np.array([100, -20, 7], dtype=np.int8),
    "one": np.array([4.0]),
    "empty-float": np.array([]),
    "empty-int": np.array([], dtype=np.int64),
    "rows": np.arange(12).reshape(4, 3),
    "rows-of-one": np.array([[1], [0], [2]]),
    "no-rows": np.zeros((0, 3)),
    "text": np.array(["b", "", "a"]),
    "objects": np.array([1, 2.5, 0], dtype=object),
    "0-d": np.array(3.0),
}
SERIES = {
    "ints": pd.Series([3, -1, 7]),
    "floats-with-nan": pd.Series([0.5, np.nan, 2.0]),
    "bools": pd.Series([True, False]),
    "int8": pd.Series([100, 100, 100], dtype="int8"),
    "empty": pd.Series([], dtype=float),
    "nullable": pd.Series([1, None, 3], dtype="Int64"),
    "dates": pd.Series(pd.to_datetime(["2020-01-02", "2020-01-01"])),
    "text": pd.Series(["b", "a"]),
}


def _rewrite(builtin: str, declaration: str) -> str | None:
    source = f"import numpy as np\nimport pandas as pd\n{declaration}\nresult = {builtin}(data)\n"
    diagnostic = _only(source)
    if diagnostic.fix.applicability is Applicability.DISPLAY:
        return None
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    return fix_text(source, unsafe_fixes=True).rsplit("result = ", 1)[1].strip()


def _same(before, after) -> None:
    if isinstance(before, list):
        assert len(before) == len(after)
        for left, right in zip(before, after, strict=False):
            if np.ndim(left) == 0 and pd.isna(left):
                assert pd.isna(right), (left, right)
            else:
                np.testing.assert_array_equal(np.asarray(left), np.asarray(right))
    else:
        assert np.shape(before) == np.shape(after), (before, after)
        np.testing.assert_array_equal(np.asarray(before), np.asarray(after))


def _outcome(expression: str, data):
    try:
        return eval(expression, {"np": np, "pd": pd, "data": data, "result": None})
    except Exception as error:  # the error is the outcome compared
        return type(error)


@pytest.mark.parametrize("builtin", ["sum", "any", "all"])
@pytest.mark.parametrize("name", list(ARRAYS))
def test_array_rewrites_match_the_builtin(builtin, name):
    rewrite = _rewrite(builtin, "data = np.asarray(raw)")
    assert rewrite is not None
    data = ARRAYS[name]
    before, after = _outcome(f"{builtin}(data)", data), _outcome(rewrite, data)
    if isinstance(before, type):
        # documented: the builtin raises (the truth of a row of several elements, a 0-d
        # array, text added to 0) where the method returns a value; never the other way round
        assert (name, builtin) in {("rows", "any"), ("rows", "all"), ("text", "sum")} or name == "0-d"
        return
    if (name, builtin) == ("no-rows", "sum"):
        assert before == 0 and after.tolist() == [0.0, 0.0, 0.0]  # documented: a row of zeros
        return
    assert not isinstance(after, type), (before, after)
    _same(before, after)


def test_a_narrow_integer_total_differs_only_where_the_builtin_overflows():
    """Documented: the builtin's running total keeps a narrow integer dtype and wraps
    around; the method adds in 64 bits."""
    rewrite = _rewrite("sum", "data = np.asarray(raw)")
    fits = np.array([100, -20, 7], dtype=np.int8)
    assert _outcome("sum(data)", fits) == _outcome(rewrite, fits) == 87
    overflows = np.array([100, 100, 100], dtype=np.int8)
    with np.errstate(over="ignore"):
        assert _outcome("sum(data)", overflows) == 44
    assert _outcome(rewrite, overflows) == 300


@pytest.mark.parametrize("builtin", ["max", "min", "sorted"])
def test_array_max_min_and_sorted_only_get_a_suggestion(builtin):
    assert _rewrite(builtin, "data = np.asarray(raw)") is None
    # the reason: with NaN the builtin's answer depends on where the NaN is
    early, late = np.array([np.nan, 1.0, 3.0]), np.array([1.0, np.nan, 3.0])
    assert repr(_outcome(f"{builtin}(data)", early)) != repr(_outcome(f"{builtin}(data)", late))


@pytest.mark.parametrize("builtin", ["sum", "list"])
@pytest.mark.parametrize("name", list(SERIES))
def test_series_rewrites_match_the_builtin(builtin, name):
    rewrite = _rewrite(builtin, 'data = pd.read_csv("x.csv")["a"]')
    assert rewrite is not None
    data = SERIES[name]
    before, after = _outcome(f"{builtin}(data)", data), _outcome(rewrite, data)
    if isinstance(before, type):  # documented: the builtin cannot add dates or text to 0
        assert builtin == "sum" and name in ("dates", "text")
        return
    if before is pd.NA:
        assert after is pd.NA
        return
    assert not isinstance(after, type), (before, after)
    _same(before, after)


@pytest.mark.parametrize("builtin", ["any", "all", "sorted", "max", "min"])
def test_series_any_all_sorted_max_and_min_only_get_a_suggestion(builtin):
    assert _rewrite(builtin, 'data = pd.read_csv("x.csv")["a"]') is None


def test_why_series_any_and_all_are_not_rewritten():
    dates = SERIES["dates"]
    assert any(dates) is True  # noqa: GPU204
    with pytest.raises(TypeError):
        dates.any(skipna=False)


def test_list_suggestion_names_the_array_and_what_rows_become():
    """`list(a)` of a 2-D array holds row arrays, `a.tolist()` nested lists: not the same."""
    source = "import numpy as np\nweights = np.zeros((n, 4))\nrows = list(weights)\n"
    message = _only(source).fix.message
    assert "`weights.tolist()`" in message and "rows as arrays" in message
    grid = np.zeros((3, 4))
    assert type(list(grid)[0]) is np.ndarray and type(grid.tolist()[0]) is list  # noqa: GPU204


def test_series_max_and_min_suggestions_name_nan():
    source = 'import pandas as pd\ndata = pd.read_csv("x.csv")["a"]\nresult = max(data)\n'
    assert "NaN" in _only(source).fix.message


@pytest.mark.parametrize(
    ("declaration", "call"),
    [
        ("data = np.asarray(raw)", "list(data)"),
        ("data = np.asarray(raw)", "sum(data, 10)"),
        ("data = np.asarray(raw)", "max(data)"),
        ("data = np.asarray(raw)", "sorted(data)"),
        ("data = np.asarray(raw)", "max(data, default=0)"),
        ("data = np.asarray(raw)", "sorted(data, key=abs)"),
        ("import cupy as cp\ndata = cp.asarray(raw)", "sum(data)"),
        ("import cudf\ndata = cudf.read_csv('x.csv')['a']", "sum(data)"),
    ],
)
def test_calls_that_only_get_a_suggestion(declaration, call):
    source = f"import numpy as np\n{declaration}\nresult = {call}\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize("tensor", ["torch.ones(n)", "torch.ones(n).to(device)", "model(torch.ones(n, 3))"])
def test_torch_tensors_get_a_suggestion(tensor):
    source = (
        f"import torch\ndevice = torch.device('cuda')\nmodel = torch.nn.Linear(3, 1).to(device)\n"
        f"total = sum({tensor})\n"
    )
    diagnostic = _only(source)
    assert "tensor" in diagnostic.message and diagnostic.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "declaration",
    [
        "data = np.array([3.0, 1.0, 2.0])",
        "data = np.zeros((4, 3))",
        "data = np.asarray(raw)[:5]",
        'data = pd.DataFrame({"a": [1, 2, 3]})["a"]',
    ],
)
def test_a_few_elements_are_not_flagged(declaration):
    source = f"import numpy as np\nimport pandas as pd\n{declaration}\ntotal = sum(data)\n"
    assert [d for d in lint_source(source) if d.code == "GPU204"] == []


def test_the_distinct_values_of_a_loop_over_groups_are_not_flagged():
    template = (
        "import numpy as np\nvalues = np.asarray(raw)\nfor v in sorted(np.unique(values)):\n"
        "    mask = {} == v\n    print(values[mask].size)\n"
    )
    assert [d for d in lint_source(template.format("values")) if d.code == "GPU204"] == []
    assert [d.code for d in lint_source(template.format("other")) if d.code == "GPU204"] == ["GPU204"]


def test_a_rebound_builtin_is_not_flagged():
    source = "import numpy as np\nfrom mytools import sum\ndata = np.zeros(3)\ntotal = sum(data)\n"
    assert [d for d in lint_source(source) if d.code == "GPU204"] == []


def test_an_expression_receiver_is_parenthesized():
    source = "import numpy as np\na = np.zeros(n)\nb = np.ones(n)\ntotal = sum(a + b)\n"
    assert fix_text(source, unsafe_fixes=True).endswith("total = (a + b).sum(axis=0)\n")


# -- the evidence these rules rely on ---------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import numpy as np\nrng = np.random.default_rng(0)\nprobe(rng.normal(size=10))", Ty("array", "numpy")),
        ("import numpy as np\nrng = np.random.default_rng(0)\nprobe(rng.normal())", None),
        # one index array per dimension: a tuple whose items are arrays, not an array
        ("import numpy as np\nprobe(np.where(np.zeros(3) > 0))", Ty("sequence", items=(Ty("array", "numpy"),))),
        ("import numpy as np\nprobe(np.where(np.zeros(3) > 0, 1, 2))", Ty("array", "numpy")),
        ("import numpy as np\nprobe(np.unique(np.zeros(3)))", Ty("array", "numpy")),
        (
            "import numpy as np\nprobe(np.unique(np.zeros(3), return_counts=True))",
            Ty("tuple", "numpy", items=(Ty("array", "numpy"),) * 2),
        ),
        ("import numpy as np\na = np.zeros(3)\nprobe(a[1:])", Ty("array", "numpy")),
        ("import numpy as np\na = np.zeros(3)\nprobe(a[a > 0])", Ty("array", "numpy")),
        ("import numpy as np\na = np.zeros(3)\nprobe(a[0])", None),
        ("import numpy as np\na = np.zeros((3, 2))\nprobe(a.T.astype(int))", Ty("array", "numpy")),
        ("import numpy as np\na = np.zeros(3)\nprobe(a.tolist())", None),
        ("import numpy.typing as npt\ndef f(a: npt.NDArray):\n    probe(a)", Ty("array", "numpy")),
        ("import cupy as cp\nprobe(cp.asarray([1]) * 2)", Ty("array", "cupy")),
    ],
)
def test_array_evidence(source, expected):
    assert probe_one(source) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "list(model.parameters())",  # the module's tensors, one per item
        "list(t.chunk(2))",  # a tuple of two tensors
        "list(t.unbind())",
        'list(batch["sizes"][0] + batch["crops"][0])',  # fields of a placed batch: Python tuples
    ],
)
def test_containers_of_tensors_are_not_tensors(expression):
    source = textwrap.dedent(f"""\
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator()
        model = torch.nn.Linear(3, 1).to("cuda")
        t = torch.ones(4, device="cuda")
        loader = accelerator.prepare(loader)
        for batch in loader:
            values = {expression}
        """)
    assert [d.code for d in lint_source(source) if d.code == "GPU204"] == []


@pytest.mark.parametrize(
    ("loop", "reported"),
    [
        ("for name, row in frame.iterrows():\n    boxes.append(list(row))\n", False),
        # the loop's row rebound to something else, or a column of the frame
        ("for name, row in frame.iterrows():\n    row = frame['a']\n    boxes.append(list(row))\n", True),
        ("for name in frame.index:\n    boxes.append(list(frame['a']))\n", True),
    ],
)
def test_the_row_of_an_iterrows_loop_is_not_reported(loop, reported):
    source = f"import pandas as pd\n\nframe = pd.read_csv('boxes.csv')\nboxes = []\n{loop}"
    assert [d.code for d in lint_source(source) if d.code == "GPU204"] == (["GPU204"] if reported else [])


@pytest.mark.parametrize("dtype", ["object", "'O'", "np.object_"])
def test_an_array_of_python_objects_is_not_flagged(dtype):
    """`np.array(rows, dtype=object)` holds Python objects (sentences, dicts): sorting them
    by a key is Python's work whatever holds them."""
    source = f"import numpy as np\nrows = np.array(raw, dtype={dtype})\nbest = sorted(rows, key=len)\n"
    assert [d for d in lint_source(source) if d.code == "GPU204"] == []
    assert probe_one(f"import numpy as np\nprobe(np.array(raw, dtype={dtype}))\n") == Ty("other")
    assert probe_one("import numpy as np\nprobe(np.array(raw, dtype=np.float32))\n") == Ty("array", "numpy")

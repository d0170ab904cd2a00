"""GPU204 python-builtin-on-array: every rewrite in the rule's table is executed against
the builtin on the data where the rule promises equal values, and the evidence it needs."""

from __future__ import annotations

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
    "bools": np.array([True, False, True]),
    "one": np.array([4.0]),
    "empty-float": np.array([]),
    "empty-int": np.array([], dtype=np.int64),
    "rows": np.arange(12).reshape(4, 3),
    "text": np.array(["b", "", "a"]),
}
SERIES = {
    "ints": pd.Series([3, -1, 7]),
    "floats-with-nan": pd.Series([0.5, np.nan, 2.0]),
    "bools": pd.Series([True, False]),
    "empty": pd.Series([], dtype=float),
    "nullable": pd.Series([1, None, 3], dtype="Int64"),
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
        for left, right in zip(before, after):
            if np.ndim(left) == 0 and pd.isna(left):
                assert pd.isna(right), (left, right)
            else:
                np.testing.assert_array_equal(np.asarray(left), np.asarray(right))
    else:
        np.testing.assert_array_equal(np.asarray(before), np.asarray(after))


def _outcome(expression: str, data):
    try:
        return eval(expression, {"np": np, "pd": pd, "data": data, "result": None})
    except Exception as error:  # the error is the outcome compared
        return type(error)


@pytest.mark.parametrize("builtin", ["sum", "max", "min", "any", "all", "sorted"])
@pytest.mark.parametrize("name", list(ARRAYS))
def test_array_rewrites_match_the_builtin(builtin, name):
    rewrite = _rewrite(builtin, "data = np.asarray(raw)")
    assert rewrite is not None
    data = ARRAYS[name]
    before, after = _outcome(f"{builtin}(data)", data), _outcome(rewrite, data)
    if name == "rows" and builtin != "sum":
        # the builtin compares rows and raises; the rewrite walks the columns (documented)
        assert before is ValueError and not isinstance(after, type)
        return
    if name == "text" and builtin == "sum":
        assert before is TypeError  # the builtin starts at 0; documented as a builtin that raises
        return
    if name == "text" and builtin in ("max", "min"):
        # documented: NumPy has no max/min loop for text, the builtin compares the strings
        assert isinstance(before, str) and isinstance(after, type) and issubclass(after, TypeError)
        return
    if isinstance(before, type) or isinstance(after, type):
        assert before is after, (before, after)
        return
    _same(before, after)


@pytest.mark.parametrize("builtin", ["sum", "any", "all", "sorted", "list"])
@pytest.mark.parametrize("name", list(SERIES))
def test_series_rewrites_match_the_builtin(builtin, name):
    rewrite = _rewrite(builtin, 'data = pd.read_csv("x.csv")["a"]')
    assert rewrite is not None
    data = SERIES[name]
    if builtin == "sorted" and name in ("floats-with-nan", "nullable"):
        return  # sorting missing values is order-dependent in Python (documented)
    if name == "nullable" and builtin in ("sum", "all"):
        before, after = _outcome(f"{builtin}(data)", data), _outcome(rewrite, data)
        # `sum` gives NA on both sides; `all` asks `bool(NA)`, which raises, where the method says NA
        assert after is pd.NA and (before is pd.NA if builtin == "sum" else before is TypeError)
        return
    before, after = _outcome(f"{builtin}(data)", data), _outcome(rewrite, data)
    assert not isinstance(before, type) and not isinstance(after, type), (before, after)
    _same(before, after)


@pytest.mark.parametrize("call", ["max(data)", "min(data)"])
def test_series_max_and_min_only_get_a_suggestion(call):
    source = f'import pandas as pd\ndata = pd.read_csv("x.csv")["a"]\nresult = {call}\n'
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY and "NaN" in diagnostic.fix.message
    # the reason: on an empty Series the method returns NaN where the builtin raises
    with pytest.raises(ValueError):
        max(pd.Series([], dtype=float))  # noqa: GPU204
    assert np.isnan(pd.Series([], dtype=float).max())


@pytest.mark.parametrize(("declaration", "call"), [
    ("data = np.asarray(raw)", "list(data)"),
    ("data = np.asarray(raw)", "sum(data, 10)"),
    ("data = np.asarray(raw)", "max(data, default=0)"),
    ("data = np.asarray(raw)", "sorted(data, key=abs)"),
    ("import cupy as cp\ndata = cp.asarray(raw)", "sum(data)"),
    ("import cudf\ndata = cudf.read_csv('x.csv')['a']", "sum(data)"),
])
def test_calls_that_only_get_a_suggestion(declaration, call):
    source = f"import numpy as np\n{declaration}\nresult = {call}\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize("tensor", ["torch.ones(3)", "torch.ones(3).to(device)", "model(torch.ones(1, 3))"])
def test_torch_tensors_get_a_suggestion(tensor):
    source = (f"import torch\ndevice = torch.device('cuda')\nmodel = torch.nn.Linear(3, 1).to(device)\n"
              f"total = sum({tensor})\n")
    diagnostic = _only(source)
    assert "tensor" in diagnostic.message and diagnostic.fix.applicability is Applicability.DISPLAY


def test_a_rebound_builtin_is_not_flagged():
    source = "import numpy as np\nfrom mytools import sum\ndata = np.zeros(3)\ntotal = sum(data)\n"
    assert [d for d in lint_source(source) if d.code == "GPU204"] == []


def test_an_expression_receiver_is_parenthesized():
    source = "import numpy as np\na = np.zeros(3)\nb = np.ones(3)\ntotal = sum(a + b)\n"
    assert fix_text(source, unsafe_fixes=True).endswith("total = (a + b).sum(axis=0)\n")


# -- the evidence these rules rely on ---------------------------------------------------

@pytest.mark.parametrize(("source", "expected"), [
    ("import numpy as np\nrng = np.random.default_rng(0)\nprobe(rng.normal(size=10))", Ty("array", "numpy")),
    ("import numpy as np\nrng = np.random.default_rng(0)\nprobe(rng.normal())", None),
    ("import numpy as np\nprobe(np.where(np.zeros(3) > 0))", None),
    ("import numpy as np\nprobe(np.where(np.zeros(3) > 0, 1, 2))", Ty("array", "numpy")),
    ("import numpy as np\nprobe(np.unique(np.zeros(3)))", Ty("array", "numpy")),
    ("import numpy as np\nprobe(np.unique(np.zeros(3), return_counts=True))", None),
    ("import numpy as np\na = np.zeros(3)\nprobe(a[1:])", Ty("array", "numpy")),
    ("import numpy as np\na = np.zeros(3)\nprobe(a[a > 0])", Ty("array", "numpy")),
    ("import numpy as np\na = np.zeros(3)\nprobe(a[0])", None),
    ("import numpy as np\na = np.zeros((3, 2))\nprobe(a.T.astype(int))", Ty("array", "numpy")),
    ("import numpy as np\na = np.zeros(3)\nprobe(a.tolist())", None),
    ("import numpy.typing as npt\ndef f(a: npt.NDArray):\n    probe(a)", Ty("array", "numpy")),
    ("import cupy as cp\nprobe(cp.asarray([1]) * 2)", Ty("array", "cupy")),
])
def test_array_evidence(source, expected):
    assert probe_one(source) == expected

"""GPU205 comprehension-over-array: rewrites executed on arrays and Series, and the
shapes that only get a suggestion."""

from __future__ import annotations

from functools import partial

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

HEADER = "import numpy as np\nimport pandas as pd\n\n\ndef f(a: np.ndarray, frame: pd.DataFrame, k: float = 3.0):\n"
SETUP = "a = rng.normal(size=N)\nframe = pd.DataFrame({'x': rng.integers(-5, 5, N)})"


_only = partial(only_finding, code="GPU205")


@pytest.mark.parametrize(("body", "expected"), [
    ("    return [x * k - 1 for x in a]\n", "    return (a * k - 1).tolist()\n"),
    ("    return [not (v > 0) for v in frame['x']]\n", "    return (~(frame['x'] > 0)).tolist()\n"),
    ("    return np.asarray([abs(v) ** 0.5 for v in frame['x']])\n",
     "    return np.asarray(abs(frame['x']) ** 0.5)\n"),
    ("    return [np.exp(x) if x < 0 or x > 1 else 1.0 for x in a]\n",
     "    return np.where((a < 0) | (a > 1), np.exp(a), 1.0).tolist()\n"),
])
def test_rewrites_compute_the_same_values(body, expected):
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed == HEADER + expected
    for n in (0, 1, 9):
        before = run_example(SETUP, source, "f(a, frame)", n=n)
        after = run_example(SETUP, fixed, "f(a, frame)", n=n)
        assert_same_result(before, after, strict=False)


@pytest.mark.parametrize("body", [
    "    return [x * 2 for x in a if x > 0]\n",  # filtered: a mask would do, not rewritten
    "    return {x * 2 for x in a}\n",  # a set
    "    return sum(x * 2 for x in a)\n",  # a generator
    "    return [x * 2 for x in a[::-1].copy()]\n",  # the iterable is a call
    "    return [x + 1 for x in (a + 1)]\n",  # the iterable is computed: written once per reference
])
def test_shapes_that_only_get_a_suggestion(body):
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize("setup", [
    "import cudf\ns = cudf.read_csv('a.csv')['x']\n",
    "import dask.dataframe as dd\ns = dd.read_csv('a-*.csv')['x']\n",
    "import cupy as cp\ns = cp.arange(5)\n",
])
def test_device_and_lazy_collections_get_a_suggestion(setup):
    source = setup + "doubled = [v * 2 for v in s]\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize("source", [
    "import numpy as np\nitems = [1, 2]\nout = [x * 2 for x in items]\n",
    "import numpy as np\na = np.zeros(3)\nout = [str(x) for x in a]\n",
    "import numpy as np\na = np.zeros(3)\nout = [x.item() for x in a]\n",
    "import numpy as np\na = np.zeros(3)\nout = [(x, y) for x, y in zip(a, a)]\n",
    "import numpy as np\na = np.zeros(3)\nout = [x * a for x in a]\n",
    "import numpy as np\na = np.zeros(3)\nout = [1 for x in a]\n",
])
def test_not_flagged(source):
    assert [d for d in lint_source(source) if d.code == "GPU205"] == []

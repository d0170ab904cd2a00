"""GPU205 comprehension-over-array: rewrites executed on arrays and Series, and the
shapes that only get a suggestion."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

HEADER = "import numpy as np\nimport pandas as pd\n\n\ndef f(a: np.ndarray, frame: pd.DataFrame, k: float = 3.0):\n"
SETUP = "a = rng.normal(size=N)\nframe = pd.DataFrame({'x': rng.integers(-5, 5, N)})"


_only = partial(only_finding, code="GPU205")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    return [x * k - 1 for x in a]\n", "    return list(a * k - 1)\n"),
        ("    return [not (v > 0) for v in frame['x']]\n", "    return (~(frame['x'] > 0)).tolist()\n"),
        ("    return np.asarray([abs(v) ** 2 for v in frame['x']])\n", "    return np.asarray(abs(frame['x']) ** 2)\n"),
    ],
)
def test_rewrites_compute_the_same_values(body, expected):
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed == HEADER + expected
    for n in (0, 1, 9):
        before = run_example(SETUP, source, "f(a, frame)", n=n)
        after = run_example(SETUP, fixed, "f(a, frame)", n=n)
        assert_same_result(before, after, strict=False)


@pytest.mark.parametrize(
    "body",
    [
        "    return [x * 2 for x in a if x > 0]\n",  # filtered: a mask would do, not rewritten
        "    return {x * 2 for x in a}\n",  # a set
        "    return sum(x * 2 for x in a)\n",  # a generator
        "    return [x * 2 for x in a[::-1].copy()]\n",  # the iterable is a call
        "    return [x + 1 for x in (a + 1)]\n",  # the iterable is computed: written once per reference
        # iterating a Series yields Python scalars: a negative one to the power 0.5 is complex,
        # where the Series gives NaN
        "    return [v ** 0.5 for v in frame['x']]\n",
    ],
)
def test_shapes_that_only_get_a_suggestion(body):
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "setup",
    [
        "import cudf\ns = cudf.read_csv('a.csv')['x']\n",
        "import dask.dataframe as dd\ns = dd.read_csv('a-*.csv')['x']\n",
        "import cupy as cp\ns = cp.arange(n)\n",
    ],
)
def test_device_and_lazy_collections_get_a_suggestion(setup):
    source = setup + "doubled = [v * 2 for v in s]\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nitems = [1, 2]\nout = [x * 2 for x in items]\n",
        "import numpy as np\na = np.zeros(3)\nout = [str(x) for x in a]\n",
        "import numpy as np\na = np.zeros(3)\nout = [x.item() for x in a]\n",
        "import numpy as np\na = np.zeros(3)\nout = [(x, y) for x, y in zip(a, a)]\n",
        "import numpy as np\na = np.zeros(3)\nout = [x * a for x in a]\n",
        "import numpy as np\na = np.zeros(3)\nout = [1 for x in a]\n",
        # a few elements: a short literal, a small literal shape, a few taken
        "import numpy as np\na = np.array([2, 5])\nout = [x ** 2 for x in a]\n",
        "import numpy as np\nrng = np.random.default_rng(0)\na = rng.normal(size=20)\nout = [x * 2 for x in a]\n",
        "import pandas as pd\ns = pd.read_csv('a.csv')['x'].head(10)\nout = [x * 2 for x in s]\n",
    ],
)
def test_not_flagged(source):
    assert [d for d in lint_source(source) if d.code == "GPU205"] == []


# -- over an array, the rewrite yields what iterating the array yields, on any shape -----------

ARRAYS = {
    "2-D": "np.arange(6.0).reshape(3, 2)",
    "empty 2-D": "np.zeros((0, 3))",
    "empty": "np.array([])",
    "0-d": "np.array(3.0)",
    "NaN": "np.array([1.0, np.nan, 3.0])",
    "int8": "np.array([100, -100, 7], dtype=np.int8)",
    "bool": "np.array([True, False])",
    "object": "np.array([1, 2.5, 3], dtype=object)",
}


@pytest.mark.parametrize("array", list(ARRAYS.values()), ids=list(ARRAYS))
@pytest.mark.parametrize("element", ["x", "x * 2 - 1", "abs(x) > 1"])
def test_array_rewrites_give_the_same_items_of_the_same_types(element, array):
    source = f"import numpy as np\n\n\ndef f(a: np.ndarray):\n    return [{element} for x in a]\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed != source and ".tolist()" not in fixed

    def outcome(code):
        try:
            return run_example(f"a = {array}", code, "f(a)")
        except Exception as error:  # noqa: BLE001 - compared below
            return error

    before, after = outcome(source), outcome(fixed)
    if isinstance(before, Exception):
        # `and` takes the truth of a whole row and raises; the rewrite combines rows elementwise
        assert isinstance(after, Exception) or (" and " in element and array == ARRAYS["2-D"])
    elif "dtype=object" in array and " > " in element:  # NumPy compares objects into a bool array
        assert before == after
    else:
        assert repr(after) == repr(before)


def test_a_file_that_rebinds_list_gets_a_suggestion():
    source = HEADER + "    list = tuple\n    return [x * 2 for x in a]\n"
    assert fix_text(source, unsafe_fixes=True) == source


def test_an_identity_comprehension_in_asarray_is_not_rewritten_to_the_array_itself():
    source = HEADER + "    return np.asarray([x for x in a])\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source
    # np.array copies: the identity is rewritten there, and to a new list
    for wrapped, expected in [("np.array([x for x in a])", "np.array(a)"), ("[x for x in a]", "list(a)")]:
        source = HEADER + f"    return {wrapped}\n"
        fixed = fix_text(source, unsafe_fixes=True)
        assert fixed == HEADER + f"    return {expected}\n"
        a = np.arange(3.0)
        namespace = {"np": np, "pd": pd}
        exec(compile(fixed, "<fixed>", "exec"), namespace)
        namespace["f"](a, None)[0] = 99.0
        assert a[0] == 0.0


def test_a_series_power_the_column_computes_differently_is_not_rewritten():
    values = pd.Series([-4, 9])
    assert isinstance([v**0.5 for v in values][0], complex)  # noqa: GPU205 (what the comprehension computes)
    assert np.isnan((values**0.5).tolist()[0])  # what the whole-column form would


@pytest.mark.parametrize(
    "element", ["-2 if x * 2 == -2 else 0", "x > 0 and x < 5", "np.exp(x) if x < 0 or x > 1 else 1.0"]
)
def test_logic_over_array_items_is_not_rewritten(element):
    source = f"import numpy as np\n\n\ndef f(a: np.ndarray):\n    return [{element} for x in a]\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


def test_why_logic_over_array_items_is_not_rewritten():
    # Iterating a 2-D array yields rows: a row of one element has a truth value, so the
    # comprehension tests whole rows where np.where tests each element.
    a = np.array([[-1], [3]])
    per_row = [-2 if x * 2 == -2 else 0 for x in a]  # noqa: GPU205 (the behaviour shown)
    whole = list(np.where(a * 2 == -2, -2, 0))  # noqa: GPU204 (rows, as the rewrite gives)
    assert type(per_row[0]) is int and isinstance(whole[0], np.ndarray)


@pytest.mark.parametrize(
    ("draw", "flagged"),
    [
        ("np.random.exponential(200, 1_000_000)", True),  # a sampler given its size
        ("np.random.poisson(3.0, size=1_000_000)", True),
        ("np.random.binomial(10, 0.5, 1_000_000)", True),
        ("np.random.exponential(200)", False),  # near-miss: one number, no size
    ],
)
def test_numpy_samplers_given_a_size_make_arrays(draw, flagged):
    source = f"import numpy as np\n\ndraws = {draw}\nzeros = len([x for x in draws if x == 0])\n"
    assert bool([d for d in lint_source(source) if d.code == "GPU205"]) is flagged

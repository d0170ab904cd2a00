"""GPU201 array-element-loop: what the fixer rewrites (checked by execution, arrays of
different lengths included), and what only gets a suggestion."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

HEADER = "import numpy as np\n\n\ndef f(a: np.ndarray, b: np.ndarray, out: np.ndarray, rate: float = 0.5):\n"
SETUP = "a = rng.normal(size=N)\nb = rng.normal(size=N + 3)\nout = np.zeros(N + 5)"


_only = partial(only_finding, code="GPU201")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "    for i in range(len(a)):\n        out[i] = a[i] * b[i] + rate\n    return out\n",
            "    out[:len(a)] = a * b[:len(a)] + rate\n",
        ),
        (
            "    for i in range(a.shape[0]):\n        a[i] = -a[i] if a[i] < 0 and b[i] > 0 else np.sqrt(abs(a[i]))\n"
            "    return a\n",
            "    a[:] = np.where((a < 0) & (b[:a.shape[0]] > 0), -a, np.sqrt(abs(a)))\n",
        ),
        ("    for i in range(len(a)):\n        out[i] += a[i] ** 2\n    return out\n", "    out[:len(a)] += a ** 2\n"),
        (
            "    total = 0.0\n    for i in range(len(a)):\n        total -= a[i] * np.pi\n    return total\n",
            "    total -= (a * np.pi).sum(axis=0)\n",
        ),
    ],
)
def test_rewrites_compute_the_same_values(body, expected):
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert expected in fixed
    for n in (0, 1, 9):
        before = run_example(SETUP, source, "f(a.copy(), b, out.copy())", n=n)
        after = run_example(SETUP, fixed, "f(a.copy(), b, out.copy())", n=n)
        if isinstance(before, float):
            assert abs(before - after) <= 1e-9 * max(1.0, abs(before))  # pairwise vs sequential sum
        else:
            assert_same_result(before, after, strict=False)


@pytest.mark.parametrize(
    "body",
    [
        # two statements
        "    for i in range(len(a)):\n        x = a[i] * 2\n        out[i] = x\n",
        # the previous element: a dependency between iterations
        "    for i in range(len(a)):\n        out[i] = a[i] + out[i - 1]\n",
        # an array used whole inside the element computation
        "    for i in range(len(a)):\n        out[i] = a[i] * b\n",
        # the loop's else clause
        "    for i in range(len(a)):\n        out[i] = a[i]\n    else:\n        print(i)\n",
        # a function that is not a ufunc
        "    for i in range(len(a)):\n        out[i] = float(a[i])\n",
        # the index itself is a value
        "    for i in range(len(a)):\n        out[i] = a[i] * i\n",
        # storing into an unknown container
        "    rows = load()\n    for i in range(len(a)):\n        rows[i] = a[i] * 2\n",
    ],
)
def test_shapes_that_only_get_a_suggestion(body):
    source = HEADER + body
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_cupy_loops_get_a_suggestion():
    source = "import cupy as cp\nx = cp.zeros(5)\nfor i in range(len(x)):\n    x[i] = x[i] + 1\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nitems = [1, 2]\nfor i in range(len(items)):\n    items[i] = items[i] * 2\n",
        "import numpy as np\nx = np.zeros(5)\nfor i in range(len(x)):\n    save(x[i])\n",
        "import numpy as np\nx = np.zeros(5)\nfor i in range(5):\n    x[i] = x[i] + 1\n",
        "import numpy as np\nx = np.zeros(5)\nrange = list\nfor i in range(len(x)):\n    x[i] = x[i] + 1\n",
    ],
)
def test_not_flagged(source):
    assert [d for d in lint_source(source) if d.code == "GPU201"] == []


# -- a loop whose variable the code after it reads keeps it ------------------------------------
# One helper (`fixers/_loops.py`) decides for GPU102, GPU103 and GPU201; the cases below go
# through GPU201, each either declined (the rewrite would drop a name read later) or still
# rewritten (nothing after the loop sees the loop's own value).

LOOP = "    for i in range(len(a)):\n        out[i] = a[i] * 2\n"
NESTED = "        for i in range(len(a)):\n            out[i] = a[i] * 2\n"
LATER_READS = {
    "returned": LOOP + "    return i\n",
    "printed": LOOP + "    print('last:', i)\n    return out\n",
    "value of its own rebinding": LOOP + "    i = i + 1\n    return i\n",
    "augmented": LOOP + "    i += 1\n    return i\n",
    "deleted": LOOP + "    del i\n    return out\n",
    "else of a later loop over it": LOOP + "    for i in b:\n        pass\n    else:\n        return i\n",
    "after a later loop over it": LOOP + "    for i in b:\n        pass\n    return i\n",
    "one branch rebinds": LOOP + "    if rate:\n        i = 1\n    return i\n",
    "iterable of a comprehension": LOOP + "    return [j for j in range(i)]\n",
    "nested function": LOOP + "    def last():\n        return i\n    return last()\n",
    "lambda": LOOP + "    return (lambda: i)()\n",
    "locals()": LOOP + "    return locals()['i']\n",
    "global": "    global i\n" + LOOP + "    return out\n",
    "next iteration of an enclosing loop": "    i = -1\n    seen = []\n    for k in range(2):\n        seen.append(i)\n"
    + NESTED
    + "    return seen\n",
    "continue skips the rebinding": "    i = -1\n    seen = []\n    for k in range(2):\n        seen.append(i)\n"
    + NESTED
    + "        if k == 0:\n            continue\n        i = 0\n    return seen\n",
    "after an enclosing loop": "    for k in range(2):\n" + NESTED + "    return i\n",
    "exception handler": "    try:\n" + NESTED + "        i = 0\n        raise ValueError\n"
    "    except ValueError:\n        return i\n",
    "after an if holding the loop": "    i = -1\n    if rate:\n" + NESTED + "    return i\n",
}
LATER_RESETS = {
    "nothing": LOOP + "    return out\n",
    "rebound first": LOOP + "    i = 0\n    return i, out\n",
    "both branches rebind": LOOP + "    if rate:\n        i = 1\n    else:\n        i = 2\n    return i, out\n",
    "body of a later loop over it": LOOP
    + "    total = 0.0\n    for i in b:\n        total += i\n    return total, out\n",
    "comprehension variable": LOOP + "    return [i * 2 for i in b], out\n",
    "parameter of a nested function": LOOP + "    def twice(i):\n        return i * 2\n    return twice(3), out\n",
    "rebound in an enclosing loop": "    seen = []\n    for k in range(2):\n"
    + NESTED
    + "        i = k\n        seen.append(i)\n    return seen, out\n",
    "other branch of an if": "    if rate:\n" + NESTED + "    else:\n        i = 3\n        return i\n    return out\n",
}


@pytest.mark.parametrize("body", list(LATER_READS.values()), ids=list(LATER_READS))
def test_a_loop_whose_variable_is_read_later_is_not_rewritten(body):
    source = HEADER + body
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize("body", list(LATER_RESETS.values()), ids=list(LATER_RESETS))
def test_a_loop_whose_variable_nothing_reads_later_is_rewritten(body):
    source = HEADER + body
    fixed = fix_text(source, unsafe_fixes=True)
    assert "for i in range(len(a))" not in fixed
    for n in (0, 4):
        before = run_example(SETUP, source, "f(a, b, out.copy())", n=n)
        after = run_example(SETUP, fixed, "f(a, b, out.copy())", n=n)
        assert repr(before) == repr(after)


def test_the_accumulated_total_is_not_a_dropped_name():
    source = HEADER + "    total = 0.0\n    for i in range(len(a)):\n        total += a[i]\n    return total\n"
    assert "    total += a.sum(axis=0)\n    return total\n" in fix_text(source, unsafe_fixes=True)


@pytest.mark.parametrize("where", ["module", "class"])
def test_a_module_or_class_level_loop_read_elsewhere_is_not_rewritten(where):
    loop = "for i in range(len(a)):\n    out[i] = a[i] * 2\n"
    head = "import numpy as np\n\na = np.arange(3.0)\nout = np.zeros(3)\n"
    if where == "module":  # a function of the module reads the global `i`
        source = head + loop + "\n\ndef last():\n    return i\n"
    else:  # the loop binds the class attribute `C.i`
        source = head + "\n\nclass C:\n" + "".join("    " + line + "\n" for line in loop.splitlines())
    assert fix_text(source, unsafe_fixes=True) == source
    if where == "module":  # a function with a local `i` of its own does not count
        other = head + loop + "\n\ndef count():\n    for i in range(3):\n        print(i)\n"
        assert "for i in range(len(a))" not in fix_text(other, unsafe_fixes=True)


def test_a_narrow_integer_total_differs_only_where_the_loop_overflows():
    """Documented: the loop's running total keeps an `int8` dtype and wraps around; the
    rewrite's `.sum()` adds in 64 bits."""
    source = HEADER + "    total = 0\n    for i in range(len(a)):\n        total += a[i] * b[i]\n    return total\n"
    fixed = fix_text(source, unsafe_fixes=True)
    assert "total += (a * b[:len(a)]).sum(axis=0)" in fixed
    call = "f(a, b, None)"
    fits = "a = np.array([100, -20, 7], dtype=np.int8)\nb = np.ones(3, dtype=np.int8)"
    assert run_example(fits, source, call) == run_example(fits, fixed, call) == 87
    overflows = "a = np.array([100, 100, 100], dtype=np.int8)\nb = np.ones(3, dtype=np.int8)"
    with np.errstate(over="ignore"):
        assert run_example(overflows, source, call) == 44
    assert run_example(overflows, fixed, call) == 300


def test_negated_logic_is_not_rewritten():
    # `-(not c)` is -1 or 0 on Python's bools; NumPy refuses `-` on a bool array.
    source = (
        "import numpy as np\n\n\ndef f(a: np.ndarray, b: np.ndarray):\n    for i in range(len(a)):\n"
        "        a[i] = -(not (a[i] != b[i]))\n    return a\n"
    )
    assert fix_text(source, unsafe_fixes=True) == source


def test_a_part_a_guard_skips_that_may_raise_is_not_rewritten():
    # `or` skips its right side where the left is true; NumPy computes it for every element
    # and raises on a Python int outside uint8.
    source = (
        "import numpy as np\n\n\ndef f(a: np.ndarray, k):\n    out = a.copy()\n    for i in range(len(a)):\n"
        "        out[i] = (a[i] >= 1) or (a[i] // k > 0)\n    return out\n"
    )
    assert fix_text(source, unsafe_fixes=True) == source


WIDER = {
    "extent-through-a-name": """\
import numpy as np


def autocorrelate(x):
    n = len(x)
    auto = np.zeros(n)
    for k in range(n):
        for m in range(n - k):
            auto[k] += x[m + k] * x[m]
    return auto
""",
    "shape-unpacked-and-sliced-rows": """\
import numpy as np


def distances(X, centroids):
    m, d = X.shape
    out = np.zeros((m, len(centroids)))
    for i in range(m):
        for j in range(len(centroids)):
            out[i, j] = np.sum((X[i, :] - centroids[j]) ** 2)
    return out
""",
    "every-element": """\
import numpy as np

grid = np.zeros((50, 50))
for (i, j), value in np.ndenumerate(grid):
    grid[i, j] = i * 2 + j
""",
}


@pytest.mark.parametrize("source", list(WIDER.values()), ids=list(WIDER))
def test_wider_shapes_are_one_finding_per_nest_with_the_rewrite_shown(source):
    found = [d for d in lint_source(source) if d.code == "GPU201"]
    assert len(found) == 1, found
    assert found[0].fix.applicability is Applicability.DISPLAY and found[0].fix.edits == ()


WIDER_NEAR_MISSES = {
    "list-through-a-name": """\
import numpy as np


def shout(items):
    n = len(items)
    out = []
    for i in range(n):
        out.append(items[i].upper())
    return out
""",
    "tensor-file": """\
import numpy as np
import torch


def rows(X):
    m = X.shape[0]
    total = 0.0
    for i in range(m):
        total += float(X[i, :].sum())
    return total
""",
    "elements-handed-to-a-call": """\
import numpy as np


def fit_each(model, batches):
    n = len(batches)
    for i in range(n):
        model.fit(batches[i, :])
""",
    "a-model-fitted-per-grid-point": """\
import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score

scores = np.zeros((10, 10))
for (i, j), value in np.ndenumerate(scores):
    scores[i, j] = cross_val_score(LinearRegression(), X, y, cv=j + 2).mean()
""",
    "a-column-per-class": """\
import numpy as np


class Bayes:
    def posterior(self, X, labels):
        k = len(labels)
        out = np.zeros((X.shape[0], k))
        for i in range(k):
            out[:, i] = self.class_posterior(X, i)
        return out
""",
    "extent-of-something-else": """\
import numpy as np


def steps(config):
    n = config["steps"]
    out = np.zeros(10)
    for i in range(n):
        out[i % 10] += 1
    return out
""",
}


@pytest.mark.parametrize("source", list(WIDER_NEAR_MISSES.values()), ids=list(WIDER_NEAR_MISSES))
def test_wider_shapes_near_misses(source):
    assert [d for d in lint_source(source) if d.code == "GPU201"] == []


def test_a_range_from_a_literal_zero_is_the_same_loop():
    source = HEADER + "    for i in range(0, len(a)):\n        out[i] = a[i] * b[i] + rate\n    return out\n"
    assert _only(source).fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    out[:len(a)] = a * b[:len(a)] + rate\n" in fixed
    for n in (0, 1, 9):
        before = run_example(SETUP, source, "f(a.copy(), b, out.copy())", n=n)
        after = run_example(SETUP, fixed, "f(a.copy(), b, out.copy())", n=n)
        assert_same_result(before, after, strict=False)


@pytest.mark.parametrize(
    "loop",
    [
        "for i in range(1, len(a)):",  # not every element: left as it is
        "for i in range(0, len(a), 2):",  # a step
        "for i in range(start, len(a)):",
    ],
)
def test_other_range_starts_and_steps_are_not_flagged(loop):
    source = HEADER + f"    start = 0\n    {loop}\n        out[i] = a[i] * b[i] + rate\n    return out\n"
    assert [d for d in lint_source(source) if d.code == "GPU201"] == []


NP_SHAPE_EXTENTS = {
    "parameter-np-shape-indexed": """\
import numpy as np


def centred(X):
    n = np.shape(X)[0]
    out = np.zeros(n)
    for i in range(0, n):
        out[i] = X[i, 0] - 1.0
    return out
""",
}


@pytest.mark.parametrize("source", list(NP_SHAPE_EXTENTS.values()), ids=list(NP_SHAPE_EXTENTS))
def test_an_extent_through_np_shape_is_followed(source):
    found = [d for d in lint_source(source) if d.code == "GPU201"]
    assert len(found) == 1, found


EXTENT_NEAR_MISSES = {
    "a-frame-in-a-pandas-file": """\
import numpy as np
import pandas as pd


def lower_bound(X, pi):
    N = X.shape[0]
    total = 0.0
    for i in range(N):
        x_i = X[i]
        total += np.log(x_i + 1.0)
    return total
""",
    "a-scalar-parameter": """\
import numpy as np


def grow(rate, n):
    total = 0.0
    for i in range(n):
        total += rate * i
    return total
""",
    "a-mask-per-feature": """\
import numpy as np


def stump(X, y, w):
    n_samples, n_features = np.shape(X)
    for j in range(n_features):
        prediction = np.ones(n_samples)
        prediction[X[:, j] < 0.5] = -1
        error = w[y != prediction].sum()
    return error
""",
    "a-list-parameter": """\
import numpy as np


def doubled(items):
    n = len(items)
    out = []
    for i in range(n):
        out.append(items[i] * 2)
    return out
""",
}


@pytest.mark.parametrize("source", list(EXTENT_NEAR_MISSES.values()), ids=list(EXTENT_NEAR_MISSES))
def test_extent_near_misses_are_not_flagged(source):
    assert [d for d in lint_source(source) if d.code == "GPU201"] == []

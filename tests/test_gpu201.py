"""GPU201 array-element-loop: what the fixer rewrites (checked by execution, arrays of
different lengths included), and what only gets a suggestion."""

from __future__ import annotations

from functools import partial

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

HEADER = "import numpy as np\n\n\ndef f(a: np.ndarray, b: np.ndarray, out: np.ndarray, rate: float = 0.5):\n"
SETUP = "a = rng.normal(size=N)\nb = rng.normal(size=N + 3)\nout = np.zeros(N + 5)"


_only = partial(only_finding, code="GPU201")


@pytest.mark.parametrize(("body", "expected"), [
    ("    for i in range(len(a)):\n        out[i] = a[i] * b[i] + rate\n    return out\n",
     "    out[:len(a)] = a * b[:len(a)] + rate\n"),
    ("    for i in range(a.shape[0]):\n        a[i] = -a[i] if a[i] < 0 and b[i] > 0 else np.sqrt(abs(a[i]))\n"
     "    return a\n",
     "    a[:] = np.where((a < 0) & (b[:a.shape[0]] > 0), -a, np.sqrt(abs(a)))\n"),
    ("    for i in range(len(a)):\n        out[i] += a[i] ** 2\n    return out\n",
     "    out[:len(a)] += a ** 2\n"),
    ("    total = 0.0\n    for i in range(len(a)):\n        total -= a[i] * np.pi\n    return total\n",
     "    total -= (a * np.pi).sum(axis=0)\n"),
])
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


@pytest.mark.parametrize("body", [
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
])
def test_shapes_that_only_get_a_suggestion(body):
    source = HEADER + body
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_cupy_loops_get_a_suggestion():
    source = "import cupy as cp\nx = cp.zeros(5)\nfor i in range(len(x)):\n    x[i] = x[i] + 1\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize("source", [
    "import numpy as np\nitems = [1, 2]\nfor i in range(len(items)):\n    items[i] = items[i] * 2\n",
    "import numpy as np\nx = np.zeros(5)\nfor i in range(len(x)):\n    save(x[i])\n",
    "import numpy as np\nx = np.zeros(5)\nfor i in range(5):\n    x[i] = x[i] + 1\n",
    "import numpy as np\nx = np.zeros(5)\nrange = list\nfor i in range(len(x)):\n    x[i] = x[i] + 1\n",
])
def test_not_flagged(source):
    assert [d for d in lint_source(source) if d.code == "GPU201"] == []

"""GPU203 np-vectorize."""

from __future__ import annotations

import ast

from gpulint.rule_api import Example, Rule, RuleContext, Tier

_VECTORIZE = "numpy.vectorize"


class NpVectorize(Rule):
    """
    ## What it does
    Flags `numpy.vectorize`, however it is imported or applied: called
    (`np.vectorize(f)`, `np.vectorize(f, otypes=[float])`) or used as a decorator
    (`@np.vectorize`). `cupy.vectorize` is not flagged: CuPy compiles the function into a
    GPU kernel.

    ## Why is this bad?
    `np.vectorize` is a convenience, not a vectorization: NumPy's documentation says it is
    "essentially a for loop". It calls the Python function once per element, boxing each
    value, so it runs at the speed of a Python loop: clipping a million floats through
    `np.vectorize` is about {speedup:1000000} slower than `np.clip` (the measured speedups
    below). Use a whole-array expression (`np.where`, `np.clip`, arithmetic on arrays, ufuncs). Without
    `otypes` it also calls the function an extra time on the first element to guess the
    output type, and fails on empty input.

    ## Fix safety
    There is no automatic fix: the whole-array form depends on what the function does.
    Rewrite its body with array operations: comparisons and `np.where` for branches,
    `np.clip`, `np.minimum`/`np.maximum` for `min`/`max`, ufuncs for `math` functions.
    """

    code = "GPU203"
    name = "np-vectorize"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code (tier sample 4b): 0 of 12 findings useful, below the bar (functions that already "
        "take arrays, string and file functions, small arrays)"
    )
    message = "`np.vectorize` calls a Python function once per element; write the function with array operations"
    nodes = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    calls = frozenset({"vectorize"})

    flagged = (
        Example(
            source="""\
import numpy as np


def clip_unit(x):
    return min(max(x, 0.0), 1.0)


def clip_scores(scores):
    return np.vectorize(clip_unit, otypes=[float])(scores)
""",
            idiom="""\
import numpy as np


def clip_scores(scores):
    return np.clip(scores, 0.0, 1.0)
""",
            setup="scores = rng.normal(0.5, 0.5, size=N)",
            call="clip_scores(scores)",
        ),
        Example(
            source="""\
from numpy import vectorize


@vectorize
def bucket(value):
    return "high" if value > 10 else "low"
""",
        ),
        Example(
            source="""\
import numpy as np


def tax(amount, rate):
    return amount * rate if amount > 1000 else 0.0


def taxes(amounts, rate):
    return np.vectorize(tax, otypes=[float])(amounts, rate)
""",
            idiom="""\
import numpy as np


def taxes(amounts, rate):
    return np.where(amounts > 1000, amounts * rate, 0.0)
""",
            setup="amounts = rng.uniform(0, 2000, size=N)",
            call="taxes(amounts, 0.2)",
        ),
    )
    ok = (
        Example(
            """\
import numpy as np


def vectorize(texts):
    return [len(text) for text in texts]


lengths = np.array(vectorize(["a", "bb"]))
""",
            reason="A function of the file's own named `vectorize`, not NumPy's.",
        ),
        Example(
            """\
import cupy as cp

relu = cp.vectorize(lambda x: x if x > 0 else 0)
""",
            reason="`cupy.vectorize`: CuPy compiles the function into a GPU kernel.",
        ),
        Example(
            """\
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

vectorizer = TfidfVectorizer()
scores = np.asarray(vectorizer.fit_transform(["a b", "b c"]).sum(axis=0))
""",
            reason="A scikit-learn `TfidfVectorizer`, not `np.vectorize`.",
        ),
        Example(
            """\
import numpy as np

squares = np.square(np.arange(10))  # not np.vectorize(lambda x: x * x)
""",
            reason="A NumPy ufunc applied to the whole array.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            if (not isinstance(func, ast.Attribute) or func.attr == "vectorize") and ctx.qualname(func) == _VECTORIZE:
                ctx.report(node)
            return
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) and ctx.qualname(decorator) == _VECTORIZE:
                ctx.report(decorator)

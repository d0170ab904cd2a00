"""GPU205 comprehension-over-array."""

from __future__ import annotations

import ast

from gpulint.rule_api import elementwise, Applicability, Example, few_iterations, Rule, RuleContext, Tier

from gpulint.plans.comprehension_over_array import ElementComprehension

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp)
#: Array constructors whose argument may be a comprehension the fix turns into the array itself.
_WRAPPERS = frozenset({"numpy.array", "numpy.asarray"})
#: What a comprehension may iterate for the rule to fire: (kind, library) pairs of the evidence.
_ITERATED_KINDS = frozenset({"array", "series"})


def repeatable(node: ast.expr) -> bool:
    """An expression that can be written once per element reference without calling
    anything: a name, an attribute chain over one, or a column `frame["label"]` of one."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and repeatable(node.value)
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


#: (kind, library) of the iterated values the rewrite is known to mean the same on.
_REWRITABLE = frozenset({("array", "numpy"), ("series", "pandas"), ("series", "modin")})


def _has_logic(expression: ast.expr) -> bool:
    return any(
        isinstance(node, (ast.IfExp, ast.BoolOp)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
        for node in ast.walk(expression)
    )


def _whole_array_means_it(
    node: ast.expr,
    iterable: ast.expr,
    kind: str,
    lib: str,
    wrapper_copies: bool,
    keeps_python_values: bool,
    wrapped: bool,
) -> bool:
    """The whole-array form computes what the comprehension computed: a list comprehension
    with no condition over a known library's array or Series, spelled out (`repeatable`);
    not `np.asarray([x for x in a])`, which is `a` itself where the comprehension built a
    new array; not on a Series where the body leaves Python's scalars (`v ** 0.5` is complex
    there); not a condition over a 2-D array's rows (`x if x > 0 else 0` tests a whole row,
    which works for rows of one element, where `np.where` tests each element)."""
    if not (isinstance(node, ast.ListComp) and (kind, lib) in _REWRITABLE and repeatable(iterable)):
        return False
    generator = node.generators[0]
    if generator.ifs or generator.is_async:
        return False
    if isinstance(node.elt, ast.Name) and wrapped and not wrapper_copies:
        return False
    if kind == "series" and not keeps_python_values:
        return False
    return not (kind == "array" and _has_logic(node.elt))


class ComprehensionOverArray(Rule):
    """
    ## What it does
    Flags a list, set or generator comprehension that iterates a NumPy/CuPy array or a
    Series element by element and computes each item with an expression that has a
    whole-array form. `np.array([... for x in a])` is reported once, on the comprehension.

    ## Evidence
    An expression has a whole-array form when it is made of arithmetic, comparisons,
    `and`/`or`/`not` over comparisons, `x if cond else y`, `abs()` and NumPy ufuncs, over
    the element, constants and names from outside that are not arrays. A comprehension that
    calls anything else per element (a model, a parser) is not flagged: it may have no
    vectorized form.

    ## Why is this bad?
    The comprehension boxes every element into a Python object and runs the interpreter once
    per element; the whole-array expression runs in compiled code over contiguous memory.
    Turning the result back into a list (`list(...)`, as the fix does to keep the list)
    costs most of that gain back, leaving about {speedup:1000000} on a million values (the
    measured speedups below): keep the array where the code that follows allows it. On a GPU
    (CuPy, cuDF) each element read is also a device-to-host copy and a synchronisation.

    ## Fix safety
    The fix is unsafe. It applies to a list comprehension (or one inside `np.array(...)` /
    `np.asarray(...)`) with one `for` and no `if`, over a NumPy array or a pandas/Modin Series
    held by a name, attribute or column (`frame["price"]`). Over an array `[expr for x in a]`
    becomes `list(expr over a)`, which yields what iterating the array yields on any shape
    (NumPy scalars from a 1-D array, row arrays from a 2-D one, `TypeError` for a 0-d one);
    over a Series it becomes `(expr over s).tolist()`, Python scalars like the Series'
    own elements. `np.array([...])` keeps its call around the whole-array expression;
    `np.asarray([x for x in a])`, whose rewrite would hand back `a` itself (changing the
    result would then change `a`), gets a suggestion, and so does logic (`and`, `or`, `not`,
    `x if c else y`) over an array's items: iterating a 2-D array yields rows, and a row of
    one element has a truth value, so the comprehension tests whole rows where `&` and
    `np.where` test each element. The values are the same, with these differences:

    - where `x if c else y` mixes types per element (a NumPy integer and a Python float),
      `np.where` gives every element the one dtype both promote to;
    - the elements of a Series are Python numbers, whose arithmetic differs from the
      column's at the edges: integers never overflow, and dividing by zero raises
      `ZeroDivisionError` instead of giving `inf`;
    - `np.array([])` of an empty input is a float64 array of shape `(0,)`, while the
      whole-array expression keeps the input's dtype and shape (`(0, 3)` for an empty 2-D
      array); over a 0-d array the comprehension raises `TypeError` and `np.array(...)` of
      the rewrite returns a 0-d array.

    Comprehensions over CuPy arrays and cuDF, Dask or unknown-library Series, filtered ones
    (`if`) and generator expressions get a display-only suggestion.
    """

    code = "GPU205"
    name = "comprehension-over-array"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 1 of 4 sampled findings useful"
    message = "comprehension over an array computes one element at a time in Python; use a whole-array expression"
    nodes = (ast.Call, *_COMPREHENSIONS)
    calls = frozenset(name.rsplit(".", 1)[1] for name in _WRAPPERS)
    fix = Applicability.UNSAFE
    suggestion = "compute the whole array at once: write the expression over the array instead of each element"

    flagged = (
        Example(
            source="""\
import numpy as np


def calibrated(readings: np.ndarray, gain: float) -> list:
    return [x * gain + 0.5 for x in readings]
""",
            fixed="""\
import numpy as np


def calibrated(readings: np.ndarray, gain: float) -> list:
    return list(readings * gain + 0.5)
""",
            setup="readings = rng.normal(size=N)",
            call="calibrated(readings, 2.5)",
        ),
        Example(
            source="""\
import numpy as np
import pandas as pd


def capped(prices: pd.DataFrame) -> np.ndarray:
    # cap every close at 100
    return np.array([p if p < 100 else 100.0 for p in prices["close"]])
""",
            fixed="""\
import numpy as np
import pandas as pd


def capped(prices: pd.DataFrame) -> np.ndarray:
    # cap every close at 100
    return np.array(np.where(prices["close"] < 100, prices["close"], 100.0))
""",
            setup='prices = pd.DataFrame({"close": rng.uniform(50, 150, N)})',
            call="capped(prices)",
        ),
        Example(
            source="""\
import numpy as np

values = np.asarray(measurements)
energy = sum(v ** 2 for v in values)
""",
        ),
        # a literal vector, then grown to a size the code does not show
        Example(
            source="""\
import numpy as np


def squares(extra: np.ndarray) -> list:
    vector = np.array([2, 5])
    vector = np.concatenate([vector, extra])
    return [element ** 2 for element in vector]
""",
            fixed="""\
import numpy as np


def squares(extra: np.ndarray) -> list:
    vector = np.array([2, 5])
    vector = np.concatenate([vector, extra])
    return list(vector ** 2)
""",
            setup="extra = rng.integers(0, 10, N)",
            call="squares(extra)",
        ),
        Example(
            source="""\
import numpy as np


def positive(signal: np.ndarray) -> list:
    return [s > 0 and s < 10 for s in signal]
""",
            idiom="""\
import numpy as np


def positive(signal: np.ndarray) -> list:
    return list((signal > 0) & (signal < 10))
""",
            setup="signal = rng.normal(5, 5, size=N)",
            call="positive(signal)",
        ),
    )
    ok = (
        Example(
            """\
import numpy as np

weights = [0.2, 0.3, 0.5]
scaled = np.array([w * 2 for w in weights])
""",
            reason="A comprehension over a Python list.",
        ),
        # a two-element demo array: nothing to gain
        Example(
            """\
import numpy as np

vector = np.array([2, 5])
squares = [element ** 2 for element in vector]
""",
            reason="A short literal array (two elements): known to be small.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
upper = [column.upper() for column in frame.columns]
""",
            reason="A comprehension over a frame's column labels.",
        ),
        Example(
            """\
import numpy as np

images = np.asarray(batch)
predictions = [model.predict(image) for image in images]
""",
            reason="Each element is handed to a model call: the work is the call.",
        ),
        Example(
            """\
import numpy as np

signal = np.linspace(0, 1, 100)
kernel = np.ones(5)
shifted = [x * kernel for x in signal]
""",
            reason="Each item combines the element with another array (`x * kernel`).",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10)
as_python = [x * 2 for x in values.tolist()]
""",
            reason="A comprehension over `.tolist()`: Python numbers, converted once.",
        ),
    )

    def __init__(self) -> None:
        #: Comprehensions that are the sole argument of `np.array(...)`: id -> the call.
        self.wrapped: dict[int, ast.Call] = {}

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Call):
            if (
                len(node.args) == 1
                and isinstance(node.args[0], ast.ListComp)
                and not node.keywords
                and ctx.qualname(node.func) in _WRAPPERS
            ):
                self.wrapped[id(node.args[0])] = node
            return
        assert isinstance(node, _COMPREHENSIONS)
        if len(node.generators) != 1:
            return
        generator = node.generators[0]
        target = generator.target
        iterated = ctx.type_of(generator.iter)
        if not isinstance(target, ast.Name) or iterated is None or iterated.kind not in _ITERATED_KINDS:
            return
        if few_iterations(generator, ctx):
            return  # a few elements: nothing to gain
        element = target.id
        # The body is evaluated inside the comprehension's scope, where `element` is bound;
        # arrays it reads whole would broadcast against the whole-array form.
        forbidden = set(ctx.env.data_names(node.elt, exclude={element}))
        verdict = elementwise(node.elt, lambda n: isinstance(n, ast.Name) and n.id == element, forbidden, ctx.env)
        if verdict is None:
            return
        wrapper = self.wrapped.get(id(node))
        copies = wrapper is not None and ctx.qualname(wrapper.func) == "numpy.array"
        rewritable = _whole_array_means_it(
            node, generator.iter, iterated.kind, iterated.lib, copies, verdict.keeps_python_values, wrapper is not None
        )
        ctx.report(
            node,
            context=ElementComprehension(
                applicability=Applicability.UNSAFE if rewritable else Applicability.DISPLAY,
                comprehension=node,
                element=element,
                iterable=generator.iter,
                kind=iterated.kind,
                needs_numpy=verdict.needs_numpy,
                wrapper=wrapper,
            ),
        )

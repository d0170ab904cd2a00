"""GPU204 python-builtin-on-array."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, Example, few_iterations, known_small, Rule, RuleContext, Tier
from gpulint.plans.python_builtin_on_array import BuiltinCall

BUILTINS = frozenset({"sum", "max", "min", "any", "all", "sorted", "list"})
#: Kinds of evidence the builtins walk element by element: arrays, Series, tensors and what
#: a model returns; not a "placed" value, which may be a module's parameters or a batch.
_KINDS = frozenset({"array", "series", "tensor", "output"})


#: builtin -> rewrite template for a NumPy array (`{a}` the array as a method's receiver).
#: `sum` walks the rows like the builtin (`axis=0`); `any`/`all` take the truth of each row,
#: which the builtin can only do for rows of one element: the same as over all elements.
#: `max`/`min`/`sorted` are left out: with NaN in the data the builtin's answer depends on
#: where the NaN is, and NumPy has no `max()` for text, which the builtin compares.
_ARRAY = {
    "sum": "{a}.sum(axis=0)",
    "any": "{a}.any()",
    "all": "{a}.all()",
}
#: builtin -> rewrite template for a pandas or Modin Series. `any`/`all` are left out (a
#: datetime or categorical Series has no `any()`, which the builtin does not need), and so
#: is `sorted` (NaN, as above), `max`/`min` (a Series skips NaN, returns NaN when empty).
_SERIES = {
    "sum": "{a}.sum(skipna=False)",
    "list": "{a}.tolist()",
}
#: (kind, library) of the argument -> the rewrites that give the builtin's values on it.
_TEMPLATES = {("array", "numpy"): _ARRAY, ("series", "pandas"): _SERIES, ("series", "modin"): _SERIES}


def _template(call: ast.Call, kind: str, lib: str) -> str | None:
    """The rewrite of `builtin(argument)`, with one argument and no keywords, on a known
    library's array or Series (the table above is the rule's whole contract)."""
    if len(call.args) != 1 or call.keywords:
        return None
    return _TEMPLATES.get((kind, lib), {}).get(call.func.id)  # type: ignore[attr-defined]


class PythonBuiltinOnArray(Rule):
    """
    ## What it does
    Flags the Python builtins `sum`, `max`, `min`, `any`, `all`, `sorted` and `list` called
    on a NumPy/CuPy array, a torch tensor or a Series (pandas, cuDF, Modin, Dask). A
    comprehension passed to a builtin (`sum(x * 2 for x in a)`) is GPU205
    (comprehension-over-array).

    ## Evidence
    Builtins on lists, tuples, dicts, generators and values of unknown type are left alone,
    and so is a name that the file rebinds (`sum = ...`).

    So is an array known to hold only a few elements, where the builtin costs microseconds:
    one built from a short literal (`np.array([2, 5])`), made with a small literal shape
    (`rng.random(100)`, `np.zeros((3, 4))`), or a few rows taken (`s.head()`, `a[:10]`),
    followed through the assignments that reach the call; and the distinct values a loop
    walks group by group (`for c in sorted(np.unique(y)): ... y == c`), whose own scans of
    the array cost far more than sorting the values. So is the row of an `iterrows()` loop
    (`for _, row in df.iterrows(): ... list(row)`): it holds one value per column, and the
    loop around it is what costs (GPU102).

    ## Why is this bad?
    The builtin iterates the array from Python: every element is boxed into a Python (or
    NumPy scalar) object and added or compared by the interpreter, where the array's own
    method runs one compiled loop. `sum(a)` is about {speedup:1000000} slower than `a.sum()`
    on a million values (the measured speedups below); on a GPU (CuPy, torch on CUDA, cuDF) each element read is also a copy to the
    host and a synchronisation.

    ## Fix safety
    The fix is unsafe, and only offered where its result has the same values as the builtin's:

    | call | NumPy array | pandas/Modin Series |
    |---|---|---|
    | `sum(a)` | `a.sum(axis=0)` | `s.sum(skipna=False)` |
    | `any(a)`, `all(a)` | `a.any()`, `a.all()` | suggestion only |
    | `list(a)` | suggestion only | `s.tolist()` |
    | `max(a)`, `min(a)`, `sorted(a)` | suggestion only | suggestion only |

    `axis=0` keeps the builtin's meaning on a 2-D array (it adds up the rows), and
    `skipna=False` its treatment of NaN (the builtin adds NaN). `any`/`all` take the truth
    of each row, which the builtin can only do when a row holds one element: the same as
    the truth of all the elements, which `a.any()` takes on any shape. What may still differ:

    - a float sum: the method adds pairwise, the builtin left to right, so the last digits
      can differ (the method's is the more accurate), and on `float16`, whose range ends at
      65504, a running total can overflow to `inf` in one order and not in the other;
    - the dtype of an integer total. On an array of an integer dtype narrower than 64 bits
      (`int8`, `uint16`, `int32`...) the builtin's running total keeps that dtype and wraps
      around when it overflows (NumPy warns `RuntimeWarning: overflow`): `sum` of three
      `int8` 100s is 44. The method adds in 64 bits and gives 300. The two agree whenever
      the builtin's total does not overflow. On a Series the builtin adds Python integers,
      which never overflow, where the method's `int64` total wraps around beyond ±9.2e18;
    - the type: the builtin returns Python `bool`/`int` for `any`/`all` and an empty `sum`;
      the methods return NumPy scalars, and on a nullable Series (`Int64`, `boolean`)
      `list()` holds NumPy scalars where `.tolist()` holds Python ones;
    - an array with no rows and more than one dimension: `sum` gives `0`, `a.sum(axis=0)` a
      row of zeros (and for a dtype whose elements cannot be added, datetimes, the method
      raises on the empty array where `sum` returned `0`); and where the builtin raises (`any`/`all` on rows of several elements,
      whose truth is ambiguous; any builtin on a 0-d array; `sum` of strings), the method
      returns a value.

    `max`, `min` and `sorted` only get a suggestion: with NaN in the data the builtin's
    answer depends on where the NaN is (`max([1.0, nan, 3.0])` is 3.0, `max([nan, 1.0, 3.0])`
    is NaN), while the methods return NaN or sort it last; NumPy's `max()` also raises on
    text, which the builtin compares. `any`/`all` of a Series get a suggestion because a
    Series of dates or categories has no `any()`/`all()` while the builtin takes each
    value's truth. `list(array)` holds NumPy scalars where `array.tolist()` holds Python
    ones, so it gets a suggestion, as do calls with more arguments (`sum(a, start)`,
    `max(a, default=0)`, `sorted(a, key=f)`), CuPy arrays, torch tensors and cuDF/Dask
    Series (whose methods keep the result on the device or lazy), and values of unknown
    library.
    """

    code = "GPU204"
    name = "python-builtin-on-array"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 0 of 15 sampled findings useful (values too few to matter)"
    message = "Python builtin iterates the array element by element; use the array's own method"
    nodes = (ast.Call,)
    calls: frozenset[str] = frozenset()  # builtins, called by their plain names
    fix = Applicability.UNSAFE
    suggestion = "use the array's own method (`a.sum()`, `a.max()`, `a.any()`, `np.sort(a)`, `a.tolist()`)"

    flagged = (
        Example(
            source="""\
import numpy as np


def total_clicks(clicks: np.ndarray) -> int:
    return sum(clicks)
""",
            fixed="""\
import numpy as np


def total_clicks(clicks: np.ndarray) -> int:
    return clicks.sum(axis=0)
""",
            setup="clicks = rng.integers(0, 1000, size=N)",
            call="total_clicks(clicks)",
        ),
        Example(
            source="""\
import numpy as np


def spread(latencies: np.ndarray) -> float:
    # how far the slowest request is from the typical one
    return max(latencies) - np.median(latencies)
""",
            idiom="""\
import numpy as np


def spread(latencies: np.ndarray) -> float:
    # how far the slowest request is from the typical one
    return latencies.max() - np.median(latencies)
""",
            setup="latencies = rng.gamma(2.0, 10.0, size=N + 1)",
            call="spread(latencies)",
        ),
        Example(
            source="""\
import pandas as pd


def median_order(orders: pd.DataFrame) -> float:
    ranked = sorted(orders["amount"])
    return ranked[len(ranked) // 2] if ranked else 0.0
""",
            idiom="""\
import pandas as pd


def median_order(orders: pd.DataFrame) -> float:
    ranked = orders["amount"].sort_values().tolist()
    return ranked[len(ranked) // 2] if ranked else 0.0
""",
            setup='orders = pd.DataFrame({"amount": rng.uniform(1, 500, N)})',
            call="median_order(orders)",
        ),
        Example(
            source="""\
import cupy as cp

flags = cp.asarray(raw_flags) > 0
if any(flags):
    print("some sensors tripped")
""",
        ),
        Example(
            source="""\
import numpy as np

labels = np.unique(raw_labels)
names = list(labels)
""",
        ),
        # a literal size, but a large one
        Example(
            source="""\
import numpy as np

rng = np.random.default_rng(0)
samples = rng.random(1_000_000)
largest = max(samples)
""",
        ),
        # distinct values a loop walks without selecting each one's elements
        Example(
            source="""\
import numpy as np

labels = np.load("labels.npy")
for label in sorted(np.unique(labels)):
    print(label)
""",
        ),
    )
    ok = (
        # a few elements: the builtin costs microseconds
        Example(
            """\
import numpy as np

eigen_values = np.array([4.2, 2.5, 1.1, 0.3])
ranked = sorted(eigen_values, reverse=True)
demo = np.random.random(100)
print(sum(demo), max(demo[:10]))
""",
            reason="Arrays known to be small: a short literal, a small literal shape (`np.random.random(100)`).",
        ),
        # one row of an `iterrows()` loop: the loop is what costs (GPU102)
        Example(
            """\
import pandas as pd

labels = pd.read_csv("label.csv")
boxes = []
for name, row in labels.iterrows():
    boxes.append(list(row))
""",
            reason="`list()` of a DataFrame row in an `iterrows` loop: GPU102's business.",
        ),
        # the distinct values of a loop that selects each one's elements: its scans dominate
        Example(
            """\
import numpy as np

bands = np.load("bands.npy")
flux = np.load("flux.npy")
for band in sorted(np.unique(bands)):
    mask = bands == band
    print(band, flux[mask].mean())
""",
            reason="`sorted` over the distinct values a loop walks group by group (`np.unique`).",
        ),
        # two arguments: `max` compares them, it does not iterate the array
        Example(
            """\
import numpy as np

residual = np.sqrt(np.abs(np.float64(2.0) - 1.5))
step = max(residual, 1e-12)
""",
            reason="`max` of two numbers (a NumPy scalar and a float), not of an array.",
        ),
        Example(
            """\
import numpy as np

weights = [0.2, 0.3, 0.5]
total = sum(weights)
largest = max(weights)
ordered = sorted(weights)
""",
            reason="Built-ins over a plain list.",
        ),
        Example(
            """\
import numpy as np

counts = {"a": 3, "b": 5}
total = sum(counts.values())
vector = np.array(list(counts.values()))
""",
            reason="Built-ins over a dict's values.",
        ),
        Example(
            """\
import numpy as np

threshold = 0.5
best = max(threshold, 0.9)
scores = np.zeros(3)
""",
            reason="Built-ins over Python numbers.",
        ),
        Example(
            """\
import numpy as np


def sum(values):
    return np.add.reduce(values)


data = np.arange(10)
total = sum(data)
""",
            reason="A `sum` of the file's own that shadows the built-in.",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10)
total = values.sum()
pairs = [(a, b) for a, b in zip(values, values[1:])]
""",
            reason="The array's own `.sum()`, and `zip`, which is not one of the flagged builtins.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (
            isinstance(func, ast.Name)
            and func.id in BUILTINS
            and node.args
            and not isinstance(node.args[0], ast.Starred)
            and ctx.env.is_builtin(func.id)
        ):
            return
        if func.id in ("max", "min") and len(node.args) > 1:
            return  # `max(x, eps)` compares its arguments; it does not iterate `x`
        argument = node.args[0]
        ty = ctx.type_of(argument)
        if ty is None or ty.kind not in _KINDS or ty.kind in ("placed", "output") and ty.lib != "torch":
            return
        if known_small(argument, ctx) or _iterable_of_few(node, ctx) or _row_of_iterrows(argument, ctx):
            return  # a few elements: nothing to gain
        ctx.report(
            node,
            f"`{func.id}()` iterates the {_NOUNS.get(ty.kind, 'tensor')} element by element in Python; "
            f"use its own method",
            context=_facts(node, ty.kind, ty.lib),
        )


_NOUNS = {"array": "array", "series": "Series"}


def _facts(call: ast.Call, kind: str, lib: str) -> BuiltinCall:
    template = _template(call, kind, lib)
    return BuiltinCall(
        applicability=Applicability.UNSAFE if template else Applicability.DISPLAY, call=call, template=template
    )


def _iterable_of_few(call: ast.Call, ctx: RuleContext) -> bool:
    """The call is what a loop known to run only a few times iterates."""
    loop = ctx.parent(call)
    return isinstance(loop, (ast.For, ast.AsyncFor)) and loop.iter is call and few_iterations(loop, ctx)


def _row_of_iterrows(argument: ast.expr, ctx: RuleContext) -> bool:
    """`argument` is the row an enclosing `for index, row in frame.iterrows()` binds."""
    if not isinstance(argument, ast.Name):
        return False
    loop = ctx.reaching_binding(argument.id)
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop not in ctx.statements:
        return False
    target, iterable = loop.target, loop.iter
    return (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[1], ast.Name)
        and target.elts[1].id == argument.id
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "iterrows"
    )

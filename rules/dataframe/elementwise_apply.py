"""GPU105 elementwise-apply."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    ARITHMETIC_OPERATORS,
    COMPARISON_OPERATORS,
    Applicability,
    assigned_value,
    Example,
    known_small,
    mentions,
    Rule,
    RuleContext,
    Tier,
)
from gpulint.pandas_api import DT_ATTRIBUTES, DT_METHODS, STR_METHODS, STR_METHODS_WITH_ARGUMENTS
from gpulint.plans.elementwise_apply import ElementwiseCall, ElementwiseForm, function_of

#: Builtins with a vectorized form on a Series or DataFrame.
BUILTINS = frozenset({"abs", "float", "int", "bool", "len", "round", "str"})
#: Libraries whose `apply`/`map` calls the function from Python once per element.
#: cuDF is absent on purpose: it compiles the function into a GPU kernel.
_ELEMENT_LOOP_LIBRARIES = frozenset({"pandas", "modin", "dask"})
#: Element-wise methods per receiver kind (`DataFrame.map` is pandas 2.1's `applymap`).
_METHODS = {"series": ("apply", "map"), "frame": ("applymap", "map")}
_ANY_METHOD = frozenset(method for methods in _METHODS.values() for method in methods)
#: Libraries on which the vectorized form computes what the per-element call computed.
_REWRITABLE = frozenset({"pandas", "modin"})


#: Builtins that build a collection whose `in` is a membership test of its items.
_COLLECTION_BUILDERS = frozenset({"set", "frozenset", "list", "tuple"})


class _Body:
    """Whether a lambda body is an element expression with a vectorized form: the parameter,
    constants and outside (scalar) names combined with arithmetic, single comparisons,
    `abs`/`round`/`float`/`int`/`bool`/`len`, `str` methods and conditionals."""

    def __init__(self, parameter: str, ctx: RuleContext, forbidden: frozenset[str]) -> None:
        self.parameter = parameter
        self.ctx = ctx
        self.forbidden = forbidden
        self.uses = 0
        self.conditional = False
        self.strings = False
        self.datetimes = False
        #: Why the body's column form is shown, not written (the first such part's reason).
        self.shown = ""

    def ok(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            if node.id == self.parameter:
                self.uses += 1
                return True
            return node.id not in self.forbidden
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float, str))
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ARITHMETIC_OPERATORS) and self.ok(node.left) and self.ok(node.right)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, (ast.USub, ast.UAdd)) and self.ok(node.operand)
        if isinstance(node, ast.Compare):
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                return self._membership(node)
            return (
                len(node.ops) == 1
                and isinstance(node.ops[0], COMPARISON_OPERATORS)
                and self.ok(node.left)
                and self.ok(node.comparators[0])
            )
        if isinstance(node, ast.IfExp):
            self.conditional = True
            return self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute) and node.attr in DT_ATTRIBUTES and self._element(node.value):
            self.datetimes = True
            return self.ok(node.value)
        return False

    def _membership(self, node: ast.Compare) -> bool:
        """`x in ["a", "b"]` (or `not in`, a tuple or set display of constants, or a name bound
        to a collection the code builds): the element against a collection, `s.isin([...])`
        on the column (shown: `isin` compares values where `in` also matches by identity, as
        NaN in a list of NaN does)."""
        collection = node.comparators[0]
        literal = (
            isinstance(collection, (ast.List, ast.Tuple, ast.Set))
            and collection.elts
            and all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float, str)) for e in collection.elts)
        )
        if not (self._element(node.left) and (literal or self._built_collection(collection))):
            return False
        self.uses += 1
        self._show("a membership test's column form is `isin`")
        return True

    def _built_collection(self, node: ast.expr) -> bool:
        """A name the code binds, where the apply runs, to a set, list or tuple it builds
        (`known = set(top_companies)`, `{...}`, `[... for ...]`): a membership test against
        it is `isin` too. Not a string (`in` finds substrings), a dict or anything unknown."""
        if not isinstance(node, ast.Name) or node.id == self.parameter or node.id in self.forbidden:
            return False
        statement = self.ctx.reaching_assignment(node.id)
        value = assigned_value(statement, node.id) if statement is not None else None
        if isinstance(value, (ast.Set, ast.SetComp, ast.ListComp)):
            return True
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in _COLLECTION_BUILDERS
            and self.ctx.env.is_builtin(value.func.id)
            and len(value.args) == 1
            and not value.keywords
        )

    def _show(self, reason: str) -> None:
        self.shown = self.shown or reason

    def _text_of_element(self, node: ast.expr) -> bool:
        """The element, or `str(element)` (its text; `.astype(str)` on the column)."""
        if self._element(node):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "str"
            and self.ctx.env.is_builtin("str")
            and len(node.args) == 1
            and not node.keywords
            and self._element(node.args[0])
        ):
            self._show("`str(x)` writes a missing value as text, which `.astype(str)` keeps apart")
            return True
        return False

    def _word_split(self, node: ast.expr) -> bool:
        """`x.split()` or `x.split(",")` of the element: counted with `len`, a number per element
        (alone it is a list per element, with no vectorized form to gain from)."""
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split"
            and self._text_of_element(node.func.value)
            and not node.keywords
            and (
                not node.args
                or len(node.args) == 1
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            )
        )

    def _shown_str_method(self, method: str, args: list[ast.expr]) -> bool:
        """`x.replace(",", "")` (literal text for literal text: `.str.replace(",", "",
        regex=False)`) or `x.translate(table)` with a table that is no element
        (`.str.translate(table)`): `str` methods with a column form that takes arguments."""
        if method == "replace":
            return len(args) == 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args)
        return method == "translate" and len(args) == 1 and not mentions(args[0], self.parameter)

    def _bound(self, node: ast.Call) -> bool:
        """`min(x, 1)` or `max(0, x)`: the element against a number, `clip` on the column
        (shown: `min` and `max` keep a missing value or drop it by argument order, `clip`
        keeps it)."""
        if len(node.args) != 2:
            return False
        numbers = [a for a in node.args if isinstance(a, ast.Constant) and type(a.value) in (int, float)]
        if len(numbers) != 1 or not all(self.ok(a) for a in node.args):
            return False
        self._show("`min`/`max` with a number is `clip` on the column, which keeps missing values")
        return True

    def _element(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == self.parameter

    def _call(self, node: ast.Call) -> bool:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return False
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("min", "max") and self.ctx.env.is_builtin(func.id):
            return self._bound(node)
        if isinstance(func, ast.Name):
            if func.id not in BUILTINS - {"str"} or not self.ctx.env.is_builtin(func.id):
                return False
            self.strings = self.strings or func.id == "len" and mentions(node, self.parameter)
            if func.id == "len" and len(node.args) == 1 and self._word_split(node.args[0]):
                self.uses += 1
                return True  # `len(x.split())`: `s.str.split().str.len()`
            if func.id == "len" and len(node.args) == 1 and self._text_of_element(node.args[0]):
                self.uses += 1
                self.strings = True
                return True  # `len(str(x))`: `s.astype(str).str.len()`
            if func.id == "round":
                return (
                    len(node.args) in (1, 2)
                    and self.ok(node.args[0])
                    and (len(node.args) == 1 or isinstance(node.args[1], ast.Constant))
                )
            return len(node.args) == 1 and self.ok(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in DT_METHODS and self._element(func.value):
            arguments_ok = not node.args or (
                func.attr == "strftime"
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            )
            self.datetimes = True
            return arguments_ok and self.ok(func.value)
        if isinstance(func, ast.Attribute) and self._shown_str_method(func.attr, node.args):
            self.strings = self.strings or mentions(func.value, self.parameter)
            form = "`.str.replace(old, new, regex=False)`" if func.attr == "replace" else "`.str.translate(table)`"
            self._show(f"{form} on the column leaves missing values missing, where `x.{func.attr}(...)` raises")
            return self.ok(func.value)
        if isinstance(func, ast.Attribute) and func.attr in STR_METHODS:
            self.strings = self.strings or mentions(func.value, self.parameter)
            if node.args and (
                func.attr not in STR_METHODS_WITH_ARGUMENTS
                or len(node.args) > 1
                or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))
            ):
                return False
            return self.ok(func.value)
        return False


def elementwise_form(function: ast.expr | None, ctx: RuleContext) -> ElementwiseForm | None:
    """What the function passed to `apply`/`map` is, when it has a vectorized form."""
    if isinstance(function, ast.Name) and function.id in BUILTINS and ctx.env.is_builtin(function.id):
        return ElementwiseForm("builtin", function.id)
    if (
        isinstance(function, ast.Attribute)
        and isinstance(function.value, ast.Name)
        and function.value.id == "str"
        and ctx.env.is_builtin("str")
        and function.attr in STR_METHODS
    ):
        return ElementwiseForm("str-method", function.attr)
    if not isinstance(function, ast.Lambda):
        return None
    args = function.args
    if len(args.args) != 1 or args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults:
        return None
    parameter = args.args[0].arg
    body = _Body(parameter, ctx, ctx.env.data_names(function.body, {parameter}))
    if not body.ok(function.body) or not body.uses:
        return None
    return ElementwiseForm(
        "lambda",
        parameter=parameter,
        strings=body.strings,
        conditional=body.conditional,
        uses=body.uses,
        datetimes=body.datetimes,
        shown=body.shown,
    )


def _whole_series(call: ast.Call) -> bool:
    """`Series.apply(f, by_row=False)` hands `f` the whole Series: not element-wise."""
    return any(
        k.arg == "by_row" and not (isinstance(k.value, ast.Constant) and k.value.value == "compat")
        for k in call.keywords
    )


class ElementwiseApply(Rule):
    """
    ## What it does
    Flags `Series.apply(f)` / `Series.map(f)` and `DataFrame.map(f)` /
    `DataFrame.applymap(f)` on a pandas, Modin or Dask object when `f` has a vectorized
    form: a builtin, a `str` method, or a one-parameter lambda made only of operations that
    have one.

    ## Evidence
    The builtins are `abs`, `float`, `int`, `bool`, `round`, `len` and `str`; the `str`
    methods `str.lower`, `str.strip`, ... A lambda counts when it only combines its argument
    with constants and outside names through arithmetic, single comparisons, those builtins,
    `str` methods and conditionals (`lambda x: x * 2`, `lambda s: s.strip().lower()`), or
    reads a timestamp's or a duration's parts on a Series (`lambda t: t.month`, `lambda t:
    t.weekday()`, `lambda td: td.total_seconds() / 60`: the `.dt` accessor's, shown, not
    rewritten, as `.dt` needs a datetime or timedelta column), or counts an
    element's words (`lambda x: len(x.split())`: `s.str.split().str.len()`, shown, not rewritten),
    or replaces literal text or translates characters (`lambda s: s.replace(",", "")`:
    `s.str.replace(",", "", regex=False)`; `s.translate(table)`: `s.str.translate(table)`;
    shown, not rewritten: the column forms leave a missing value missing where the lambda raises).
    Shown, not rewritten, as their column forms treat missing values otherwise: `min`/`max`
    of the element and a number (`clip`), a membership test against a list, tuple or set
    spelled out or bound to a name the code builds it in (`known = set(top)`: `isin`), and
    the length or words of `str(x)` (`.astype(str)`).

    Named functions, NumPy ufuncs (pandas already hands them the whole column), dicts and
    Series (a lookup, not a call), `by_row=False`, and cuDF objects (cuDF compiles the
    function into a GPU kernel) are left alone, and so are values known to hold only a few
    rows (a frame built from literals, `s.head()`; see GPU102), where the call per value
    costs microseconds.

    ## Why is this bad?
    `apply`/`map` with a Python function calls it once per element: every value is boxed
    into a Python object, the function runs in the interpreter, and the results are
    collected and their dtype inferred again. The vectorized form (`s * 2`, `s.abs()`,
    `s.str.lower()`, `s.astype(float)`) runs the same operation over the whole column in
    compiled code: for arithmetic about {speedup:10000} faster at 10k values and
    {speedup:100000} at 100k on a CPU
    (`gpulint bench --rule GPU105`). pandas' `.str` methods on object columns still loop in
    Python, so string rewrites gain little on a CPU; they are the form cuDF runs on a GPU
    without compiling a UDF.

    ## Fix safety
    The fix is unsafe. It rewrites a builtin to its method (`abs` -> `s.abs()`,
    `float`/`int`/`bool` -> `s.astype(...)`, `round` -> `s.round()`, `len` -> `s.str.len()`),
    a `str` method to the `.str` accessor, and a lambda by putting the receiver in place of
    its parameter (`lambda x: x.strip().lower()` -> `s.str.strip().str.lower()`). Only the
    parts of the lambda that read its parameter change: `lambda x: x / float(total)` becomes
    `s / float(total)`, one Python call as it was for each element (and computed once even
    for an empty Series, where the original never called it: on an empty Series an
    expression that raises for the column's dtype, a constant beyond its range, raises). `lambda x: x` becomes
    `s.copy()`, a new Series as `map` returned, not the receiver itself. Where the original
    returns, the values are the same except as listed here, and measured with pandas 3.1
    the results are not identical, which is why even `s.str.lower()` is not a safe fix:

    - dtypes: `apply(str.lower)` on an `object` column returns the `str` dtype and keeps a
      `category` column categorical, where `.str.lower()` returns `object`; `round(x)` makes
      ints where `s.round()` keeps floats; on an `object` column the accessor keeps `None`
      where `map(..., na_action="ignore")` gives `NaN`; `len` on a `string` column gives `int64` where
      `.str.len()` gives `Int64`; the result of `apply` on an empty `str` column is `str`,
      where `.str.len()` and `.str.isdigit()` give numbers and booleans; `x ** 2` on bools
      gives `int8`; `map(lambda x: x)` infers a dtype for an `object` column of numbers,
      where `.copy()` keeps `object`;
    - missing values: the function raises on `NaN`/`None`/`pd.NA` (`str.lower(nan)`,
      `len(None)`) and on non-strings, where the vectorized form yields a missing value;
      `map(..., na_action="ignore")` skips them, and is rewritten only where the vectorized
      form keeps them missing too (not for comparisons, `str` predicates, `bool` and `int`);
    - a column of a non-string dtype with no value the function is called on (empty, or
      only missing values with `na_action="ignore"`): `apply` returns it, while `.str`
      raises;
    - categorical columns: `apply` maps the categories, while arithmetic and `abs` on a
      categorical column raise `TypeError` (`x * 2` on a categorical column of numbers, or
      of strings to repeat); `==` compares with the categories themselves, so `x == True`
      no longer matches a category 1; `.str` methods, casts and `==` work;
    - bytes: on an `object` column of `bytes` (what `read_sas` returns without an
      `encoding`) the `bytes` methods work, while `.str` raises `TypeError`;
    - Unicode: with pyarrow installed (pandas' default string storage then), `.str.lower()`,
      `.upper()`, `.title()`, `.capitalize()` and `.swapcase()` map some characters
      differently from Python's `str` methods (`"ß".upper()` is `"SS"` in Python, `"ẞ"` in
      Arrow; `"İ".lower()` keeps a combining dot in Python only);
    - int64 overflow: Python ints grow where int64 arithmetic wraps. `+`, `-`, `*`, `//`,
      `x ** 2`, `abs(x)` and `-x` wrap once a result leaves the int64 range (`x + 1` at the
      int64 maximum, `x * x` beyond about 3e9, `abs(x)` at the minimum), or the range of a
      smaller int dtype (`x * 2` on `int8` wraps past 127), where a Python int beyond the
      dtype's range even raises `OverflowError` (`x + 300` on `uint8`), and `int(x)` of a
      float beyond that range gives a wrong int; ints beyond 2**53 are rounded to float when
      divided or compared with a float, where Python computes exactly.

    Declined, with a display-only suggestion, because NumPy computes other values or raises
    where Python returns: `**` unless its exponent is the literal 0, 1 or 2 (`x ** 0.5` is
    complex for a negative `x` in Python and NaN in NumPy, `x ** -1` raises for NumPy ints,
    `x ** 3` wraps in int64 from about 2e6); `-` of the element, a comparison or another
    value that may be a bool (`-True` is -1, pandas inverts bools); arithmetic on two values
    that may both be bools (`x + x`, `x * x`, `x - (x > 0)`: `True + True` is 2 but a
    logical or in NumPy, and `-` raises); `%` that formats a string (`"%.2f" % x` would
    format the whole column at once); arithmetic other than `+` with a string (`"-" * x`);
    the element itself added to or ordered against a string (`x + "!"`, `x < "m"`: a
    categorical column of strings refuses both, where `x.strip() + "!"` is rewritten);
    arithmetic or a comparison with an int that int64 cannot hold (`x * 10 ** 20`, where
    pandas raises `OverflowError`);
    `str` (`astype(str)` keeps missing values missing where `str(nan)` is `"nan"`); `round`
    of the element with digits (NumPy rounds through a scaled float, Python exactly);
    conditionals (`np.where` returns an array); `lambda x: x` with `na_action`; other
    arguments (`args=`, `convert_dtype=`); a receiver that is not a plain reference when
    the lambda uses its parameter more than once; `str` methods and `len` on a DataFrame
    (it has no `.str`); and Dask objects. Names from outside the lambda are taken to hold
    numbers (or strings), not bools or collections.
    """

    code = "GPU105"
    name = "elementwise-apply"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 5 of 14 sampled findings useful over three tier samples (below the bar): "
        "demo frames of ten rows; tuned corpus: 2 of 2"
    )
    message = "`apply`/`map` calls a Python function once per element; use the vectorized form"
    nodes = (ast.Call,)
    calls = _ANY_METHOD
    fix = Applicability.UNSAFE
    suggestion = (
        "use the vectorized form on the whole column: arithmetic on the Series (`s * 2`), `s.abs()`, "
        "`s.astype(float)`, the `.str` accessor (`s.str.lower()`, `s.str.len()`, "
        "`s.str.replace(old, new, regex=False)`), the `.dt` accessor "
        "(`s.dt.month`, `s.dt.weekday`, on a datetime column: `pd.to_datetime(s)` first otherwise), "
        "`np.where(cond, a, b)`"
    )

    flagged = (
        Example(
            source="""\
import pandas as pd


def with_tax(prices: pd.Series, rate: float) -> pd.Series:
    # gross price, rounded down to whole cents later
    return prices.map(lambda p: p * (1 + rate) - 0.5)
""",
            fixed="""\
import pandas as pd


def with_tax(prices: pd.Series, rate: float) -> pd.Series:
    # gross price, rounded down to whole cents later
    return prices * (1 + rate) - 0.5
""",
            setup="prices = pd.Series(rng.uniform(1, 100, N), index=pd.RangeIndex(N) * 3, name='price')",
            call="with_tax(prices, 0.2)",
        ),
        Example(
            source="""\
import pandas as pd


def normalise_names(customers: pd.DataFrame) -> pd.Series:
    return customers["name"].apply(lambda name: name.strip().lower())
""",
            fixed="""\
import pandas as pd


def normalise_names(customers: pd.DataFrame) -> pd.Series:
    return customers["name"].str.strip().str.lower()
""",
            setup=("customers = pd.DataFrame({'name': rng.choice([' Ada ', 'ALAN', 'grace  ', 'Straße'], N)})"),
            call="normalise_names(customers)",
        ),
        Example(
            source="""\
import pandas as pd


def clean(readings: pd.DataFrame) -> pd.DataFrame:
    readings["code"] = readings["code"].map(str.upper, na_action="ignore")
    return readings
""",
            fixed="""\
import pandas as pd


def clean(readings: pd.DataFrame) -> pd.DataFrame:
    readings["code"] = readings["code"].str.upper()
    return readings
""",
            setup="readings = pd.DataFrame({'code': pd.Series(rng.choice(['a', 'b', 'c'], N)).where(rng.uniform(size=N) > 0.2)})",
            call="clean(readings)",
        ),
        Example(
            source="""\
import pandas as pd


def as_floats(table: pd.DataFrame) -> pd.DataFrame:
    return table.map(float)
""",
            fixed="""\
import pandas as pd


def as_floats(table: pd.DataFrame) -> pd.DataFrame:
    return table.astype(float)
""",
            setup="table = pd.DataFrame({'a': rng.integers(0, 9, N), 'b': rng.uniform(0, 1, N)})",
            call="as_floats(table)",
        ),
        Example(
            source="""\
import pandas as pd

scores = pd.read_parquet("scores.parquet")
labels = scores["score"].apply(lambda s: "pass" if s >= 50 else "fail")
""",
        ),
        Example(
            source="""\
import pandas as pd


def shares(amounts: pd.Series, total: int) -> pd.Series:
    return amounts.apply(lambda amount: amount / float(total) * 100)
""",
            fixed="""\
import pandas as pd


def shares(amounts: pd.Series, total: int) -> pd.Series:
    return amounts / float(total) * 100
""",
            setup="amounts = pd.Series(rng.integers(0, 100, N), name='amount')",
            call="shares(amounts, 250)",
        ),
        Example(
            source="""\
import pandas as pd

prices = pd.read_csv("prices.csv")["price"]
labels = prices.apply(lambda p: "%.2f" % p)
""",
        ),
        Example(
            source="""\
import pandas as pd

readings = pd.read_csv("readings.csv")["reading"]
roots = readings.apply(lambda r: r ** 0.5)
""",
        ),
        Example(
            # the same encoding on a frame read from a file
            source="""\
import pandas as pd

sizes = pd.read_csv("sizes.csv")
sizes["x > L"] = sizes["size"].apply(lambda x: 1 if x == "XL" else 0)
""",
        ),
    )
    ok = (
        # a textbook frame of three literal rows
        Example(
            """\
import pandas as pd

sizes = pd.DataFrame([["green", "M", 10.1], ["red", "L", 13.5], ["blue", "XL", 15.3]],
                     columns=["color", "size", "price"])
sizes["x > L"] = sizes["size"].apply(lambda x: 1 if x == "XL" else 0)
""",
            reason="A frame built from literals: three rows, where the call per value costs microseconds.",
        ),
        Example(
            """\
import numpy as np
import pandas as pd

prices = pd.read_csv("prices.csv")["price"]
logged = prices.apply(np.log1p)
codes = prices.map({1.0: "one", 2.0: "two"})
summed = prices.apply("sum")
""",
            reason="A NumPy ufunc, a dict mapping or a named reduction: pandas runs them vectorized.",
        ),
        Example(
            """\
import pandas as pd


def parse(text):
    return int(text.split("-")[0])


orders = pd.read_csv("orders.csv")
numbers = orders["order_id"].apply(parse)
words = orders["note"].apply(lambda note: note.split())
""",
            reason="A named function, or a lambda calling a method with no vectorized form (`split`).",
        ),
        Example(
            """\
import cudf

trips = cudf.read_parquet("trips.parquet")
doubled = trips["fare"].apply(lambda fare: fare * 2)
""",
            reason="A cuDF column: cuDF compiles the function into a GPU kernel.",
        ),
        Example(
            """\
names = ["Ada", "Alan"]
lowered = list(map(str.lower, names))
lengths = [len(name) for name in names]
sizes = dict(zip(names, map(len, names)))
import pandas as pd
""",
            reason="Python's `map` and comprehensions over plain lists.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
scaled = frame.apply(lambda column: column * 2)
whole = frame["a"].apply(lambda column: column * 2, by_row=False)
""",
            reason="A frame's `apply` over columns, or `by_row=False`: each call gets a whole column.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _ANY_METHOD:
            return
        receiver = ctx.type_of(func.value)
        if receiver is None or receiver.lib not in _ELEMENT_LOOP_LIBRARIES:
            return
        if func.attr not in _METHODS.get(receiver.kind, ()) or _whole_series(node):
            return
        form = elementwise_form(function_of(node), ctx)
        if form is None or known_small(func.value, ctx):
            return  # no vectorized form, or a few values: nothing to gain
        if form.datetimes and receiver.kind != "series":
            return  # a frame has no `.dt` accessor
        applicability = Applicability.UNSAFE if receiver.lib in _REWRITABLE else Applicability.DISPLAY
        if form.datetimes or form.shown:
            applicability = Applicability.DISPLAY  # `.dt` needs a datetime dtype: shown, not written
        ctx.report(
            node,
            context=ElementwiseCall(
                applicability=applicability,
                call=node,
                receiver=func.value,
                kind=receiver.kind,
                form=form,
                statement=ctx.statement,
            ),
        )

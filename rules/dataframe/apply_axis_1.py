"""GPU104 apply-axis-1."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, Example, is_numpy_ufunc, known_small, Rule, RuleContext, Tier
from gpulint.plans.apply_axis_1 import RowApply

#: Libraries whose `DataFrame.apply(f, axis=1)` calls `f` from Python once per row.
#: cuDF is absent on purpose: it compiles the function into a GPU kernel.
#: "" is a frame whose library only its use shows (`.iterrows()`, `.apply(f, axis=1)` on a
#: parameter): most likely pandas; cuDF compiles `apply(axis=1)` and is left alone when known.
_ROW_LOOP_LIBRARIES = frozenset({"pandas", "modin", "dask", ""})


def row_wise_axis(call: ast.Call) -> bool:
    """True when the call passes `axis=1` or `axis="columns"` (keyword or second positional)."""
    axis: ast.expr | None = call.args[1] if len(call.args) >= 2 else None
    for keyword in call.keywords:
        if keyword.arg == "axis":
            axis = keyword.value
    return (
        isinstance(axis, ast.Constant)
        and not isinstance(axis.value, bool)
        and (axis.value == 1 and isinstance(axis.value, int) or axis.value == "columns")
    )


def _compiled_engine(call: ast.Call) -> bool:
    """`engine="numba"` (or an engine chosen at run time): not a Python loop we can prove."""
    for keyword in call.keywords:
        if keyword.arg == "engine":
            value = keyword.value
            return not (isinstance(value, ast.Constant) and value.value in (None, "python"))
    return False


def _function_of(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "func"), None)


def _runs_on_columns(function: ast.expr | None, ctx: RuleContext) -> bool:
    """Functions pandas does not call once per row: a method name (`"sum"` runs
    `frame.sum(axis=1)`), a NumPy ufunc (`np.sqrt` is applied to whole columns), and a dict
    (each function is applied only to the row its key names). A list or tuple is not among
    them: pandas loops over the rows of the transposed frame, one Series per row."""
    if isinstance(function, ast.Constant):
        return isinstance(function.value, str)
    if isinstance(function, ast.Dict):
        return None not in function.keys  # `{**functions}` may hold anything
    return function is not None and is_numpy_ufunc(ctx.qualname(function))


class ApplyAxis1(Rule):
    """
    ## What it does
    Flags `DataFrame.apply(f, axis=1)` (or `axis="columns"`) on a pandas, Modin or Dask
    DataFrame, where pandas calls `f` once per row. Other NumPy functions than ufuncs
    (`np.sum`, `np.mean`) are called once per row and are flagged, and so is a list of
    method names (`apply(["sum", "mean"], axis=1)` loops over the rows of the transposed
    frame, where `agg(["sum", "mean"], axis=1)` does not).

    ## Evidence
    Column-wise `apply` and `engine="numba"` (compiled) are left alone, and so is
    `Series.apply` (GPU105). So is a frame known to hold only a few rows (built from
    literals or a small literal shape, `df.head()`; see GPU102), where the loop costs
    microseconds, and a function that cuts a field of its row by other fields of the same
    row (`lambda row: row["tokens"][row["start"]:row["stop"]]`), which has no column form.
    So are the forms pandas does not run row by row: a method name (`apply("sum", axis=1)`
    is `frame.sum(axis=1)`), a NumPy ufunc (`apply(np.sqrt, axis=1)` hands it whole columns)
    and a dict (each function only sees the rows its keys name).

    ## Why is this bad?
    A row-wise `apply` is a Python loop: for every row pandas builds a new Series, boxes each
    value into a Python object and calls `f`. A column expression does the same work in
    compiled code over whole columns, about {speedup:10000} faster at 10k rows and
    {speedup:100000} at 100k on a CPU (`gpulint bench --rule GPU104`), and it is the
    form that runs on a GPU under cuDF. Dask and Modin run the same per-row Python loop
    inside each partition. cuDF frames are not flagged: cuDF compiles the function into a
    GPU kernel.

    ## Fix safety
    The fix is unsafe. It applies when the function is a one-parameter lambda whose body only
    reads row fields as `row["column"]` and combines them with arithmetic, string
    concatenation, single comparisons, `and`/`or`/`not` over comparisons, `abs()`/`round()`,
    constants and names from outside (assumed to hold scalars): `row["a"]` becomes
    `frame["a"]`, `and`/`or`/`not` become `&`/`|`/`~`, and `x if cond else y` becomes
    `np.where(cond, x, y)`. `np.where` returns a NumPy array: stored straight into a column
    of the same frame it is used as is, elsewhere it is wrapped in
    `pd.Series(..., index=frame.index)` so the result keeps its type and index.

    The values are the same, but they keep their column dtypes (an int column is no longer
    upcast to float by a row Series of mixed numbers), the result may carry a column's name,
    and what a scalar does on one row becomes what the column does: an integer division by
    zero (which raises for a Python int and gives `inf` for a NumPy one, as on the column)
    and concatenating a missing value become `inf` or `NaN`.

    On a frame with mixed dtypes each row holds Python objects, so more differs there:

    - int64 overflow: Python ints grow where int64 arithmetic wraps (`+`, `-`, `*`, `//`,
      `abs` and `x ** 2` once a result leaves the int64 range, or that of a smaller int
      dtype: `int8` wraps past 127), and a Python int beyond a small int dtype's range
      raises `OverflowError` on the column (`row["a"] + 300` on `uint8`); ints beyond 2**53
      are rounded to float when divided or compared with a float;
    - two bool columns: `row["a"] + row["b"]` is 2 per row but a logical or on the columns
      (`*` gives the same values as bools), and `-`, `/`, `//`, `%` and `**` raise
      `TypeError`;
    - next to a nullable column (`Int64`, `boolean`) a row turns NaN into `pd.NA`, so a
      comparison with it is missing per row and False on the column.

    `and`/`or` and conditionals compute every part on whole columns where Python skips what
    a row's guard rules out: a part that raises on the column (a column of strings compared
    with a number, an `object` column mixing types) raises after the fix even where no row
    ever ran it.

    On a frame with no rows, pandas calls the function once on a row of NaN to guess the
    shape of the result. When that call fails (string concatenation, `<` against a string,
    `round(x)`, a column the frame lacks), `apply` returns an empty copy of the frame instead
    of an empty Series (and storing that copy in a column raises when the frame has more
    than one column); the rewrite returns an empty Series (or creates an empty column), and
    raises `KeyError` where the frame lacks a column it reads (`pd.DataFrame([])` has none)
    and `TypeError` where the empty columns' dtype refuses the operation (a float column
    plus a string). A part of the lambda that reads no field (`abs(total)`) is computed
    once, even for a frame with no rows.

    Declined, because NumPy computes other values or raises where Python returns: `**`
    unless its exponent is the literal 0, 1 or 2 (`row["a"] ** 0.5` is complex for a
    negative Python float and NaN in NumPy, `row["a"] ** -1` raises for NumPy ints,
    `row["a"] ** 40` wraps in int64), `-` of a field or comparison that may be a bool
    (`-True` is -1, pandas inverts bools), arithmetic between a bool literal or comparison
    and a field or another comparison (`(row["a"] > 0) + True`), a guard that reads no
    field (`flag and row["a"] > 0`, `x if limit > 0 else y`: Python may never run the rest),
    `round()` of a conditional (a NumPy array has no `__round__`), `//` or `%` by a field
    (by zero a row's NumPy int gives 0 and the column inf or NaN), a field combined with
    itself (`row["a"] - row["a"]` raises on a bool column), arithmetic or a
    comparison with an int that int64 cannot hold (`row["a"] + 2 ** 64` raises
    `OverflowError` on a column), and `%` that formats a string (`fmt % row["a"]` would
    format the whole column at once). Named functions,
    `raw=True`, `result_type=`, `args=` or other keyword arguments, row
    attributes (`row.a`, which can mean a Series attribute rather than a column), conditionals
    mixing strings with other values, and receivers that are not a plain name (they would be
    evaluated once per column) get a display-only suggestion; a list of method names gets
    one of `agg` with the same list, which returns the same table. On Dask frames
    `np.where` is not offered, and on Modin frames only when stored straight into a column.
    """

    code = "GPU104"
    name = "apply-axis-1"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code, the tier samples pooled: 7 of 21 findings useful, below the bar (tables of a few "
        "thousand rows, where the row loop takes milliseconds)"
    )
    message = "`apply(axis=1)` calls a Python function once per row; use a vectorized column expression"
    nodes = (ast.Call,)
    calls = frozenset({"apply"})
    fix = Applicability.UNSAFE
    suggestion = (
        'compute the result with column expressions (`frame["a"] - frame["b"]`, '
        '`np.where(frame["x"] > 10, "hi", "lo")`) instead of a function called once per row'
    )

    flagged = (
        Example(
            source="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> pd.Series:
    return sales.apply(lambda row: row["price"] - row["cost"], axis=1)
""",
            fixed="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> pd.Series:
    return sales["price"] - sales["cost"]
""",
            setup='sales = pd.DataFrame({"price": rng.uniform(1, 100, N), "cost": rng.uniform(1, 50, N)})',
            call="margins(sales)",
        ),
        Example(
            source="""\
import pandas as pd


def label_temperatures(readings: pd.DataFrame) -> pd.DataFrame:
    # anything above 30 degrees is hot
    readings["label"] = readings.apply(lambda r: "hot" if r["temp"] > 30 else "mild", axis=1)
    return readings
""",
            fixed="""\
import pandas as pd
import numpy as np


def label_temperatures(readings: pd.DataFrame) -> pd.DataFrame:
    # anything above 30 degrees is hot
    readings["label"] = np.where(readings["temp"] > 30, "hot", "mild")
    return readings
""",
            setup='readings = pd.DataFrame({"temp": rng.uniform(0, 45, N)})',
            call="label_temperatures(readings)",
        ),
        Example(
            source="""\
import numpy as np
import pandas as pd


def order_sizes(orders: pd.DataFrame) -> pd.Series:
    return orders.apply(lambda o: "big" if o["qty"] * o["price"] > 100 else "small", axis="columns")
""",
            fixed="""\
import numpy as np
import pandas as pd


def order_sizes(orders: pd.DataFrame) -> pd.Series:
    return pd.Series(np.where(orders["qty"] * orders["price"] > 100, "big", "small"), index=orders.index)
""",
            setup="""\
orders = pd.DataFrame({"qty": rng.integers(1, 20, N), "price": rng.uniform(1, 20, N)},
                      index=pd.RangeIndex(N) * 10)""",
            call="order_sizes(orders)",
        ),
        Example(
            source="""\
import pandas as pd


def flag_alerts(readings: pd.DataFrame) -> pd.DataFrame:
    readings["alert"] = readings.apply(
        lambda row: row["temp"] > 80 and row["ok"] == 1,  # only working sensors
        axis=1,
    )
    return readings
""",
            fixed="""\
import pandas as pd


def flag_alerts(readings: pd.DataFrame) -> pd.DataFrame:
    # only working sensors
    readings["alert"] = (readings["temp"] > 80) & (readings["ok"] == 1)
    return readings
""",
            setup='readings = pd.DataFrame({"temp": rng.uniform(50, 100, N), "ok": rng.integers(0, 2, N)})',
            call="flag_alerts(readings)",
        ),
        Example(
            source="""\
import pandas as pd


def full_names(people: pd.DataFrame) -> pd.Series:
    return people.apply(lambda p: p["first"] + " " + p["last"], axis=1)
""",
            fixed="""\
import pandas as pd


def full_names(people: pd.DataFrame) -> pd.Series:
    return people["first"] + " " + people["last"]
""",
            setup="""\
people = pd.DataFrame({"first": rng.choice(["Ada", "Alan", "Grace"], N),
                       "last": rng.choice(["Lovelace", "Turing", "Hopper"], N)})""",
            call="full_names(people)",
            frame_when_empty=True,
        ),
        Example(
            source="""\
import pandas as pd


def risk(row):
    return row["debt"] / row["income"] if row["income"] else 0.0


loans = pd.read_csv("loans.csv")
loans["risk"] = loans.apply(risk, axis=1)
""",
        ),
        Example(
            # A parameter of unknown type: `apply(..., axis=1)` is itself the evidence that
            # it holds a frame (of a library the code does not show).
            source="""\
import pandas as pd


def totals(table):
    return table.apply(lambda row: row["a"] + row["b"], axis=1)
""",
            fixed="""\
import pandas as pd


def totals(table):
    return table["a"] + table["b"]
""",
            setup="table = pd.DataFrame({'a': rng.integers(0, 100, N), 'b': rng.integers(0, 100, N)})",
            call="totals(table)",
        ),
        Example(
            # a random frame of a size the code does not show
            source="""\
import numpy as np
import pandas as pd


def spread(n: int) -> pd.Series:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.standard_normal((n, 3)), columns=list("bde"))
    return frame.apply(lambda row: row["b"] - row["d"], axis="columns")
""",
            fixed="""\
import numpy as np
import pandas as pd


def spread(n: int) -> pd.Series:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.standard_normal((n, 3)), columns=list("bde"))
    return frame["b"] - frame["d"]
""",
            call="spread(N)",
        ),
        Example(
            # a field sliced by constants: `.str[:5]` does it for the whole column
            source="""\
import pandas as pd

tokens = pd.read_parquet("tokens.parquet")
tokens["head"] = tokens.apply(lambda row: row["ids"][:5], axis=1)
""",
        ),
    )
    ok = (
        # a 4x3 demo frame: four rows
        Example(
            """\
import numpy as np
import pandas as pd

frame = pd.DataFrame(np.random.standard_normal((4, 3)), columns=list("bde"))
spread = frame.apply(lambda row: row["b"] - row["d"], axis="columns")
""",
            reason="A frame made with a small literal shape (4 rows): the row loop costs microseconds.",
        ),
        # each row cuts its own list by its own bounds: no column expression does that
        Example(
            """\
import pandas as pd

tokens = pd.read_parquet("tokens.parquet")
tokens["kept"] = tokens.apply(lambda row: row["ids"][row["start"]:row["stop"]], axis=1)
""",
            reason="A row slices a list-valued cell by other columns: no vectorized form.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
column_means = frame.apply(lambda column: column.mean())
column_ranges = frame.apply(lambda column: column.max() - column.min(), axis=0)
""",
            reason="`apply` over columns (the default axis, or `axis=0`).",
        ),
        Example(
            """\
import pandas as pd

prices = pd.Series([1.0, 2.0])
doubled = prices.apply(lambda x: x * 2)
""",
            reason="A Series' `apply`, which has no `axis=1`: GPU105's business.",
        ),
        Example(
            """\
class Table:
    def apply(self, function, axis=0):
        return function(self)


table = Table()
result = table.apply(lambda t: t, axis=1)
""",
            reason="An `apply` method of a class of the file's own, not a DataFrame's.",
        ),
        Example(
            """\
import cudf

frame = cudf.read_parquet("data.parquet")
frame["total"] = frame.apply(lambda row: row["a"] + row["b"], axis=1)
""",
            reason="A cuDF frame: cuDF compiles the row function into a GPU kernel.",
        ),
        Example(
            """\
import cudf


def totals(table: cudf.DataFrame):
    return table.apply(lambda row: row["a"] + row["b"], axis=1)
""",
            reason="A parameter annotated as a cuDF frame: cuDF compiles the row function.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
settings = {"axis": 1}
for value in settings.values():
    print(value)
scaled = frame.apply(lambda column: column / column.max(), axis=settings["axis"])
""",
            reason="An axis not known to be 1 (read from a dict at run time).",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
groups = frame.groupby("key").apply(lambda group: group["a"].sum())
""",
            reason="A groupby's `apply`, not a DataFrame's: GPU106's business.",
        ),
        Example(
            """\
import numpy as np
import pandas as pd

frame = pd.read_csv("data.csv")
row_totals = frame.apply("sum", axis=1)
roots = frame.apply(np.sqrt, axis=1)
firsts = frame.apply({0: "max", 1: np.abs}, axis="columns")
""",
            reason="A named reduction, a NumPy ufunc or a dict of them: pandas runs them vectorized.",
        ),
        Example(
            """\
import pandas as pd

sheets = pd.read_excel("report.xlsx", sheet_name=None)
reader = pd.read_csv("big.csv", chunksize=10_000)
both = sheets.apply(lambda sheet: sheet, axis=1)
merged = reader.apply(lambda chunk: chunk, axis=1)
""",
            reason="`read_excel(sheet_name=None)` returns a dict and `chunksize=` a reader: no DataFrame.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_parquet("trips.parquet")
frame["total"] = frame.apply(lambda row: row["fare"] + row["tip"], axis=1, raw=True, engine="numba")
""",
            reason='A row function compiled by pandas\' numba engine (`engine="numba"`).',
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "apply" and row_wise_axis(node)):
            return
        receiver = ctx.type_of(func.value)
        if receiver is None or receiver.kind != "frame" or receiver.lib not in _ROW_LOOP_LIBRARIES:
            return
        if _compiled_engine(node) or _runs_on_columns(_function_of(node), ctx):
            return
        if known_small(func.value, ctx) or _indexes_fields_by_fields(_function_of(node)):
            return  # a few rows, or no column form to advise
        function = _function_of(node)
        ctx.report(
            node,
            context=RowApply(
                applicability=Applicability.UNSAFE if isinstance(function, ast.Lambda) else Applicability.DISPLAY,
                call=node,
                frame=func.value,
                lib=receiver.lib,
                function=function,
                stored_in_column=_stored_in_column(node, func.value, ctx.statement),
                statement=ctx.statement,
                collections=_collection_names(function, ctx),
            ),
        )


def _indexes_fields_by_fields(function: ast.expr | None) -> bool:
    """A lambda that indexes or slices a field of its row by fields of the same row
    (`row["tokens"][row["start"]:row["stop"]]`): each row cuts its own Python list, which no
    column expression does."""
    if not isinstance(function, ast.Lambda) or len(function.args.args) != 1:
        return False
    row = function.args.args[0].arg

    def field(node: ast.AST | None) -> bool:
        return (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == row
            and isinstance(node.slice, ast.Constant)
        )

    for node in ast.walk(function.body):
        if isinstance(node, ast.Subscript) and field(node.value):
            key = node.slice
            parts = [key.lower, key.upper, key.step] if isinstance(key, ast.Slice) else [key]
            if any(field(sub) for part in parts if part is not None for sub in ast.walk(part)):
                return True
    return False


def _stored_in_column(call: ast.Call, frame: ast.expr, statement: ast.stmt | None) -> bool:
    """`frame["c"] = frame.apply(...)`: the result goes straight into a column of the same
    frame, so an array aligned by position is as good as a Series aligned by index."""
    if not (isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    return (
        isinstance(target, ast.Subscript)
        and ast.dump(target.value) == ast.dump(frame)
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    )


def _collection_names(function: ast.expr | None, ctx: RuleContext) -> frozenset[str]:
    if not isinstance(function, ast.Lambda):
        return frozenset()
    parameters = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
    return ctx.env.data_names(function.body, parameters)

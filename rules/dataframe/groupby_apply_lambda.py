"""GPU106 groupby-apply-lambda."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, bare_method_call, Example, Rule, RuleContext, Tier
from gpulint.pandas_api import GROUPBY_AGGREGATIONS
from gpulint.plans.groupby_apply_lambda import GroupAggregation, GroupCall

_METHODS = ("apply", "transform", "agg", "aggregate")


#: Libraries whose groupby aggregations the rewrite's built-ins mean the same on.
_REWRITABLE = frozenset({"pandas", "modin"})


def _applicability(
    call: ast.Call, method: str, aggregation: GroupAggregation, lib: str, shape: str | None
) -> Applicability:
    """Unsafe where the built-in aggregation replaces the call (a known library and shape,
    the function the only argument: not `args=`, `include_groups=`, engine options; a
    column read only from a frame's groups, where `g["c"]` names a column, not a label)."""
    if lib not in _REWRITABLE or shape is None or len(call.args) + len(call.keywords) != 1:
        return Applicability.DISPLAY
    if method == "apply" and aggregation.column is not None and shape != "frame":
        return Applicability.DISPLAY
    return Applicability.UNSAFE


def group_aggregation(function: ast.expr | None, ctx: RuleContext) -> GroupAggregation | None:
    """`lambda g: g.sum()`, `lambda g: g["c"].mean()`, `lambda g: len(g)` or `len` itself."""
    if isinstance(function, ast.Name) and function.id == "len" and ctx.env.is_builtin("len"):
        return GroupAggregation("size")
    if not isinstance(function, ast.Lambda):
        return None
    args = function.args
    if len(args.args) != 1 or args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults:
        return None
    group = args.args[0].arg
    body = function.body
    if (
        isinstance(body, ast.Call)
        and isinstance(body.func, ast.Name)
        and body.func.id == "len"
        and ctx.env.is_builtin("len")
        and len(body.args) == 1
        and not body.keywords
        and _is_name(body.args[0], group)
    ):
        return GroupAggregation("size")
    if not bare_method_call(body, GROUPBY_AGGREGATIONS):
        return None
    owner = body.func.value
    if _is_name(owner, group):
        return GroupAggregation(body.func.attr)
    if isinstance(owner, ast.Subscript) and _is_name(owner.value, group) and _column_key(owner.slice):
        return GroupAggregation(body.func.attr, owner.slice)
    return None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _column_key(node: ast.expr) -> bool:
    """A column label (a string) or a list of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return (
        isinstance(node, ast.List)
        and bool(node.elts)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    )


class GroupbyApplyLambda(Rule):
    """
    ## What it does
    Flags `groupby(...).apply(f)`, `.transform(f)` and `.agg(f)` (`.aggregate(f)`) where `f` is
    a lambda that only calls a built-in aggregation of the group (`lambda g: g.sum()`,
    `lambda g: g["amount"].mean()`, `lambda g: len(g)`), or `len` itself (for `agg`, on the
    groups of one column: `gb["c"].agg(len)` is their size), on a groupby of a
    known pandas, cuDF, Modin or Dask frame or series. A lambda that does more than one
    aggregation is not flagged, nor are string names (`agg("sum")`), NumPy functions and
    named functions.

    ## Why is this bad?
    A lambda is called from Python once per group: each group is first materialised as its
    own frame or series, then the method runs on it. The built-in aggregation (`gb.sum()`,
    `gb["amount"].mean()`, `gb.size()`, `gb.transform("mean")`) computes every group in one
    pass of compiled code, saving a Python call per group: the more groups, the larger the
    saving (the measured example below has three), and on cuDF
    it is one GPU kernel instead of one Python call and a handful of kernels per group.

    ## Fix safety
    The fix is unsafe: it rewrites `gb.apply(lambda g: g["c"].M())` to `gb["c"].M()`,
    `gb.apply(lambda g: g.M())` to `gb.M()`, `gb.apply(len)`, `lambda g: len(g)` and
    `gb["c"].agg(len)` to `gb.size()` (`gb["c"].size()`), and `gb.transform(lambda g: g.M())` / `gb.agg(lambda g: g.M())` to
    `gb.transform("M")` / `gb.agg("M")`. The values are the same (measured with pandas 3.1
    on generated groups), but the result carries the column's name where `apply` leaves it
    unnamed, floating-point sums may differ in the last digits (the built-in sums in another
    order), and with no group (no rows, or only missing keys) `apply` returns an empty copy
    of the frame where the
    aggregation returns its own empty result (a Series, or a frame of the selected
    columns) with the same index; there `transform` of a lambda returns an empty Series (a
    frame groupby's raises `ValueError`) where `transform("M")` returns a missing value for
    every row; those empty results may also differ in dtype and index. With no rows the built-in aggregation still checks the column's type, which
    the lambda never saw: `transform("mean")` of a categorical column raises on an empty
    frame, as the lambda raises on any group of it.

    It is applied only where the receiver is written as `frame.groupby(...)` (optionally with
    a list of columns selected) on a pandas or Modin frame, with no `as_index` or other
    options that change the result's shape; a column of the group is taken only from a
    frame's groupby (on a series' groupby `g["c"]` reads a label). Other receivers (a name
    bound to a groupby, cuDF, Dask) get a display-only suggestion, and so does
    `transform`/`agg` of a lambda over a column of the group (pandas calls it on each column
    first, where the rewrite would not).
    """

    code = "GPU106"
    name = "groupby-apply-lambda"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 10 of 20 sampled findings useful (below the bar): lambdas over a few hundred "
        "groups, which cost milliseconds"
    )
    message = "a lambda called once per group where a built-in groupby aggregation exists"
    nodes = (ast.Call,)
    calls = frozenset(_METHODS)
    fix = Applicability.UNSAFE
    suggestion = 'call the built-in aggregation on the groupby (`gb["c"].sum()`, `gb.size()`, `gb.transform("mean")`)'

    flagged = (
        Example(
            source="""\
import pandas as pd


def revenue_by_region(sales: pd.DataFrame) -> pd.Series:
    return sales.groupby("region").apply(lambda g: g["amount"].sum())
""",
            fixed="""\
import pandas as pd


def revenue_by_region(sales: pd.DataFrame) -> pd.Series:
    return sales.groupby("region")["amount"].sum()
""",
            setup=(
                "sales = pd.DataFrame({'region': rng.choice(['north', 'south', 'east'], N), "
                "'amount': rng.integers(0, 1000, N)})"
            ),
            call="revenue_by_region(sales)",
            frame_when_empty=True,
        ),
        Example(
            source="""\
import pandas as pd


def centred(readings: pd.DataFrame) -> pd.DataFrame:
    # subtract each sensor's mean temperature
    readings["mean_temp"] = readings.groupby("sensor")["temp"].transform(lambda t: t.mean())
    readings["centred"] = readings["temp"] - readings["mean_temp"]
    return readings
""",
            fixed="""\
import pandas as pd


def centred(readings: pd.DataFrame) -> pd.DataFrame:
    # subtract each sensor's mean temperature
    readings["mean_temp"] = readings.groupby("sensor")["temp"].transform("mean")
    readings["centred"] = readings["temp"] - readings["mean_temp"]
    return readings
""",
            setup="readings = pd.DataFrame({'sensor': rng.integers(0, 4, N), 'temp': rng.normal(20, 5, N)})",
            call="centred(readings)",
        ),
        Example(
            source="""\
import pandas as pd


def orders_per_customer(orders: pd.DataFrame) -> pd.Series:
    return orders.groupby("customer").apply(len)
""",
            fixed="""\
import pandas as pd


def orders_per_customer(orders: pd.DataFrame) -> pd.Series:
    return orders.groupby("customer").size()
""",
            setup="orders = pd.DataFrame({'customer': rng.integers(0, 9, N), 'total': rng.uniform(1, 50, N)})",
            call="orders_per_customer(orders)",
            frame_when_empty=True,
        ),
        Example(
            source="""\
import pandas as pd


def widest(stock: pd.DataFrame) -> pd.DataFrame:
    return stock.groupby(["shop", "item"])[["price", "qty"]].agg(lambda column: column.max())
""",
            fixed="""\
import pandas as pd


def widest(stock: pd.DataFrame) -> pd.DataFrame:
    return stock.groupby(["shop", "item"])[["price", "qty"]].agg("max")
""",
            setup=(
                "stock = pd.DataFrame({'shop': rng.integers(0, 3, N), 'item': rng.choice(['a', 'b'], N), "
                "'price': rng.uniform(1, 9, N), 'qty': rng.integers(0, 20, N)})"
            ),
            call="widest(stock)",
        ),
        Example(
            source="""\
import pandas as pd

visits = pd.read_parquet("visits.parquet")
by_user = visits.groupby("user")
pages = by_user.apply(lambda g: g["page"].nunique())
""",
        ),
    )
    ok = (
        Example(
            """\
import pandas as pd

sales = pd.read_csv("sales.csv")
totals = sales.groupby("region")["amount"].sum()
means = sales.groupby("region").agg({"amount": "mean", "units": "sum"})
spread = sales.groupby("region")["amount"].transform("std")
""",
            reason="Built-in aggregations called directly (`sum`, `agg`, `transform`).",
        ),
        Example(
            """\
import pandas as pd

sales = pd.read_csv("sales.csv")
margin = sales.groupby("region").apply(lambda g: (g["price"] - g["cost"]).sum() / g["units"].sum())
top = sales.groupby("region").apply(lambda g: g.nlargest(3, "amount"))
""",
            reason="A lambda combining several columns or returning rows: no single built-in aggregation.",
        ),
        Example(
            """\
import pandas as pd

sales = pd.read_csv("sales.csv")
doubled = sales["amount"].apply(lambda x: x.sum())
per_column = sales.apply(lambda column: column.max())
""",
            reason="A Series' or frame's `apply`, not a groupby's.",
        ),
        Example(
            """\
class Groups:
    def apply(self, function):
        return function(self)


groups = Groups()
count = groups.apply(lambda g: g.sum())
""",
            reason="An `apply` method of a class of the file's own, not a groupby's.",
        ),
        Example(
            """\
import pandas as pd

def summarize(grouped):
    return grouped.apply(lambda g: g["amount"].sum())

records = [{"k": 1}, {"k": 2}]
lengths = list(map(len, records))
""",
            reason="A parameter with no evidence of a groupby.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in _METHODS):
            return
        receiver = ctx.type_of(func.value)
        if receiver is None or receiver.kind != "groupby":
            return
        function = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "func"), None)
        aggregation = group_aggregation(function, ctx)
        if aggregation is None:
            return
        shape = _groupby_shape(func.value, ctx)
        one_column = shape == "series" and func.attr in ("agg", "aggregate")  # `gb["c"].agg(len)`: the size
        if func.attr != "apply" and (aggregation.column is not None or aggregation.method == "size") and not one_column:
            return  # per column first: not the group's aggregation
        ctx.report(
            node,
            context=GroupCall(
                applicability=_applicability(node, func.attr, aggregation, receiver.lib, shape),
                call=node,
                method=func.attr,
                aggregation=aggregation,
                shape=shape,
            ),
        )


def _groupby_shape(node: ast.expr, ctx: RuleContext) -> str | None:
    """ "frame" for `frame.groupby(...)` (or with a list of columns selected), "series" for
    `frame.groupby(...)["c"]` or `series.groupby(...)`, on a known object and with only
    options that leave the result's shape alone; None where the receiver is not spelled out."""
    selected = None
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            selected = "series"
        elif isinstance(key, ast.List):
            selected = "frame"
        else:
            return None
        node = node.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "groupby"):
        return None
    owner = ctx.type_of(node.func.value)
    if owner is None or owner.kind not in ("frame", "series") or (owner.kind == "series" and selected):
        return None
    if (
        len(node.args) > 1
        or any(isinstance(a, ast.Starred) for a in node.args)
        or not all(k.arg in ("by", "level", "sort", "dropna", "observed", "group_keys") for k in node.keywords)
    ):
        return None
    return selected or owner.kind

"""GPU107 chained-assignment."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, Example, Rule, RuleContext, Tier, assigned_value
from gpulint.pandas_api import imports_only_pandas_tables, is_column_attribute
from gpulint.plans.chained_assignment import ChainedWrite

#: (shape, frame, rows, column, indexer, label): see `_chain`.
_Chain = tuple[str, ast.expr, ast.expr | None, ast.expr, str, str]
#: Libraries whose frames follow pandas' copy-on-write rules (pandas 3; Modin follows pandas).
_COPY_ON_WRITE = frozenset({"pandas", "modin"})


SLICE_MESSAGE = (
    "chained assignment writes into a temporary copy: pandas 3 (copy-on-write) discards it; write through one "
    "indexer: `df.loc[labels, column] = value` for index labels, `df.iloc[a:b, df.columns.get_loc(column)] = value` "
    "for positions"
)


def _column_key(node: ast.expr) -> bool:
    """A column label spelled as a string, or a list of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return (
        isinstance(node, ast.List)
        and bool(node.elts)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    )


def chained_write(target: ast.expr, ctx: RuleContext) -> ChainedWrite | None:
    """What a subscript assignment target writes into, when that is a temporary taken from a
    known frame; unsafe to rewrite where one indexer on the frame means what the chain
    meant (see `_one_indexer_means_it`), display-only elsewhere."""
    found = _chain(target, ctx)
    if found is None:
        return None
    shape, frame, rows, column, indexer, label = found
    rewritable = _one_indexer_means_it(shape, rows, column, indexer, ctx)
    return ChainedWrite(
        applicability=Applicability.UNSAFE if rewritable else Applicability.DISPLAY,
        shape=shape,
        frame=frame,
        rows=rows,
        column=column,
        indexer=indexer,
        target=target,
        label=label,
    )


def _chain(target: ast.expr, ctx: RuleContext) -> _Chain | None:
    """(shape, frame, rows, column, indexer, label) of a chained write (see
    `ChainedWrite`). A column read as an attribute (`df.price[k] = v`, `df[mask].price = v`)
    is the `ast.Attribute` itself, and `label` its name ("" otherwise)."""
    if isinstance(target, ast.Attribute):
        return _chain_into_attribute(target, ctx)
    if not isinstance(target, ast.Subscript):
        return None
    base, key = target.value, target.slice
    if isinstance(base, ast.Attribute) and _column_attribute(base, ctx):
        return "column-item", base.value, key, base, "", base.attr
    if (
        isinstance(base, ast.Attribute)
        and base.attr in ("loc", "at", "iloc", "iat")
        and isinstance(base.value, ast.Subscript)
        and _column_key(base.value.slice)
        and _frame(base.value.value, ctx)
    ):
        return "column-indexer", base.value.value, key, base.value.slice, base.attr, ""
    if not isinstance(base, ast.Subscript):
        return None
    inner, inner_key = base.value, base.slice
    if isinstance(inner, ast.Attribute) and inner.attr in ("loc", "iloc") and _frame(inner.value, ctx):
        return "row-column", inner.value, inner_key, key, inner.attr, ""
    if not _frame(inner, ctx):
        return None
    if isinstance(inner_key, ast.Constant) and isinstance(inner_key.value, str) or _label_variable(inner_key, ctx):
        return "column-item", inner, key, inner_key, "", ""
    if isinstance(inner_key, ast.List):
        return "columns-copy", inner, None, key, "", ""
    if isinstance(inner_key, ast.Slice) and _column_key(key):
        return "slice-column", inner, inner_key, key, "", ""  # `df[10:20]["c"] = v`: rows by slice
    key_type = ctx.type_of(inner_key)
    if key_type is not None and key_type.kind == "series":
        return "mask-column", inner, inner_key, key, "", ""
    return None


#: List methods that add items.
_GROWING = frozenset({"append", "extend", "insert"})


def _label_variable(key: ast.expr, ctx: RuleContext) -> bool:
    """`key` is a name a loop binds to column labels: it iterates literal strings or numbers
    (`for size in [100, 200]`, also through a name bound to such a list or tuple) or a
    frame's `.columns`."""
    if not isinstance(key, ast.Name):
        return False
    loop = ctx.reaching_binding(key.id)
    if not (isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name)):
        return False
    iterable = loop.iter
    if isinstance(iterable, ast.Name):
        facts = ctx.semantic.scope(ctx.scope)
        if facts is not None and not facts.attributes.get(iterable.id, set()).isdisjoint(_GROWING):
            return False  # a list of labels grown after it was written (`keys.append(["c", "d"])`)
        statement = ctx.reaching_assignment(iterable.id)
        iterable = assigned_value(statement, iterable.id) if statement is not None else None  # type: ignore[assignment]
    if isinstance(iterable, ast.Attribute) and iterable.attr == "columns":
        return _frame(iterable.value, ctx)
    return (
        isinstance(iterable, (ast.List, ast.Tuple))
        and bool(iterable.elts)
        and all(isinstance(e, ast.Constant) and type(e.value) in (str, int, float) for e in iterable.elts)
    )


def _chain_into_attribute(target: ast.Attribute, ctx: RuleContext) -> _Chain | None:
    """`df[mask].price = v` (`df.loc[r].price = v`): the column of a temporary is set."""
    base = target.value
    if not isinstance(base, ast.Subscript) or not _is_column_label(target.attr, base.value, ctx):
        return None
    inner, key = base.value, base.slice
    if isinstance(inner, ast.Attribute) and inner.attr in ("loc", "iloc") and _frame(inner.value, ctx):
        return "row-column", inner.value, key, target, inner.attr, target.attr
    if not _frame(inner, ctx):
        return None
    key_type = ctx.type_of(key)
    if key_type is not None and key_type.kind == "series":
        return "mask-column", inner, key, target, "", target.attr
    return None


def _column_attribute(node: ast.Attribute, ctx: RuleContext) -> bool:
    """`frame.price`: a known frame's column read as an attribute."""
    return _frame(node.value, ctx) and _is_column_label(node.attr, node.value, ctx)


def _is_column_label(attr: str, frame: ast.expr, ctx: RuleContext) -> bool:
    """`attr` names no attribute or method of the frame (`frame` once the `.loc` or the
    subscript of a chain is taken off): `frame.<attr>` can only be a column."""
    while isinstance(frame, (ast.Subscript, ast.Attribute)) and not _frame(frame, ctx):
        frame = frame.value
    ty = ctx.type_of(frame)
    return ty is not None and is_column_attribute(attr, ty.lib)


def _one_indexer_means_it(shape: str, rows: ast.expr | None, column: ast.expr, indexer: str, ctx: RuleContext) -> bool:
    """`frame.loc[rows, column]` (`.at`) writes where the chain meant to: not for a copy of
    several columns nor a positional indexer, not for a tuple (it would merge into `.loc`'s
    row and column pair), and for `df["c"][k]` only where `k` is never a slice
    (`series[a:b]` slices positions, `.loc[a:b]` labels)."""
    if shape in ("columns-copy", "slice-column") or indexer in ("iloc", "iat"):
        return False  # `df[a:b]` slices positions or labels, as the index decides
    if isinstance(rows, (ast.Tuple, ast.Starred)) or isinstance(column, (ast.Tuple, ast.Slice)):
        return False
    return shape != "column-item" or not isinstance(rows, ast.Slice) and never_a_slice(rows, ctx)  # type: ignore[arg-type]


def _frame(node: ast.expr, ctx: RuleContext) -> bool:
    """A pandas or Modin DataFrame: by its type, or by its use alone (`frame.columns`,
    `frame.iterrows()`) in a file that imports no other table library."""
    ty = ctx.type_of(node)
    if ty is None and isinstance(node, ast.Name) and _used_as_frame(node.id, ctx):
        return _pandas_file(ctx)
    if ty is None or ty.kind != "frame":
        return False
    return ty.lib in _COPY_ON_WRITE if ty.lib else _pandas_file(ctx)


#: What only a DataFrame has, of the values a data-science file holds (a Series, an array,
#: a tensor, a list or a dict has none of them).
_FRAME_USES = frozenset({"columns", "select_dtypes", "applymap", "melt", "iterrows", "itertuples"})


def _used_as_frame(name: str, ctx: RuleContext) -> bool:
    """`name`, of no known type, is used as only a DataFrame is (`name.columns`,
    `name.select_dtypes(...)`) in the innermost scope around that uses it at all."""
    for scope in reversed(ctx.scopes):
        facts = ctx.semantic.scope(scope)
        used = facts.attributes.get(name) if facts is not None else None
        if used:
            return not used.isdisjoint(_FRAME_USES)
    return False


def _pandas_file(ctx: RuleContext) -> bool:
    return bool(ctx.semantic.remember("pandas tables only", ctx.tree, lambda: imports_only_pandas_tables(ctx.tree)))


#: Kinds of evidence whose values are not slices (masks, labels, positions of a data library).
_DATA_KINDS = frozenset({"series", "array", "frame", "ndframe"})
#: Builtins that return a number or a string.
_SCALAR_BUILTINS = frozenset({"int", "float", "str", "bool", "len", "round", "abs"})
#: Literals and operations whose value is never a slice object.
_NEVER_SLICES = (ast.Compare, ast.JoinedStr, ast.List, ast.ListComp, ast.Set, ast.SetComp, ast.Dict, ast.DictComp)


def never_a_slice(node: ast.expr, ctx: RuleContext, depth: int = 0) -> bool:
    """Whether a row key provably holds no `slice` object: a constant, a comparison, a list,
    arithmetic on such values, a known Series or array (a mask), a number from a builtin, or
    a name last assigned one of those or walking a `range`, an index or a known array.
    `series[k]` reads a slice of integers by position where `.loc[k]` reads labels."""
    if isinstance(node, ast.NamedExpr):
        return never_a_slice(node.value, ctx, depth)
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, _NEVER_SLICES):
        return True
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not) or never_a_slice(node.operand, ctx, depth)
    if isinstance(node, ast.BinOp):
        return never_a_slice(node.left, ctx, depth) and never_a_slice(node.right, ctx, depth)
    if isinstance(node, ast.BoolOp):
        return all(never_a_slice(value, ctx, depth) for value in node.values)
    ty = ctx.type_of(node)
    if ty is not None and ty.kind in _DATA_KINDS:
        return True
    if isinstance(node, ast.Call):
        func = node.func
        return isinstance(func, ast.Name) and func.id in _SCALAR_BUILTINS and ctx.env.is_builtin(func.id)
    if not isinstance(node, ast.Name) or depth > 2:
        return False
    statement = ctx.reaching_binding(node.id)
    if isinstance(statement, ast.For) and statement in ctx.statements:
        # `for name in iterable:` around the current statement, nothing rebinding it first
        return isinstance(statement.target, ast.Name) and _yields_no_slices(statement.iter, ctx)
    value = assigned_value(statement, node.id) if statement is not None else None
    return value is not None and never_a_slice(value, ctx, depth + 1)


def _yields_no_slices(iterable: ast.expr, ctx: RuleContext) -> bool:
    """`range(...)`, an index or the columns (`frame.index[::2]`), or a known Series, array
    or frame: iterating yields numbers or labels."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and ctx.env.is_builtin("range")
    ):
        return True
    probe = iterable.value if isinstance(iterable, ast.Subscript) else iterable
    if isinstance(probe, ast.Attribute) and probe.attr in ("index", "columns") and _frame_like(probe.value, ctx):
        return True
    ty = ctx.type_of(iterable)
    return ty is not None and ty.kind in _DATA_KINDS


def _frame_like(node: ast.expr, ctx: RuleContext) -> bool:
    ty = ctx.type_of(node)
    return ty is not None and ty.kind in ("frame", "series", "ndframe")


class ChainedAssignment(Rule):
    """
    ## What it does
    Flags assignments (plain or augmented) through two indexing steps on a known pandas or
    Modin DataFrame: `df["c"][i] = v`, `df["c"].loc[i] = v` (also `.at`, `.iloc`, `.iat`),
    `df.loc[i]["c"] = v` (also `.iloc`), `df[mask]["c"] = v`, `df[a:b]["c"] = v` and
    `df[["a", "b"]]["a"] = v`,
    and with the column read as an attribute, `df.c[i] = v`, `df[mask].c = v`,
    `df.loc[i].c = v`. The first step makes an intermediate object and the write goes into
    that object.

    ## Evidence
    A frame is known by where it comes from (a reader, a constructor, a frame method) or by
    its use alone (`df.columns`, `df.iterrows()`, `df.select_dtypes(...)`) in a file that
    imports no table library other than pandas or Modin (no Polars, Spark, cuDF, Dask,
    Arrow or xarray, whose tables share some of those names). `df.c` is a column when `c`
    is no attribute or method of a DataFrame (`df.attrs[...]` is left alone). A column is
    selected by a string label, or by a name a loop binds to labels (`for size in [100,
    200]: df[size][k] = v`, also over `df.columns`). Rows taken by a slice (`df[a:b]["c"] =
    v`) are not rewritten: `df[a:b]` slices positions or labels as the index decides, so
    the message names both indexers.

    ## Why is this bad?
    Under pandas 3's copy-on-write every indexing result behaves as a copy, so the write
    never reaches `df`: it is silently lost (pandas only warns with `ChainedAssignmentError`).
    Under pandas 2 it worked or not depending on whether the intermediate was a view
    (`df.loc[i]` of a frame with mixed dtypes was already a copy). Inside a loop it is also
    the slow path: two indexing operations and a temporary object per scalar written. One
    indexer with both keys, `df.loc[i, "c"] = v`, writes into the frame in one step, in every
    pandas version.

    ## Fix safety
    The fix is unsafe because it changes behaviour on purpose: it makes the write take
    effect, where under pandas 3 the original writes into a copy and leaves the frame as it
    was. The rewrite does what the code meant under pandas < 3: `df["c"][k] = v`,
    `df["c"].loc[k] = v`, `df.loc[k]["c"] = v` and `df[mask]["c"] = v` become
    `df.loc[k, "c"] = v` (`df.loc[mask, "c"] = v`), `df["c"].at[k] = v` becomes
    `df.at[k, "c"] = v`. The tests check the rewritten code against the intended result
    computed independently (`clip`, `where`) and that the original leaves the frame unchanged.
    Measured against pandas 2.2.3 running the original (11 snippets, 44 runs): for the
    column-first forms (`df["c"][k]`, `df["c"].loc[k]`, `df["c"].at[k]`, masks included)
    the rewrite under pandas 3.1 gives the same values and dtypes as the original did under
    pandas 2; the row-first and mask-first forms (`df.loc[r]["c"]`, `df[mask]["c"]`) already
    wrote into a copy under pandas 2 whenever the frame mixed dtypes, so there the rewrite
    makes a write take effect that never did. Because the write now happens, pandas checks
    it: a value the column's dtype cannot hold (`100.0` into a bool column) raises
    `TypeError` under pandas 3 where the lost write raised nothing.

    `df.loc` reads `k` as a label. `df["c"][k]` does too in pandas 3 (and on an integer index
    in pandas 2; on other indexes pandas 2 fell back to positions for integer keys).
    Declined, with a display-only suggestion: slices in `df["c"][a:b]` (positional on a
    Series, label-based in `.loc`, which also includes the end: one more row), and so row
    keys in `df["c"][k]` that may hold a slice: only constants, comparisons, lists, masks
    (known Series or arrays), numbers from builtins (`len`, `int`), arithmetic on those, and
    names last assigned one of them or walking a `range`, an index or a known array are
    rewritten. Also declined: tuple keys (they would merge into `.loc`'s row and column
    pair), positional steps (`.iloc`, `.iat`, which need the column's position), and a list
    of columns copied first.
    """

    code = "GPU107"
    name = "chained-assignment"
    tier = Tier.DEFAULT
    tier_reason = (
        "Never-used code: 199 of 200 sampled findings useful, 80 of 80 in the sixth sample, 39 of 40 in the eighth"
    )
    message = (
        "chained assignment writes into a temporary copy: pandas 3 (copy-on-write) discards it; "
        "write through one indexer, `df.loc[row, column] = value`"
    )
    nodes = (ast.Assign, ast.AugAssign)
    fix = Applicability.UNSAFE
    suggestion = (
        "write through one indexer on the frame itself: `df.loc[row, column] = value` "
        "(`df.iloc[i, df.columns.get_loc(column)] = value` for positions)"
    )

    flagged = (
        Example(
            source="""\
import pandas as pd


def cap_temperatures(readings: pd.DataFrame) -> pd.DataFrame:
    # the sensors saturate at 100 degrees
    readings["temp"][readings["temp"] > 100] = 100.0
    return readings
""",
            fixed="""\
import pandas as pd


def cap_temperatures(readings: pd.DataFrame) -> pd.DataFrame:
    # the sensors saturate at 100 degrees
    readings.loc[readings["temp"] > 100, "temp"] = 100.0
    return readings
""",
            setup="readings = pd.DataFrame({'sensor': rng.integers(0, 5, N), 'temp': rng.uniform(50, 150, N)})",
            call="cap_temperatures(readings)",
            intended="readings.assign(temp=readings['temp'].clip(upper=100.0))",
        ),
        Example(
            source="""\
import pandas as pd


def mark_paid(invoices: pd.DataFrame, paid: list) -> pd.DataFrame:
    for number in paid:
        invoices.loc[number]["status"] = "paid"
    return invoices
""",
            fixed="""\
import pandas as pd


def mark_paid(invoices: pd.DataFrame, paid: list) -> pd.DataFrame:
    for number in paid:
        invoices.loc[number, "status"] = "paid"
    return invoices
""",
            setup="""\
invoices = pd.DataFrame({"amount": rng.uniform(10, 500, N), "status": "open"}, index=pd.RangeIndex(N) + 1000)
paid = list(invoices.index[rng.uniform(size=N) > 0.5])""",
            call="mark_paid(invoices, paid)",
            intended="invoices.assign(status=invoices['status'].where(~invoices.index.isin(paid), 'paid'))",
        ),
        Example(
            source="""\
import pandas as pd


def clear_returns(orders: pd.DataFrame) -> pd.DataFrame:
    orders[orders["returned"]]["revenue"] = 0.0
    return orders
""",
            fixed="""\
import pandas as pd


def clear_returns(orders: pd.DataFrame) -> pd.DataFrame:
    orders.loc[orders["returned"], "revenue"] = 0.0
    return orders
""",
            setup="orders = pd.DataFrame({'returned': rng.uniform(size=N) > 0.8, 'revenue': rng.uniform(1, 99, N)})",
            call="clear_returns(orders)",
            intended="orders.assign(revenue=orders['revenue'].mask(orders['returned'], 0.0))",
        ),
        Example(
            source="""\
import pandas as pd

prices = pd.read_csv("prices.csv")
prices["price"].iloc[0] = prices["price"].iloc[1]
""",
        ),
        Example(
            source="""\
import pandas as pd


def unrate(movies: pd.DataFrame) -> pd.DataFrame:
    movies[movies["rating"] == "NR"].rating = "unrated"
    return movies
""",
            fixed="""\
import pandas as pd


def unrate(movies: pd.DataFrame) -> pd.DataFrame:
    movies.loc[movies["rating"] == "NR", "rating"] = "unrated"
    return movies
""",
            setup="movies = pd.DataFrame({'rating': rng.choice(['NR', 'PG', 'R'], N), 'minutes': rng.integers(80, 240, N)})",
            call="unrate(movies)",
            intended="movies.assign(rating=movies['rating'].where(movies['rating'] != 'NR', 'unrated'))",
        ),
        Example(
            source="""\
import pandas as pd


def cap_runtime(movies: pd.DataFrame) -> pd.DataFrame:
    movies.minutes[movies.minutes > 200] = 200
    return movies
""",
            fixed="""\
import pandas as pd


def cap_runtime(movies: pd.DataFrame) -> pd.DataFrame:
    movies.loc[movies.minutes > 200, "minutes"] = 200
    return movies
""",
            setup="movies = pd.DataFrame({'rating': rng.choice(['NR', 'PG', 'R'], N), 'minutes': rng.integers(80, 240, N)})",
            call="cap_runtime(movies)",
            intended="movies.assign(minutes=movies['minutes'].clip(upper=200))",
        ),
        Example(
            source="""\
import numpy as np
import pandas as pd


def clean(bureau):
    print(bureau.select_dtypes("number").columns)
    bureau["days_credit"][bureau["days_credit"] < -40000] = np.nan
    return bureau
""",
            fixed="""\
import numpy as np
import pandas as pd


def clean(bureau):
    print(bureau.select_dtypes("number").columns)
    bureau.loc[bureau["days_credit"] < -40000, "days_credit"] = np.nan
    return bureau
""",
            setup="bureau = pd.DataFrame({'days_credit': rng.integers(-50000, 0, N).astype(float), 'amount': rng.uniform(0, 1e5, N)})",
            call="clean(bureau)",
            intended="bureau.assign(days_credit=bureau['days_credit'].mask(bureau['days_credit'] < -40000))",
        ),
        Example(
            source="""\
import pandas as pd


class Tracker:
    def __init__(self, keys):
        self.data = pd.DataFrame(index=keys, columns=["total", "counts"], dtype=float)

    def update(self, key, value):
        self.data.total[key] += value
""",
        ),
    )
    ok = (
        Example(
            """\
import pandas as pd

prices = pd.read_csv("prices.csv")
prices.loc[0, "price"] = 1.0
prices.loc[prices["price"] < 0, "price"] = 0.0
prices["price"] = prices["price"].fillna(0.0)
prices.at[3, "price"] = 2.5
""",
            reason="One indexing step per write (`.loc`, `.at`, a whole column).",
        ),
        Example(
            """\
import pandas as pd

table = {"a": [1, 2, 3]}
table["a"][0] = 10
grid = [[0, 0], [0, 0]]
grid[0][1] = 1
frame = pd.DataFrame(table)
""",
            reason="Nested writes into a dict and a list, not a DataFrame.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
column = frame["a"].copy()
column[0] = 1.0
frame["a"] = column
""",
            reason="A write into an explicit `.copy()`, assigned back as a whole column.",
        ),
        Example(
            """\
import pandas as pd


def fill(table):
    table["a"][0] = 1
""",
            reason="A parameter with no evidence of a DataFrame.",
        ),
        Example(
            """\
import polars as pl


def reset(table):
    print(table.columns)
    table["a"][0] = 1
    return table
""",
            reason="A table its use shows, in a file that imports Polars: not known to be a pandas frame.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
frame.attrs["unit"] = "kg"
frame.columns.name = "field"
""",
            reason="Writes into the frame's metadata (`attrs`, the columns' name), not into a column.",
        ),
        Example(
            """\
import pandas as pd

results = pd.DataFrame(columns=["error"])
for degree in range(1, 10):
    results.ix[degree, "error"] = degree / 10
""",
            reason="`.ix`, the indexer pandas removed in 1.0 (one indexing step, and an error today), is no column.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
        for target in targets:
            write = chained_write(target, ctx)
            if write is None:
                continue
            if write.shape == "slice-column":  # `.loc` takes labels, and `df[a:b]` may have taken positions
                ctx.report(target, SLICE_MESSAGE, context=write)
            else:
                ctx.report(target, context=write)

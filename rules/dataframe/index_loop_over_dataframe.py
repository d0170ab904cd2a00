"""GPU103 index-loop-over-dataframe."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    Applicability,
    Example,
    known_small,
    Rule,
    RuleContext,
    same_reference,
    Tier,
    walk_local,
)
from gpulint.plans.index_loop_over_dataframe import Cell, IndexLoop

_LABEL_INDEXERS = ("loc", "at")
#: Libraries on which the column expression computes what the loop computed.
_REWRITABLE = frozenset({"pandas", "modin"})
_POSITION_INDEXERS = ("iloc", "iat")


def indexed_frame(loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> tuple[ast.expr, str] | None:
    """The frame a loop walks by index, and how: "labels" (`for i in df.index`) or
    "positions" (`range(len(df))`, `range(len(df.index))`, `range(df.shape[0])`, from 0)."""
    iterable = loop.iter
    if isinstance(iterable, ast.Attribute) and iterable.attr == "index" and _frame(iterable.value, ctx):
        return iterable.value, "labels"
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and ctx.env.is_builtin("range")
        and not iterable.keywords
        and 1 <= len(iterable.args) <= 2
    ):
        return None
    if any(isinstance(a, ast.Starred) for a in iterable.args):
        return None
    if len(iterable.args) == 2 and not (
        isinstance(iterable.args[0], ast.Constant)
        and iterable.args[0].value == 0
        and type(iterable.args[0].value) is int
    ):
        return None
    size = iterable.args[-1]
    frame: ast.expr | None = None
    if (
        isinstance(size, ast.Call)
        and isinstance(size.func, ast.Name)
        and size.func.id == "len"
        and ctx.env.is_builtin("len")
        and len(size.args) == 1
        and not size.keywords
    ):
        frame = size.args[0]
        if isinstance(frame, ast.Attribute) and frame.attr == "index":
            frame = frame.value
    elif (
        isinstance(size, ast.Subscript)
        and isinstance(size.value, ast.Attribute)
        and size.value.attr == "shape"
        and isinstance(size.slice, ast.Constant)
        and size.slice.value == 0
        and type(size.slice.value) is int
    ):
        frame = size.value.value
    if frame is None or isinstance(frame, ast.Starred) or not _frame(frame, ctx):
        return None
    return frame, "positions"


def _frame(node: ast.expr, ctx: RuleContext) -> bool:
    ty = ctx.type_of(node)
    return ty is not None and ty.kind == "frame"


def _is_var(node: ast.expr, variable: str) -> bool:
    return isinstance(node, ast.Name) and node.id == variable


def cell_of(node: ast.AST, frame: ast.expr, variable: str) -> Cell | None:
    """`node` as an access to `frame` through `variable`:
    `frame.loc[i, c]`, `frame.at[i, c]`, `frame.iloc[i, j]`, `frame.iat[i, j]`, `frame[c][i]`,
    `frame[c].loc[i]` (`.at`, `.iloc`, `.iat`), `frame.loc[i][c]` (`.iloc`), `frame.loc[i]` (`.iloc`)."""
    if not isinstance(node, ast.Subscript):
        return None
    base, key = node.value, node.slice
    if isinstance(base, ast.Attribute) and base.attr in (*_LABEL_INDEXERS, *_POSITION_INDEXERS):
        by_position = base.attr in _POSITION_INDEXERS
        if same_reference(base.value, frame):
            if isinstance(key, ast.Tuple) and len(key.elts) == 2 and _is_var(key.elts[0], variable):
                return Cell(node, key.elts[1], by_position, column_position=by_position)
            if _is_var(key, variable) and base.attr in ("loc", "iloc"):
                return Cell(node, None, by_position)
            return None
        column = base.value
        if (
            isinstance(column, ast.Subscript)
            and same_reference(column.value, frame)
            and _is_var(key, variable)
            and not isinstance(column.slice, (ast.Slice, ast.Tuple))
        ):
            return Cell(node, column.slice, by_position)
        return None
    if not isinstance(base, ast.Subscript):
        return None
    if _row_then_column(base, frame, variable):
        return Cell(node, key, base.value.attr in _POSITION_INDEXERS)  # type: ignore[union-attr]
    if (
        _is_var(key, variable)
        and same_reference(base.value, frame)
        and not isinstance(base.slice, (ast.Slice, ast.Tuple))
    ):
        return Cell(node, base.slice, False)
    return None


def _row_then_column(base: ast.Subscript, frame: ast.expr, variable: str) -> bool:
    """`frame.loc[i]` / `frame.iloc[i]` (the row the outer subscript takes a column of)."""
    return (
        isinstance(base.value, ast.Attribute)
        and base.value.attr in ("loc", "iloc")
        and same_reference(base.value.value, frame)
        and _is_var(base.slice, variable)
    )


def cells_in(nodes: list[ast.stmt], frame: ast.expr, variable: str) -> list[Cell]:
    """Every access to `frame` through `variable` in `nodes` (nested functions excluded),
    outermost first: a cell inside another (`frame.loc[i]` of `frame.loc[i]["c"]`) is dropped."""
    found = [cell for node in walk_local(nodes) if (cell := cell_of(node, frame, variable)) is not None]
    inner = {id(sub) for cell in found for sub in ast.walk(cell.node) if sub is not cell.node}
    return sorted(
        (cell for cell in found if id(cell.node) not in inner),
        key=lambda cell: (cell.node.lineno, cell.node.col_offset),
    )


class IndexLoopOverDataframe(Rule):
    """
    ## What it does
    Flags loops over a DataFrame's index (`for i in df.index`) or row positions
    (`for i in range(len(df))`, `range(len(df.index))`, `range(df.shape[0])`) on a known
    frame whose body reads or writes single values or rows of that frame through the loop
    variable.

    ## Evidence
    Reads and writes through the loop variable: `df.loc[i, "c"]`, `df.at[i, "c"]`,
    `df.iloc[i, 0]`, `df.iat[i, 0]`, `df["c"][i]`, `df["c"].iloc[i]`, `df.loc[i]["c"]`,
    `df.iloc[i]`. Loops over `df.columns`, over lists (`range(len(items))`) and loops that
    only use the counter are left alone, and so are frames known to hold only a few rows
    (built from literals, `df.head()`, `df.iloc[:10]`; see GPU102), where the loop costs
    microseconds.

    ## Why is this bad?
    Every scalar access goes through pandas' indexing machinery (key checks, alignment, a
    boxed Python scalar): microseconds per value, so the loop is about {speedup:100000} slower
    at 100k rows than one column expression over the whole frame, and on a GPU (cuDF) each access is a
    separate device round trip. `iterrows()` (GPU102) is the same loop with a Series built per
    row.

    ## Fix safety
    The fix is unsafe. It applies to a loop whose body is one statement: appending a value
    computed from cells of the row to a list that starts empty just before the loop
    (`out = (df["a"] * 2).tolist()`), or storing it in a column of the same frame with
    `df.loc[i, "c"] = ...` / `df.at[i, "c"] = ...` (`df["c"] = ...`). The value may combine
    cells read by column name with arithmetic, single comparisons, `and`/`or`/`not`,
    `abs()`/`round()`, constants and outside names, and `x if c else y` (`np.where`). A loop
    whose variable the code after it reads (later in the function, in a nested function,
    or in the next pass of an enclosing loop) keeps it: that loop gets a suggestion.

    The values are the same where the loop visits every row in order: always for
    `df.index` with label access and `range(len(df))` with positional access
    (`df["c"].iloc[i]`). `range(len(df))` with label access (`df.loc[i, "c"]`, `df["c"][i]`)
    reads row `i` by label, which is row `i` only on the default 0..n-1 index: the rewrite
    assumes it (on any other index the loop reads other rows, raises `KeyError`, or with
    `.loc` writes adds rows; the rewrite does not). Results keep their column dtypes where
    scalars were boxed (an int column stays int), a list holds NumPy scalars' Python
    equivalents, on a frame whose index has duplicate labels `.loc[i, "c"]` reads all of
    them at once where the rewrite reads each row once, and on a frame with no rows the
    rewrite creates the column the loop would not, and an expression that fails on every row
    (`-` between two bool columns) fails in the rewrite even with no rows. Cells read
    one at a time are Python or NumPy scalars whose integer arithmetic may not overflow
    where the column's int64 (or smaller int dtype) wraps. Where the loop raises on a row
    (`None` added to a number in an `object` column), the rewrite raises another error or
    returns a missing value there. Other bodies, positional column keys
    (`df.iloc[i, 0]`), Dask and cuDF frames get a display-only suggestion.
    """

    code = "GPU103"
    name = "index-loop-over-dataframe"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 0 of 3 sampled findings useful (a dozen-row frame)"
    message = "loop over a DataFrame's index reads or writes one value at a time; use a vectorized column expression"
    nodes = (ast.For, ast.AsyncFor)
    fix = Applicability.UNSAFE
    suggestion = (
        'compute the result with column expressions on the whole frame (`frame["a"] - frame["b"]`, '
        '`np.where(frame["x"] > 10, "hi", "lo")`) instead of one value per loop step'
    )

    flagged = (
        Example(
            source="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> list:
    result = []
    for i in range(len(sales)):
        result.append(sales.loc[i, "price"] - sales.loc[i, "cost"])
    return result
""",
            fixed="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> list:
    result = (sales["price"] - sales["cost"]).tolist()
    return result
""",
            setup='sales = pd.DataFrame({"price": rng.uniform(1, 100, N), "cost": rng.uniform(1, 50, N)})',
            call="margins(sales)",
        ),
        Example(
            source="""\
import pandas as pd


def flag_hot(readings: pd.DataFrame) -> pd.DataFrame:
    for label in readings.index:
        # a reading above 80 degrees from a working sensor is an alert
        readings.at[label, "alert"] = readings.at[label, "temp"] > 80 and readings["ok"][label] == 1
    return readings
""",
            fixed="""\
import pandas as pd


def flag_hot(readings: pd.DataFrame) -> pd.DataFrame:
    # a reading above 80 degrees from a working sensor is an alert
    readings["alert"] = (readings["temp"] > 80) & (readings["ok"] == 1)
    return readings
""",
            setup="""\
readings = pd.DataFrame({"temp": rng.uniform(50, 100, N), "ok": rng.integers(0, 2, N)},
                        index=pd.Index(rng.permutation(N) * 7))""",
            call="flag_hot(readings)",
            new_columns_when_empty=True,
        ),
        Example(
            source="""\
import pandas as pd


def sizes(orders: pd.DataFrame) -> list:
    labels = []
    for i in range(orders.shape[0]):
        labels.append("big" if orders["qty"].iloc[i] * orders["price"].iloc[i] > 100 else "small")
    return labels
""",
            fixed="""\
import pandas as pd
import numpy as np


def sizes(orders: pd.DataFrame) -> list:
    labels = np.where(orders["qty"] * orders["price"] > 100, "big", "small").tolist()
    return labels
""",
            setup="""\
orders = pd.DataFrame({"qty": rng.integers(1, 20, N), "price": rng.uniform(1, 20, N)},
                      index=pd.Index(rng.permutation(N) + 100))""",
            call="sizes(orders)",
        ),
        Example(
            source="""\
import pandas as pd

events = pd.read_csv("events.csv")
for i in range(len(events)):
    if events.loc[i, "kind"] == "error":
        print(events.loc[i, "message"])
""",
        ),
        Example(
            # a number of rows the code does not show
            source="""\
import pandas as pd

lessons = pd.read_csv("lessons.csv").head(count)
for i in range(len(lessons)):
    print(lessons.loc[i, "title"], lessons.loc[i, "minutes"])
""",
        ),
    )
    ok = (
        # a frame of three literal rows
        Example(
            """\
import pandas as pd

lessons = pd.DataFrame({"title": ["Intro", "Pandas", "NumPy"], "minutes": [10, 25, 30]})
for i in range(len(lessons)):
    print(lessons.loc[i, "title"], lessons.loc[i, "minutes"])
""",
            reason="A frame built from literals: a few rows, where the loop costs microseconds.",
        ),
        Example(
            """\
import pandas as pd

survey = pd.read_csv("survey.csv")
for column in survey.columns:
    survey[column] = survey[column].fillna(0)
""",
            reason="A loop over the columns, not the rows.",
        ),
        Example(
            """\
import pandas as pd

weights = [0.2, 0.3, 0.5]
for i in range(len(weights)):
    weights[i] = weights[i] * 2
frame = pd.DataFrame({"w": weights})
""",
            reason="A loop over a list's indices, before the list becomes a frame.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
for i in range(len(frame)):
    print(f"row {i} of {len(frame)}")
""",
            reason="The loop only uses the counter, never reads the frame with it.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
other = pd.read_csv("other.csv")
for i in range(len(frame)):
    other.loc[i, "copy"] = 0
""",
            reason="The loop indexes another frame than the one its range counts.",
        ),
        Example(
            """\
import pandas as pd


def scale(table):
    for i in range(len(table)):
        table.loc[i, "a"] = table.loc[i, "a"] * 2
""",
            reason="A parameter with no evidence of a DataFrame.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, (ast.For, ast.AsyncFor))
        if not isinstance(node.target, ast.Name):
            return
        found = indexed_frame(node, ctx)
        if found is None:
            return
        frame, walk = found
        cells = cells_in(node.body, frame, node.target.id)
        if not cells or known_small(frame, ctx):
            return
        ty = ctx.type_of(frame)
        lib = ty.lib if ty is not None else ""
        ctx.report(
            node.iter,
            context=IndexLoop(
                applicability=Applicability.UNSAFE if lib in _REWRITABLE else Applicability.DISPLAY,
                loop=node,
                block=ctx.blocks[-1] if ctx.blocks else [],
                frame=frame,
                walk=walk,
                site=tuple(zip(ctx.statements, ctx.blocks, strict=False)),
                cells=cells,
                lib=lib,
                collections=ctx.env.data_names(ast.Module(body=node.body, type_ignores=[])),
            ),
        )

"""GPU101 dataframe-grown-in-loop."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gpulint.engine import RuleContext
from gpulint.evidence import FRAME_LIBRARIES, OTHER, Ty, library_of
from gpulint.registry import Example, FixAvailability, Rule

_APPEND_METHODS = ("append", "_append")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PANDAS_LIKE = ("frame", "series", "ndframe")
#: Keyword-only arguments of an empty constructor that leave it with a fresh RangeIndex.
_FRESH_KEYWORDS = frozenset({"columns", "dtype", "name"})


@dataclass
class LoopSite:
    """One loop enclosing a growth statement (outermost first), with what precedes it."""

    loop: ast.stmt
    block: list[ast.stmt]
    #: The statement before the loop, in the same block, that last binds the grown name
    #: (with nothing in between mentioning it), if there is one.
    init: ast.stmt | None = None
    #: `init` is `<frame library>.DataFrame(...)`/`.Series(...)` with no data: empty, RangeIndex.
    init_fresh: bool = False
    #: "DataFrame" or "Series" when `init_fresh`.
    init_kind: str = ""
    #: The loop runs its body at least once (`range(3)`, a non-empty literal, `while True`).
    runs_once: bool = False


@dataclass
class Growth:
    """What the detector knows about one growth statement; the fixer's input."""

    kind: str  # "concat", "append" or "loc"
    statement: ast.stmt
    target: ast.expr  # the grown name (or attribute chain)
    call: ast.Call | None  # the concat/append call ("loc": None)
    lib: str  # frame library family of the evidence ("" when only the type says pandas-like)
    target_type: Ty | None  # the grown value's type before the statement
    piece_type: Ty | None  # for append: the type of the appended value
    loops: list[LoopSite] = field(default_factory=list)
    scope: ast.AST | None = None  # the enclosing function (or the module)
    in_try: bool = False  # a `try` between the scope and the statement


class DataframeGrownInLoop(Rule):
    """
    ## What it does
    Flags a DataFrame or Series grown one piece at a time inside a `for` or `while` loop:
    `df = pd.concat([df, piece])` (also `[piece, df]`), `df = df.append(piece)`,
    `df = df._append(piece)` and `df.loc[len(df)] = row`. The concatenation must resolve to a
    frame library's `concat` (pandas, cuDF, Modin, Dask), and for the method forms the grown
    object must be known to be a DataFrame or Series; a list's `append` is never flagged.

    Reading files in the loop and concatenating them is GPU108 (read-in-loop), which takes
    precedence once it exists; until then such loops are reported here.

    ## Why is this bad?
    Every concatenation copies all the rows collected so far into a new frame, so growing a
    frame row by row costs quadratic time and memory traffic: about 430x slower than one
    `concat` at 100 rows and 1,000x at 10k rows on a CPU. On a GPU (cuDF) each step is also a
    separate device allocation and kernel launch. `DataFrame.append` was removed in pandas
    2.0 and the private `_append` is gone from pandas 3.1, so code using them no longer runs.

    Collect the pieces in a list inside the loop and build the frame once after it.

    ## Fix safety
    The `pd.concat` rewrite is safe with pandas: the initial frame stays first in the list,
    so an empty start (`pd.DataFrame()`, `pd.DataFrame(columns=[...])` with object columns)
    and a loop that never runs give the same values, index and dtypes as the chain of
    concatenations did (measured with pandas 3.1, including zero iterations, `ignore_index`,
    `sort`, mixed int/float pieces and ragged columns). One exception is known: when one
    column takes three or more different dtypes across the initial frame and the pieces
    (counting "missing from a piece" as one; for example bool in one piece, int in another,
    float in a third), the single `concat` can choose another common dtype (object instead
    of float64) than the chain of pairwise ones. The fix is unsafe for cuDF, Modin and Dask,
    where this was not measured.

    The fixer declines (and shows the suggestion) when the grown name is used anywhere else
    in the loop, its `else:` clause or a function that could run during the loop, when the
    loop can `return`, `yield` or `raise` or sits in a `try`, when the concatenation joins
    columns (`axis=1`) or passes other options, and when a loop that runs zero times would
    leave a different value (`ignore_index=True` on a frame whose index is not known to be
    a fresh `RangeIndex`, or a start that may be `None`).

    The `df.loc[len(df)] = row` rewrite (rows collected in a list, then
    `pd.DataFrame(rows, columns=df.columns)`) is unsafe: the values are the same, but
    `.loc` enlargement infers each column's dtype from the first row (an int column next to
    a float becomes float64) and leaves an `Index` of int64 where the rewrite has a
    `RangeIndex`. It applies only when the frame starts as `pd.DataFrame(columns=...)`.

    The `.append`/`._append` rewrites are unsafe: those methods no longer exist, so the
    rewrite restores what they did (`concat` of frames, or rows built with `pd.DataFrame`
    from dict literals with `ignore_index=True`) but cannot be compared with the original.
    """

    code = "GPU101"
    name = "dataframe-grown-in-loop"
    message = (
        "DataFrame grown inside a loop: each step copies every row so far; "
        "collect the pieces in a list and build the frame once after the loop"
    )
    nodes = (ast.Assign, ast.AnnAssign)
    fix = FixAvailability.SAFE

    flagged = (
        Example(
            source='''\
import pandas as pd


def daily_totals(days: list) -> pd.DataFrame:
    totals = pd.DataFrame()
    for day in days:
        piece = pd.DataFrame({"day": [day], "total": [day * 1.5]})
        totals = pd.concat([totals, piece], ignore_index=True)
    return totals
''',
            fixed='''\
import pandas as pd


def daily_totals(days: list) -> pd.DataFrame:
    totals = pd.DataFrame()
    parts = [totals]
    for day in days:
        piece = pd.DataFrame({"day": [day], "total": [day * 1.5]})
        parts.append(piece)
    totals = pd.concat(parts, ignore_index=True)
    return totals
''',
            setup="days = list(rng.integers(0, 365, N))",
            call="daily_totals(days)",
        ),
        Example(
            source='''\
import pandas as pd


def collect(batches: dict) -> pd.DataFrame:
    # columns are fixed up front
    result = pd.DataFrame(columns=["key", "value"])
    for key, values in batches.items():
        chunk = pd.DataFrame({"key": key, "value": values})
        result = pd.concat([result, chunk])  # keeps each chunk's index
    return result
''',
            fixed='''\
import pandas as pd


def collect(batches: dict) -> pd.DataFrame:
    # columns are fixed up front
    result = pd.DataFrame(columns=["key", "value"])
    parts = [result]
    for key, values in batches.items():
        chunk = pd.DataFrame({"key": key, "value": values})
        parts.append(chunk)  # keeps each chunk's index
    result = pd.concat(parts)
    return result
''',
            setup="batches = {f'k{i}': rng.normal(size=3) for i in range(N)}",
            call="collect(batches)",
        ),
        Example(
            source='''\
import pandas as pd


def scores(models: list) -> pd.DataFrame:
    board = pd.DataFrame(columns=["model", "score"])
    for name in models:
        board.loc[len(board)] = [name, len(name) / 10]
    return board
''',
            fixed='''\
import pandas as pd


def scores(models: list) -> pd.DataFrame:
    board = pd.DataFrame(columns=["model", "score"])
    rows = []
    for name in models:
        rows.append([name, len(name) / 10])
    board = pd.DataFrame(rows, columns=board.columns)
    return board
''',
            setup="models = [f'model-{i}' for i in rng.integers(0, 1000, N)]",
            call="scores(models)",
        ),
        Example(
            source='''\
import pandas as pd


def running(values: list) -> pd.Series:
    series = pd.Series(dtype="float64")
    i = 0
    while i < len(values):
        series = pd.concat([series, pd.Series([values[i] * 2.0])])
        i += 1
    return series
''',
            fixed='''\
import pandas as pd


def running(values: list) -> pd.Series:
    series = pd.Series(dtype="float64")
    i = 0
    parts = [series]
    while i < len(values):
        parts.append(pd.Series([values[i] * 2.0]))
        i += 1
    series = pd.concat(parts)
    return series
''',
            setup="values = list(rng.normal(size=N))",
            call="running(values)",
        ),
        Example(
            source='''\
import pandas as pd


def summarize(groups: dict) -> pd.DataFrame:
    summary = pd.DataFrame()
    for name, frame in groups.items():
        summary = pd.concat([summary, frame.describe()], axis=1)
        print(len(summary.columns))
    return summary
''',
        ),
    )
    ok = (
        Example('''\
import pandas as pd

rows = []
for i in range(10):
    rows.append({"i": i, "square": i * i})
frame = pd.DataFrame(rows)
'''),
        Example('''\
class Log:
    def __init__(self):
        self.items = []

    def append(self, item):
        self.items.append(item)
        return self


log = Log()
for i in range(3):
    log = log.append(i)
'''),
        Example('''\
import pandas as pd

pieces = [pd.DataFrame({"a": [i]}) for i in range(5)]
combined = pd.concat(pieces, ignore_index=True)
'''),
        Example('''\
import pandas as pd

base = pd.DataFrame({"a": [1]})
for extra in [pd.DataFrame({"a": [2]})]:
    merged = pd.concat([base, extra])
'''),
        Example('''\
import pandas as pd

by_city = {}
for city in ["paris", "lima"]:
    by_city[city] = pd.DataFrame({"city": [city]})
everything = pd.concat(by_city.values())
'''),
        Example('''\
import pandas as pd

frame = pd.DataFrame({"a": [1]})
frame = pd.concat([frame, pd.DataFrame({"a": [2]})])
'''),
        Example('''\
import pandas as pd

frame = pd.DataFrame({"a": [1]})
for i in range(3):
    def grow(more):
        return pd.concat([frame, more])
'''),
        Example('''\
import pandas as pd

base = pd.DataFrame({"a": [0]})
for extra in range(3):
    frame = base.copy()
    frame = pd.concat([frame, pd.DataFrame({"a": [extra]})])
    print(frame)
'''),
        Example('''\
def grow(table, rows):
    for row in rows:
        table = table.append(row)
    return table
'''),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops:
            return
        growth = _growth(node, ctx)  # type: ignore[arg-type]
        if growth is None or _reset_each_iteration(growth.target, ctx):
            return
        _describe_surroundings(growth, ctx)
        name = ctx.segment(growth.target)
        if growth.kind == "loc":
            message = (f"`{name}` grows by one row per iteration through `.loc[len({name})]`: each new row copies "
                       "the frame; collect the rows in a list and build the frame once after the loop")
        elif growth.kind == "append":
            message = (f"`{name}` is grown with `.{growth.call.func.attr}` inside a loop "  # type: ignore[union-attr]
                       "(removed from pandas, and quadratic): collect the pieces in a list and `concat` once "
                       "after the loop")
        else:
            message = (f"`{name}` is grown with `concat` inside a loop: each step copies every row so far; "
                       "collect the pieces in a list and `concat` once after the loop")
        ctx.report(node, message, context=growth)


# -- recognising a growth statement ------------------------------------------------------


def same_reference(a: ast.expr, b: ast.expr) -> bool:
    """Two spellings of the same name or attribute chain (`df`, `self.frame`)."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and same_reference(a.value, b.value)
    return False


def _is_reference(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _pandas_like(ty: Ty | None) -> bool:
    return ty is not None and ty.kind in _PANDAS_LIKE


def _growth(node: ast.Assign | ast.AnnAssign, ctx: RuleContext) -> Growth | None:
    if isinstance(node, ast.Assign):
        if len(node.targets) != 1:
            return None
        target = node.targets[0]
    else:
        target = node.target
    value = node.value
    if value is None:
        return None
    if isinstance(target, ast.Subscript):
        return _loc_growth(node, target, ctx)
    if not _is_reference(target) or not isinstance(value, ast.Call):
        return None
    func = value.func
    name = ctx.qualname(func)
    if name is not None:
        found = library_of(name, FRAME_LIBRARIES)
        if found is None or found[1] != "concat":
            return None
        objs = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "objs"), None)
        if not isinstance(objs, (ast.List, ast.Tuple)):
            return None
        if not any(same_reference(element, target) for element in objs.elts):
            return None
        return Growth("concat", node, target, value, found[0], ctx.type_of(target), None)
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _APPEND_METHODS
        and same_reference(func.value, target)
        and len(value.args) == 1
    ):
        ty = ctx.type_of(target)
        if not _pandas_like(ty):
            return None
        assert ty is not None
        return Growth("append", node, target, value, ty.lib, ty, ctx.type_of(value.args[0]))
    return None


def _loc_growth(node: ast.Assign | ast.AnnAssign, target: ast.Subscript, ctx: RuleContext) -> Growth | None:
    indexer = target.value
    if not (isinstance(indexer, ast.Attribute) and indexer.attr == "loc" and _is_reference(indexer.value)):
        return None
    grown = indexer.value
    ty = ctx.type_of(grown)
    if not _pandas_like(ty) or not _is_length_of(target.slice, grown, ctx):
        return None
    assert ty is not None
    return Growth("loc", node, grown, None, ty.lib, ty, None)


def _is_length_of(key: ast.expr, grown: ast.expr, ctx: RuleContext) -> bool:
    """`len(df)`, `len(df.index)` or `df.shape[0]`."""
    if (
        isinstance(key, ast.Call)
        and isinstance(key.func, ast.Name)
        and key.func.id == "len"
        and ctx.env.lookup("len") is OTHER
        and len(key.args) == 1
        and not key.keywords
    ):
        argument = key.args[0]
        if isinstance(argument, ast.Attribute) and argument.attr == "index":
            argument = argument.value
        return same_reference(argument, grown)
    return (
        isinstance(key, ast.Subscript)
        and isinstance(key.value, ast.Attribute)
        and key.value.attr == "shape"
        and same_reference(key.value.value, grown)
        and isinstance(key.slice, ast.Constant)
        and key.slice.value == 0
    )


def _reset_each_iteration(target: ast.expr, ctx: RuleContext) -> bool:
    """The name is bound afresh earlier in the same iteration (`df = base.copy()` just
    before `df = pd.concat([df, x])`): each step then copies one start, not a growing frame."""
    if not isinstance(target, ast.Name):
        return False
    innermost = ctx.loops[-1]
    levels = [i for i, statement in enumerate(ctx.statements) if statement is innermost]
    if not levels:
        return False
    for index in range(levels[-1] + 1, len(ctx.statements)):
        for statement in ctx.blocks[index]:
            if statement is ctx.statements[index]:
                break
            if _binds_afresh(statement, target.id):
                return True
    return False


def _binds_afresh(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return False
    return any(isinstance(t, ast.Name) and t.id == name for t in targets) and \
        not _mentions(statement.value, name)  # type: ignore[arg-type]


# -- what the fixer needs to know about the surroundings -----------------------------------


def _describe_surroundings(growth: Growth, ctx: RuleContext) -> None:
    loops = {id(loop) for loop in ctx.loops}
    scope: ast.AST = ctx.tree
    start = 0
    for index in range(len(ctx.statements) - 1, -1, -1):
        if isinstance(ctx.statements[index], _SCOPES):
            scope = ctx.statements[index]
            start = index + 1
            break
    for index in range(start, len(ctx.statements)):
        statement = ctx.statements[index]
        if isinstance(statement, (ast.Try, *_TRY_STAR)):
            growth.in_try = True
        if id(statement) in loops:
            growth.loops.append(_loop_site(statement, ctx.blocks[index], growth.target, ctx))
    growth.scope = scope


_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node))


def _loop_site(loop: ast.stmt, block: list[ast.stmt], target: ast.expr, ctx: RuleContext) -> LoopSite:
    site = LoopSite(loop, block, runs_once=_runs_once(loop, ctx))
    if not isinstance(target, ast.Name):
        return site
    name = target.id
    position = next((i for i, statement in enumerate(block) if statement is loop), None)
    if position is None:
        return site
    for statement in reversed(block[:position]):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name:
            site.init = statement
            break
        if _mentions(statement, name):
            return site
    if site.init is not None:
        value = site.init.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Call) and not value.args and not _mentions(value, name):
            found = library_of(ctx.qualname(value.func) or "", FRAME_LIBRARIES)
            if found is not None and found[1] in ("DataFrame", "Series") and \
                    all(k.arg in _FRESH_KEYWORDS for k in value.keywords):
                site.init_fresh = True
                site.init_kind = found[1]
    return site


def _runs_once(loop: ast.stmt, ctx: RuleContext) -> bool:
    if isinstance(loop, ast.While):
        return isinstance(loop.test, ast.Constant) and bool(loop.test.value)
    iterable = loop.iter  # type: ignore[attr-defined]
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return bool(iterable.elts) and not any(isinstance(e, ast.Starred) for e in iterable.elts)
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes)) and bool(iterable.value)
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and ctx.env.lookup("range") is OTHER
        and not iterable.keywords
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in iterable.args)
    ):
        bounds = [a.value for a in iterable.args]  # type: ignore[attr-defined]
        if len(bounds) == 1:
            return bounds[0] > 0
        if len(bounds) == 2:
            return bounds[1] > bounds[0]
    return False

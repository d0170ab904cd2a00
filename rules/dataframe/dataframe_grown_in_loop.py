"""GPU101 dataframe-grown-in-loop."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

from gpulint.astutil import (ARITHMETIC_OPERATORS, COMPARISON_OPERATORS, is_reference, mentions, same_reference,
                             value_bound_to)
from gpulint.evidence import FRAME_LIBRARIES, OTHER, Ty, library_of
from gpulint.loop_effects import carried_over, loop_effects, recurrence_in, reference
from gpulint.pandas_api import FRAME_ATTRIBUTES
from gpulint.rule_api import Example, FixAvailability, Rule, RuleContext, Tier

_APPEND_METHODS = ("append", "_append")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PANDAS_LIKE = ("frame", "series", "ndframe")
#: Keyword-only arguments of an empty constructor that leave it with a fresh RangeIndex.
_FRESH_KEYWORDS = frozenset({"columns", "dtype", "name"})
_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()


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
    #: The start's column labels, in order, where `init` spells them out as string constants
    #: (`pd.DataFrame()`, `pd.DataFrame(columns=["a", "b"])`, `pd.DataFrame({"a": [...]})`).
    init_columns: tuple[str, ...] | None = None
    #: The loop runs its body at least once (`range(3)`, a non-empty literal, `while True`).
    runs_once: bool = False


@dataclass
class Selection:
    """Every new piece of a pandas `concat` growth is a row selection of the pandas DataFrame
    held by `root` (see `_selection_root`): taken as it is or through head/tail/sample/...,
    `.iloc[a:b]`, `.loc[a:b]`, `.loc[<row mask>]` or `.query(<comparisons>)`. Each such piece
    keeps every column and its dtype, so the pieces share one dtype per column as long as
    nothing changes the frame while they are taken; the fixer decides whether that is proven."""

    root: str
    pieces: list[ast.expr]
    #: The enclosing `for key, root in frame.groupby(...)` loop that binds `root`, if any:
    #: `frame` (`grouped`) is known to hold a pandas DataFrame and `grouping` is the call.
    group_loop: ast.For | None = None
    grouped: str = ""
    grouping: ast.Call | None = None


@dataclass
class RowPiece:
    """A new piece of a pandas `concat` growth that is a one-row frame literal built in the
    loop: `pd.DataFrame({"a": [x], "b": [y]})`, `pd.DataFrame([{"a": x, "b": y}])` or
    `pd.DataFrame([[x, y]], columns=["a", "b"])` (string-constant labels, each once), as it
    is in the `concat` or through a name bound to it earlier in the same block."""

    literal: ast.Call  # the `DataFrame(...)` call
    columns: list[ast.expr]  # the label constants, in order
    values: list[ast.expr]  # the value of each column in the row
    #: `name = DataFrame(...)` when the concat names the piece (a statement of the growth
    #: statement's block, before it); None when the literal is in the concat itself.
    binding: ast.Assign | None = None
    #: The statements between `binding` and the growth statement.
    between: list[ast.stmt] = field(default_factory=list)


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
    scope: ast.AST | None = None  # the enclosing function (or class body, or the module)
    in_try: bool = False  # a `try` between the scope and the statement
    #: pandas `concat` only: every new piece is a row selection of one frame, if so.
    selection: Selection | None = None
    #: pandas `concat` only: every new piece is a one-row frame literal, if so (in order).
    rows: list[RowPiece] | None = None
    #: Facts about the file shared by all its findings, one dict per file analysed: the
    #: calls the detector vetted (under `VETTED`), and what the fixer derives once.
    notes: dict = field(default_factory=dict)


#: `Growth.notes` key: ids of the calls known to run none of the program's code (pandas
#: `concat`, row selections and masks of pandas frames, a `groupby` taking only constants).
VETTED = "vetted calls"


class DataframeGrownInLoop(Rule):
    """
    ## What it does
    Flags a DataFrame or Series grown one piece at a time inside a `for` or `while` loop:
    `df = pd.concat([df, piece])` (also `[piece, df]`), `df = df.append(piece)`,
    `df = df._append(piece)` and `df.loc[len(df)] = row`. The concatenation must resolve to a
    frame library's `concat` (pandas, cuDF, Modin, Dask), and for the method forms the grown
    object must be known to be a DataFrame or Series; a list's `append` is never flagged.

    A recurrence is not flagged: where the loop computes what it adds from the frame itself
    (`df = pd.concat([df, step(df)])`, a row built from `df.iloc[-1]`), or decides from
    what it holds whether to add, each iteration needs the frame grown so far, and
    collecting the pieces would break the loop. Code that only looks at the frame
    (`print(df)`) or tests its size (`if len(df) > 100: break`) does not make it a
    recurrence. Nor is a frame flagged that each iteration binds afresh before growing it
    (`key, df = pair()` then `df = pd.concat([df, extra])`): nothing accumulates.

    A frame grown with files read in the loop (`pd.concat([df, pd.read_csv(path)])`, or a
    name bound to such a read earlier in the same iteration) is GPU108 (read-in-loop), which
    wins: it is reported there, not here. The chunks of one `chunksize=` reader stay here:
    that file is already read once.

    ## Why is this bad?
    Every concatenation copies all the rows collected so far into a new frame, so growing a
    frame piece by piece costs quadratic time and memory traffic, and on a GPU (cuDF) each step
    is also a separate device allocation and kernel launch. Collecting the pieces and calling
    `concat` once removes the quadratic copying; where each piece is a one-row frame built in
    the loop, that construction is the larger cost, and building the frame once from a list
    of records (`pd.DataFrame(rows)`) is about {speedup:100} faster than growing it at 100
    rows, {speedup:1000} at 1,000 and {speedup:10000} at 10,000 with pandas (the measured
    speedups below). `DataFrame.append` was removed
    in pandas 2.0 and the private `_append` is gone from pandas 3.1, so code using them no
    longer runs.

    Collect the pieces in a list inside the loop and build the frame once after it.

    ## Fix safety
    The `pd.concat` rewrite is safe with pandas only where every new piece is provably a row
    selection of one DataFrame that nothing changes while the pieces are taken, so that each
    column has the same dtype in every piece:

    - the group of an enclosing `for key, group in frame.groupby(...)` loop, where `frame` is
      known to hold a pandas DataFrame, the loop does not rebind, change or hand on `group`,
      and no function or lambda outside the loop mentions it (where that loop sits inside
      another one, `frame` must also be a private frame, as below, and the `groupby` must
      take only constants);
    - or a private frame: a name that the function (or the module) binds only with
      `name = <call>`, outside the loops, the binding in force being known to return a
      pandas DataFrame (`pd.read_parquet(...)`, `other.copy()`); not a parameter (the
      caller shares it); mentioned by no other function or lambda; never given another
      name, stored in a container or an attribute, or handed to code other than builtins
      such as `len` and `print` and pandas methods that take no callback; and not changed
      in the loops. The loops must also call nothing but such builtins, the pieces' own
      methods and `append` of a local list, iterate only over `range(...)` or literals,
      store into no item or attribute, use no `with`, and augment (`+=`) only counters
      bound to numbers: then no other code runs while the pieces are taken. Special
      methods (`__len__`, operators, `__format__`) are taken to leave frames alone;

    taken as it is or through any chain of `.head()`, `.tail()`, `.sample()`, `.nlargest()`,
    `.nsmallest()`, `.query("<comparisons>")`, `.drop_duplicates()`, `.dropna()` (none with
    `axis`, `inplace` or `ignore_index`), `.copy()`, `.iloc[a:b]`, `.loc[a:b]` and
    `.loc[<row mask>]`. A row mask is a column of the frame, a name holding a Series, or
    comparisons of the frame's columns with constants, other columns, `len(...)`, a column's
    mean/min/max..., or the variable of a loop over `range(...)` or a literal of numbers and
    strings, combined with `&`, `|`, `~`; or `.isin(...)`, `.between(...)`, `.isna()` or
    `.notna()` of a column. In a query, `@name` follows the same rule.

    Measured with pandas 3.1: each of these selections keeps every column and its dtype (and
    the index dtype), also when it selects no rows, an empty group (`observed=False`)
    included: 1,584 selections of a 13-column frame (int, float, bool, object, str,
    categorical, datetime, timedelta, nullable and narrow dtypes) and 207 groups, no change.
    With such pieces the single `concat` of `[start, *pieces]` and the chain of pairwise ones
    agree on values, index and dtypes whatever the start (`pd.DataFrame()`,
    `pd.DataFrame(columns=[...])` with object columns, non-empty frames with other dtypes,
    columns or index, a Series, `None`), with `ignore_index`, `sort`, `join="outer"` and
    prepending: 191,808 cases with at least one piece, no difference.
    `frame[<mask>]` does not qualify: where the columns are a MultiIndex, `frame["a"]` is a
    frame, and indexing with a frame blanks values instead of selecting rows (int64 columns
    become float64); `.loc` refuses a frame instead.

    Everywhere else the rewrite is unsafe (applied with `--unsafe-fixes`): when one column
    takes three or more different dtypes across the start and the pieces (counting "missing
    from a piece" as one), the single `concat` can choose another common dtype than the chain
    of pairwise ones (bool, int64 and float64 pieces: object instead of float64). Of 11,664
    dtype combinations measured, 267 differ, none of them with one dtype per column across
    the pieces; pieces built from rows, dicts, `pd.DataFrame(...)`, file chunks, a parameter
    (the caller shares it), or a frame that changes in the loop or that other code can reach
    carry no evidence against it. The fix is also unsafe for cuDF, Modin and Dask, where
    this was not measured.

    Where every new piece is a one-row frame literal built in the loop
    (`pd.DataFrame({"a": [x], "b": [y]})`, `pd.DataFrame([{"a": x, "b": y}])` or
    `pd.DataFrame([[x, y]], columns=["a", "b"])`: string-constant labels, each once, nothing
    else passed), in the `concat` or bound just before to a name only the `concat` reads, and
    the `concat` renumbers (`ignore_index=True`), the fix collects plain records instead
    (`rows.append({"a": x, "b": y})`) and builds the frame once after the loop:
    `frame = pd.concat([frame, pd.DataFrame(rows, columns=["a", "b"])], ignore_index=True)`,
    under `if rows:` unless the loop always runs, so that a loop that runs zero times leaves
    the start as it is, as the original does. This is unsafe too: a one-row frame infers its
    dtypes from its one row and each `concat` then finds a common dtype, while the frame
    built once infers each column from all its values. Where each column holds one kind of
    value they agree exactly (values, dtypes, index, column order); mixed values differ.
    `None` next to numbers, strings or timestamps stays `None` in an object column in the
    chain but becomes NaN/NaT in a float64, str or datetime64 column; bools next to numbers
    become 1/0 in the chain but stay `True` in an object column; `np.int32` next to
    `np.float32` gives float64 in the chain, float32 once. Measured with pandas 3.1: sequences
    of up to three values of 13 kinds (int, float, bool, None, NaN, str, NumPy int32 and
    float32, Timestamp, date, list, a big int, complex), four starts (`pd.DataFrame()`,
    `pd.DataFrame(columns=[...])`, an int column, a str column with its own index) and the
    three literal forms: 28,560 cases, 2,256 differ, none with one kind of value per column.
    Without `ignore_index=True` every piece keeps index 0, which records would renumber: such
    pieces get the list-of-pieces rewrite, as do literals that hold a comment.

    The fixer declines (and shows the suggestion) when the grown name is used anywhere else
    in the loop, its `else:` clause or a function that could run during the loop, when the
    loop can `return`, `yield` or `raise` or sits in a `try`, when the concatenation joins
    columns (`axis=1`) or passes other options, and when a loop that runs zero times would
    leave a different value (`ignore_index=True` on a frame whose index is not known to be
    a fresh `RangeIndex`, `sort=True` on a frame whose columns are not known to be in sorted
    order, or a start that may be `None`).

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
    tier = Tier.DEFAULT  # real code: 14 of 15 sampled findings useful
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
    rows = []
    for day in days:
        rows.append({"day": day, "total": day * 1.5})
    if rows:
        totals = pd.concat([totals, pd.DataFrame(rows, columns=["day", "total"])], ignore_index=True)
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


def top_sales(sales: pd.DataFrame) -> pd.DataFrame:
    best = pd.DataFrame()
    for _, group in sales.groupby("region"):
        best = pd.concat([best, group.nlargest(2, "amount")])
    return best
''',
            fixed='''\
import pandas as pd


def top_sales(sales: pd.DataFrame) -> pd.DataFrame:
    best = pd.DataFrame()
    parts = [best]
    for _, group in sales.groupby("region"):
        parts.append(group.nlargest(2, "amount"))
    best = pd.concat(parts)
    return best
''',
            setup=(
                "sales = pd.DataFrame({'region': rng.choice(['north', 'south', 'east', 'west'], N), "
                "'amount': rng.integers(0, 1000, N), 'units': rng.normal(size=N), "
                "'returned': rng.integers(0, 2, N).astype(bool)})"
            ),
            call="top_sales(sales)",
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
        # recurrences: each new piece is computed from the frame grown so far
        Example('''\
import pandas as pd


def simulate(frame: pd.DataFrame, rounds: int) -> pd.DataFrame:
    for _ in range(rounds):
        frame = pd.concat([frame, frame.tail(1) * 2])
    return frame
'''),
        Example('''\
import pandas as pd

history = pd.DataFrame({"step": [0], "value": [1.0]})
for step in range(1, 10):
    last = history.iloc[-1]
    row = pd.DataFrame({"step": [step], "value": [last["value"] * 1.1]})
    history = pd.concat([history, row], ignore_index=True)
'''),
        Example('''\
import pandas as pd

ledger = pd.DataFrame(columns=["day", "balance"])
ledger.loc[len(ledger)] = [0, 100.0]
for day in range(1, 30):
    ledger.loc[len(ledger)] = [day, ledger["balance"].iloc[-1] * 1.01]
'''),
    )

    def __init__(self) -> None:
        # One instance per file analysed: the findings of a file share what the fixer derives.
        self._notes: dict = {}

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops:
            return
        growth = _growth(node, ctx)  # type: ignore[arg-type]
        if growth is None or grows_with_file_reads(growth, ctx):
            return
        grown = reference(growth.target) or ""
        if not carried_over(ctx.loops, grown):
            return  # bound afresh before it is grown (`a, df = pair()`): each iteration starts over
        if recurrence_in(ctx.loops, grown):
            return  # the loop computes the next piece from the frame: nothing to collect
        _describe_surroundings(growth, ctx)
        growth.selection = _selection(growth, ctx)
        growth.rows = _row_pieces(growth, ctx)
        growth.notes = self._notes
        if growth.selection is not None:
            _vet(growth, growth.selection, self._notes.setdefault(VETTED, set()))
        ctx.report(node, _message(growth, ctx), context=growth)


def _message(growth: Growth, ctx: RuleContext) -> str:
    name = ctx.segment(growth.target)
    if growth.kind == "loc":
        key = ctx.segment(_assigned(growth.statement).slice)  # type: ignore[attr-defined]
        return (f"`{name}` grows by one row per iteration through `.loc[{key}]`: each new row copies "
                "the frame; collect the rows in a list and build the frame once after the loop")
    if growth.kind == "append":
        return (f"`{name}` is grown with `.{growth.call.func.attr}` inside a loop "  # type: ignore[union-attr]
                "(removed from pandas, and quadratic): collect the pieces in a list and `concat` once "
                "after the loop")
    return (f"`{name}` is grown with `concat` inside a loop: each step copies every row so far; "
            "collect the pieces in a list and `concat` once after the loop")


# -- recognising a growth statement ------------------------------------------------------


def _assigned(statement: ast.Assign | ast.AnnAssign) -> ast.expr | None:
    """The single target of an assignment (None for `a = b = ...`)."""
    if isinstance(statement, ast.Assign):
        return statement.targets[0] if len(statement.targets) == 1 else None
    return statement.target


def _concat_entries(call: ast.Call) -> list[ast.expr] | None:
    """The elements of `concat([...])`/`concat((...))` (or `objs=[...]`), when spelled out."""
    objs = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "objs"), None)
    return objs.elts if isinstance(objs, (ast.List, ast.Tuple)) else None


def _pandas_like(ty: Ty | None) -> bool:
    return ty is not None and ty.kind in _PANDAS_LIKE


def _growth(node: ast.Assign | ast.AnnAssign, ctx: RuleContext) -> Growth | None:
    target = _assigned(node)
    value = node.value
    if target is None or value is None:
        return None
    if isinstance(target, ast.Subscript):
        return _loc_growth(node, target, ctx)
    if not is_reference(target) or not isinstance(value, ast.Call):
        return None
    func = value.func
    name = ctx.qualname(func)
    if name is not None:
        found = library_of(name, FRAME_LIBRARIES)
        if found is None or found[1] != "concat":
            return None
        entries = _concat_entries(value)
        if entries is None or not any(same_reference(element, target) for element in entries):
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
    if not (isinstance(indexer, ast.Attribute) and indexer.attr == "loc" and is_reference(indexer.value)):
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


def file_read_growth(node: ast.Assign | ast.AnnAssign, ctx: RuleContext) -> Growth | None:
    """The growth statement `node` is, when it adds files read in the loop (GPU108's case)."""
    if not ctx.loops:
        return None
    growth = _growth(node, ctx)
    if growth is None or _reset_each_iteration(growth.target, ctx) or not grows_with_file_reads(growth, ctx):
        return None
    return growth


#: Readers that load a whole file (or a set of files) into one frame when not chunked.
FILE_READERS = frozenset(
    """read_csv read_table read_fwf read_json read_excel read_parquet read_feather read_orc read_pickle
    read_stata read_sas read_spss read_xml read_hdf""".split()
)


def grows_with_file_reads(growth: Growth, ctx: RuleContext) -> bool:
    """A new piece of a `concat`/`append` growth is a file read: a reader call (not chunked),
    possibly followed by methods or selections, or a name bound to one earlier in the same
    iteration of the innermost loop."""
    if growth.call is None:
        return False
    if growth.kind == "concat":
        entries = _concat_entries(growth.call) or []
        pieces = [e for e in entries if not same_reference(e, growth.target)]
    else:
        pieces = list(growth.call.args[:1])
    return any(_file_read(piece, ctx) or (isinstance(piece, ast.Name) and _bound_to_file_read(piece.id, ctx))
               for piece in pieces)


def _file_read(node: ast.expr, ctx: RuleContext) -> bool:
    """`pd.read_csv(path)` returning a frame, as it is or through methods and selections."""
    while True:
        if isinstance(node, ast.Call):
            name = ctx.qualname(node.func)
            if name is not None:
                found = library_of(name, FRAME_LIBRARIES)
                ty = ctx.type_of(node)
                return found is not None and found[1] in FILE_READERS and _pandas_like(ty)
            if not isinstance(node.func, ast.Attribute):
                return False
            node = node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute, ast.NamedExpr)):
            node = node.value
        else:
            return False


def _bound_to_file_read(name: str, ctx: RuleContext) -> bool:
    """`name` was last bound, earlier in the current iteration of the innermost loop, to a file read."""
    value: ast.expr | None = None
    for statement in ctx.earlier_in_iteration():
        bound = value_bound_to(statement, name)
        if bound is not None:
            value = bound
    return value is not None and _file_read(value, ctx)


def _reset_each_iteration(target: ast.expr, ctx: RuleContext) -> bool:
    """The name is bound afresh earlier in the same iteration (`df = base.copy()` just
    before `df = pd.concat([df, x])`): each step then copies one start, not a growing frame."""
    return isinstance(target, ast.Name) and ctx.rebound_each_iteration(target.id)


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
        if mentions(statement, name):
            return site
    if site.init is not None:
        value = site.init.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Call) and not mentions(value, name):
            found = library_of(ctx.qualname(value.func) or "", FRAME_LIBRARIES)
            if found is not None and found[1] in ("DataFrame", "Series"):
                if not value.args and all(k.arg in _FRESH_KEYWORDS for k in value.keywords):
                    site.init_fresh = True
                    site.init_kind = found[1]
                if found[1] == "DataFrame":
                    site.init_columns = _spelled_columns(value)
    return site


def _string_constants(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return None


def _spelled_columns(call: ast.Call) -> tuple[str, ...] | None:
    """The column labels of `DataFrame(...)`, in order, when the call spells them out."""
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords or len(call.args) > 1 or (call.args and "data" in keywords):
        return None
    if "columns" in keywords:
        return _string_constants(keywords["columns"])
    data = call.args[0] if call.args else keywords.get("data")
    if data is None:
        return ()
    if isinstance(data, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in data.keys):
        return tuple(dict.fromkeys(k.value for k in data.keys))  # type: ignore[union-attr]
    return None


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


# -- are the new pieces one-row frame literals? ------------------------------------------


def _row_pieces(growth: Growth, ctx: RuleContext) -> list[RowPiece] | None:
    """The new pieces of a pandas `concat` growth when each is a one-row frame literal (see
    `RowPiece`); a name counts when the last statement before the growth statement in its
    block that mentions it binds it to such a literal."""
    if growth.kind != "concat" or growth.lib != "pandas" or growth.call is None:
        return None
    entries = _concat_entries(growth.call)
    if entries is None or any(isinstance(e, ast.Starred) for e in entries):
        return None
    block = ctx.blocks[len(ctx.statements) - 1] if ctx.statements else []
    position = next((i for i, statement in enumerate(block) if statement is growth.statement), None)
    found: list[RowPiece] = []
    for entry in entries:
        if same_reference(entry, growth.target):
            continue
        if isinstance(entry, ast.Name):
            piece = _named_row(entry.id, block[:position] if position is not None else [], ctx)
        else:
            piece = _one_row_literal(entry, ctx)
        if piece is None:
            return None
        found.append(piece)
    return found or None


def _named_row(name: str, earlier: list[ast.stmt], ctx: RuleContext) -> RowPiece | None:
    for index in range(len(earlier) - 1, -1, -1):
        statement = earlier[index]
        if not mentions(statement, name):
            continue
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name):
            return None
        piece = _one_row_literal(statement.value, ctx)
        if piece is not None:
            piece.binding = statement
            piece.between = earlier[index + 1:]
        return piece
    return None


def _one_row_literal(node: ast.expr, ctx: RuleContext) -> RowPiece | None:
    """`pd.DataFrame({"a": [x]})`, `pd.DataFrame([{"a": x}])` or
    `pd.DataFrame([[x]], columns=["a"])`, nothing else passed (no `dtype`, `index`, ...)."""
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return None
    if library_of(ctx.qualname(node.func) or "", FRAME_LIBRARIES) != ("pandas", "DataFrame"):
        return None
    data = node.args[0]
    columns: list[ast.expr] = []
    values: list[ast.expr] = []
    if isinstance(data, ast.Dict) and not node.keywords:
        for key, value in zip(data.keys, data.values):
            if key is None or not isinstance(value, ast.List) or len(value.elts) != 1 \
                    or isinstance(value.elts[0], ast.Starred):
                return None
            columns.append(key)
            values.append(value.elts[0])
    elif isinstance(data, ast.List) and len(data.elts) == 1 and isinstance(data.elts[0], ast.Dict) \
            and not node.keywords:
        row = data.elts[0]
        if any(key is None for key in row.keys):
            return None
        columns, values = list(row.keys), list(row.values)  # type: ignore[arg-type]
    elif isinstance(data, ast.List) and len(data.elts) == 1 and isinstance(data.elts[0], (ast.List, ast.Tuple)) \
            and len(node.keywords) == 1 and node.keywords[0].arg == "columns" \
            and isinstance(node.keywords[0].value, (ast.List, ast.Tuple)):
        columns, values = list(node.keywords[0].value.elts), list(data.elts[0].elts)
        if len(columns) != len(values) or any(isinstance(v, ast.Starred) for v in values):
            return None
    else:
        return None
    labels = [c.value if isinstance(c, ast.Constant) and isinstance(c.value, str) else None for c in columns]
    if not labels or None in labels or len(set(labels)) != len(labels):
        return None
    return RowPiece(node, columns, values)


# -- are the new pieces row selections of one frame? -------------------------------------
#
# One `concat` of [start, *pieces] and the chain of pairwise ones agree on values, index and
# dtypes as long as each column has a single dtype across the pieces (measured with pandas
# 3.1, any start). The evidence gathered here: every piece is a row selection of one pandas
# DataFrame that keeps all its columns and their dtypes, even when it selects nothing. Whether
# that frame stays the same while the pieces are taken is the fixer's question (it looks at
# the whole function, which only matters when a fix is built).

#: Row selections that keep every column and its dtype (empty results included, measured with
#: pandas 3.1): method -> (positional arguments allowed, keywords allowed). Whatever would
#: select columns (`axis`), renumber (`ignore_index`) or work in place is left out.
_ROW_METHODS: dict[str, tuple[int, frozenset[str]]] = {
    "head": (1, frozenset({"n"})),
    "tail": (1, frozenset({"n"})),
    "sample": (1, frozenset({"n", "frac", "replace", "weights", "random_state"})),
    "nlargest": (3, frozenset({"n", "columns", "keep"})),
    "nsmallest": (3, frozenset({"n", "columns", "keep"})),
    "drop_duplicates": (1, frozenset({"subset", "keep"})),
    "dropna": (0, frozenset({"how", "thresh", "subset"})),
    "copy": (1, frozenset({"deep"})),
}
_MASK_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)
_NULL_TESTS = frozenset({"isna", "notna", "isnull", "notnull"})
_REDUCTIONS = frozenset({"mean", "median", "min", "max", "sum", "std", "var"})
_BACKTICKED = re.compile(r"`[^`]*`")
_LOCAL = "__gpulint_local__"


def _selection(growth: Growth, ctx: RuleContext) -> Selection | None:
    """The row selections a pandas `concat` growth adds, when they all come from one frame:
    the group variable of an enclosing `for key, group in frame.groupby(...)`, or a name
    known here to hold a pandas DataFrame."""
    if growth.kind != "concat" or growth.lib != "pandas" or growth.call is None:
        return None
    entries = _concat_entries(growth.call)
    if entries is None or any(isinstance(e, ast.Starred) for e in entries):
        return None
    pieces = [e for e in entries if not same_reference(e, growth.target)]
    roots = {_selection_root(piece, ctx) for piece in pieces}
    if len(roots) != 1 or None in roots:
        return None
    root = roots.pop()
    assert root is not None
    for loop in reversed(ctx.loops):
        target = getattr(loop, "target", None)
        if not (isinstance(loop, ast.For) and isinstance(target, ast.Tuple) and len(target.elts) == 2
                and isinstance(target.elts[1], ast.Name) and target.elts[1].id == root) \
                or mentions(target.elts[0], root):
            continue
        grouping = loop.iter
        if (isinstance(grouping, ast.Call) and isinstance(grouping.func, ast.Attribute)
                and grouping.func.attr == "groupby" and isinstance(grouping.func.value, ast.Name)
                and grouping.func.value.id != root and _pandas_frame(ctx.type_of(grouping.func.value))
                and all(k.arg not in (None, "axis") for k in grouping.keywords)
                and not any(isinstance(a, ast.Starred) for a in grouping.args)):
            return Selection(root, pieces, loop, grouping.func.value.id, grouping)
        return None
    return Selection(root, pieces) if _pandas_frame(ctx.env.lookup(root)) else None


def _vet(growth: Growth, selection: Selection, vetted: set[int]) -> None:
    """Note the growth's calls that run none of the program's code: the `concat`, the row
    selections and masks of its pieces, and the `groupby` of the group loop when it takes
    only constants (a callable would be called)."""
    vetted.add(id(growth.call))
    vetted.update(id(node) for piece in selection.pieces for node in ast.walk(piece) if isinstance(node, ast.Call))
    grouping = selection.grouping
    if grouping is not None and all(_constants(a) for a in (*grouping.args, *(k.value for k in grouping.keywords))):
        vetted.add(id(grouping))


def _constants(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return isinstance(node, ast.Constant)


def _pandas_frame(ty: Ty | None) -> bool:
    return ty is not None and ty.kind == "frame" and ty.lib == "pandas"


# -- the shape of one piece

def _selection_root(piece: ast.expr, ctx: RuleContext) -> str | None:
    """The name `piece` selects rows of, through head/tail/sample/nlargest/nsmallest/query/
    drop_duplicates/dropna/copy, `.iloc[a:b]` and `.loc[a:b]` / `.loc[<row mask>]`; else None.

    `frame[<mask>]` is not accepted: where the columns are a MultiIndex, `frame["a"]` is a
    frame, and indexing with a frame blanks values (`where`) instead of selecting rows.
    `.loc` with a frame raises instead."""
    node = piece
    masks: list[ast.expr] = []
    queries: list[str] = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if any(isinstance(a, ast.Starred) for a in node.args):
                return None
            if method == "query":
                if len(node.args) != 1 or node.keywords or not (
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                ):
                    return None
                queries.append(node.args[0].value)
            elif method in _ROW_METHODS:
                positional, keywords = _ROW_METHODS[method]
                if len(node.args) > positional or any(k.arg not in keywords for k in node.keywords):
                    return None
            else:
                return None
            node = node.func.value
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr in ("loc", "iloc"):
            if not isinstance(node.slice, ast.Slice):
                if node.value.attr == "iloc":
                    return None
                masks.append(node.slice)
            node = node.value.value
        else:
            return None
    root = node.id
    if all(_row_mask(mask, root, ctx) for mask in masks) and all(_query_mask(q, ctx) for q in queries):
        return root
    return None


def _column(node: ast.expr, root: str, ctx: RuleContext) -> bool:
    """`root["label"]` or `root.label` (label not a DataFrame attribute), also of another name
    known to hold a pandas DataFrame."""
    if isinstance(node, ast.Subscript):
        base, ok = node.value, isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    elif isinstance(node, ast.Attribute):
        base, ok = node.value, node.attr not in FRAME_ATTRIBUTES and not node.attr.startswith("_")
    else:
        return False
    if not ok or not isinstance(base, ast.Name):
        return False
    return base.id == root or _pandas_frame(ctx.type_of(base))


def _row_mask(node: ast.expr, root: str, ctx: RuleContext) -> bool:
    """An expression that is a boolean Series over rows (a frame where a column label selects
    several columns, which `.loc` refuses), or raises."""
    if _column(node, root, ctx):
        return True  # a boolean column, or labels: `.loc` selects rows with any Series
    if isinstance(node, ast.BinOp) and isinstance(node.op, _MASK_OPERATORS):
        return _row_mask(node.left, root, ctx) and _row_mask(node.right, root, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _row_mask(node.operand, root, ctx)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or not isinstance(node.ops[0], COMPARISON_OPERATORS):
            return False
        kinds = (_operand(node.left, root, ctx), _operand(node.comparators[0], root, ctx))
        return None not in kinds and "column" in kinds
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            _column(node.func.value, root, ctx) and not any(isinstance(a, ast.Starred) for a in node.args):
        method = node.func.attr
        if method == "isin":
            return len(node.args) == 1 and not node.keywords
        if method == "between":
            return (len(node.args) == 2 and all(_operand(a, root, ctx) == "scalar" for a in node.args)
                    and all(k.arg == "inclusive" and isinstance(k.value, ast.Constant) for k in node.keywords))
        return method in _NULL_TESTS and not node.args and not node.keywords
    if isinstance(node, ast.Name):
        ty = ctx.type_of(node)
        return ty is not None and (ty.kind, ty.lib) in (("series", "pandas"), ("array", "numpy"))
    return False


def _operand(node: ast.expr, root: str, ctx: RuleContext) -> str | None:
    """"column" (a Series of the frame), "scalar" (not a frame), or None (unknown)."""
    if _column(node, root, ctx):
        return "column"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC_OPERATORS):
        kinds = (_operand(node.left, root, ctx), _operand(node.right, root, ctx))
        if None in kinds:
            return None
        return "column" if "column" in kinds else "scalar"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _operand(node.operand, root, ctx)
    if isinstance(node, ast.Constant):
        return "scalar" if node.value is None or isinstance(node.value, (int, float, str)) else None
    if isinstance(node, ast.Name):
        return "scalar" if _plain_name(node.id, ctx) else None
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1 and ctx.env.lookup("len") is OTHER:
            return "scalar"
        if isinstance(func, ast.Attribute) and _column(func.value, root, ctx) and (
            (func.attr in _REDUCTIONS and not node.args)
            or (func.attr == "quantile" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, float))
        ):
            return "scalar"
    return None


def _plain_name(name: str, ctx: RuleContext) -> bool:
    """The name holds a pandas Series, a NumPy array, or is the variable of an enclosing
    `for` over `range(...)` or a literal of numbers and strings that the loop does not rebind."""
    ty = ctx.env.lookup(name)
    if ty is not None and (ty.kind, ty.lib) in (("series", "pandas"), ("array", "numpy")):
        return True
    for loop in reversed(ctx.loops):
        if not isinstance(loop, ast.For) or not (isinstance(loop.target, ast.Name) and loop.target.id == name):
            continue
        if name in loop_effects(loop).writes:
            return False
        iterable = loop.iter
        if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
            return all(_operand(e, "", ctx) == "scalar" and not isinstance(e, ast.Name) for e in iterable.elts)
        return (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id == "range" and ctx.env.lookup("range") is OTHER)
    return False


def _query_mask(text: str, ctx: RuleContext) -> bool:
    """`frame.query(text)` selects rows: the expression (pandas' syntax, where `&`/`|` are
    `and`/`or`) is a comparison or a boolean combination of comparisons of columns with
    constants, other columns or `@names` holding plain values."""
    source = _BACKTICKED.sub(" __gpulint_column__ ", text)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    spelled: list[tuple[int, str]] = []
    local = False
    for token in tokens:
        if token.type == tokenize.OP and token.string == "@":
            local = True
            continue
        if local:
            if token.type != tokenize.NAME:
                return False
            spelled.append((tokenize.NAME, _LOCAL + token.string))
            local = False
        elif token.type == tokenize.OP and token.string in ("&", "|"):
            spelled.append((tokenize.NAME, "and" if token.string == "&" else "or"))
        elif token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
            spelled.append((token.type, token.string))
    try:
        tree = ast.parse(tokenize.untokenize(spelled).strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return _query_condition(tree.body, ctx)


def _query_condition(node: ast.expr, ctx: RuleContext) -> bool:
    if isinstance(node, ast.BoolOp):
        return all(_query_condition(value, ctx) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert)):
        return _query_condition(node.operand, ctx)
    if not isinstance(node, ast.Compare):
        return False
    operands = [node.left, *node.comparators]
    for op, left, right in zip(node.ops, operands, operands[1:]):
        if isinstance(op, (ast.In, ast.NotIn)):
            if _query_operand(left, ctx) != "column":
                return False
            if not (_query_operand(right, ctx) is not None or (isinstance(right, ast.Name)
                    and right.id.startswith(_LOCAL)) or (isinstance(right, (ast.List, ast.Tuple))
                    and all(_query_operand(e, ctx) == "scalar" for e in right.elts))):
                return False
        elif isinstance(op, COMPARISON_OPERATORS):
            kinds = (_query_operand(left, ctx), _query_operand(right, ctx))
            if None in kinds or "column" not in kinds:
                return False
        else:
            return False
    return True


def _query_operand(node: ast.expr, ctx: RuleContext) -> str | None:
    if isinstance(node, ast.Name):
        if node.id.startswith(_LOCAL):
            return "scalar" if _plain_name(node.id[len(_LOCAL):], ctx) else None
        return "column"  # a column or an index level; anything else is an error in pandas
    if isinstance(node, ast.Constant):
        return "scalar" if isinstance(node.value, (int, float, str)) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _query_operand(node.operand, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC_OPERATORS):
        kinds = (_query_operand(node.left, ctx), _query_operand(node.right, ctx))
        if None in kinds:
            return None
        return "column" if "column" in kinds else "scalar"
    return None

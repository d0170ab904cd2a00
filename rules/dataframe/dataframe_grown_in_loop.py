"""GPU101 dataframe-grown-in-loop: the rule, and its decision whether (and how safely) a
growth statement can be rewritten into list building. Recognising the growth is shared with
GPU108 (`_growth`); recognising row selections and proving their frame unchanged is
`_row_selection`; the fixer only writes the rewrite the facts describe."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from gpulint.rule_api import (
    DYNAMIC_READERS,
    FRAME_LIBRARIES,
    OTHER,
    Applicability,
    carried_over,
    Example,
    library_of,
    LocalScope,
    mentions,
    recurrence_in,
    reference,
    Rule,
    RuleContext,
    Tier,
    walk_local,
)

from ._growth import Growth, added_pieces, assigned, grows_with_file_reads, growth_at
from ._row_selection import FileFacts, Selection, pure_builtins, row_selection, selection_unchanged, vet
from gpulint.plans.dataframe_grown_in_loop import CollectPlan, GrowthFacts, LoopSite, RowPiece

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: Keyword-only arguments of an empty constructor that leave it with a fresh RangeIndex.
_FRESH_KEYWORDS = frozenset({"columns", "dtype", "name"})
_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()
_AXIS_ROWS = (0, "index", "rows")
_CONCAT_KEYWORDS = frozenset({"ignore_index", "sort", "axis", "join"})
_APPEND_KEYWORDS = frozenset({"ignore_index", "sort"})

SUGGESTION = (
    "append each piece to a list inside the loop and call `pd.concat(pieces)` once after it "
    "(start the list with the initial frame to keep its columns and dtypes)"
)
ROW_SUGGESTION = (
    "append each row to a list inside the loop and build the frame once after it: `pd.DataFrame(rows, columns=...)`"
)


@dataclass(frozen=True)
class _Found:
    """A growth statement the walk flagged, with what was known at it; decided in `finish`."""

    growth: Growth
    message: str
    loops: tuple[LoopSite, ...]  # the enclosing loops of its function, outermost first
    scope: ast.AST  # the enclosing function (or class body, or the module)
    in_try: bool  # a `try` between the scope and the statement
    selection: Selection | None  # pandas `concat`: every new piece a row selection of one frame
    rows: tuple[RowPiece, ...] | None  # pandas `concat`: every new piece a one-row literal


class DataframeGrownInLoop(Rule):
    """
    ## What it does
    Flags a DataFrame or Series grown one piece at a time inside a `for` or `while` loop:
    `df = pd.concat([df, piece])` (also `[piece, df]`), `df = df.append(piece)`,
    `df = df._append(piece)` and `df.loc[len(df)] = row`. A frame grown in two ways in one
    loop (`concat`, and `.append` in a branch for old pandas) is one finding, at the first.

    ## Evidence
    The concatenation must resolve to a frame library's `concat` (pandas, cuDF, Modin,
    Dask), and for the method forms the grown object must be known to be a DataFrame or
    Series; a list's `append` is never flagged.

    A recurrence is left alone: where the loop computes what it adds from the frame itself
    (`df = pd.concat([df, step(df)])`, a row built from `df.iloc[-1]`), or decides from what
    it holds whether to add, each iteration needs the frame grown so far, and collecting the
    pieces would break the loop. Code that only looks at the frame (`print(df)`) or tests
    its size (`if len(df) > 100: break`) does not make it a recurrence. A frame that each
    iteration binds afresh before growing it (`key, df = pair()` then
    `df = pd.concat([df, extra])`) accumulates nothing.

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
    Rules of thumb (the reasoning, and what was compared:
    [Why a fix is safe or unsafe](../fix-safety.md#growing-a-frame-in-a-loop-gpu101)):

    - The `pd.concat` rewrite is safe with pandas only where every new piece is provably a
      row selection of one DataFrame that nothing changes while the pieces are taken:
      `.head()`, `.tail()`, `.sample()`, `.nlargest()`, `.query("<comparisons>")`,
      `.loc[<row mask>]`, `.iloc[a:b]`... of the group of an enclosing
      `for key, group in frame.groupby(...)` loop, or of a frame the function builds
      itself, keeps to itself and does not change, in loops that run none of the program's
      code. Then each column has one dtype in every piece, and one `concat` equals the
      chain of pairwise ones.
    - Everywhere else it is unsafe (applied with `--unsafe-fixes`): where a column takes
      three or more different dtypes across the start and the pieces, the single `concat`
      can choose another common dtype than the chain (bool, int64 and float64 pieces:
      object instead of float64). It is also unsafe for cuDF, Modin and Dask. And a piece
      held in a name that the loop changes after it joined (`piece["amount"] = 0`,
      `piece.drop(..., inplace=True)`) shows its changed rows: the chain had copied them.
    - Where every new piece is a one-row frame literal (`pd.DataFrame({"a": [x]})` and the
      like, string-constant labels) and the `concat` renumbers (`ignore_index=True`), the
      rows are collected as records and the frame built once, under `if rows:` unless the
      loop always runs. Unsafe: a column holding mixed values gets another dtype (`None`
      next to numbers becomes NaN in a float64 column instead of staying `None` in an object
      one; bools next to numbers stay `True` instead of becoming 1). Without
      `ignore_index=True` every piece keeps index 0, and the list-of-pieces rewrite applies.
    - No rewrite is offered (the suggestion is shown) when the grown name is used anywhere
      else in the loop, its `else:` clause or a function that could run during the loop,
      when the loop can `return`, `yield` or `raise` or sits in a `try`, when the
      concatenation joins columns (`axis=1`) or passes other options, and when a loop that
      runs zero times would leave a different value (`ignore_index=True` on a frame whose
      index is not known to be a fresh `RangeIndex`, `sort=True` on columns not known to be
      sorted, a start that may be `None`).
    - The `df.loc[len(df)] = row` rewrite (rows collected in a list, then
      `pd.DataFrame(rows, columns=df.columns)`) is unsafe: the values are the same, but
      `.loc` enlargement infers each column's dtype from the first row (an int column next
      to a float becomes float64) and leaves an `Index` of int64 where the rewrite has a
      `RangeIndex`. It applies only when the frame starts as `pd.DataFrame(columns=...)`.
    - The `.append`/`._append` rewrites are unsafe: those methods no longer exist, so the
      rewrite restores what they did (`concat` of frames, or rows built with `pd.DataFrame`
      from dict literals with `ignore_index=True`) but cannot be compared with the original.
    """

    code = "GPU101"
    name = "dataframe-grown-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code, the tier samples pooled: 16 of 27 findings useful, below the bar (frames grown over "
        "a handful of iterations, small tables)"
    )
    message = (
        "DataFrame grown inside a loop: each step copies every row so far; "
        "collect the pieces in a list and build the frame once after the loop"
    )
    nodes = (ast.Assign, ast.AnnAssign)
    fix = Applicability.SAFE

    flagged = (
        Example(
            source="""\
import pandas as pd


def daily_totals(days: list) -> pd.DataFrame:
    totals = pd.DataFrame()
    for day in days:
        piece = pd.DataFrame({"day": [day], "total": [day * 1.5]})
        totals = pd.concat([totals, piece], ignore_index=True)
    return totals
""",
            fixed="""\
import pandas as pd


def daily_totals(days: list) -> pd.DataFrame:
    totals = pd.DataFrame()
    rows = []
    for day in days:
        rows.append({"day": day, "total": day * 1.5})
    if rows:
        totals = pd.concat([totals, pd.DataFrame(rows, columns=["day", "total"])], ignore_index=True)
    return totals
""",
            setup="days = list(rng.integers(0, 365, N))",
            call="daily_totals(days)",
        ),
        Example(
            source="""\
import pandas as pd


def collect(batches: dict) -> pd.DataFrame:
    # columns are fixed up front
    result = pd.DataFrame(columns=["key", "value"])
    for key, values in batches.items():
        chunk = pd.DataFrame({"key": key, "value": values})
        result = pd.concat([result, chunk])  # keeps each chunk's index
    return result
""",
            fixed="""\
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
""",
            setup="batches = {f'k{i}': rng.normal(size=3) for i in range(N)}",
            call="collect(batches)",
        ),
        Example(
            source="""\
import pandas as pd


def scores(models: list) -> pd.DataFrame:
    board = pd.DataFrame(columns=["model", "score"])
    for name in models:
        board.loc[len(board)] = [name, len(name) / 10]
    return board
""",
            fixed="""\
import pandas as pd


def scores(models: list) -> pd.DataFrame:
    board = pd.DataFrame(columns=["model", "score"])
    rows = []
    for name in models:
        rows.append([name, len(name) / 10])
    board = pd.DataFrame(rows, columns=board.columns)
    return board
""",
            setup="models = [f'model-{i}' for i in rng.integers(0, 1000, N)]",
            call="scores(models)",
        ),
        Example(
            source="""\
import pandas as pd


def running(values: list) -> pd.Series:
    series = pd.Series(dtype="float64")
    i = 0
    while i < len(values):
        series = pd.concat([series, pd.Series([values[i] * 2.0])])
        i += 1
    return series
""",
            fixed="""\
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
""",
            setup="values = list(rng.normal(size=N))",
            call="running(values)",
        ),
        Example(
            source="""\
import pandas as pd


def top_sales(sales: pd.DataFrame) -> pd.DataFrame:
    best = pd.DataFrame()
    for _, group in sales.groupby("region"):
        best = pd.concat([best, group.nlargest(2, "amount")])
    return best
""",
            fixed="""\
import pandas as pd


def top_sales(sales: pd.DataFrame) -> pd.DataFrame:
    best = pd.DataFrame()
    parts = [best]
    for _, group in sales.groupby("region"):
        parts.append(group.nlargest(2, "amount"))
    best = pd.concat(parts)
    return best
""",
            setup=(
                "sales = pd.DataFrame({'region': rng.choice(['north', 'south', 'east', 'west'], N), "
                "'amount': rng.integers(0, 1000, N), 'units': rng.normal(size=N), "
                "'returned': rng.integers(0, 2, N).astype(bool)})"
            ),
            call="top_sales(sales)",
        ),
        Example(
            source="""\
import pandas as pd


def summarize(groups: dict) -> pd.DataFrame:
    summary = pd.DataFrame()
    for name, frame in groups.items():
        summary = pd.concat([summary, frame.describe()], axis=1)
        print(len(summary.columns))
    return summary
""",
        ),
    )
    ok = (
        Example(
            """\
import pandas as pd

rows = []
for i in range(10):
    rows.append({"i": i, "square": i * i})
frame = pd.DataFrame(rows)
""",
            reason="Rows collected in a list and turned into a frame once after the loop.",
        ),
        Example(
            """\
class Log:
    def __init__(self):
        self.items = []

    def append(self, item):
        self.items.append(item)
        return self


log = Log()
for i in range(3):
    log = log.append(i)
""",
            reason="An `append` method of a class of the file's own, not a DataFrame's.",
        ),
        Example(
            """\
import pandas as pd

pieces = [pd.DataFrame({"a": [i]}) for i in range(5)]
combined = pd.concat(pieces, ignore_index=True)
""",
            reason="Frames built in a comprehension and concatenated once.",
        ),
        Example(
            """\
import pandas as pd

base = pd.DataFrame({"a": [1]})
for extra in [pd.DataFrame({"a": [2]})]:
    merged = pd.concat([base, extra])
""",
            reason="A concat whose result the loop does not carry to its next iteration.",
        ),
        Example(
            """\
import pandas as pd

by_city = {}
for city in ["paris", "lima"]:
    by_city[city] = pd.DataFrame({"city": [city]})
everything = pd.concat(by_city.values())
""",
            reason="Frames stored in a dict and concatenated once after the loop.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.DataFrame({"a": [1]})
frame = pd.concat([frame, pd.DataFrame({"a": [2]})])
""",
            reason="A concat outside any loop.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.DataFrame({"a": [1]})
for i in range(3):
    def grow(more):
        return pd.concat([frame, more])
""",
            reason="A concat in a function defined in the loop, not run by it.",
        ),
        Example(
            """\
import pandas as pd

base = pd.DataFrame({"a": [0]})
for extra in range(3):
    frame = base.copy()
    frame = pd.concat([frame, pd.DataFrame({"a": [extra]})])
    print(frame)
""",
            reason="A frame bound afresh earlier in the same iteration: nothing accumulates.",
        ),
        Example(
            """\
def grow(table, rows):
    for row in rows:
        table = table.append(row)
    return table
""",
            reason="`append` on a value with no evidence of a DataFrame (a parameter without annotation).",
        ),
        # recurrences: each new piece is computed from the frame grown so far
        Example(
            """\
import pandas as pd


def simulate(frame: pd.DataFrame, rounds: int) -> pd.DataFrame:
    for _ in range(rounds):
        frame = pd.concat([frame, frame.tail(1) * 2])
    return frame
""",
            reason="Each iteration reads the frame grown so far (`frame.tail(1)`): a recurrence, not a collection.",
        ),
        Example(
            """\
import pandas as pd

history = pd.DataFrame({"step": [0], "value": [1.0]})
for step in range(1, 10):
    last = history.iloc[-1]
    row = pd.DataFrame({"step": [step], "value": [last["value"] * 1.1]})
    history = pd.concat([history, row], ignore_index=True)
""",
            reason="Each new row is computed from the last one (`history.iloc[-1]`): a recurrence.",
        ),
        Example(
            """\
import pandas as pd

ledger = pd.DataFrame(columns=["day", "balance"])
ledger.loc[len(ledger)] = [0, 100.0]
for day in range(1, 30):
    ledger.loc[len(ledger)] = [day, ledger["balance"].iloc[-1] * 1.01]
""",
            reason="Rows added with `.loc[len(frame)]` that each read the frame's previous row.",
        ),
        Example(
            """\
import pandas as pd

seen = pd.DataFrame({"id": [0]})
for batch in pd.read_csv("ids.csv", chunksize=100):
    fresh = batch[~batch["id"].isin(seen["id"])]
    if fresh.empty:
        continue
    seen = pd.concat([seen, fresh])
""",
            reason="Each iteration decides what to add from the frame grown so far: a recurrence.",
        ),
    )

    def __init__(self) -> None:
        # One instance per file analysed: whether a fix is safe depends on the file's other
        # growth statements too (their calls are vetted), so the findings are decided and
        # reported once the walk is over.
        self._found: list[_Found] = []

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops:
            return
        growth = growth_at(node, ctx)  # type: ignore[arg-type]
        if growth is None or grows_with_file_reads(growth, ctx):
            return
        grown = reference(growth.target) or ""
        if not carried_over(ctx.loops, grown, ctx.loop_effects):
            return  # bound afresh before it is grown (`a, df = pair()`): each iteration starts over
        if recurrence_in(ctx.loops, grown, ctx.loop_effects):
            return  # the loop computes the next piece from the frame: nothing to collect
        loops, scope, in_try = _surroundings(growth, ctx)
        self._found.append(
            _Found(
                growth,
                _message(growth, ctx),
                loops,
                scope,
                in_try,
                row_selection(growth, ctx),
                _row_pieces(growth, ctx),
            )
        )

    def finish(self, ctx: RuleContext) -> None:
        if not self._found:
            return
        file = FileFacts(pure_builtins(lambda: frozenset(ctx.semantic.file_names()[1])), ctx.semantic)
        for found in self._found:
            if found.selection is not None:
                vet(found.growth, found.selection, file.vetted)
        reported: set[tuple[str, ast.AST | None]] = set()
        for found in self._found:
            grown = (reference(found.growth.target) or "", found.loops[0].loop if found.loops else None)
            if grown in reported:
                continue  # one finding per frame and loop: a second way of growing it is the same idiom
            reported.add(grown)
            ctx.report(found.growth.statement, found.message, context=_decide(found, ctx, file))


def _message(growth: Growth, ctx: RuleContext) -> str:
    name = ctx.segment(growth.target)
    if growth.kind == "loc":
        key = ctx.segment(assigned(growth.statement).slice)  # type: ignore[union-attr]
        return (
            f"`{name}` grows by one row per iteration through `.loc[{key}]`: each new row copies "
            "the frame; collect the rows in a list and build the frame once after the loop"
        )
    if growth.kind == "append":
        return (
            f"`{name}` is grown with `.{growth.call.func.attr}` inside a loop "  # type: ignore[union-attr]
            "(removed from pandas, and quadratic): collect the pieces in a list and `concat` once "
            "after the loop"
        )
    return (
        f"`{name}` is grown with `concat` inside a loop: each step copies every row so far; "
        "collect the pieces in a list and `concat` once after the loop"
    )


# -- what the loops around the growth statement look like ------------------------------------


def _surroundings(growth: Growth, ctx: RuleContext) -> tuple[tuple[LoopSite, ...], ast.AST, bool]:
    """The enclosing loops of the statement's function (outermost first), the function (or
    class body, or the module), and whether a `try` lies between them and the statement."""
    loops = {id(loop) for loop in ctx.loops}
    scope: ast.AST = ctx.tree
    start = 0
    for index in range(len(ctx.statements) - 1, -1, -1):
        if isinstance(ctx.statements[index], _SCOPES):
            scope = ctx.statements[index]
            start = index + 1
            break
    sites: list[LoopSite] = []
    in_try = False
    for index in range(start, len(ctx.statements)):
        statement = ctx.statements[index]
        if isinstance(statement, (ast.Try, *_TRY_STAR)):
            in_try = True
        if id(statement) in loops:
            sites.append(_loop_site(statement, ctx.blocks[index], growth.target, ctx))
    return tuple(sites), scope, in_try


def _loop_site(loop: ast.stmt, block: list[ast.stmt], target: ast.expr, ctx: RuleContext) -> LoopSite:
    site = LoopSite(loop, runs_once=_runs_once(loop, ctx))
    if not isinstance(target, ast.Name):
        return site
    name = target.id
    position = next((i for i, statement in enumerate(block) if statement is loop), None)
    if position is None:
        return site
    init: ast.Assign | None = None
    for statement in reversed(block[:position]):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
        ):
            init = statement
            break
        if mentions(statement, name):
            return site
    if init is None:
        return site
    site = replace(site, init=init)
    value = init.value
    if isinstance(value, ast.Call) and not mentions(value, name):
        found = library_of(ctx.qualname(value.func) or "", FRAME_LIBRARIES)
        if found is not None and found[1] in ("DataFrame", "Series"):
            if not value.args and all(k.arg in _FRESH_KEYWORDS for k in value.keywords):
                site = replace(site, init_fresh=True, init_kind=found[1])
            if found[1] == "DataFrame":
                site = replace(site, init_columns=_spelled_columns(value))
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


def _row_pieces(growth: Growth, ctx: RuleContext) -> tuple[RowPiece, ...] | None:
    """The new pieces of a pandas `concat` growth when each is a one-row frame literal (see
    `RowPiece`); a name counts when the last statement before the growth statement in its
    block that mentions it binds it to such a literal."""
    if growth.kind != "concat" or growth.lib != "pandas" or growth.call is None:
        return None
    entries = added_pieces(growth)
    if entries is None or any(isinstance(e, ast.Starred) for e in entries):
        return None
    block = ctx.blocks[len(ctx.statements) - 1] if ctx.statements else []
    position = next((i for i, statement in enumerate(block) if statement is growth.statement), None)
    found: list[RowPiece] = []
    for entry in entries:
        if isinstance(entry, ast.Name):
            piece = _named_row(entry.id, block[:position] if position is not None else [], ctx)
        else:
            piece = _one_row_literal(entry, ctx)
        if piece is None:
            return None
        found.append(piece)
    return tuple(found) or None


def _named_row(name: str, earlier: list[ast.stmt], ctx: RuleContext) -> RowPiece | None:
    for index in range(len(earlier) - 1, -1, -1):
        statement = earlier[index]
        if not mentions(statement, name):
            continue
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
        ):
            return None
        piece = _one_row_literal(statement.value, ctx)
        if piece is None:
            return None
        return replace(piece, binding=statement, between=tuple(earlier[index + 1 :]))
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
        for key, value in zip(data.keys, data.values, strict=False):
            if (
                key is None
                or not isinstance(value, ast.List)
                or len(value.elts) != 1
                or isinstance(value.elts[0], ast.Starred)
            ):
                return None
            columns.append(key)
            values.append(value.elts[0])
    elif (
        isinstance(data, ast.List) and len(data.elts) == 1 and isinstance(data.elts[0], ast.Dict) and not node.keywords
    ):
        row = data.elts[0]
        if any(key is None for key in row.keys):
            return None
        columns, values = list(row.keys), list(row.values)  # type: ignore[arg-type]
    elif (
        isinstance(data, ast.List)
        and len(data.elts) == 1
        and isinstance(data.elts[0], (ast.List, ast.Tuple))
        and len(node.keywords) == 1
        and node.keywords[0].arg == "columns"
        and isinstance(node.keywords[0].value, (ast.List, ast.Tuple))
    ):
        columns, values = list(node.keywords[0].value.elts), list(data.elts[0].elts)
        if len(columns) != len(values) or any(isinstance(v, ast.Starred) for v in values):
            return None
    else:
        return None
    labels = [c.value if isinstance(c, ast.Constant) and isinstance(c.value, str) else None for c in columns]
    if not labels or None in labels or len(set(labels)) != len(labels):
        return None
    return RowPiece(node, tuple(columns), tuple(values))


# -- whether, and how safely, the growth can be rewritten ----------------------------------


def _decide(found: _Found, ctx: RuleContext, file: FileFacts) -> GrowthFacts:
    growth = found.growth
    plan = _plan(found, ctx, file)
    if plan is None:
        applicability = Applicability.DISPLAY
    elif (
        growth.kind == "concat"
        and found.selection is not None
        and selection_unchanged(found.selection, found.loops[0].loop, found.scope, _scope(found, ctx), file)
    ):
        # Each column provably has one dtype across the pieces: one concat and the chain of
        # pairwise ones agree (pandas only; see the docs on fix safety).
        applicability = Applicability.SAFE
    else:
        applicability = Applicability.UNSAFE
        if (
            growth.kind == "concat"
            and found.rows is not None
            and _records_apply(found, found.rows, plan, _scope(found, ctx))
        ):
            plan = replace(plan, mode="records", rows=found.rows)
    row = growth.kind == "loc" or (plan is not None and plan.mode == "rows")
    return GrowthFacts(
        growth=growth, plan=plan, suggestion=ROW_SUGGESTION if row else SUGGESTION, applicability=applicability
    )


def _scope(found: _Found, ctx: RuleContext) -> LocalScope:
    return ctx.semantic.local(found.scope)


def _plan(found: _Found, ctx: RuleContext, file: FileFacts) -> CollectPlan | None:
    """How the growth becomes list building, where a rewrite keeps what the loop computes
    (up to the dtypes and index the docs name for an unsafe fix); None where none does."""
    growth = found.growth
    statement = growth.statement
    if not isinstance(growth.target, ast.Name) or not isinstance(statement, ast.Assign) or found.in_try:
        return None
    name = growth.target.id
    call = growth.call
    prepend = False
    options: tuple[bool, bool] | None = (False, False)
    if growth.kind == "concat":
        assert call is not None
        if len(call.args) != 1 or not isinstance(call.args[0], (ast.List, ast.Tuple)):
            return None
        options = _options(call, _CONCAT_KEYWORDS)
        elements = call.args[0].elts
        if options is None or any(isinstance(e, ast.Starred) for e in elements):
            return None
        positions = [i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == name]
        if positions == [0] and len(elements) >= 2:
            mode, pieces = "parts", tuple(elements[1:])
        elif positions == [1] and len(elements) == 2:
            mode, pieces, prepend = "parts", (elements[0],), True
        else:
            return None
    elif growth.kind == "append":
        assert call is not None
        options = _options(call, _APPEND_KEYWORDS)
        if options is None:
            return None
        piece = call.args[0]
        target_kind = growth.target_type.kind if growth.target_type else ""
        piece_kind = growth.piece_type.kind if growth.piece_type else ""
        if target_kind in ("frame", "series") and piece_kind == target_kind:
            mode, pieces = "parts", (piece,)
        elif target_kind == "frame" and isinstance(piece, ast.Dict) and options[0] and None not in piece.keys:
            mode, pieces = "rows", (piece,)
        else:
            return None
    else:
        row = statement.value
        if not (
            isinstance(row, (ast.List, ast.Tuple))
            and row.elts
            and not any(isinstance(e, ast.Starred) for e in row.elts)
        ):
            return None
        if growth.target_type is None or growth.target_type.kind != "frame":
            return None
        mode, pieces = "loc", (row,)
    ignore_index, sort = options
    # Whatever the loop appends must not read the grown name itself.
    if any(mentions(piece, name) for piece in pieces):
        return None
    site = _choose_loop(found, name, ctx)
    if site is None or not _same_when_empty(growth, mode, ignore_index, sort, site):
        return None
    facts = _scope(found, ctx)
    if name in facts.uses.declared or name in facts.uses.free_in:
        return None  # a function or lambda could read or rebind it while the loop runs
    return CollectPlan(
        mode, name, pieces, site, ignore_index, prepend, tuple(call.keywords) if call is not None else ()
    )


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
    )


def _options(call: ast.Call, allowed: frozenset[str]) -> tuple[bool, bool] | None:
    """The call's `ignore_index` and `sort`, where its options are only known ones, only
    constants, and stack rows (not columns); else None."""
    ignore_index = sort = False
    for keyword in call.keywords:
        if keyword.arg not in allowed or not _constant(keyword.value):
            return None
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg == "axis" and value not in _AXIS_ROWS:
            return None
        if keyword.arg == "join" and value != "outer":
            return None
        if keyword.arg in ("ignore_index", "sort"):
            if not isinstance(value, bool):
                return None
            if keyword.arg == "ignore_index":
                ignore_index = value
            else:
                sort = value
    return ignore_index, sort


def _records_apply(found: _Found, rows: tuple[RowPiece, ...], plan: CollectPlan, facts: LocalScope) -> bool:
    """Every new piece is a one-row frame literal (`RowPiece`) and the concat renumbers the
    rows, so the rows can be collected as records and the frame built once. A named piece
    must be the only one, bound once in the scope and read only by the concat, with no jump
    between its binding and the growth statement."""
    if not plan.ignore_index or plan.prepend:
        return False
    site = plan.site
    target_type = found.growth.target_type
    if (target_type is not None and target_type.kind == "series") or (site.init_fresh and site.init_kind == "Series"):
        return False
    named = [piece for piece in rows if piece.binding is not None]
    if not named:
        return True
    if len(rows) != 1:
        return False
    piece = named[0]
    binding = piece.binding
    assert binding is not None
    name = binding.targets[0].id  # type: ignore[attr-defined]
    if (
        name == plan.name
        or name in facts.params
        or name in facts.uses.declared
        or name in facts.uses.free_in
        or any(reader in facts.uses.loads for reader in DYNAMIC_READERS)
    ):  # `locals()` would miss it
        return False
    if [b.node for b in facts.bindings.get(name, ())] != [binding] or len(facts.uses.loads.get(name, ())) != 1:
        return False
    jumps = (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
    return not any(isinstance(node, jumps) for node in walk_local(list(piece.between)))


def _choose_loop(found: _Found, name: str, ctx: RuleContext) -> LoopSite | None:
    """The outermost enclosing loop whose only use of `name` is the growth statement and
    which always reaches the code after it (no `return`, `yield` or `raise` inside)."""
    own = sum(1 for node in ast.walk(found.growth.statement) if isinstance(node, ast.Name) and node.id == name)
    for site in found.loops:
        effects = ctx.loop_effects(site.loop)
        if effects.uses[name] != own or effects.leaves:
            continue  # an inner loop may still qualify
        return site
    return None


def _same_when_empty(growth: Growth, mode: str, ignore_index: bool, sort: bool, site: LoopSite) -> bool:
    """Would a loop that runs zero times leave the same value as the rewrite computes?"""
    if mode == "loc":
        # `.loc[len(df)]` appends only while the index is 0..n-1: a fresh, empty frame.
        init = site.init
        return (
            site.init_fresh
            and site.init_kind == "DataFrame"
            and init is not None
            and [k.arg for k in init.value.keywords] == ["columns"]
        )  # type: ignore[attr-defined]
    if mode == "rows":
        return site.init_fresh and site.init_kind == "DataFrame" or site.runs_once
    if site.runs_once:
        return True
    ty = growth.target_type
    if ignore_index and not site.init_fresh:
        return False  # concat([start], ignore_index=True) resets any other index
    series = (ty is not None and ty.kind == "series") or (site.init_fresh and site.init_kind == "Series")
    columns = site.init_columns
    if sort and not series and not (columns is not None and list(columns) == sorted(columns)):
        return False  # concat([start], sort=True) sorts the start's columns
    if site.init_fresh:
        return True
    return ty is not None and ty.kind in ("frame", "series", "ndframe")  # concat([None]) raises

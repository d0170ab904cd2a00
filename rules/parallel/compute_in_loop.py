"""GPU501 compute-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    LAZY_TRIGGERS,
    NESTED_SCOPES,
    STATEMENT_LOOPS,
    Applicability,
    Example,
    Rule,
    RuleContext,
    Tier,
    walk_local,
)
from gpulint.dask_api import is_compute, is_delayed_call, is_lazy

_FOR = (ast.For, ast.AsyncFor)


class ComputeInLoop(Rule):
    """
    ## What it does
    Flags `.compute()` on a Dask collection (DataFrame, Series, array, bag, delayed value),
    and `dask.compute(x)`, called on each item inside a `for` loop or a comprehension.
    `delayed(f)(x).compute()` and `delayed` applied to computed values are GPU502
    (delayed-called-eagerly), which wins.

    ## Evidence
    Left alone: `while` loops and loops whose next step needs this step's result (what is
    computed reads a name assigned later in the loop, as in an iterative algorithm), loops
    that may stop early (`break`, `return`), `assert` statements (a test checking each
    item), and `dask.compute(*items)` of a whole collection.

    ## Why is this bad?
    Every `.compute()` builds, optimises and runs a task graph of its own, and waits for
    it: the iterations run one after the other, each re-reading and re-computing whatever
    the items share (the same files, the same filtered frame). Collected as lazy values
    and computed together with one `dask.compute(*items)`, the graphs are merged, shared
    work is done once, and the scheduler runs the items in parallel across the cores or
    the cluster's workers. In the example below, the means of the 8 columns of a
    generated array of a million rows take {before:1000000} computed one by one (each
    `.compute()` generates the shared chunks again) and {after:1000000} in one
    `dask.compute` (the measured speedups below).

    ## Fix safety
    Display-only: the loop must be split into one that builds lazy values and one call
    that computes them, which changes where each result becomes available.
    """

    code = "GPU501"
    libraries = LAZY_TRIGGERS
    name = "compute-in-loop"
    tier = Tier.PREVIEW
    tier_reason = "Never-used code: 6 of 15 checked findings useful (chunks streamed on purpose, few iterations)"
    message = "`.compute()` inside a loop runs one task graph per item: collect them, `dask.compute(*items)` once"
    nodes = (ast.Call,)
    calls = frozenset({"compute"})
    fix = Applicability.DISPLAY
    #: Splitting the loop into one that builds lazy values and one `dask.compute` changes
    #: where each result becomes available, so the rewrite is described, not written.
    suggestion = (
        "build the lazy values in the loop without computing them (`lazy.append(x)`), then compute them "
        "together once after it: `results = dask.compute(*lazy)`"
    )

    flagged = (
        Example(
            source="""\
import dask.array as da


def column_means(readings: da.Array, columns: list) -> list:
    means = []
    for column in columns:
        means.append(readings[:, column].mean().compute())
    return means
""",
            idiom="""\
import dask
import dask.array as da


def column_means(readings: da.Array, columns: list) -> list:
    # one graph for every column: shared chunks are read once, columns run in parallel
    lazy = [readings[:, column].mean() for column in columns]
    return list(dask.compute(*lazy))
""",
            requires=("dask",),
            setup=(
                "import dask.array as da\n"
                "# generated lazily, in four chunks: each compute() generates every chunk again\n"
                "readings = da.random.RandomState(0).normal(size=(N + 5, 8), chunks=(N // 4 + 2, 8))\n"
                "columns = list(range(8))\n"
            ),
            call="column_means(readings, columns)",
        ),
        Example("""\
import dask.dataframe as dd

sales = dd.read_parquet("sales/*.parquet")
totals = {}
for month in range(1, 13):
    totals[month] = sales[sales["month"] == month]["amount"].sum().compute()
"""),
        Example("""\
import dask
import dask.bag as db

words = db.read_text("logs/*.txt").str.split().flatten()
counts = [dask.compute(words.filter(lambda w, k=key: w.startswith(k)).count()) for key in "abc"]
"""),
    )
    ok = (
        Example(
            """\
import dask
import dask.array as da

readings = da.random.random((10_000, 8), chunks=1_000)
lazy = [readings[:, column].mean() for column in range(8)]
means = dask.compute(*lazy)
""",
            reason="Lazy results computed once, together, with `dask.compute`.",
        ),
        Example(
            """\
import dask.array as da

points = da.random.random((10_000, 2), chunks=1_000)
center = points[0].compute()
# each step needs the previous center: an iterative algorithm, not a batch
for step in range(10):
    center = points[((points - center) ** 2).sum(axis=1).argmin()].compute()
""",
            reason="Each step needs the previous result: an iterative algorithm.",
        ),
        Example(
            """\
import dask.dataframe as dd

frame = dd.read_csv("events-*.csv")
total = frame["amount"].sum().compute()
for name, value in {"total": total}.items():
    print(name, value)
""",
            reason="A compute before the loop; the loop over a dict only prints.",
        ),
        Example(
            """\
import dask.array as da

residual = da.ones(100, chunks=10)
while residual.max().compute() > 1e-3:
    residual = residual / 2
""",
            reason="A `while` loop: its condition needs each computed value.",
        ),
        Example(
            """\
import dask

# any object with a compute method: not a Dask collection
for job in jobs:
    job.compute()
""",
            reason="A `compute` method on values with no evidence of a Dask collection.",
        ),
        Example(
            """\
import dask.dataframe as dd

sales = dd.read_parquet("sales/*.parquet")
for month in range(1, 13):
    if sales[sales["month"] == month]["amount"].sum().compute() < 0:
        break
""",
            reason="A loop that may stop early (`break`) on what it computed.",
        ),
        Example(
            """\
import dask.dataframe as dd

sales = dd.read_parquet("sales/*.parquet")
for month in range(1, 13):
    assert sales[sales["month"] == month]["amount"].sum().compute() >= 0
""",
            reason="An `assert` on each computed value: a test checking each item.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not ctx.loops or isinstance(ctx.loops[-1], ast.While):
            return
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "compute"
            or isinstance(func, ast.Name)
            and func.id == "compute"
        ):
            return
        if is_compute(ctx.qualname(func)):  # `dask.compute(...)`
            if not node.args or any(isinstance(a, ast.Starred) for a in node.args):
                return  # `dask.compute(*items)`: already one call for many
            if len(node.args) == 1 and is_delayed_call(node.args[0], ctx.env):
                return  # GPU502
        elif not isinstance(func, ast.Attribute) or not is_lazy(func.value, ctx.env):
            return
        elif is_delayed_call(func.value, ctx.env):
            return  # GPU502
        loop = ctx.loops[-1]
        statement = ctx.statement
        if statement is None or isinstance(statement, ast.Assert) or _feeds_delayed(node, statement, loop, ctx):
            return  # an `assert` needs its value there and then: a test's check
        if isinstance(loop, _FOR) and (_stops_early(loop) or _carried(node, statement, loop)):
            return
        ctx.report(node)


def _feeds_delayed(node: ast.Call, statement: ast.stmt, loop: ast.AST, ctx: RuleContext) -> bool:
    """The computed value goes into a `delayed` call in the same iteration (GPU502's case)."""
    for sub in ast.walk(statement):
        if is_delayed_call(sub, ctx.env) and any(
            inner is node for argument in _arguments(sub) for inner in ast.walk(argument)
        ):
            return True
    names = _assigned_names(statement) if isinstance(statement, ast.Assign) and statement.value is node else set()
    if not names or not isinstance(loop, _FOR):
        return False
    return any(
        is_delayed_call(sub, ctx.env) and any(isinstance(a, ast.Name) and a.id in names for a in _arguments(sub))
        for item in loop.body
        for sub in ast.walk(item)
    )


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _assigned_names(statement: ast.Assign) -> set[str]:
    return {sub.id for target in statement.targets for sub in ast.walk(target) if isinstance(sub, ast.Name)}


def _stops_early(loop: ast.For | ast.AsyncFor) -> bool:
    """A `break` of this loop, or a `return`, in its body."""
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Break)):
            return True
        if isinstance(node, NESTED_SCOPES):
            continue
        if isinstance(node, STATEMENT_LOOPS):  # its `break` stops only itself; a `return` stops this loop too
            if any(isinstance(sub, ast.Return) for sub in walk_local([node])):
                return True
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _carried(node: ast.Call, statement: ast.stmt, loop: ast.For | ast.AsyncFor) -> bool:
    """What is computed reads a name that this statement or a later one in the loop body
    assigns: its value comes from the previous iteration, which must finish first."""
    start = (statement.lineno, statement.col_offset)
    later = {
        sub.id
        for item in loop.body
        for sub in ast.walk(item)
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load) and (sub.lineno, sub.col_offset) >= start
    }
    return any(
        isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in later for sub in ast.walk(node)
    )

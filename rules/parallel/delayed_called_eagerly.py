"""GPU502 delayed-called-eagerly."""

from __future__ import annotations

import ast

from gpulint.rule_api import LAZY_TRIGGERS, Example, Rule, RuleContext, Tier, value_bound_to, walk_local
from gpulint.dask_api import is_compute, is_compute_call, is_delayed_call, is_lazy

_FOR = (ast.For, ast.AsyncFor)


class DelayedCalledEagerly(Rule):
    """
    ## What it does
    Flags `dask.delayed` used so that nothing is left lazy: a one-task graph built and run
    on the spot (`dask.delayed(f)(x).compute()`, `dask.compute(dask.delayed(f)(x))`), and,
    inside a loop, `dask.delayed(f)(...)` applied to a value computed in the same iteration,
    so that every iteration waits for its input before the task is even built. This rule
    wins over GPU501 (compute-in-loop) for the `.compute()` calls involved.

    ## Evidence
    A one-task graph is left alone when an argument is a Dask collection, which `delayed`
    computes first (a different idiom), or a list of delayed values built before, as in
    `dask.delayed(all)(checks).compute()`: one graph of many tasks computed once, the right
    idiom. In a loop, a value computed in the same iteration is `x.compute()` passed in, or
    a name assigned from it in the loop body.

    ## Why is this bad?
    `delayed` pays for itself by collecting many tasks into one graph the scheduler runs in
    parallel. Computed at once, it adds graph building and scheduling overhead to a plain
    function call and runs nothing in parallel: the example below cleans 1,000 small
    batches in {before:1000} this way, and in {after:1000} as one graph computed once (the
    measured speedups below). Fed with computed
    values, it turns a lazy pipeline back into sequential, eager steps: the data is pulled
    into the client process at each step instead of staying with the workers.

    ## Fix safety
    There is no fix. Call `f(x)` directly when one call is all there is; otherwise pass the
    Dask objects themselves to the delayed functions and compute everything once, after
    the loop, with `dask.compute(*results)`.
    """

    code = "GPU502"
    libraries = LAZY_TRIGGERS
    name = "delayed-called-eagerly"
    tier = Tier.DEFAULT
    tier_reason = "No real-code finding; flags only a delayed graph computed at once"
    message = "`dask.delayed` computed right away: call the function directly, or keep it lazy and compute once"
    nodes = (ast.Call,)
    calls = frozenset({"compute"})  # `x.compute()`, `dask.compute(...)`; `delayed(f)(x)` calls a call

    flagged = (
        Example(
            source="""\
import dask


def clean(values):
    return sorted(set(values))


def clean_all(batches):
    cleaned = []
    for batch in batches:
        cleaned.append(dask.delayed(clean)(batch).compute())
    return cleaned
""",
            idiom="""\
import dask


def clean(values):
    return sorted(set(values))


def clean_all(batches):
    # one graph: the batches are cleaned in parallel
    lazy = [dask.delayed(clean)(batch) for batch in batches]
    return list(dask.compute(*lazy))
""",
            requires=("dask",),
            setup="batches = [list(rng.integers(0, 5, 10)) for _ in range(N)]\n",
            call="clean_all(batches)",
        ),
        Example("""\
import dask.dataframe as dd
from dask import delayed

reports = []
for path in paths:
    frame = dd.read_parquet(path)
    reports.append(delayed(summarise)(frame.compute()))
"""),
        Example("""\
import dask
import dask.array as da

grid = da.random.random((4_000, 4_000), chunks=1_000)
plots = []
for row in range(4):
    block = grid[row * 1_000:(row + 1) * 1_000].compute()
    plots.append(dask.delayed(render)(block, title=f"row {row}"))
dask.compute(*plots)
"""),
        Example("""\
from dask import compute, delayed

total, = compute(delayed(sum)([1, 2, 3]))
"""),
    )
    ok = (
        Example(
            """\
import dask

# one graph: every check runs in parallel, `all` gathers them, computed once
checks = [dask.delayed(validate)(path) for path in paths]
valid = dask.delayed(all)(checks).compute()
""",
            reason="A list of delayed values passed to one `delayed` call: one graph, computed once.",
        ),
        Example(
            """\
import dask

lazy = [dask.delayed(load)(path) for path in paths]
frames = dask.compute(*lazy)
""",
            reason="Delayed calls collected and computed together with `dask.compute`.",
        ),
        Example(
            """\
import dask

results = []
for path in paths:
    results.append(dask.delayed(process)(path))
totals = dask.compute(*results)
""",
            reason="Delayed calls appended in a loop, computed together.",
        ),
        Example(
            """\
import dask
import dask.array as da

grid = da.random.random((4_000, 4_000), chunks=1_000)
# the Dask array itself goes in: nothing is computed before the graph runs
plots = [dask.delayed(render)(grid[row * 1_000:(row + 1) * 1_000]) for row in range(4)]
dask.compute(*plots)
""",
            reason="Delayed calls on slices of a Dask array, computed together.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        # `delayed(f)(x).compute()`, `dask.compute(delayed(f)(x))`
        if isinstance(func, ast.Attribute) and func.attr == "compute" and _eager(func.value, ctx):
            ctx.report(node)
            return
        if (
            isinstance(func, (ast.Name, ast.Attribute))
            and len(node.args) == 1
            and not node.keywords
            and _eager(node.args[0], ctx)
            and is_compute(ctx.qualname(func))
        ):
            ctx.report(node)
            return
        # `delayed(f)(x.compute())` in a loop
        if not ctx.loops or not is_delayed_call(node, ctx.env):
            return
        loop = ctx.loops[-1]
        computed = _computed_in_iteration(loop, ctx) if isinstance(loop, _FOR) else set()
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
            value = argument.value if isinstance(argument, ast.Starred) else argument
            if is_compute_call(value, ctx.env) or isinstance(value, ast.Name) and value.id in computed:
                ctx.report(
                    node,
                    "`dask.delayed` applied to a value computed in the same iteration: pass the "
                    "Dask object itself and compute once after the loop",
                )
                return


def _eager(call: ast.expr, ctx: RuleContext) -> bool:
    """`delayed(f)(...)` on arguments none of which is known to be lazy: computing it at once
    is `f(...)` with a scheduler round trip. (With a Dask argument, `delayed` also computes
    that argument first, which a direct call would not.)"""
    if not is_delayed_call(call, ctx.env):
        return False
    arguments = [*call.args, *(keyword.value for keyword in call.keywords)]  # type: ignore[attr-defined]
    return not any(
        is_lazy(a.value if isinstance(a, ast.Starred) else a, ctx.env) or _holds_delayed(a, ctx) for a in arguments
    )


def _holds_delayed(node: ast.expr, ctx: RuleContext) -> bool:
    """A list, tuple or set of lazy values (`delayed` follows into them and runs their
    tasks as part of the graph): written out, built by a comprehension, or a name of the
    scope bound to one or filled with `append`/`extend` of lazy values."""
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(is_lazy(element, ctx.env) or _holds_delayed(element, ctx) for element in node.elts)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return is_lazy(node.elt, ctx.env)
    if not isinstance(node, ast.Name):
        return False
    for binding in ctx.bindings(node.id):
        value = value_bound_to(binding, node.id) if isinstance(binding, ast.stmt) else None
        if value is not None and not isinstance(value, ast.Name) and _holds_delayed(value, ctx):
            return True
    for sub in walk_local(ctx.scope.body):  # type: ignore[attr-defined]
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in ("append", "extend")
            and isinstance(sub.func.value, ast.Name)
            and sub.func.value.id == node.id
            and len(sub.args) == 1
        ):
            added = sub.args[0]
            if is_lazy(added, ctx.env) if sub.func.attr == "append" else _holds_delayed(added, ctx):
                return True
    return False


def _computed_in_iteration(loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> set[str]:
    """Names the loop body assigns from a `.compute()` (`block = grid[...].compute()`)."""
    names = set()
    for statement in loop.body:
        for sub in ast.walk(statement):
            if (
                isinstance(sub, ast.Assign)
                and len(sub.targets) == 1
                and isinstance(sub.targets[0], ast.Name)
                and is_compute_call(sub.value, ctx.env)
            ):
                names.add(sub.targets[0].id)
    return names

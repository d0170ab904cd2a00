"""Fixer for GPU104 apply-axis-1: a row-wise lambda becomes one column expression.

Rewritten shapes (anything else gets the rule's display-only suggestion):

    frame.apply(lambda r: r["a"] - r["b"], axis=1)       ->   frame["a"] - frame["b"]
    frame["c"] = frame.apply(lambda r: "hi" if r["x"] > 10 else "lo", axis=1)
                                                          ->   frame["c"] = np.where(frame["x"] > 10, "hi", "lo")
    frame.apply(lambda r: "hi" if r["x"] > 10 else "lo", axis=1)
                                ->   pd.Series(np.where(frame["x"] > 10, "hi", "lo"), index=frame.index)
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan, suggestion
from gpulint.plans.apply_axis_1 import RowApply

from ._vectorize import analyse, is_row_field, repeatable_frame

LIST_SUGGESTION = (
    "`frame.agg([...], axis=1)` computes the same table from whole columns; "
    "`apply` with a list loops over the rows of the transposed frame"
)
MESSAGE = "replace the row-wise `apply` with a vectorized column expression"

#: Arguments of `DataFrame.apply` the rewrite accounts for; any other changes what it returns.
_UNDERSTOOD = ("func", "axis")


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    apply: RowApply = diagnostic.context  # type: ignore[assignment]
    if apply.applicability is Applicability.DISPLAY:
        if apply.aggregation_names:
            return suggestion(LIST_SUGGESTION)
        return Decline("the rule found no column expression for this function")
    return _plan_rewrite(apply, ctx)


def _plan_rewrite(apply: RowApply, ctx: FixContext) -> Plan | Decline:
    call, frame, function = apply.call, apply.frame, apply.function
    if not isinstance(function, ast.Lambda):
        return Decline("the function is not a lambda")
    if not _only_understood_arguments(call):
        return Decline("`apply` is given arguments besides the function and the axis")
    if not repeatable_frame(frame):
        return Decline("the frame is an expression that cannot be written once per column")
    row = _single_parameter(function)
    if row is None:
        return Decline("the lambda takes other than one plain parameter")
    good, needs_numpy = analyse(function.body, row, set(apply.collections))
    if not good:
        return Decline("the lambda's body has no column form")
    lib = apply.lib
    wrap = not _yields_series(function.body, row) and not apply.stored_in_column
    if needs_numpy and lib in ("dask", ""):
        return Decline("`np.where` would compute a lazy or unknown frame's columns")
    if wrap and lib != "pandas":
        return Decline("the result would be an array that only pandas wraps back into a Series here")
    if "\n" in ctx.segment(frame):
        return Decline("the frame expression spans lines")
    if not _call_alone(ctx.segment(call), call):
        return Decline("the call's source text is not the call alone")

    def render() -> tuple[Edit, ...] | Decline:
        from .render.apply_axis_1 import rewrite

        return rewrite(apply, row, needs_numpy, wrap, ctx)

    return Plan(apply.applicability, MESSAGE, render)


def _only_understood_arguments(call: ast.Call) -> bool:
    """Only the function and the axis: `raw=`, `result_type=`, `args=` and keyword
    arguments passed on to the function all change what `apply` returns or calls."""
    return (
        len(call.args) <= 2
        and not any(isinstance(a, ast.Starred) for a in call.args)
        and all(k.arg in _UNDERSTOOD for k in call.keywords)
    )


def _single_parameter(function: ast.Lambda) -> str | None:
    args = function.args
    if (
        len(args.args) == 1
        and not args.posonlyargs
        and not args.kwonlyargs
        and not args.vararg
        and not args.kwarg
        and not args.defaults
    ):
        return args.args[0].arg
    return None


def _yields_series(node: ast.expr, row: str) -> bool:
    """Whether the column expression is a Series (it combines a column with something);
    `np.where(...)`, alone or combined only with constants, is a NumPy array."""
    if is_row_field(node, row):
        return True
    if isinstance(node, ast.BinOp):
        return _yields_series(node.left, row) or _yields_series(node.right, row)
    if isinstance(node, ast.Compare):
        return _yields_series(node.left, row) or any(_yields_series(c, row) for c in node.comparators)
    if isinstance(node, ast.BoolOp):
        return any(_yields_series(v, row) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return _yields_series(node.operand, row)
    if isinstance(node, ast.Call):
        return bool(node.args) and _yields_series(node.args[0], row)
    return False


def _call_alone(segment: str, call: ast.Call) -> bool:
    """The call's source text parses to exactly the call."""
    try:
        return ast.dump(ast.parse(segment, mode="eval").body) == ast.dump(call)
    except (SyntaxError, ValueError):
        return False

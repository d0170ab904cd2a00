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

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from gpulint.fixing import FixContext, display_fix
from gpulint.rules.dataframe.apply_axis_1 import RowApply

from ._vectorize import (
    analyse,
    code_of,
    comments_in,
    is_row_field,
    needs_parentheses,
    parenthesize,
    repeatable_frame,
    to_columns,
)

LIST_SUGGESTION = (
    "`frame.agg([...], axis=1)` computes the same table from whole columns; "
    "`apply` with a list loops over the rows of the transposed frame"
)
MESSAGE = "replace the row-wise `apply` with a vectorized column expression"

#: Arguments of `DataFrame.apply` the rewrite accounts for; any other changes what it returns.
_UNDERSTOOD = ("func", "axis")


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    apply: RowApply = diagnostic.context  # type: ignore[assignment]
    if apply.applicability is Applicability.DISPLAY:
        return display_fix(LIST_SUGGESTION) if apply.aggregation_names else None
    return _rewrite(apply, ctx)


def _rewrite(apply: RowApply, ctx: FixContext) -> Fix | None:
    call, frame, function = apply.call, apply.frame, apply.function
    if not (isinstance(function, ast.Lambda) and _only_understood_arguments(call) and repeatable_frame(frame)):
        return None
    row = _single_parameter(function)
    if row is None:
        return None
    good, needs_numpy = analyse(function.body, row, set(apply.collections))
    if not good:
        return None
    lib = apply.lib
    stored = apply.stored_in_column
    wrap = not _yields_series(function.body, row) and not stored
    if needs_numpy and lib in ("dask", "") or wrap and lib != "pandas":
        return None
    segment = ctx.segment(call)
    frame_code = ctx.segment(frame)
    parsed = _parse_call(segment, call)
    if parsed is None or "\n" in frame_code:
        return None
    lambda_cst = _function_arg(parsed)
    if not isinstance(lambda_cst, cst.Lambda):
        return None
    edits: list[Edit] = []
    numpy_name = "np"
    if needs_numpy:
        numpy_name, import_edits = ctx.ensure_import("numpy", "np")
        edits.extend(import_edits)
    vectorized = to_columns(lambda_cst.body, row, frame_code, numpy_name)
    if wrap:
        pandas_name, import_edits = ctx.ensure_import("pandas", "pd")
        edits.extend(import_edits)
        code = f"{pandas_name}.Series({code_of(_without_plain_parens(vectorized))}, index={frame_code}.index)"
    else:
        if stored:
            vectorized = _without_plain_parens(vectorized)
        if "\n" in code_of(vectorized) or needs_parentheses(call, apply.statement):
            vectorized = parenthesize(vectorized)
        code = code_of(vectorized)
    moved = _comments_outside(parsed, lambda_cst.body)
    if moved:
        edits.append(_with_comments_above(call, apply.statement, code, moved, ctx))
    else:
        edits.append(ctx.replace_node(call, code))
    return Fix(apply.applicability, MESSAGE, tuple(edits))


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


def _parse_call(segment: str, call: ast.Call) -> cst.Call | None:
    """The call as libcst sees it, provided its source text is exactly the call."""
    try:
        same = ast.dump(ast.parse(segment, mode="eval").body) == ast.dump(call)
        parsed = cst.parse_expression(segment)
    except (SyntaxError, ValueError, cst.ParserSyntaxError):
        return None
    return parsed if same and isinstance(parsed, cst.Call) else None


def _function_arg(call: cst.Call) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if arg.keyword is None and index == 0 or arg.keyword is not None and arg.keyword.value == "func":
            return arg.value
    return None


def _without_plain_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    """Drop parentheses around a call (`(np.where(...))`) when they hold no comment."""
    if (
        isinstance(node, cst.Call)
        and len(node.lpar) == 1
        and code_of(node.lpar[0]) == "("
        and code_of(node.rpar[0]) == ")"
    ):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _comments_outside(call: cst.Call, body: cst.BaseExpression) -> list[cst.Comment]:
    """Comments in the call but not in the lambda's body (those stay where they are)."""
    inside = {id(line.comment) for line in comments_in(body)}
    return [line.comment for line in comments_in(call) if id(line.comment) not in inside]


def _with_comments_above(
    call: ast.Call, statement: ast.stmt | None, code: str, comments: list[cst.Comment], ctx: FixContext
) -> Edit:
    """One edit from the start of the statement's first line to the end of the call: the
    comments of the replaced call go on their own lines above the statement."""
    line = min(statement.lineno, call.lineno) if statement is not None else call.lineno  # decorators come first
    text = ctx.source.line(line)
    indent = text[: len(text) - len(text.lstrip(" \t"))]
    source = ctx.source
    start = ctx.start(call)
    before = source.text[source.offset(line, 0) : source.offset(start.line, start.col)]
    lines = "".join(f"{indent}{comment.value}{source.newline}" for comment in comments)
    return Edit(Position(line, 0), ctx.end(call), lines + before + code)

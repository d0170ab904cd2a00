"""Renderer for GPU201 array-element-loop: the planned whole-array statement, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext
from gpulint.plans.array_element_loop import ElementLoop, ElementPlan

from .._vectorize import numpy_import
from .columns import code_of, lines_to_carry, parenthesize
from .elements import to_whole


def rewrite(found: ElementLoop, plan: ElementPlan, ctx: FixContext) -> tuple[Edit, ...] | Decline:
    """The edits replacing the loop with one whole-array statement, its comments above it."""
    loop, statement = found.loop, plan.statement
    parsed = ctx.parse_statements(loop, loop)
    if parsed is None or len(parsed) != 1:
        return Decline("libcst does not read the loop as one statement")
    loop_cst = parsed[0]
    body = loop_cst.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return Decline("libcst does not read the loop's body as one indented statement")
    line = body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return Decline("libcst does not read the loop's body as one simple statement")
    small = line.body[0]
    index, measured = found.index, found.array.id  # type: ignore[attr-defined]
    bound = ctx.segment(found.bound)
    whole_bound = found.form in ("len", "shape")  # `a[:len(a)]` is all of `a`

    def sliced(name: str) -> str:
        return name if name == measured and whole_bound else f"{name}[:{bound}]"

    def replace(original: cst.BaseExpression) -> str | None:
        if (
            isinstance(original, cst.Subscript)
            and isinstance(original.value, cst.Name)
            and original.value.value in plan.arrays
            and len(original.slice) == 1
            and isinstance(original.slice[0].slice, cst.Index)
            and isinstance(original.slice[0].slice.value, cst.Name)
            and original.slice[0].slice.value.value == index
        ):
            return sliced(original.value.value)
        return None

    numpy_name, import_edits = numpy_import(ctx, plan.needs_numpy)
    value = small.value  # type: ignore[attr-defined]
    whole = to_whole(value, replace, numpy_name)
    if plan.kind == "accumulate":
        whole = cst.Call(
            func=cst.Attribute(value=parenthesize(whole), attr=cst.Name("sum")),
            args=[
                cst.Arg(
                    cst.Integer("0"),
                    keyword=cst.Name("axis"),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                    ),
                )
            ],
        )
        target = ctx.segment(statement.target)
    else:
        stored = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        name = stored.value.id  # type: ignore[attr-defined]
        target = f"{name}[:]" if name == measured and whole_bound else f"{name}[:{bound}]"
    operator = "=" if isinstance(statement, ast.Assign) else code_of(small.operator).strip()  # type: ignore[attr-defined]
    try:
        new = cst.parse_statement(f"{target} {operator} {code_of(whole)}")
    except cst.ParserSyntaxError:
        return Decline("libcst does not parse the whole-array statement")
    new = new.with_changes(leading_lines=lines_to_carry(loop_cst))
    return (*import_edits, ctx.replace_statements(loop, loop, [new]))

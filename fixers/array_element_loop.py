"""Fixer for GPU201 array-element-loop: the loop becomes one whole-array statement.

    for i in range(len(a)):            a[:] = a * 2 ... or, for another array `out`:
        out[i] = a[i] * b[i]     ->    out[:len(a)] = a * b[:len(a)]

    for i in range(len(a)):
        total += a[i] * b[i]     ->    total += (a * b[:len(a)]).sum(axis=0)

The rule checked the body (`ElementLoop.plan`); anything it did not plan gets the rule's
display-only suggestion.
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.arrays.array_element_loop import ElementLoop, ElementPlan

from ._elementwise import to_whole
from ._loops import names_read_after
from ._vectorize import code_of, comments_in, numpy_import, parenthesize

MESSAGE = "replace the element loop with a whole-array expression"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    found: ElementLoop = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY or found.plan is None:
        return None
    return _rewrite(found, found.plan, ctx)


def _rewrite(found: ElementLoop, plan: ElementPlan, ctx: FixContext) -> Fix | None:
    loop, statement = found.loop, plan.statement
    kept = frozenset({statement.target.id}) if plan.kind == "accumulate" else frozenset()  # type: ignore[union-attr]
    if names_read_after(found.site, ctx.semantic, kept):
        return None  # the rewrite would drop names the code after the loop reads
    parsed = ctx.parse_statements(loop, loop)
    if parsed is None or len(parsed) != 1:
        return None
    loop_cst = parsed[0]
    body = loop_cst.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return None
    line = body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
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
        name = stored.value.id
        target = f"{name}[:]" if name == measured and whole_bound else f"{name}[:{bound}]"
    operator = "=" if isinstance(statement, ast.Assign) else code_of(small.operator).strip()  # type: ignore[attr-defined]
    try:
        new = cst.parse_statement(f"{target} {operator} {code_of(whole)}")
    except cst.ParserSyntaxError:
        return None
    carried = list(loop_cst.leading_lines) + comments_in(loop_cst.with_changes(leading_lines=[]))
    new = new.with_changes(leading_lines=carried)
    return Fix(found.applicability, MESSAGE, (*import_edits, ctx.replace_statements(loop, loop, [new])))

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

from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan
from gpulint.plans.array_element_loop import ElementLoop, ElementPlan

from ._loops import names_read_after, plain_loop

MESSAGE = "replace the element loop with a whole-array expression"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: ElementLoop = diagnostic.context  # type: ignore[assignment]
    if found.plan is None:
        return _unplanned(found)
    if found.applicability is Applicability.DISPLAY:
        if not isinstance(found.array, ast.Name):
            return Decline("the loop's bound measures an expression, not a named array")
        return Decline("the array is not a NumPy array")
    return _plan_rewrite(found, found.plan, ctx)


def _unplanned(found: ElementLoop) -> Decline:
    """Why the rule planned no rewrite of the loop."""
    loop = found.loop
    if found.bound is loop.iter:
        return Decline("the loop runs over a name or `np.ndenumerate`, not `range` of the array's length")
    return plain_loop(loop) or Decline("the loop's statement has no whole-array form")


def _plan_rewrite(found: ElementLoop, plan: ElementPlan, ctx: FixContext) -> Plan | Decline:
    loop, statement = found.loop, plan.statement
    kept = frozenset({statement.target.id}) if plan.kind == "accumulate" else frozenset()  # type: ignore[union-attr]
    read = names_read_after(found.site, ctx.semantic, kept)
    if read:
        names = ", ".join(f"`{name}`" for name in sorted(read))
        return Decline(f"names the loop binds are read after it: {names}")
    if not ctx.owns_lines(loop, loop):
        return Decline("the loop shares its lines with other code")
    if len(loop.body) != 1 or ctx.indent_of(loop.body[0]) is None:
        return Decline("the loop's body is on the line of its `for`")

    def render() -> tuple[Edit, ...] | Decline:
        from .render.array_element_loop import rewrite

        return rewrite(found, plan, ctx)

    return Plan(found.applicability, MESSAGE, render)

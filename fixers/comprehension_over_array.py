"""Fixer for GPU205 comprehension-over-array: the comprehension becomes one whole-array
expression.

    [x * 2 for x in a]             ->  list(a * 2)         (a NumPy array)
    [x * 2 for x in s]             ->  (s * 2).tolist()    (a pandas/Modin Series)
    np.array([x * 2 for x in a])   ->  np.array(a * 2)

`list()` keeps what iterating the array yields, on any shape: NumPy scalars from a 1-D
array, row arrays from a 2-D one (where `.tolist()` would give Python scalars and nested
lists). Iterating a Series already yields Python scalars, as `.tolist()` does.

Only list comprehensions with one `for` and no `if`, over a NumPy array or a pandas/Modin
Series held by a name, attribute or column (the rule decides); anything else gets the
rule's display-only suggestion.
"""

from __future__ import annotations

import ast

from gpulint.astutil import parses
from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan
from gpulint.plans.comprehension_over_array import ElementComprehension

MESSAGE = "replace the comprehension with a whole-array expression"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: ElementComprehension = diagnostic.context  # type: ignore[assignment]
    node = found.comprehension
    if found.applicability is Applicability.DISPLAY:
        return _display_reason(node)
    if not isinstance(node, ast.ListComp):
        return Decline("the comprehension builds a set or a generator, not a list")
    if "#" in ctx.segment(node) and ctx.has_comments(ctx.start(node), ctx.end(node)):
        return Decline("the comprehension holds comments")
    if not parses(ctx.segment(node), "eval"):
        return Decline("the comprehension's source text does not parse on its own")
    if found.wrapper is None and found.kind == "series":
        finish = "tolist"
    elif found.wrapper is None:
        if "list" in ctx.bound_names() or "*" in ctx.bound_names():
            return Decline("the file binds `list`, which may not be the builtin")
        finish = "list"
    else:
        finish = None

    def render() -> tuple[Edit, ...] | Decline:
        from .render.comprehension_over_array import rewrite

        return rewrite(found, finish, ctx)

    return Plan(found.applicability, MESSAGE, render)


def _display_reason(node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Decline:
    if not isinstance(node, ast.ListComp):
        return Decline("the comprehension builds a set or a generator, not a list")
    if node.generators[0].ifs:
        return Decline("the comprehension has an `if` clause")
    if node.generators[0].is_async:
        return Decline("the comprehension is asynchronous")
    return Decline("the rule found no whole-array form that computes what the comprehension computes")

"""Fixer for GPU202 array-grown-in-loop: collect the pieces in a list, concatenate once.

    found = np.array([])                  found = np.array([])
    for x in xs:                          parts = [found]
        found = np.append(found, f(x)) -> for x in xs:
                                              parts.append(f(x))
                                          found = np.concatenate(parts, axis=None)

`np.concatenate`, `np.vstack`, `np.hstack` and `torch.cat` keep their function and
options; `np.r_[found, x]` and `np.c_[found, x]` keep their index object
(`np.r_[tuple(parts)]`, the same as spelling the items out); several new pieces
(`[a, x, y]`) become `parts.extend([x, y])`. The rule decided whether the shape
qualifies (`Growth.applicability`); otherwise the rule's suggestion is shown.
"""

from __future__ import annotations

import ast

from gpulint.astutil import mentions, parses
from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan
from gpulint.plans.array_grown_in_loop import Growth

from ._growth import array_callee, call_arguments, comment_outside, joined, subscript_items

MESSAGE = "collect the pieces in a list and concatenate once after the loop"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    growth: Growth = diagnostic.context  # type: ignore[assignment]
    if growth.applicability is Applicability.DISPLAY:
        return Decline("the rule found no loop whose pieces a list can collect")
    loop = growth.loop
    assert loop is not None
    if not ctx.owns_lines(loop, loop):
        return Decline("the loop shares its lines with other code")
    matches = [node for node in ast.walk(loop) if _assigns_name(node, growth.name)]
    reasons = [reason for node in matches if (reason := _why_not_collected(node, growth, ctx)) is not None]
    if reasons:
        return Decline(reasons[0])
    if not matches:
        return Decline("the loop holds no assignment of the grown name that an append can replace")
    if len(matches) > 1:
        return Decline("the loop assigns the grown name in more than one statement")
    if not parses(f"{growth.name} = {joined(growth, 'parts', array_callee(growth, ctx), ctx)}"):
        return Decline("the concatenation after the loop would not parse")

    def render() -> tuple[Edit, ...] | Decline:
        from .render.array_grown_in_loop import rewrite

        return rewrite(growth, ctx)

    return Plan(growth.applicability, MESSAGE, render)


def _assigns_name(node: ast.AST, name: str) -> bool:
    """`name = <call or index>`: a statement the rewrite replaces with an append."""
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
        and isinstance(node.value, (ast.Call, ast.Subscript))
    )


def _why_not_collected(node: ast.Assign, growth: Growth, ctx: FixContext) -> str | None:
    """Why the assignment cannot become `parts.append(...)`/`parts.extend([...])`."""
    value = node.value
    if isinstance(value, ast.Subscript):
        items = subscript_items(value, node, ctx)
        if any(isinstance(item, ast.Slice) for item in items):
            return "the index expression holds a range (`a:b`)"
    else:
        assert isinstance(value, ast.Call)
        arguments = call_arguments(value)
        first = arguments[0] if arguments else None
        items = list(first.elts) if isinstance(first, (ast.List, ast.Tuple)) else arguments
    pieces = [
        p
        for p in (item.value if isinstance(item, ast.Starred) else item for item in items)
        if not (isinstance(p, ast.Name) and p.id == growth.name)
    ]
    if len(pieces) != len(growth.pieces):
        return "the call passes values besides the grown name and its new pieces"
    if any(mentions(piece, growth.name) for piece in pieces):
        return "a new piece reads the grown array itself (`np.r_[(found, x)]` indexes with one tuple)"
    if comment_outside(node, pieces, ctx):
        return "the growth statement holds a comment outside its new pieces"
    return None

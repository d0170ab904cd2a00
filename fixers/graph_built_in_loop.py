"""Fixer for GPU601 graph-built-in-loop: one `add_edges_from` call for a loop of `add_edge`.

    for u, v, w in zip(a, b, c):                ->  G.add_edges_from((u, v, {"weight": w}) for u, v, w in zip(a, b, c))
        G.add_edge(u, v, weight=w)
    for u, v, k in triples:  (a MultiGraph)     ->  G.add_edges_from((u, v, k, {}) for u, v, k in triples)
        G.add_edge(u, v, key=k)

The rule decides when the rewrite is safe (see its "Fix safety"); a loop written over
several lines of arguments, or holding a comment, is left to the suggestion.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.graph_built_in_loop import EdgeLoop

MESSAGE = "add the edges in one `add_edges_from` call"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: EdgeLoop = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        return Decline("the rule found no `add_edges_from` call that adds the same edges here")
    loop, call = found.loop, found.call
    text = ctx.segment(loop)
    if "#" in text:
        return Decline("the loop holds a comment (or a `#` in a string)")
    assert isinstance(call.func, ast.Attribute)
    parts = [ctx.segment(argument) for argument in call.args]
    key = ""
    attributes = []
    for keyword in call.keywords:
        value = ctx.segment(keyword.value)
        if keyword.arg == "key" and found.key == "key":
            key = value
        else:
            attributes.append(f'"{keyword.arg}": {value}')
    attributes_text = "{" + ", ".join(attributes) + "}"
    if key:
        parts += [key, attributes_text]
    elif attributes:
        parts.append(attributes_text)
    pieces = [*parts, ctx.segment(loop.target), ctx.segment(loop.iter), ctx.segment(call.func.value)]
    if any("\n" in piece or "\r" in piece for piece in pieces):
        return Decline("an argument, the loop's target or its iterable spans lines")
    graph = ctx.segment(call.func.value)
    code = f"{graph}.add_edges_from(({', '.join(parts)}) for {ctx.segment(loop.target)} in {ctx.segment(loop.iter)})"
    return ready(found.applicability, MESSAGE, (ctx.replace_node(loop, code),))

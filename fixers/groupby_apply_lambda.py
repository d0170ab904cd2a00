"""Fixer for GPU106 groupby-apply-lambda: the lambda becomes the built-in aggregation.

gb.apply(lambda g: g["c"].sum())    ->   gb["c"].sum()
gb.apply(lambda g: g.sum())         ->   gb.sum()
gb.apply(len)                       ->   gb.size()
gb["c"].agg(len)                    ->   gb["c"].size()
gb.transform(lambda g: g.mean())    ->   gb.transform("mean")
gb.agg(lambda g: g.max())           ->   gb.agg("max")
"""

from __future__ import annotations

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.groupby_apply_lambda import GroupCall

MESSAGE = "replace the lambda with the built-in groupby aggregation"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    group: GroupCall = diagnostic.context  # type: ignore[assignment]
    call, aggregation = group.call, group.aggregation
    if group.applicability is Applicability.DISPLAY:
        return Decline("the rule found no built-in aggregation that gives the same result here")
    if "#" in ctx.segment(call):
        return Decline("the call holds a comment (or a `#` in a string)")
    receiver = ctx.segment(call.func.value)  # type: ignore[attr-defined]
    if group.method == "apply" and aggregation.column is not None:
        code = f"{receiver}[{ctx.segment(aggregation.column)}].{aggregation.method}()"
    elif group.method == "apply" or aggregation.method == "size":
        code = f"{receiver}.{aggregation.method}()"
    else:
        code = f'{receiver}.{group.method}("{aggregation.method}")'
    return ready(group.applicability, MESSAGE, (ctx.replace_node(call, code),))

"""Fixer for GPU106 groupby-apply-lambda: the lambda becomes the built-in aggregation.

    gb.apply(lambda g: g["c"].sum())    ->   gb["c"].sum()
    gb.apply(lambda g: g.sum())         ->   gb.sum()
    gb.apply(len)                       ->   gb.size()
    gb.transform(lambda g: g.mean())    ->   gb.transform("mean")
    gb.agg(lambda g: g.max())           ->   gb.agg("max")
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

SUGGESTION = "call the built-in aggregation on the groupby (`gb[\"c\"].sum()`, `gb.size()`, `gb.transform(\"mean\")`)"
MESSAGE = "replace the lambda with the built-in groupby aggregation"
_REWRITABLE = frozenset({"pandas", "modin"})


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    code = _rewrite(info, ctx)
    if code is None:
        return display_fix(SUGGESTION)
    return Fix(Applicability.UNSAFE, MESSAGE, (ctx.replace_node(info["call"], code),))


def _rewrite(info: dict, ctx: FixContext) -> str | None:
    call: ast.Call = info["call"]
    shape = info.get("shape")
    aggregation = info["aggregation"]
    if info.get("lib") not in _REWRITABLE or shape is None or "#" in ctx.segment(call):
        return None
    if len(call.args) + len(call.keywords) != 1:
        return None  # `args=`, `include_groups=`, engine options...
    receiver = ctx.segment(call.func.value)  # type: ignore[attr-defined]
    method = info["method"]
    if method != "apply":
        return f'{receiver}.{method}("{aggregation.method}")'
    if aggregation.column is None:
        return f"{receiver}.{aggregation.method}()"
    if shape != "frame":
        return None  # on a series' groups `g["c"]` reads a label, not a column
    return f"{receiver}[{ctx.segment(aggregation.column)}].{aggregation.method}()"

"""Fixer for GPU303 device-round-trip: copy on the device instead of through the host.

    torch.tensor(t.cpu().numpy()).to(d)   ->   t.detach().to(d, copy=True)
    cupy.asarray(cupy.asnumpy(a))         ->   a.copy()
    cudf.from_pandas(g.to_pandas())       ->   g.copy()          (unsafe)
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

MESSAGE = "copy on the device instead of through the host"
SUGGESTION = "keep the value on the device: copy it there (`t.detach().clone()`, `a.copy()`) instead of through the host"
#: Expressions that need no parentheses before `.method()`.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    trip = diagnostic.context
    if trip is None:
        return None
    value = ctx.segment(trip.value)
    if "\n" in value or "\r" in value:
        return display_fix(SUGGESTION)
    if not isinstance(trip.value, _ATOMS):
        value = f"({value})"
    if trip.library == "cupy":
        return Fix(Applicability.SAFE, MESSAGE, (ctx.replace_node(trip.outer, f"{value}.copy()"),))
    if trip.library == "cudf":
        return Fix(Applicability.UNSAFE, MESSAGE, (ctx.replace_node(trip.outer, f"{value}.copy()"),))
    if trip.via_list or not trip.plain:
        return display_fix(SUGGESTION)
    destination = '"cuda"' if trip.move == "cuda" else ctx.segment(trip.destination)
    if "\n" in destination:
        return display_fix(SUGGESTION)
    applicability = Applicability.SAFE if trip.constructor == "tensor" else Applicability.UNSAFE
    code = f"{value}.detach().to({destination}, copy=True)"
    return Fix(applicability, MESSAGE, (ctx.replace_node(trip.outer, code),))

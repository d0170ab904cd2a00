"""Fixer for GPU303 device-round-trip: copy on the device instead of through the host.

torch.tensor(t.cpu().numpy()).to(d)   ->   t.detach().to(d, copy=True)
cupy.asarray(cupy.asnumpy(a))         ->   a.copy()
cudf.from_pandas(g.to_pandas())       ->   g.copy()          (unsafe)
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready, suggestion
from gpulint.plans.device_round_trip import Trip

MESSAGE = "copy on the device instead of through the host"
#: For a list of device tensors handed to a constructor: the rewrite depends on their shapes.
STACK_SUGGESTION = "stack the tensors on the device: `torch.stack(values)` (`.view(...)` as before), no host copy"
#: Expressions that need no parentheses before `.method()`.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: Trip = diagnostic.context  # type: ignore[assignment]
    trip = found.trip
    value = ctx.segment(trip.value)
    if found.applicability is Applicability.DISPLAY:
        if trip.library == "torch" and not trip.chain:  # a list of device tensors, read one by one
            return suggestion(STACK_SUGGESTION)
        return Decline("the rule found no device copy that gives the same value here")
    if "\n" in value or "\r" in value:
        return Decline("the copied value spans lines")
    if not isinstance(trip.value, _ATOMS):
        value = f"({value})"
    if trip.library in ("cupy", "cudf"):
        return ready(found.applicability, MESSAGE, (ctx.replace_node(trip.outer, f"{value}.copy()"),))
    destination = '"cuda"' if trip.move == "cuda" else ctx.segment(trip.destination)  # type: ignore[arg-type]
    if "\n" in destination:
        return Decline("the destination device spans lines")
    code = f"{value}.detach().to({destination}, copy=True)"
    return ready(found.applicability, MESSAGE, (ctx.replace_node(trip.outer, code),))

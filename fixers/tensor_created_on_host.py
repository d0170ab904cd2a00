"""Fixer for GPU304 tensor-created-on-host: `torch.zeros(n).to(d)` -> `torch.zeros(n, device=d)`."""

from __future__ import annotations

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix
from gpulint.fixing import FixContext, display_fix

from ._arguments import add_keywords

MESSAGE = "create the tensor on the device: pass `device=` to the factory"
SUGGESTION = "create the tensor on the device: pass `device=` to the factory instead of moving it afterwards"
#: Factory arguments whose meaning changes when the tensor is made on the device.
_HOST_ONLY = frozenset({"requires_grad", "out", "pin_memory"})


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    move = info.get("move")
    if move is None or not move.plain or any(k.arg in _HOST_ONLY for k in move.factory.keywords):
        return display_fix(SUGGESTION)
    if move.move.func.attr == "cuda":
        destination = '"cuda"'
    elif move.destination is not None:
        destination = ctx.segment(move.destination)
    else:
        return display_fix(SUGGESTION)
    start, end = ctx.end(move.factory), ctx.end(move.move)
    moved = ctx.source.text[ctx.source.offset(start.line, start.col):ctx.source.offset(end.line, end.col)]
    if "#" in moved:
        return display_fix(SUGGESTION)  # a comment inside `.to(...)` would be lost
    added = add_keywords(ctx, move.factory, [("device", destination)])
    if added is None:
        return display_fix(SUGGESTION)
    applicability = Applicability.UNSAFE if info.get("random") else Applicability.SAFE
    return Fix(applicability, MESSAGE, (*added, Edit(start, end, "")))

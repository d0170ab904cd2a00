"""Fixer for GPU304 tensor-created-on-host: `torch.zeros(n).to(d)` -> `torch.zeros(n, device=d)`."""

from __future__ import annotations

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

MESSAGE = "create the tensor on the device: pass `device=` to the factory"
SUGGESTION = "create the tensor on the device: pass `device=` to the factory instead of moving it afterwards"
#: Factory arguments whose meaning changes when the tensor is made on the device.
_HOST_ONLY = frozenset({"requires_grad", "out", "pin_memory"})


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    move = info.get("move")
    if move is None or not move.plain or any(k.arg in _HOST_ONLY for k in move.factory.keywords):
        return display_fix(SUGGESTION)
    try:
        parsed = cst.parse_expression(ctx.segment(move.move))
    except cst.ParserSyntaxError:
        return display_fix(SUGGESTION)
    if not (isinstance(parsed, cst.Call) and isinstance(parsed.func, cst.Attribute)
            and isinstance(parsed.func.value, cst.Call)):
        return display_fix(SUGGESTION)
    factory = parsed.func.value
    destination = parsed.args[0].value if parsed.args else cst.SimpleString('"cuda"')
    args = list(factory.args)
    device = cst.Arg(keyword=cst.Name("device"), value=destination,
                     equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                           whitespace_after=cst.SimpleWhitespace("")))
    if args and isinstance(args[-1].comma, cst.Comma):  # a trailing comma stays the last thing
        device = device.with_changes(comma=args[-1].comma)
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = factory.with_changes(args=[*args, device])
    code = cst.Module(body=[]).code_for_node(new)
    applicability = Applicability.UNSAFE if info.get("random") else Applicability.SAFE
    return Fix(applicability, MESSAGE, (ctx.replace_node(move.move, code),))

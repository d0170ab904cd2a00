"""Fixer for GPU305 dataloader-without-workers: `num_workers=4, pin_memory=True`."""

from __future__ import annotations

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

WORKERS = 4
MESSAGE = f"load batches in {WORKERS} worker processes into pinned memory"
SUGGESTION = f"pass `num_workers={WORKERS}` (or as many as the machine has cores to spare) and `pin_memory=True`"


def _keyword(name: str, value: str) -> cst.Arg:
    return cst.Arg(keyword=cst.Name(name), value=cst.parse_expression(value),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    call = (diagnostic.context or {}).get("call")
    if call is None:
        return None
    try:
        parsed = cst.parse_expression(ctx.segment(call))
    except cst.ParserSyntaxError:
        return display_fix(SUGGESTION)
    if not isinstance(parsed, cst.Call) or len(parsed.args) > 5 and all(a.keyword is None for a in parsed.args[:6]):
        return display_fix(SUGGESTION)  # `num_workers` given by position
    args = list(parsed.args)
    trailing = args[-1].comma if args and isinstance(args[-1].comma, cst.Comma) else None
    if trailing is not None:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    names = [a.keyword.value if a.keyword is not None else None for a in args]
    if "num_workers" in names:
        index = names.index("num_workers")
        args[index] = args[index].with_changes(value=cst.Integer(str(WORKERS)))
    else:
        args.append(_keyword("num_workers", str(WORKERS)))
    if "pin_memory" not in names:
        args.append(_keyword("pin_memory", "True"))
    if trailing is not None:
        args[-1] = args[-1].with_changes(comma=trailing)
    code = cst.Module(body=[]).code_for_node(parsed.with_changes(args=args))
    return Fix(Applicability.UNSAFE, MESSAGE, (ctx.replace_node(call, code),))

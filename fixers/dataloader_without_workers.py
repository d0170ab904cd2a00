"""Fixer for GPU305 dataloader-without-workers: `num_workers=4, pin_memory=True`."""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

from ._arguments import add_keywords

WORKERS = 4
MESSAGE = f"load batches in {WORKERS} worker processes into pinned memory"
SUGGESTION = f"pass `num_workers={WORKERS}` (or as many as the machine has cores to spare) and `pin_memory=True`"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    context = diagnostic.context or {}
    call, loader = context.get("call"), context.get("loader")
    if not isinstance(call, ast.Call) or loader is None:
        return None
    if not loader.fixable:
        return display_fix(SUGGESTION)  # a subclass of the file's own: its `__init__` decides
    if loader.position is not None and len(call.args) > loader.position:
        return display_fix(SUGGESTION)  # `num_workers` given by position
    given = {keyword.arg: keyword for keyword in call.keywords}
    edits = []
    missing = []
    if "num_workers" in given:
        edits.append(ctx.replace_node(given["num_workers"].value, str(WORKERS)))
    else:
        missing.append(("num_workers", str(WORKERS)))
    if "pin_memory" not in given:
        missing.append(("pin_memory", "True"))
    added = add_keywords(ctx, call, missing)
    if added is None:
        return display_fix(SUGGESTION)
    return Fix(Applicability.UNSAFE, MESSAGE, (*edits, *added))

"""Fixer for GPU305 dataloader-without-workers: `num_workers=4, pin_memory=True`."""

from __future__ import annotations

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.dataloader_without_workers import WORKERS, LoaderCall

from ._arguments import add_keywords

MESSAGE = f"load batches in {WORKERS} worker processes into pinned memory"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: LoaderCall = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        return Decline(
            "the keywords are not known to reach torch's `DataLoader` (or `num_workers` is given by position)"
        )
    call = found.call
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
    if isinstance(added, Decline):
        return added
    return ready(found.applicability, MESSAGE, (*edits, *added))

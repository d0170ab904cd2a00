"""Fixer for GPU301 device-to-host-in-loop: a suggestion only (the copy may be the point)."""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

SUGGESTION = (
    "keep the per-iteration values on the device (`total += loss.detach()`, or append the tensors to a "
    "list and `torch.cat`/`cupy.concatenate` them after the loop) and copy to the host once, after the loop "
    "(`total.item()`)"
)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    return display_fix(SUGGESTION)

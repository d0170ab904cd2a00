"""Fixer for GPU405 predict-in-loop: a display-only suggestion.

What the loop does with each prediction varies too much to rewrite it; the suggestion
says how to batch it.
"""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

SUGGESTION = (
    "call the estimator once on all the rows before the loop (`predictions = model.predict(X)`; "
    "stack the rows first if they are built in the loop) and read `predictions[i]` inside it"
)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    return display_fix(SUGGESTION)

"""Fixer for GPU501 compute-in-loop: a display-only suggestion.

Splitting the loop into one that builds lazy values and one `dask.compute` changes where
each result becomes available, so the rewrite is described, not written.
"""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

SUGGESTION = (
    "build the lazy values in the loop without computing them (`lazy.append(x)`), then compute them "
    "together once after it: `results = dask.compute(*lazy)`"
)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    return display_fix(SUGGESTION)

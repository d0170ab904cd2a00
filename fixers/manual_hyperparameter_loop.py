"""Fixer for GPU404 manual-hyperparameter-loop: a display-only suggestion.

How a loop keeps its scores and picks the winner is the author's own, so the search that
replaces it is described, not written.
"""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

SUGGESTION = (
    "replace the loop with `GridSearchCV(estimator, {\"param\": values}, n_jobs=-1).fit(X, y)` "
    "(or `RandomizedSearchCV`); keep a fixed validation set with `cv=PredefinedSplit(...)`; "
    "read the winner from `best_params_` and every score from `cv_results_`"
)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    return display_fix(SUGGESTION)

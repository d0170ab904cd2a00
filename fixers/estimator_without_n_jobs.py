"""Fixer for GPU403 estimator-without-n-jobs: add `n_jobs=-1` after the call's arguments.

    RandomForestClassifier(n_estimators=100)  ->  RandomForestClassifier(n_estimators=100, n_jobs=-1)
    RandomForestClassifier()                  ->  RandomForestClassifier(n_jobs=-1)

A call written over several lines gets `n_jobs=-1` on a line of its own (see `_arguments`).
The fix is unsafe where the workers fit estimators that draw from NumPy's global random
state, or may run the caller's own code (a user's estimator, scorer or distance).
"""

from __future__ import annotations

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.estimators import fits_given_estimators
from gpulint.fixing import FixContext

from ._arguments import add_keywords

MESSAGE = "pass `n_jobs=-1` to use every core"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context
    edits = add_keywords(ctx, info["call"], [("n_jobs", "-1")])
    if edits is None:
        return None
    if info.get("nested"):
        # Also handed to a search, helper or ensemble with its own `n_jobs`: both levels
        # parallel oversubscribe the cores.
        return Fix(Applicability.UNSAFE, f"{MESSAGE} (unsafe: it is also fitted inside a parallel search, helper "
                                         "or ensemble; keep `n_jobs` at one level)", edits)
    user_code = info.get("user_code")
    if user_code is not None:
        message = f"{MESSAGE} (unsafe: {user_code} may be code of yours, run in worker processes)"
        return Fix(Applicability.UNSAFE, message, edits)
    # Estimators fitted in worker processes no longer share NumPy's global random state.
    applicability = Applicability.UNSAFE if fits_given_estimators(info["qualname"]) else Applicability.SAFE
    return Fix(applicability, MESSAGE, edits)

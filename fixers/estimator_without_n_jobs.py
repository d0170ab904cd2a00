"""Fixer for GPU403 estimator-without-n-jobs: add `n_jobs=-1` after the call's arguments.

    RandomForestClassifier(n_estimators=100)  ->  RandomForestClassifier(n_estimators=100, n_jobs=-1)
    RandomForestClassifier()                  ->  RandomForestClassifier(n_jobs=-1)

A call written over several lines gets `n_jobs=-1` on a line of its own (see `_arguments`).
The rule decides when the fix is unsafe: where the workers fit estimators that draw from
NumPy's global random state, may run the caller's own code (a user's estimator, scorer or
distance), or the estimator is nested in another parallel call.
"""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.estimator_without_n_jobs import EstimatorCall

from ._arguments import add_keywords

MESSAGE = "pass `n_jobs=-1` to use every core"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: EstimatorCall = diagnostic.context  # type: ignore[assignment]
    edits = add_keywords(ctx, found.call, [("n_jobs", "-1")])
    if isinstance(edits, Decline):
        return edits
    message = MESSAGE
    if found.nested:
        message = (
            f"{MESSAGE} (unsafe: it is also fitted inside a parallel search, helper or ensemble; "
            "keep `n_jobs` at one level)"
        )
    elif found.user_code is not None:
        message = f"{MESSAGE} (unsafe: {found.user_code} may be code of yours, run in worker processes)"
    return ready(found.applicability, message, edits)

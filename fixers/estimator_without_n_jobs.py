"""Fixer for GPU403 estimator-without-n-jobs: add `n_jobs=-1` as the call's last argument.

    RandomForestClassifier(n_estimators=100)  ->  RandomForestClassifier(n_estimators=100, n_jobs=-1)
    RandomForestClassifier()                  ->  RandomForestClassifier(n_jobs=-1)

The keyword goes right after the last argument, so a trailing comma, the line breaks and
any comments of a call written over several lines stay where they are.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from gpulint.estimators import fits_given_estimators
from gpulint.fixing import FixContext

MESSAGE = "pass `n_jobs=-1` to use every core"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    call: ast.Call = diagnostic.context["call"]
    # Estimators fitted in worker processes no longer share NumPy's global random state.
    in_workers = fits_given_estimators(diagnostic.context["qualname"])
    applicability = Applicability.UNSAFE if in_workers else Applicability.SAFE
    arguments = [*call.args, *call.keywords]
    if arguments:
        last = max(arguments, key=lambda node: (node.end_lineno, node.end_col_offset))
        at = ctx.end(last)
        return Fix(applicability, MESSAGE, (Edit(at, at, ", n_jobs=-1"),))
    end = ctx.end(call)
    closing = Position(end.line, end.col - 1)
    if ctx.source.line(end.line)[closing.col : end.col] != ")":
        return None
    return Fix(applicability, MESSAGE, (Edit(closing, closing, "n_jobs=-1"),))

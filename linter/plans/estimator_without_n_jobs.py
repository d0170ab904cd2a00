"""What GPU403 estimator-without-n-jobs hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class EstimatorCall(Facts):
    """`call` makes an estimator that could use every core; `nested`: it is also handed to a
    parallel search, helper or ensemble; `user_code`: the argument through which it may run
    the caller's own code in worker processes (None: none)."""

    applicability: Applicability = field(kw_only=True)
    call: ast.Call
    nested: bool
    user_code: str | None

"""What GPU205 comprehension-over-array hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class ElementComprehension(Facts):
    """`comprehension` computes one value per `element` of `iterable` (a `kind` "array" or
    "series"); `needs_numpy`: its whole-array form calls NumPy; `wrapper`: the array call
    around it (`np.array([...])`), if any."""

    applicability: Applicability = field(kw_only=True)
    comprehension: ast.ListComp | ast.SetComp | ast.GeneratorExp
    element: str
    iterable: ast.expr
    kind: str
    needs_numpy: bool
    wrapper: ast.Call | None

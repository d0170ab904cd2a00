"""What GPU201 array-element-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class ElementPlan:
    """A one-statement loop body over NumPy arrays that has a whole-array form: `statement`
    stores into an element (`kind` "store") or adds to a name ("accumulate"), reading
    elements of `arrays`; `needs_numpy`: its whole-array form calls NumPy."""

    kind: str
    statement: ast.Assign | ast.AugAssign
    needs_numpy: bool
    arrays: frozenset[str]


@dataclass(frozen=True)
class ElementLoop(Facts):
    """`loop` (`for index in range(bound)`, `bound` of `form` "len", "shape" or "size" over
    `array`; `site`: its enclosing statements and blocks) reads elements one by one; `plan`:
    its rewrite, checked by the rule (None: display-only)."""

    applicability: Applicability = field(kw_only=True)
    loop: ast.For
    index: str
    bound: ast.expr
    array: ast.expr
    form: str
    plan: ElementPlan | None
    site: tuple[tuple[ast.stmt, list[ast.stmt]], ...]

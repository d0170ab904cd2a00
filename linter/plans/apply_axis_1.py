"""What GPU104 apply-axis-1 hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class RowApply(Facts):
    """`call` (`frame.apply(function, axis=1)`) on a `lib` frame: the column expression may
    replace it where `function` is a lambda (unsafe), the `agg` call where it is a list of
    aggregation names (display-only). `stored_in_column`: the result is assigned to a column
    of the frame; `collections`: names of whole frames, series or arrays the lambda reads."""

    applicability: Applicability = field(kw_only=True)
    call: ast.Call
    frame: ast.expr
    lib: str
    function: ast.expr | None
    stored_in_column: bool
    statement: ast.stmt | None
    collections: frozenset[str]

    @property
    def aggregation_names(self) -> bool:
        """The function is a list of aggregation names (`["min", "max"]`)."""
        function = self.function
        return (
            isinstance(function, (ast.List, ast.Tuple))
            and bool(function.elts)
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in function.elts)
        )

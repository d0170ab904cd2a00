"""What GPU106 groupby-apply-lambda hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from typing import NamedTuple

from ..diagnostic import Applicability, Facts


class GroupAggregation(NamedTuple):
    """What the lambda computes per group: `method` of the group, or of `column` of it
    (`column` holds the subscript's source, e.g. `"price"`); `method` "size" for `len(g)`.
    A NamedTuple (start-up: a default rule's)."""

    method: str
    column: ast.expr | None = None


class GroupCall(Facts):
    """`call` (`gb.<method>(function)`) applies `aggregation` to each group; `shape` is what
    the groups are ("frame", "series"; None where the groupby is not spelled out). A slots
    class rather than a frozen dataclass (start-up: a default rule's facts)."""

    __slots__ = ("call", "method", "aggregation", "shape")

    call: ast.Call
    method: str
    aggregation: GroupAggregation
    shape: str | None

    def __init__(
        self,
        call: ast.Call,
        method: str,
        aggregation: GroupAggregation,
        shape: str | None,
        *,
        applicability: Applicability,
    ) -> None:
        super().__init__(applicability=applicability)
        object.__setattr__(self, "call", call)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "aggregation", aggregation)
        object.__setattr__(self, "shape", shape)

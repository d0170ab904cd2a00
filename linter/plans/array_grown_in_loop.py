"""What GPU202 array-grown-in-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class Growth(Facts):
    """One growth statement and what the fixer needs to turn it into list building: safe or
    unsafe where the rule found a loop to collect over (see `_plan`), display-only elsewhere."""

    applicability: Applicability = field(kw_only=True)
    statement: ast.Assign
    #: The growing call, or the `np.r_[...]`/`np.c_[...]` index expression.
    call: ast.Call | ast.Subscript
    name: str
    lib: str
    function: str
    #: The new pieces, in order (the grown name itself left out).
    pieces: list[ast.expr] = field(default_factory=list)
    #: The loop to collect over, its block, and the fresh array the name starts as.
    loop: ast.stmt | None = None
    block: list[ast.stmt] = field(default_factory=list)
    init: ast.Assign | None = None

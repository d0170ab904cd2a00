"""What GPU102 iterrows-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class RowIteration(Facts):
    """Rows of a `lib` frame walked one by one: by a `comprehension`, or by a `loop` (in
    `block`; `site`: its enclosing statements and blocks); neither for a counted loop
    (`enumerate(df.iterrows())`), whose count has no column form, so it is display-only.
    `collections`: names of whole frames, series or arrays read per row."""

    applicability: Applicability = field(kw_only=True)
    lib: str
    collections: frozenset[str] = frozenset()
    comprehension: ast.expr | None = None
    loop: ast.For | ast.AsyncFor | None = None
    block: list[ast.stmt] | None = None
    site: tuple[tuple[ast.stmt, list[ast.stmt]], ...] = ()

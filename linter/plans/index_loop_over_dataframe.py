"""What GPU103 index-loop-over-dataframe hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class Cell:
    """One access to the frame through the loop variable: `node` is the whole subscript,
    `column` the column key (None for a whole row), `by_position` whether the row key is read
    as a position (`iloc`/`iat`) rather than a label, `column_position` whether the column key
    is a position too (`df.iloc[i, 2]`)."""

    node: ast.Subscript
    column: ast.expr | None
    by_position: bool
    column_position: bool = False


@dataclass(frozen=True)
class IndexLoop(Facts):
    """A `loop` (in `block`; `site`: its enclosing statements and blocks) walking the
    `lib` `frame` by index (`walk`: "labels" or "positions") and reading its `cells`;
    `collections`: names of whole frames, series or arrays its body reads."""

    applicability: Applicability = field(kw_only=True)
    loop: ast.For | ast.AsyncFor
    block: list[ast.stmt]
    frame: ast.expr
    walk: str
    site: tuple[tuple[ast.stmt, list[ast.stmt]], ...]
    cells: list[Cell]
    lib: str
    collections: frozenset[str]

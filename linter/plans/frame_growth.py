"""A DataFrame grown in a loop, as GPU101 and GPU108 find it."""

from __future__ import annotations
import ast
from typing import NamedTuple

from ..values import Ty


class Growth(NamedTuple):
    """One growth statement, as recognised. A NamedTuple (start-up: a default rule's)."""

    kind: str  # "concat", "append" or "loc"
    statement: ast.Assign | ast.AnnAssign
    target: ast.expr  # the grown name (or attribute chain)
    call: ast.Call | None  # the concat/append call ("loc": None)
    lib: str  # frame library family of the evidence ("" when only the type says pandas-like)
    target_type: Ty | None  # the grown value's type before the statement
    piece_type: Ty | None  # for append: the type of the appended value

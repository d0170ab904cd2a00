"""What GPU601 graph-built-in-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class EdgeLoop(Facts):
    """`loop` only adds one edge per item: `call` (`graph.add_edge(u, v, ...)`); `key` is
    how its `key=` argument goes into the edge tuple: "key" (a multigraph's edge key),
    "attribute" (an attribute of a plain graph) or "" (none given)."""

    applicability: Applicability = field(kw_only=True)
    loop: ast.For
    call: ast.Call
    key: str

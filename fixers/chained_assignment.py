"""Fixer for GPU107 chained-assignment: two indexing steps become one indexer.

df["c"][k] = v          ->   df.loc[k, "c"] = v
df["c"].loc[k] = v      ->   df.loc[k, "c"] = v
df["c"].at[k] = v       ->   df.at[k, "c"] = v
df.loc[r]["c"] = v      ->   df.loc[r, "c"] = v
df[mask]["c"] = v       ->   df.loc[mask, "c"] = v
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.dataframe.chained_assignment import ChainedWrite

MESSAGE = "write through one indexer so the assignment reaches the frame"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    write: ChainedWrite = diagnostic.context  # type: ignore[assignment]
    if write.applicability is Applicability.DISPLAY or "#" in ctx.segment(write.target):
        return None
    rows, frame = write.rows, ctx.segment(write.frame)
    assert rows is not None
    if not isinstance(write.frame, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        frame = f"({frame})"
    method = "at" if write.indexer == "at" else "loc"
    code = f"{frame}.{method}[{ctx.segment(rows)}, {ctx.segment(write.column)}]"
    return Fix(write.applicability, MESSAGE, (ctx.replace_node(write.target, code),))

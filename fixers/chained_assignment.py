"""Fixer for GPU107 chained-assignment: two indexing steps become one indexer.

df["c"][k] = v          ->   df.loc[k, "c"] = v
df["c"].loc[k] = v      ->   df.loc[k, "c"] = v
df["c"].at[k] = v       ->   df.at[k, "c"] = v
df.loc[r]["c"] = v      ->   df.loc[r, "c"] = v
df[mask]["c"] = v       ->   df.loc[mask, "c"] = v
df.c[k] = v             ->   df.loc[k, "c"] = v
df[mask].c = v          ->   df.loc[mask, "c"] = v
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.chained_assignment import ChainedWrite

MESSAGE = "write through one indexer so the assignment reaches the frame"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    write: ChainedWrite = diagnostic.context  # type: ignore[assignment]
    if write.applicability is Applicability.DISPLAY:
        return Decline("the rule found no single indexer that writes the same cells")
    if "#" in ctx.segment(write.target):
        return Decline("the assignment's target holds a comment (or a `#` in a string)")
    rows, frame = write.rows, ctx.segment(write.frame)
    assert rows is not None
    if not isinstance(write.frame, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        frame = f"({frame})"
    method = "at" if write.indexer == "at" else "loc"
    column = f'"{write.label}"' if write.label else ctx.segment(write.column)
    code = f"{frame}.{method}[{ctx.segment(rows)}, {column}]"
    return ready(write.applicability, MESSAGE, (ctx.replace_node(write.target, code),))

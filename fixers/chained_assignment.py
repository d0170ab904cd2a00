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
from gpulint.fixing import FixContext, display_fix

SUGGESTION = (
    "write through one indexer on the frame itself: `df.loc[row, column] = value` "
    "(`df.iloc[i, df.columns.get_loc(column)] = value` for positions)"
)
MESSAGE = "write through one indexer so the assignment reaches the frame"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    code = _rewrite(info, ctx)
    if code is None:
        return display_fix(SUGGESTION)
    return Fix(Applicability.UNSAFE, MESSAGE, (ctx.replace_node(info["target"], code),))


def _rewrite(info: dict, ctx: FixContext) -> str | None:
    shape, indexer, rows = info["shape"], info["indexer"], info["rows"]
    if shape == "columns-copy" or indexer in ("iloc", "iat") or "#" in ctx.segment(info["target"]):
        return None
    if isinstance(rows, (ast.Tuple, ast.Starred)) or isinstance(info["column"], (ast.Tuple, ast.Slice)):
        return None  # a tuple would merge into `.loc`'s row and column pair
    if shape == "column-item" and (isinstance(rows, ast.Slice) or not info.get("rows_never_a_slice")):
        return None  # `series[a:b]` slices positions, `.loc[a:b]` labels (a slice held by a name too)
    frame = ctx.segment(info["frame"])
    if not isinstance(info["frame"], (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        frame = f"({frame})"
    method = "at" if indexer == "at" else "loc"
    return f"{frame}.{method}[{ctx.segment(rows)}, {ctx.segment(info['column'])}]"

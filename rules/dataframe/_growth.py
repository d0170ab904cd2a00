"""Recognising a DataFrame or Series grown one piece at a time, for GPU101
(dataframe-grown-in-loop) and GPU108 (read-in-loop, the growth that adds files read in the
loop, which wins over GPU101).

A growth statement is one of

    frame = <lib>.concat([frame, piece, ...])   (also `[piece, frame]`, a tuple, `objs=`)
    frame = frame.append(piece)                 (or `._append`: removed from pandas)
    frame.loc[len(frame)] = row                 (or `len(frame.index)`, `frame.shape[0]`)

where `concat` resolves to a frame library's (pandas, cuDF, Modin, Dask) and, for the
method forms, `frame` is known to hold a DataFrame or Series.
"""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    FRAME_LIBRARIES,
    OTHER,
    is_reference,
    library_of,
    RuleContext,
    same_reference,
    Ty,
    value_bound_to,
)
from gpulint.pandas_api import FILE_READERS
from gpulint.plans.frame_growth import Growth

_APPEND_METHODS = ("append", "_append")
_PANDAS_LIKE = ("frame", "series", "ndframe")


def growth_at(node: ast.Assign | ast.AnnAssign, ctx: RuleContext) -> Growth | None:
    """The growth statement `node` is, if it is one (wherever it stands)."""
    target = assigned(node)
    value = node.value
    if target is None or value is None:
        return None
    if isinstance(target, ast.Subscript):
        return _loc_growth(node, target, ctx)
    if not is_reference(target) or not isinstance(value, ast.Call):
        return None
    func = value.func
    name = ctx.qualname(func)
    if name is not None:
        found = library_of(name, FRAME_LIBRARIES)
        if found is None or found[1] != "concat":
            return None
        entries = concat_entries(value)
        if entries is None or not any(same_reference(element, target) for element in entries):
            return None
        return Growth("concat", node, target, value, found[0], ctx.type_of(target), None)
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _APPEND_METHODS
        and same_reference(func.value, target)
        and len(value.args) == 1
    ):
        ty = ctx.type_of(target)
        if not pandas_like(ty):
            return None
        assert ty is not None
        return Growth("append", node, target, value, ty.lib, ty, ctx.type_of(value.args[0]))
    return None


def assigned(statement: ast.Assign | ast.AnnAssign) -> ast.expr | None:
    """The single target of an assignment (None for `a = b = ...`)."""
    if isinstance(statement, ast.Assign):
        return statement.targets[0] if len(statement.targets) == 1 else None
    return statement.target


def concat_entries(call: ast.Call) -> list[ast.expr] | None:
    """The elements of `concat([...])`/`concat((...))` (or `objs=[...]`), when spelled out."""
    objs = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "objs"), None)
    return objs.elts if isinstance(objs, (ast.List, ast.Tuple)) else None


def added_pieces(growth: Growth) -> list[ast.expr] | None:
    """What a `concat`/`append` growth adds: the concatenated entries other than the grown
    frame itself (None where they are not spelled out), or the appended value; None for
    `.loc`."""
    if growth.call is None:
        return None
    if growth.kind == "concat":
        entries = concat_entries(growth.call)
        return None if entries is None else [e for e in entries if not same_reference(e, growth.target)]
    return list(growth.call.args[:1])


def pandas_like(ty: Ty | None) -> bool:
    return ty is not None and ty.kind in _PANDAS_LIKE


def _loc_growth(node: ast.Assign | ast.AnnAssign, target: ast.Subscript, ctx: RuleContext) -> Growth | None:
    indexer = target.value
    if not (isinstance(indexer, ast.Attribute) and indexer.attr == "loc" and is_reference(indexer.value)):
        return None
    grown = indexer.value
    ty = ctx.type_of(grown)
    if not pandas_like(ty) or not _is_length_of(target.slice, grown, ctx):
        return None
    assert ty is not None
    return Growth("loc", node, grown, None, ty.lib, ty, None)


def _is_length_of(key: ast.expr, grown: ast.expr, ctx: RuleContext) -> bool:
    """`len(df)`, `len(df.index)` or `df.shape[0]`."""
    if (
        isinstance(key, ast.Call)
        and isinstance(key.func, ast.Name)
        and key.func.id == "len"
        and ctx.env.lookup("len") is OTHER
        and len(key.args) == 1
        and not key.keywords
    ):
        argument = key.args[0]
        if isinstance(argument, ast.Attribute) and argument.attr == "index":
            argument = argument.value
        return same_reference(argument, grown)
    return (
        isinstance(key, ast.Subscript)
        and isinstance(key.value, ast.Attribute)
        and key.value.attr == "shape"
        and same_reference(key.value.value, grown)
        and isinstance(key.slice, ast.Constant)
        and key.slice.value == 0
    )


# -- growth with files read in the loop (GPU108) ----------------------------------------------


def file_read_growth(node: ast.Assign | ast.AnnAssign, ctx: RuleContext) -> Growth | None:
    """The growth statement `node` is, when it adds files read in the loop (GPU108's case)."""
    if not ctx.loops:
        return None
    growth = growth_at(node, ctx)
    if growth is None or _reset_each_iteration(growth.target, ctx) or not grows_with_file_reads(growth, ctx):
        return None
    return growth


def grows_with_file_reads(growth: Growth, ctx: RuleContext) -> bool:
    """A new piece of a `concat`/`append` growth is a file read: a reader call (not chunked),
    possibly followed by methods or selections, or a name bound to one earlier in the same
    iteration of the innermost loop."""
    return any(
        _file_read(piece, ctx) or (isinstance(piece, ast.Name) and _bound_to_file_read(piece.id, ctx))
        for piece in added_pieces(growth) or ()
    )


def _file_read(node: ast.expr, ctx: RuleContext) -> bool:
    """`pd.read_csv(path)` returning a frame, as it is or through methods and selections."""
    while True:
        if isinstance(node, ast.Call):
            name = ctx.qualname(node.func)
            if name is not None:
                found = library_of(name, FRAME_LIBRARIES)
                ty = ctx.type_of(node)
                return found is not None and found[1] in FILE_READERS and pandas_like(ty)
            if not isinstance(node.func, ast.Attribute):
                return False
            node = node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute, ast.NamedExpr)):
            node = node.value
        else:
            return False


def _bound_to_file_read(name: str, ctx: RuleContext) -> bool:
    """`name` was last bound, earlier in the current iteration of the innermost loop, to a file read."""
    value: ast.expr | None = None
    for statement in ctx.earlier_in_iteration():
        bound = value_bound_to(statement, name)
        if bound is not None:
            value = bound
    return value is not None and _file_read(value, ctx)


def _reset_each_iteration(target: ast.expr, ctx: RuleContext) -> bool:
    """The name is bound afresh earlier in the same iteration (`df = base.copy()` just
    before `df = pd.concat([df, x])`): each step then copies one start, not a growing frame."""
    return isinstance(target, ast.Name) and ctx.rebound_each_iteration(target.id)

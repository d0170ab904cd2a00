"""Fixer for GPU205 comprehension-over-array: the comprehension becomes one whole-array
expression.

    [x * 2 for x in a]             ->  list(a * 2)         (a NumPy array)
    [x * 2 for x in s]             ->  (s * 2).tolist()    (a pandas/Modin Series)
    np.array([x * 2 for x in a])   ->  np.array(a * 2)

`list()` keeps what iterating the array yields, on any shape: NumPy scalars from a 1-D
array, row arrays from a 2-D one (where `.tolist()` would give Python scalars and nested
lists). Iterating a Series already yields Python scalars, as `.tolist()` does.

Only list comprehensions with one `for` and no `if`, over a NumPy array or a pandas/Modin
Series held by a name, attribute or column; anything else gets a display-only suggestion.
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix
from gpulint.rules.arrays.comprehension_over_array import repeatable

from ._elementwise import to_whole
from ._vectorize import code_of, numpy_import, parse_list_comprehension, with_method

SUGGESTION = "compute the whole array at once: write the expression over the array instead of each element"
MESSAGE = "replace the comprehension with a whole-array expression"
#: (kind, library) of the iterated values the rewrite is known to mean the same on.
_REWRITABLE = frozenset({("array", "numpy"), ("series", "pandas"), ("series", "modin")})


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    node = info.get("comprehension")
    result = None
    if (node is not None and (info.get("kind"), info.get("lib")) in _REWRITABLE
            and type(node).__name__ == "ListComp" and not node.generators[0].ifs
            and not node.generators[0].is_async and repeatable(info["iterable"])):
        result = _rewrite(info, ctx)
    return result or display_fix(SUGGESTION)


def _has_logic(expression: ast.expr) -> bool:
    return any(isinstance(node, (ast.IfExp, ast.BoolOp)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))
               for node in ast.walk(expression))


def _rewrite(info: dict, ctx: FixContext) -> Fix | None:
    node = info["comprehension"]
    parsed = parse_list_comprehension(node, ctx)
    if parsed is None:
        return None
    element, array = info["element"], ctx.segment(info["iterable"])
    numpy_name, import_edits = numpy_import(ctx, info["needs_numpy"])

    def replace(original: cst.BaseExpression) -> str | None:
        return array if isinstance(original, cst.Name) and original.value == element else None

    if isinstance(parsed.elt, cst.Name) and info.get("wrapper") is not None and not info.get("wrapper_copies"):
        return None  # `np.asarray(a)` is `a` itself, where the comprehension built a new array
    if info["kind"] == "series" and not info.get("keeps_python_values", True):
        return None  # iterating a Series yields Python scalars: `v ** 0.5` is complex there
    if info["kind"] == "array" and _has_logic(info["comprehension"].elt):
        # Iterating a 2-D array yields rows: `x if x > 0 else 0` tests a whole row (which
        # works for rows of one element), where np.where tests each element.
        return None
    whole = to_whole(parsed.elt, replace, numpy_name)
    if info.get("wrapper") is None and info["kind"] == "series":
        whole = with_method(whole, "tolist")
    elif info.get("wrapper") is None:
        if "list" in ctx.bound_names() or "*" in ctx.bound_names():
            return None  # `list` may not be the builtin
        whole = cst.Call(func=cst.Name("list"), args=[cst.Arg(whole)])
    return Fix(Applicability.UNSAFE, MESSAGE, (*import_edits, ctx.replace_node(node, code_of(whole))))

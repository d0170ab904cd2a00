"""Fixer for GPU205 comprehension-over-array: the comprehension becomes one whole-array
expression.

    [x * 2 for x in a]             ->  list(a * 2)         (a NumPy array)
    [x * 2 for x in s]             ->  (s * 2).tolist()    (a pandas/Modin Series)
    np.array([x * 2 for x in a])   ->  np.array(a * 2)

`list()` keeps what iterating the array yields, on any shape: NumPy scalars from a 1-D
array, row arrays from a 2-D one (where `.tolist()` would give Python scalars and nested
lists). Iterating a Series already yields Python scalars, as `.tolist()` does.

Only list comprehensions with one `for` and no `if`, over a NumPy array or a pandas/Modin
Series held by a name, attribute or column (the rule decides); anything else gets the
rule's display-only suggestion.
"""

from __future__ import annotations

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.arrays.comprehension_over_array import ElementComprehension

from ._elementwise import to_whole
from ._vectorize import code_of, numpy_import, parse_list_comprehension, with_method

MESSAGE = "replace the comprehension with a whole-array expression"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    found: ElementComprehension = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        return None
    node = found.comprehension
    parsed = parse_list_comprehension(node, ctx)
    if parsed is None:
        return None
    element, array = found.element, ctx.segment(found.iterable)
    numpy_name, import_edits = numpy_import(ctx, found.needs_numpy)

    def replace(original: cst.BaseExpression) -> str | None:
        return array if isinstance(original, cst.Name) and original.value == element else None

    whole = to_whole(parsed.elt, replace, numpy_name)
    if found.wrapper is None and found.kind == "series":
        whole = with_method(whole, "tolist")
    elif found.wrapper is None:
        if "list" in ctx.bound_names() or "*" in ctx.bound_names():
            return None  # `list` may not be the builtin
        whole = cst.Call(func=cst.Name("list"), args=[cst.Arg(whole)])
    return Fix(found.applicability, MESSAGE, (*import_edits, ctx.replace_node(node, code_of(whole))))

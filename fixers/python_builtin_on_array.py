"""Fixer for GPU204 python-builtin-on-array: the builtin becomes the array's own method.

The table in the rule's "Fix safety" is the whole contract: each rewrite below gives the
builtin's values on a NumPy array or a pandas/Modin Series; other calls get a suggestion.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

MESSAGE = "call the array's own method"
#: builtin -> rewrite template for a NumPy array (`{a}` the array as a method's receiver,
#: `{argument}` as an argument, `{np}` NumPy's name in the file).
_ARRAY = {
    "sum": "{a}.sum(axis=0)",
    "max": "{a}.max(axis=0)",
    "min": "{a}.min(axis=0)",
    "any": "{a}.any(axis=0)",
    "all": "{a}.all(axis=0)",
    "sorted": "{np}.sort({argument}, axis=0).tolist()",
}
#: builtin -> rewrite template for a pandas or Modin Series.
_SERIES = {
    "sum": "{a}.sum(skipna=False)",
    "any": "{a}.any(skipna=False)",
    "all": "{a}.all(skipna=False)",
    "sorted": "{a}.sort_values().tolist()",
    "list": "{a}.tolist()",
}
SUGGESTIONS = {
    "list": "`a.tolist()` builds the list in one call (of Python scalars, where `list(a)` holds NumPy scalars)",
    "max": "use `a.max()` (a Series' `max()` skips NaN and returns NaN when empty, where `max()` raises)",
    "min": "use `a.min()` (a Series' `min()` skips NaN and returns NaN when empty, where `min()` raises)",
}
SUGGESTION = "use the array's own method (`a.sum()`, `a.max()`, `a.any()`, `np.sort(a)`, `a.tolist()`)"
_TEMPLATES = {("array", "numpy"): _ARRAY, ("series", "pandas"): _SERIES, ("series", "modin"): _SERIES}
#: Receivers written into a method call as they are; anything else is parenthesized.
_ATOMIC = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    info = diagnostic.context or {}
    call = info.get("call")
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    builtin = call.func.id
    templates = _TEMPLATES.get((info.get("kind"), info.get("lib")), {})
    template = templates.get(builtin)
    if template is None or len(call.args) != 1 or call.keywords:
        return display_fix(SUGGESTIONS.get(builtin, SUGGESTION))
    argument = call.args[0]
    receiver = ctx.segment(argument)
    if not isinstance(argument, _ATOMIC):
        receiver = f"({receiver})"
    numpy_name, import_edits = ctx.ensure_import("numpy", "np") if "{np}" in template else ("np", ())
    code = template.format(a=receiver, argument=ctx.segment(argument), np=numpy_name)
    return Fix(Applicability.UNSAFE, MESSAGE, (*import_edits, ctx.replace_node(call, code)))

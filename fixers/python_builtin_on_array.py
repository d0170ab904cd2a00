"""Fixer for GPU204 python-builtin-on-array: the builtin becomes the array's own method.

The table in the rule's "Fix safety" is the whole contract: each rewrite below gives the
builtin's values on a NumPy array or a pandas/Modin Series; other calls get a suggestion.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext, display_fix

MESSAGE = "call the array's own method"
#: builtin -> rewrite template for a NumPy array (`{a}` the array as a method's receiver).
#: `sum` walks the rows like the builtin (`axis=0`); `any`/`all` take the truth of each row,
#: which the builtin can only do for rows of one element: the same as over all elements.
#: `max`/`min`/`sorted` are left out: with NaN in the data the builtin's answer depends on
#: where the NaN is, and NumPy has no `max()` for text, which the builtin compares.
_ARRAY = {
    "sum": "{a}.sum(axis=0)",
    "any": "{a}.any()",
    "all": "{a}.all()",
}
#: builtin -> rewrite template for a pandas or Modin Series. `any`/`all` are left out (a
#: datetime or categorical Series has no `any()`, which the builtin does not need), and so
#: is `sorted` (NaN, as above), `max`/`min` (a Series skips NaN, returns NaN when empty).
_SERIES = {
    "sum": "{a}.sum(skipna=False)",
    "list": "{a}.tolist()",
}
#: builtin -> the suggestion shown where no rewrite applies; `{a}` is the argument as written.
SUGGESTIONS = {
    "list": "`{a}.tolist()` builds the list in one call, of Python scalars where `list({a})` holds NumPy "
            "scalars; on an array of more than one dimension `list({a})` holds its rows as arrays and "
            "`{a}.tolist()` nested lists, so keep `list({a})` where the rows must stay arrays",
    "max": "use `{a}.max()` where the data holds no NaN (the builtin's answer with NaN depends on where it is; "
           "an array's `max()` returns NaN, a Series' `max()` skips it)",
    "min": "use `{a}.min()` where the data holds no NaN (the builtin's answer with NaN depends on where it is; "
           "an array's `min()` returns NaN, a Series' `min()` skips it)",
    "sorted": "use `np.sort({a})` (or `.sort_values()` on a Series) where the data holds no NaN (the builtin's "
              "order with NaN depends on where it is; NumPy and pandas sort NaN last)",
    "any": "use `{a}.any()` (on a Series of dates or categories, which the builtin takes the truth of, "
           "`Series.any()` raises)",
    "all": "use `{a}.all()` (on a Series of dates or categories, which the builtin takes the truth of, "
           "`Series.all()` raises)",
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
    argument = call.args[0] if call.args else None
    receiver = ctx.segment(argument) if argument is not None else "a"
    if argument is not None and not isinstance(argument, _ATOMIC):
        receiver = f"({receiver})"
    if template is None or len(call.args) != 1 or call.keywords:
        if builtin not in SUGGESTIONS or len(call.args) != 1 or "\n" in receiver or len(receiver) > 40:
            return display_fix(SUGGESTION)
        return display_fix(SUGGESTIONS[builtin].format(a=receiver))
    return Fix(Applicability.UNSAFE, MESSAGE, (ctx.replace_node(call, template.format(a=receiver)),))

"""Fixer for GPU204 python-builtin-on-array: the builtin becomes the array's own method.

The table in the rule's "Fix safety" is the whole contract: each rewrite the rule picks
(`BuiltinCall.template`) gives the builtin's values on a NumPy array or a pandas/Modin
Series; other calls get a suggestion.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic
from gpulint.fixing import Decline, FixContext, Plan, ready, suggestion
from gpulint.plans.python_builtin_on_array import BuiltinCall

MESSAGE = "call the array's own method"
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
#: Receivers written into a method call as they are; anything else is parenthesized.
_ATOMIC = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: BuiltinCall = diagnostic.context  # type: ignore[assignment]
    call, builtin = found.call, found.builtin
    argument = call.args[0]
    receiver = ctx.segment(argument)
    if not isinstance(argument, _ATOMIC):
        receiver = f"({receiver})"
    if found.applicability is Applicability.DISPLAY or found.template is None:
        if builtin not in SUGGESTIONS or len(call.args) != 1:
            return Decline("no method gives the builtin's values for this call")
        if "\n" in receiver or len(receiver) > 40:
            return Decline("the argument is too long to quote in a suggestion")
        return suggestion(SUGGESTIONS[builtin].format(a=receiver))
    return ready(found.applicability, MESSAGE, (ctx.replace_node(call, found.template.format(a=receiver)),))

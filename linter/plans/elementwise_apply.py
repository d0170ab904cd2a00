"""What GPU105 elementwise-apply hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class ElementwiseForm:
    """What the function passed to `apply`/`map` is, when it has a vectorized form: a builtin
    (`kind` "builtin", `name` "abs"), a `str` method ("str-method", "lower"), or a lambda
    ("lambda", with its `parameter`, whether its body works on `strings` or reads a
    timestamp's parts (`datetimes`), is `conditional`, and how many times it `uses` the
    parameter; `shown`: why its column form is shown but not written, where it is)."""

    kind: str
    name: str = ""
    parameter: str = ""
    strings: bool = False
    conditional: bool = False
    uses: int = 0
    datetimes: bool = False
    shown: str = ""


@dataclass(frozen=True)
class ElementwiseCall(Facts):
    """`call` (`receiver.apply(f)`, on a `kind` "series" or "frame") calls `form` per element;
    `statement` holds it."""

    applicability: Applicability = field(kw_only=True)
    call: ast.Call
    receiver: ast.expr
    kind: str
    form: ElementwiseForm
    statement: ast.stmt | None


def function_of(call: ast.Call) -> ast.expr | None:
    """The function passed to `apply`/`map` (positionally, or as `func=`/`arg=`)."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in ("func", "arg")), None)

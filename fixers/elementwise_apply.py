"""Fixer for GPU105 elementwise-apply: the per-element function becomes its vectorized form.

s.apply(abs)                         ->   s.abs()
s.map(float)                         ->   s.astype(float)
s.apply(str.lower)                   ->   s.str.lower()
s.apply(lambda x: x.strip().lower()) ->   s.str.strip().str.lower()
s.map(lambda x: x * 2 + 1)           ->   s * 2 + 1
s.map(lambda x: x / float(total))    ->   s / float(total)
s.map(lambda x: x)                   ->   s.copy()
frame.map(abs)                       ->   frame.abs()
"""

from __future__ import annotations

import ast

from gpulint.astutil import keyword_value, mentions, parses
from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.elementwise import python_values_kept, str_predicate, stringy
from gpulint.plans.elementwise_apply import ElementwiseCall, ElementwiseForm, function_of

from ._vectorize import needs_parentheses

MESSAGE = "replace the per-element function with its vectorized form"
_CASTS = ("float", "int", "bool")
#: Receivers that can be written more than once without computing anything.
_PRIMARY = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    apply: ElementwiseCall = diagnostic.context  # type: ignore[assignment]
    if apply.applicability is Applicability.DISPLAY:
        if apply.form.shown:
            return Decline(apply.form.shown)
        if apply.form.datetimes:
            return Decline(
                "the function reads a timestamp's or a duration's parts, and `.dt` needs a datetime or timedelta column"
            )
        return Decline("the receiver is neither a pandas nor a Modin object")
    return _plan_rewrite(apply, ctx)


def _plan_rewrite(apply: ElementwiseCall, ctx: FixContext) -> Plan | Decline:
    call, form = apply.call, apply.form
    method = call.func.attr if isinstance(call.func, ast.Attribute) else "apply"
    if not _only_understood_arguments(call):
        return Decline(f"`{method}` is given arguments besides the function and `na_action`")
    if "#" in ctx.segment(call):
        return Decline("the call holds a comment")
    if _skips_missing(call) and not _missing_stays_missing(form, call):
        return Decline("the vectorized form would not keep the values `na_action` skips missing")
    receiver = ctx.segment(apply.receiver)
    if not isinstance(apply.receiver, _PRIMARY):
        receiver = f"({receiver})"
    on_series = apply.kind == "series"
    if form.kind == "builtin":
        if form.name in ("abs", "round"):
            return _ready(apply, f"{receiver}.{form.name}()", ctx)
        if form.name in _CASTS:
            return _ready(apply, f"{receiver}.astype({form.name})", ctx)
        if form.name == "len" and on_series:
            return _ready(apply, f"{receiver}.str.len()", ctx)
        if form.name == "len":
            return Decline("a DataFrame has no `.str.len()`")
        return Decline("`astype(str)` keeps missing values missing where `str` writes them out")
    if form.kind == "str-method":
        if on_series:
            return _ready(apply, f"{receiver}.str.{form.name}()", ctx)
        return Decline("a DataFrame has no `.str` accessor")
    return _plan_lambda(apply, receiver, on_series, ctx)


def _plan_lambda(apply: ElementwiseCall, receiver: str, on_series: bool, ctx: FixContext) -> Plan | Decline:
    call, form = apply.call, apply.form
    if form.conditional:
        return Decline("the lambda's body is conditional")
    if form.strings and not on_series:
        return Decline("the lambda works on strings, and a DataFrame has no `.str` accessor")
    if form.uses > 1 and not _repeatable(apply.receiver):
        return Decline(
            "the lambda reads its parameter more than once, and the receiver would be computed once per read"
        )
    function = function_of(call)
    assert isinstance(function, ast.Lambda)
    parameter = form.parameter
    if isinstance(function.body, ast.Name):
        # `lambda x: x`: a new object with the same values, not the receiver itself (an
        # alias would share later changes); `na_action` has nothing left to skip.
        if _skips_missing(call):
            return Decline("the lambda returns its parameter unchanged and `na_action` is set")
        return _ready(apply, f"{receiver}.copy()", ctx)
    if not python_values_kept(function.body, lambda node: isinstance(node, ast.Name) and node.id == parameter):
        return Decline("the lambda's body computes something else on NumPy values than on Python values")
    if _element_meets_a_string(function.body, parameter):
        return Decline("the lambda adds its parameter to a string or orders it against one")
    if not _text_where_text_goes(function.body, parameter):
        return Decline("a `str` method or `len` in the lambda reads something that is not text")
    if any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "round"
        and len(n.args) == 2
        and mentions(n, parameter)
        for n in ast.walk(function.body)
    ):
        return Decline("the lambda rounds to digits, which NumPy does through a scaled float")
    body = ctx.segment(function.body)
    if not parses(body, "eval"):
        return Decline("the lambda's body does not parse on its own")

    def render() -> tuple[Edit, ...] | Decline:
        from .render.elementwise_apply import vectorized

        code = vectorized(body, parameter, receiver, _CASTS)
        return code if isinstance(code, Decline) else (replacement(apply, code, ctx),)

    return Plan(apply.applicability, MESSAGE, render)


def _ready(apply: ElementwiseCall, code: str, ctx: FixContext) -> Plan:
    return ready(apply.applicability, MESSAGE, (replacement(apply, code, ctx),))


def replacement(apply: ElementwiseCall, code: str, ctx: FixContext) -> Edit:
    """The edit replacing the call with `code`, parenthesized where it is an operand."""
    if not _atomic(code) and needs_parentheses(apply.call, apply.statement):
        code = f"({code})"
    return ctx.replace_node(apply.call, code)


def _only_understood_arguments(call: ast.Call) -> bool:
    """The function, and `na_action` (the vectorized form skips missing values too)."""
    positional = len(call.args)
    keywords = [k.arg for k in call.keywords]
    return (
        positional + len(keywords) >= 1
        and positional <= 1
        and not any(isinstance(a, ast.Starred) for a in call.args)
        and all(k in ("func", "arg", "na_action") for k in keywords)
    )


#: Comparisons that order values (a categorical column refuses them unless it is ordered).
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _element_meets_a_string(body: ast.expr, parameter: str) -> bool:
    """The element itself added to or ordered against a string (`x + "!"`, `x < "m"`): on a
    categorical column of strings (or an empty one of numbers) the vectorized form raises,
    where `apply` maps each category. Methods first (`x.strip() + "!"`) give plain strings."""

    def element(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == parameter

    for node in ast.walk(body):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = node.left, node.right
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], _ORDERINGS):
            a, b = node.left, node.comparators[0]
        else:
            continue
        if element(a) and stringy(b) or element(b) and stringy(a):
            return True
    return False


def _text_where_text_goes(body: ast.expr, parameter: str) -> bool:
    """Whether every `str` method and `len` reading the element is applied to the element or
    to a string made from it (`x.strip().lower()`, `len(x + "!")`). `len(x).lower()` raises
    for every element, but on a Series with no elements `apply` returns where
    `s.str.len().str.lower()` raises (an int Series has no `.str`)."""

    def text(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == parameter or stringy(node)

    for node in ast.walk(body):
        if not (isinstance(node, ast.Call) and mentions(node, parameter)):
            continue
        if isinstance(node.func, ast.Attribute) and not text(node.func.value):
            return False
        if isinstance(node.func, ast.Name) and node.func.id == "len" and not text(node.args[0]):
            return False
    return True


def _skips_missing(call: ast.Call) -> bool:
    """`na_action="ignore"` (anything but an explicit None): missing values are not passed to
    the function and stay missing in the result."""
    value = keyword_value(call, "na_action")
    return value is not None and not (isinstance(value, ast.Constant) and value.value is None)


def _missing_stays_missing(form: ElementwiseForm, call: ast.Call) -> bool:
    """Whether the vectorized form keeps a missing value missing, as `na_action="ignore"`
    does: arithmetic, `abs`, `round`, `float`, `len` and string results do; comparisons,
    `str` predicates and `bool` make it False or True, and `int` raises on it."""
    if form.kind == "builtin":
        return form.name not in ("int", "bool")
    if form.kind == "str-method":
        return not str_predicate(form.name)
    function = function_of(call)
    assert isinstance(function, ast.Lambda)
    for node in ast.walk(function.body):
        if not mentions(node, form.parameter):
            continue
        if (
            isinstance(node, (ast.Compare, ast.BoolOp))
            or isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Not)
        ):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "bool"):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and str_predicate(node.func.attr):
            return False
    return True


def _repeatable(node: ast.expr) -> bool:
    """A name, an attribute chain or a subscript by a constant over one: written twice, it
    computes nothing twice."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def _atomic(code: str) -> bool:
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, _PRIMARY)

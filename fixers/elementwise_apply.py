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

import libcst as cst

from gpulint.astutil import keyword_value, mentions
from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.arrays._elementwise import python_values_kept, str_predicate, stringy
from gpulint.rules.dataframe.elementwise_apply import ElementwiseCall, ElementwiseForm, function_of

from ._vectorize import code_of, needs_parentheses, parenthesize

MESSAGE = "replace the per-element function with its vectorized form"
_CASTS = ("float", "int", "bool")
#: Receivers that can be written more than once without computing anything.
_PRIMARY = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    apply: ElementwiseCall = diagnostic.context  # type: ignore[assignment]
    if apply.applicability is Applicability.DISPLAY:
        return None
    code = _rewrite(apply, ctx)
    if code is None:
        return None
    if not _atomic(code) and needs_parentheses(apply.call, apply.statement):
        code = f"({code})"
    return Fix(apply.applicability, MESSAGE, (ctx.replace_node(apply.call, code),))


def _rewrite(apply: ElementwiseCall, ctx: FixContext) -> str | None:
    call, form = apply.call, apply.form
    if not _only_understood_arguments(call) or "#" in ctx.segment(call):
        return None
    if _skips_missing(call) and not _missing_stays_missing(form, call):
        return None
    receiver = ctx.segment(apply.receiver)
    if not isinstance(apply.receiver, _PRIMARY):
        receiver = f"({receiver})"
    on_series = apply.kind == "series"
    if form.kind == "builtin":
        if form.name in ("abs", "round"):
            return f"{receiver}.{form.name}()"
        if form.name in _CASTS:
            return f"{receiver}.astype({form.name})"
        if form.name == "len" and on_series:
            return f"{receiver}.str.len()"
        return None  # `str`: `astype(str)` keeps missing values missing
    if form.kind == "str-method":
        return f"{receiver}.str.{form.name}()" if on_series else None
    return _rewrite_lambda(call, apply.receiver, receiver, form, on_series, ctx)


def _rewrite_lambda(
    call: ast.Call, receiver_node: ast.expr, receiver: str, form: ElementwiseForm, on_series: bool, ctx: FixContext
) -> str | None:
    if form.conditional or (form.strings and not on_series):
        return None
    if form.uses > 1 and not _repeatable(receiver_node):
        return None  # the receiver would be computed once per use
    function = function_of(call)
    assert isinstance(function, ast.Lambda)
    parameter = form.parameter
    if isinstance(function.body, ast.Name):
        # `lambda x: x`: a new object with the same values, not the receiver itself (an
        # alias would share later changes); `na_action` has nothing left to skip.
        return None if _skips_missing(call) else f"{receiver}.copy()"
    if not python_values_kept(function.body, lambda node: isinstance(node, ast.Name) and node.id == parameter):
        return None
    if _element_meets_a_string(function.body, parameter) or not _text_where_text_goes(function.body, parameter):
        return None
    if any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "round"
        and len(n.args) == 2
        and mentions(n, parameter)
        for n in ast.walk(function.body)
    ):
        return None  # NumPy rounds to digits through a scaled float, Python exactly
    try:
        body = cst.parse_expression(ctx.segment(function.body))
    except cst.ParserSyntaxError:
        return None
    vectorized = body.visit(_Vectorize(parameter, cst.parse_expression(receiver)))
    return code_of(vectorized)


class _Vectorize(cst.CSTTransformer):
    """The lambda's parameter becomes the receiver; casts, `len` and `str` methods applied to
    something that reads the parameter become their Series forms (`abs`/`round` and
    operators work on a Series as they are). What does not read the parameter stays as it
    is: `float(total)` is one Python call, as it was for each element."""

    def __init__(self, parameter: str, receiver: cst.BaseExpression) -> None:
        self.parameter = parameter
        self.receiver = receiver

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.receiver if updated.value == self.parameter else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)  # an attribute's name is no parameter

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not _reads(original, self.parameter):
            return updated
        func = updated.func
        if isinstance(func, cst.Name) and func.value in (*_CASTS, "len"):
            argument = parenthesize(updated.args[0].value)
            if func.value == "len":
                accessor = cst.Attribute(value=argument, attr=cst.Name("str"))
                return cst.Call(
                    func=cst.Attribute(value=accessor, attr=cst.Name("len")), lpar=updated.lpar, rpar=updated.rpar
                )
            return cst.Call(
                func=cst.Attribute(value=argument, attr=cst.Name("astype")),
                args=[cst.Arg(cst.Name(func.value))],
                lpar=updated.lpar,
                rpar=updated.rpar,
            )
        if isinstance(func, cst.Attribute):
            accessor = cst.Attribute(value=parenthesize(func.value), attr=cst.Name("str"))
            return updated.with_changes(func=func.with_changes(value=accessor))
        return updated


def _reads(node: cst.CSTNode, name: str) -> bool:
    """Whether `name` occurs in `node` as a variable (not as an attribute's name)."""
    found: list[cst.Name] = []

    class Find(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    node.visit(Find())
    return bool(found)


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

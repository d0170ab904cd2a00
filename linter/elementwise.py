"""Is an expression one element's worth of a whole-array expression?

Shared by the array rules that look at per-element Python code (GPU201 element loops,
GPU205 comprehensions) and by their fixers. An expression qualifies when it combines
*element references* (`x` for `for x in a`, `a[i]` for `for i in range(len(a))`) with
arithmetic, single comparisons, `and`/`or`/`not` over comparisons, `x if cond else y`,
the builtin `abs` and NumPy ufuncs (`np.sqrt`), numeric constants, `np.pi`-like
constants, and names from outside the loop that are not known to hold arrays, frames or
series. Each of those means the same applied to whole arrays (or Series) as applied to
their elements one at a time; `and`/`or`/`not` become `&`/`|`/`~` and a conditional
becomes `np.where`.

Elements that are Python objects (what `Series.apply` hands its function, the fields of a
row of mixed dtypes) compute some of this differently from NumPy: Python ints grow, bools
add up to ints, `(-4) ** 0.5` is complex. `python_values_kept` tells those expressions
apart, and the rewrites of pandas elements and rows (GPU102-GPU105) use it.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from .astutil import ARITHMETIC_OPERATORS, COMPARISON_OPERATORS
from .evidence import TypeEnv
from .numpy_api import is_numpy_ufunc

#: Named constants that are plain floats.
_NAMED_CONSTANTS = frozenset(
    {"numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "math.pi", "math.e", "math.inf", "math.nan", "math.tau"}
)


def is_comparison(node: ast.AST) -> bool:
    """A comparison, or `and`/`or`/`not` over comparisons (a boolean array once vectorized)."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return all(is_comparison(value) for value in node.values)
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and is_comparison(node.operand)


class OperatorWalk:
    """What every element-wise check accepts the same way: arithmetic, one comparison,
    `and`/`or`/`not` over comparisons and `x if cond else y` (whose whole-array form calls
    `np.where`: `needs_numpy`), over the leaves `leaf` judges. The array rules' checker
    (`Elementwise`) and the row planners' (`fixers._vectorize`) differ only in their leaves."""

    needs_numpy: bool

    def leaf(self, node: ast.AST) -> bool | None:
        """The verdict on a node that is no operator, or None for a node it does not judge."""
        raise NotImplementedError

    def ok(self, node: ast.AST) -> bool:
        verdict = self.leaf(node)
        if verdict is not None:
            return verdict
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ARITHMETIC_OPERATORS) and self.ok(node.left) and self.ok(node.right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return is_comparison(node.operand) and self.ok(node.operand)
            return isinstance(node.op, (ast.USub, ast.UAdd)) and self.ok(node.operand)
        if isinstance(node, ast.Compare):
            return (
                len(node.ops) == 1
                and isinstance(node.ops[0], COMPARISON_OPERATORS)
                and self.ok(node.left)
                and self.ok(node.comparators[0])
            )
        if isinstance(node, ast.BoolOp):
            return all(is_comparison(value) and self.ok(value) for value in node.values)
        if isinstance(node, ast.IfExp):
            self.needs_numpy = True
            return is_comparison(node.test) and self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        return False


class Elementwise(OperatorWalk):
    """Checks one expression; `references` counts the element references it reads,
    `needs_numpy` says whether its whole-array form calls `np.where`, and
    `keeps_python_values` is set by `elementwise`."""

    def __init__(
        self, is_element: Callable[[ast.AST], bool], forbidden: set[str] | frozenset[str], env: TypeEnv
    ) -> None:
        self.is_element = is_element
        self.forbidden = forbidden
        self.env = env
        self.references = 0
        self.needs_numpy = False
        self.keeps_python_values = True

    def leaf(self, node: ast.AST) -> bool | None:
        if self.is_element(node):
            self.references += 1
            return True
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, ast.Name):
            return node.id not in self.forbidden
        if isinstance(node, ast.Attribute):
            return self.env.qualname(node) in _NAMED_CONSTANTS
        if isinstance(node, ast.Call):
            if node.keywords or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
                return False
            func = node.func
            if isinstance(func, ast.Name) and func.id == "abs" and self.env.is_builtin("abs"):
                return len(node.args) == 1 and self.ok(node.args[0])
            return is_numpy_ufunc(self.env.qualname(func)) and all(self.ok(a) for a in node.args)
        return None


def elementwise(
    expression: ast.expr, is_element: Callable[[ast.AST], bool], forbidden: set[str] | frozenset[str], env: TypeEnv
) -> Elementwise | None:
    """The checker's verdict on `expression`, or None when it is not an element-wise
    computation reading at least one element reference (or formats strings with `%`).
    `keeps_python_values` on the verdict says whether the whole-array form also gives
    what Python computes on Python scalars (iterating a Series yields them; a NumPy
    array's elements are NumPy scalars, which compute as the whole array does)."""
    checker = Elementwise(is_element, forbidden, env)
    if _negates_a_bool(expression, is_element) or _guarded_parts_may_raise(expression, is_element):
        return None
    if checker.ok(expression) and checker.references and remainders_only(expression, is_element):
        checker.keeps_python_values = python_values_kept(expression, is_element)
        return checker
    return None


def _negates_a_bool(expression: ast.expr, is_element: Callable[[ast.AST], bool]) -> bool:
    """`-` applied to what may be a bool: `-(not c)` is -1 or 0 on Python's bools, where
    NumPy refuses `-` on a bool array (even an empty one)."""
    return any(
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and involves(node, is_element)
        and _bool_valued(node.operand)
        for node in ast.walk(expression)
    )


def _guarded_parts_may_raise(expression: ast.expr, is_element: Callable[[ast.AST], bool]) -> bool:
    """Whether a part that `and`/`or`/`x if c else y` may skip computes with an element and
    a value only known at run time, or raises an element to a negative power. The loop
    skips that part for some elements; the whole-array form computes it for all of them,
    where NumPy raises (a Python int outside a small int dtype, ints to a negative power)."""
    guarded: list[ast.expr] = []
    for node in ast.walk(expression):
        if isinstance(node, ast.BoolOp):
            guarded += node.values[1:]
        elif isinstance(node, ast.IfExp):
            guarded += [node.body, node.orelse]
    for part in guarded:
        for node in ast.walk(part):
            if not isinstance(node, ast.BinOp) or not involves(node, is_element):
                continue
            sides = (node.left, node.right)
            if any(not involves(side, is_element) and not isinstance(side, ast.Constant) for side in sides):
                return True
            if isinstance(node.op, ast.Pow) and not (
                isinstance(node.right, ast.Constant)
                and not isinstance(node.right.value, bool)
                and isinstance(node.right.value, (int, float))
                and node.right.value >= 0
            ):
                return True
    return False


def _bool_valued(node: ast.AST) -> bool:
    return isinstance(node, (ast.Compare, ast.BoolOp)) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


def involves(node: ast.AST, is_element: Callable[[ast.AST], bool]) -> bool:
    """Whether `node` reads an element reference: its whole-array form differs from it."""
    return any(is_element(sub) for sub in ast.walk(node))


#: `str` methods that return a string.
_STR_RESULTS = frozenset(
    [
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "title",
        "capitalize",
        "swapcase",
        "casefold",
        "replace",
        "format",
        "join",
    ]
)


def str_predicate(method: str) -> bool:
    """A `str` method that returns a bool (`isdigit`, `startswith`)."""
    return method.startswith("is") or method in ("startswith", "endswith")


def stringy(node: ast.AST) -> bool:
    """A string literal or f-string, a `str` method's string result, or a `+` or conditional
    that yields one of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and node.func.attr in _STR_RESULTS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return stringy(node.left) or stringy(node.right)
    if isinstance(node, ast.IfExp):
        return stringy(node.body) or stringy(node.orelse)
    return isinstance(node, ast.JoinedStr)


def remainders_only(expression: ast.expr, is_element: Callable[[ast.AST], bool]) -> bool:
    """Whether every `%` that reads an element computes a remainder rather than formatting a
    string. `"%.2f" % x` formats one number per element, but `"%.2f" % column` formats the
    whole column into one string (or raises), so the left operand must be an element
    expression that is no string, or a number literal."""
    for node in ast.walk(expression):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and involves(node, is_element):
            left = node.left
            number = isinstance(left, ast.Constant) and type(left.value) in (int, float)
            if not number and (stringy(left) or not involves(left, is_element)):
                return False
    return True


def _maybe_bool(node: ast.AST, is_element: Callable[[ast.AST], bool]) -> bool:
    """An operand that may hold bools: an element reference, a bool literal, a comparison,
    `not`, a `bool()` cast, a `str` predicate (`x.isdigit()`), `abs`/`round`/`+` of one of
    them, a conditional with one of them in a branch, or a product of two (NumPy's `*` on
    bools stays bool). Other names are taken to hold numbers."""
    if is_element(node):
        return True
    if isinstance(node, ast.Constant):
        return type(node.value) is bool
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(node, ast.IfExp):
        return _maybe_bool(node.body, is_element) or _maybe_bool(node.orelse, is_element)
    if isinstance(node, ast.BinOp):
        return (
            isinstance(node.op, ast.Mult) and _maybe_bool(node.left, is_element) and _maybe_bool(node.right, is_element)
        )
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not) or isinstance(node.op, ast.UAdd) and _maybe_bool(node.operand, is_element)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "bool" or (
            node.func.id in ("abs", "round") and len(node.args) == 1 and _maybe_bool(node.args[0], is_element)
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return str_predicate(node.func.attr)
    return False


def guards_read_elements(expression: ast.expr, is_element: Callable[[ast.AST], bool]) -> bool:
    """Whether every operand of `and`/`or` and every test of `x if cond else y` reads an
    element. Python skips what such a guard rules out; the whole-column form computes every
    part, so a guard that reads no element (`flag and x > 0`, `x if limit > 0 else 0`) could
    have kept a part that raises from ever running."""
    for node in ast.walk(expression):
        parts = node.values if isinstance(node, ast.BoolOp) else [node.test] if isinstance(node, ast.IfExp) else []
        if any(not involves(part, is_element) for part in parts):
            return False
    return True


_INT64 = range(-(2**63), 2**63)
_CONSTANT_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}


def _constant(node: ast.AST) -> int | float | None:
    """The value of a number literal or of arithmetic on them (`10 ** 20`, `-2 ** 70`);
    None for anything else, and for powers too large to compute at once."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, (int, float)) and type(value) is not bool else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _constant(node.operand)
        return -value if value is not None and isinstance(node.op, ast.USub) else value
    if not (isinstance(node, ast.BinOp) and type(node.op) in _CONSTANT_OPERATORS):
        return None
    left, right = _constant(node.left), _constant(node.right)
    if left is None or right is None or isinstance(node.op, ast.Pow) and (abs(right) > 256 or abs(left) > 2**16):
        return None
    try:
        return _CONSTANT_OPERATORS[type(node.op)](left, right)
    except (OverflowError, ZeroDivisionError):
        return None


def python_values_kept(expression: ast.expr, is_element: Callable[[ast.AST], bool], element_pairs: bool = True) -> bool:
    """Whether the whole-column form of a (checked) element expression gives the values
    Python gives element by element, where the elements are Python objects (what
    `Series.apply` hands its function, and a row of a frame with mixed dtypes).

    Declined, because NumPy computes a different value or raises where Python returns:
    `**` unless its exponent is the literal 0, 1 or 2 (`x ** 0.5` is complex for a negative
    `x` in Python and NaN in NumPy, `x ** -1` raises for NumPy ints, `x ** 3` wraps in int64
    from about 2e6, where Python ints grow); `-` applied to a value that may be a bool
    (`-True` is -1, NumPy inverts); arithmetic on two operands that may both be bools
    (`True + True` is 2, NumPy's `+` on bools is a logical or; `-`, `/`, `//`, `%` and
    `**` raise; `"ab" * True` repeats a string, pandas' string arrays refuse bools), where
    two different element references themselves count only with `element_pairs`; `%` that formats
    strings (`remainders_only`); arithmetic other than `+` with a string operand
    (`"-" * n` repeats a string, NumPy raises); and arithmetic or a comparison with an int
    that int64 cannot hold (`x * 10 ** 20`: Python ints grow, pandas raises
    `OverflowError`).

    Kept, and named in the rules' Fix safety: `+`, `-`, `*`, `//`, `abs` and `x ** 2` on
    int64 wrap at the int64 bounds where Python ints grow."""
    if not remainders_only(expression, is_element):
        return False
    for node in ast.walk(expression):
        if not involves(node, is_element):
            continue
        operands = (
            [node.left, node.right]
            if isinstance(node, ast.BinOp)
            else [node.left, *node.comparators]
            if isinstance(node, ast.Compare)
            else []
        )
        if any(type(value) is int and value not in _INT64 for value in map(_constant, operands)):
            return False
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, ast.Add) and (stringy(node.left) or stringy(node.right)):
                return False
            if isinstance(node.op, ast.Pow):
                exponent = node.right
                if not (
                    isinstance(exponent, ast.Constant) and type(exponent.value) is int and 0 <= exponent.value <= 2
                ):
                    return False
            both = _maybe_bool(node.left, is_element) and _maybe_bool(node.right, is_element)
            two_elements = (
                is_element(node.left) and is_element(node.right) and ast.dump(node.left) != ast.dump(node.right)
            )
            if both and (element_pairs or not two_elements):
                return False
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _maybe_bool(node.operand, is_element):
            return False
    return True

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
"""

from __future__ import annotations

import ast
from typing import Callable

from gpulint.astutil import ARITHMETIC_OPERATORS, COMPARISON_OPERATORS
from gpulint.evidence import TypeEnv, is_numpy_ufunc

#: Named constants that are plain floats.
_NAMED_CONSTANTS = frozenset({"numpy.pi", "numpy.e", "numpy.inf", "numpy.nan", "math.pi", "math.e", "math.inf",
                              "math.nan", "math.tau"})


def is_comparison(node: ast.AST) -> bool:
    """A comparison, or `and`/`or`/`not` over comparisons (a boolean array once vectorized)."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return all(is_comparison(value) for value in node.values)
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and is_comparison(node.operand)


class Elementwise:
    """Checks one expression; `references` counts the element references it reads and
    `needs_numpy` says whether its whole-array form calls `np.where`."""

    def __init__(self, is_element: Callable[[ast.AST], bool], forbidden: set[str] | frozenset[str],
                 env: TypeEnv) -> None:
        self.is_element = is_element
        self.forbidden = forbidden
        self.env = env
        self.references = 0
        self.needs_numpy = False

    def ok(self, node: ast.AST) -> bool:
        if self.is_element(node):
            self.references += 1
            return True
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, ast.Name):
            return node.id not in self.forbidden
        if isinstance(node, ast.Attribute):
            return self.env.qualname(node) in _NAMED_CONSTANTS
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ARITHMETIC_OPERATORS) and self.ok(node.left) and self.ok(node.right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return is_comparison(node.operand) and self.ok(node.operand)
            return isinstance(node.op, (ast.USub, ast.UAdd)) and self.ok(node.operand)
        if isinstance(node, ast.Compare):
            return (len(node.ops) == 1 and isinstance(node.ops[0], COMPARISON_OPERATORS)
                    and self.ok(node.left) and self.ok(node.comparators[0]))
        if isinstance(node, ast.BoolOp):
            return all(is_comparison(value) and self.ok(value) for value in node.values)
        if isinstance(node, ast.IfExp):
            self.needs_numpy = True
            return is_comparison(node.test) and self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        if isinstance(node, ast.Call):
            if node.keywords or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
                return False
            func = node.func
            if isinstance(func, ast.Name) and func.id == "abs" and self.env.is_builtin("abs"):
                return len(node.args) == 1 and self.ok(node.args[0])
            return is_numpy_ufunc(self.env.qualname(func)) and all(self.ok(a) for a in node.args)
        return False


def elementwise(expression: ast.expr, is_element: Callable[[ast.AST], bool], forbidden: set[str] | frozenset[str],
                env: TypeEnv) -> Elementwise | None:
    """The checker's verdict on `expression`, or None when it is not an element-wise
    computation reading at least one element reference."""
    checker = Elementwise(is_element, forbidden, env)
    if checker.ok(expression) and checker.references:
        return checker
    return None

"""Whether a per-row expression has a whole-column form, decided on `ast` by the planners.

Shared by the planners of the row-wise DataFrame rules (iterrows loops, `apply(axis=1)`),
and in part by the other vectorizing planners. A row expression qualifies when it reads the
row only as `row["column"]` (a string literal), combines such fields with arithmetic,
single comparisons, `and`/`or`/`not` over comparisons, `abs()`/`round()`, constants and
names from outside, and reads at least one field. The renderers (`render/columns.py`) then
write `row["a"]` as `frame["a"]`, `and`/`or`/`not` as `&`/`|`/`~`, and `x if cond else y`
as `np.where(cond, x, y)`.
"""

from __future__ import annotations

import ast

from gpulint.astutil import is_reference
from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext
from gpulint.elementwise import OperatorWalk, guards_read_elements, python_values_kept, stringy

_ELEMENTWISE_BUILTINS = ("abs", "round")
#: Stands for the row while a cell expression is checked and rewritten; never in the output.
ROW = "__gpulint_row__"


def is_row_field(node: ast.AST, row: str) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == row
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    )


class _Checker(OperatorWalk):
    """The operators are `OperatorWalk`'s; the leaves are the row's fields (`row["a"]`),
    constants, names from outside and `abs()`/`round()` of them."""

    def __init__(self, row: str, forbidden: set[str]) -> None:
        self.row = row
        self.forbidden = forbidden
        self.fields = 0
        self.needs_numpy = False

    def leaf(self, node: ast.AST) -> bool | None:
        if is_row_field(node, self.row):
            self.fields += 1
            return True
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float, str, bool)) and node.value is not None
        if isinstance(node, ast.Name):
            return node.id != self.row and node.id not in self.forbidden
        if isinstance(node, ast.Call):
            return (
                isinstance(node.func, ast.Name)
                and node.func.id in _ELEMENTWISE_BUILTINS
                and node.func.id not in self.forbidden
                and not node.keywords
                and 1 <= len(node.args) <= 2
                and all(self.ok(a) for a in node.args)
                and (len(node.args) == 1 or isinstance(node.args[1], ast.Constant))
                # `round(np.where(...))`: a NumPy array has no `__round__`
                and not (node.func.id == "round" and any(isinstance(n, ast.IfExp) for n in ast.walk(node)))
            )
        return None


def analyse(expression: ast.expr, row: str, forbidden: set[str]) -> tuple[bool, bool]:
    """(vectorizable, needs numpy) for a row expression. `forbidden` holds names that
    must not appear (the loop's other targets, names assigned inside the loop).

    A row of a frame with mixed dtypes holds Python objects, so the expression must also
    compute on columns what it computes on them (`python_values_kept`: no `x ** 0.5`,
    `x ** 3`, `-flag`, `fmt % x`, `(x > 0) + True`, `x + x`). Two different fields are
    not refused for both possibly holding bools: `row["price"] - row["cost"]` is the
    rewrite's main use, and the rules' Fix safety names what two bool columns do. Nor may
    the expression guard parts with a test that reads no field (`guards_read_elements`) or
    take `//` or `%` by a field (`_divides_by_a_field`)."""

    def is_field(node: ast.AST) -> bool:
        return is_row_field(node, row)

    checker = _Checker(row, forbidden)
    good = (
        checker.ok(expression)
        and checker.fields > 0
        and strings_vectorize(expression)
        and python_values_kept(expression, is_field, element_pairs=False)
        and guards_read_elements(expression, is_field)
        and not _divides_by_a_field(expression, row)
    )
    return good, checker.needs_numpy


def _divides_by_a_field(expression: ast.expr, row: str) -> bool:
    """`//` or `%` by something that reads a field: by zero, a row's NumPy int gives 0 (a
    Python int raises), where a column gives inf or NaN."""
    return any(
        isinstance(node, ast.BinOp)
        and isinstance(node.op, (ast.FloorDiv, ast.Mod))
        and any(is_row_field(sub, row) for sub in ast.walk(node.right))
        for node in ast.walk(expression)
    )


#: Parents in which a rewritten expression needs no parentheses of its own.
_LOOSE_PARENTS = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Return,
    ast.Expr,
    ast.keyword,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
)


def needs_parentheses(call: ast.Call, statement: ast.stmt | None) -> bool:
    """Whether the call is an operand (`1 - s.apply(...)`, `s.apply(...).sum()`) rather than
    a whole value (assigned, returned, an argument, an element)."""
    if statement is None:
        return True
    for parent in ast.walk(statement):
        for field in ("value", "values", "elts", "args", "keys"):
            child = getattr(parent, field, None)
            if child is call or isinstance(child, list) and any(c is call for c in child):
                if isinstance(parent, ast.Call):
                    return field != "args"
                return not isinstance(parent, _LOOSE_PARENTS)
    return True


def numpy_import(ctx: FixContext, needed: bool) -> tuple[str, tuple[Edit, ...]]:
    """The name NumPy goes by in the rewrite, and the edits that import it where `needed`."""
    return ctx.ensure_import("numpy", "np") if needed else ("np", ())


def empty_list_before(loop: ast.stmt, block: list[ast.stmt], name: str) -> ast.Assign | None:
    """The statement right before `loop` in `block`, when it is `name = []`."""
    position = next((i for i, s in enumerate(block) if s is loop), None)
    if not position:
        return None
    init = block[position - 1]
    if not (
        isinstance(init, ast.Assign)
        and len(init.targets) == 1
        and isinstance(init.targets[0], ast.Name)
        and init.targets[0].id == name
        and isinstance(init.value, ast.List)
        and not init.value.elts
    ):
        return None
    return init


def repeatable_frame(node: ast.expr) -> bool:
    """A frame expression that may be written once per column the rewrite reads: a name or
    attribute chain (`frame`, `self.frame`), but not `.T` (each copy would transpose again)."""
    probe = node
    while isinstance(probe, ast.Attribute):
        if probe.attr == "T":
            return False
        probe = probe.value
    return is_reference(node)


def strings_vectorize(expression: ast.expr) -> bool:
    """True when the string literals in a (checked) row expression mean the same on a column.

    Only concatenation (`+`) carries over: `"%s" % row["a"]` formats the whole column into
    one string and `"x" * row["n"]` fails on a column. `x if c else y` becomes `np.where`,
    which turns a number into a string when the other branch is a string literal, so the
    branches must both be strings or both not."""
    for node in ast.walk(expression):
        if isinstance(node, ast.BinOp):
            mixed = not isinstance(node.op, ast.Add) and (stringy(node.left) or stringy(node.right))
        elif isinstance(node, ast.UnaryOp):
            mixed = stringy(node.operand)
        elif isinstance(node, ast.Call):
            mixed = any(stringy(argument) for argument in node.args)
        elif isinstance(node, ast.IfExp):
            mixed = stringy(node.body) != stringy(node.orelse)
        else:
            mixed = False
        if mixed:
            return False
    return True


def frame_written_once(frame: ast.expr, ctx: FixContext) -> str | Decline:
    """The frame's source, which the rewrite writes once per column it reads; declined where
    it spans lines (each copy would break the rewritten expression's layout)."""
    code = ctx.segment(frame)
    if "\n" in code or "\r" in code:
        return Decline("the frame expression spans lines")
    return code

"""Fixer for GPU101 dataframe-grown-in-loop: collect the pieces in a list, build once.

Rewritten shapes (anything else gets the display-only suggestion):

    frame = pd.DataFrame()                       frame = pd.DataFrame()
    for x in xs:                                 parts = [frame]
        frame = pd.concat([frame, f(x)], ...) -> for x in xs:
                                                     parts.append(f(x))
                                                 frame = pd.concat(parts, ...)

    `[f(x), frame]` (prepending) becomes `pd.concat(parts[::-1], ...)`; several new
    pieces (`[frame, a, b]`) become `parts.extend([a, b])`. Safe with pandas where the
    detector found every piece to be a row selection of one frame (`Growth.uniform_pieces`:
    one dtype per column across the pieces); unsafe otherwise.

    frame = frame.append(other_frame)        ->  as above, with `pd.concat` (unsafe)
    frame = frame.append({...}, ignore_index=True)
                                             ->  rows.append({...}) in the loop, then
                                                 frame = pd.concat([frame, pd.DataFrame(rows)],
                                                                   ignore_index=True) (unsafe)

    frame = pd.DataFrame(columns=cols)           frame = pd.DataFrame(columns=cols)
    for x in xs:                             ->  rows = []
        frame.loc[len(frame)] = [x, g(x)]        for x in xs:
                                                     rows.append([x, g(x)])
                                                 frame = pd.DataFrame(rows, columns=frame.columns)  (unsafe)

The list is created just before the outermost enclosing loop (of the current function) in
which the grown name is used by nothing but the growth statement, so nested loops are
collected into one list.
"""

from __future__ import annotations

import ast
from typing import Sequence

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix
from gpulint.fixing import FixContext, display_fix
from gpulint.rules.dataframe.dataframe_grown_in_loop import Growth, LoopSite

SUGGESTION = (
    "append each piece to a list inside the loop and call `pd.concat(pieces)` once after it "
    "(start the list with the initial frame to keep its columns and dtypes)"
)
ROW_SUGGESTION = (
    "append each row to a list inside the loop and build the frame once after it: "
    "`pd.DataFrame(rows, columns=...)`"
)
MESSAGE = "collect the pieces in a list and concatenate once after the loop"
ROW_MESSAGE = "collect the rows in a list and build the frame once after the loop"

#: Module to import for `concat`/`DataFrame` when the source only calls a method.
_MODULES = {"pandas": ("pandas", "pd"), "cudf": ("cudf", "cudf"), "modin": ("modin.pandas", "mpd"),
            "dask": ("dask.dataframe", "dd")}
_AXIS_ROWS = (0, "index", "rows")
_CONCAT_KEYWORDS = frozenset({"ignore_index", "sort", "axis", "join"})
_APPEND_KEYWORDS = frozenset({"ignore_index", "sort"})
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    growth = diagnostic.context
    if not isinstance(growth, Growth):
        return None
    plan = _plan(growth)
    result = _rewrite(growth, plan, ctx) if plan is not None else None
    if result is not None:
        return result
    return display_fix(ROW_SUGGESTION if growth.kind == "loc" or (plan and plan.mode == "rows") else SUGGESTION)


# -- deciding what to write ------------------------------------------------------------------


class _Plan:
    """How one growth statement becomes list building."""

    def __init__(self, mode: str, name: str) -> None:
        self.mode = mode  # "parts" (concat of pieces), "rows" (DataFrame of dict rows), "loc"
        self.name = name  # the grown name
        self.pieces: list[ast.expr] = []  # what the loop appends ("parts": frames; else rows)
        self.prepend = False
        self.keywords: list[ast.keyword] = []  # kept for the call after the loop
        self.ignore_index = False
        self.sort = False
        self.site: LoopSite | None = None
        self.applicability = Applicability.UNSAFE


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
    )


def _keywords(call: ast.Call, allowed: frozenset[str], plan: _Plan) -> bool:
    """Check the call's options: only known ones, only constants, rows stacked (not columns)."""
    for keyword in call.keywords:
        if keyword.arg not in allowed or not _constant(keyword.value):
            return False
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg == "axis" and value not in _AXIS_ROWS:
            return False
        if keyword.arg == "join" and value != "outer":
            return False
        if keyword.arg == "ignore_index":
            if not isinstance(value, bool):
                return False
            plan.ignore_index = value
        if keyword.arg == "sort":
            if not isinstance(value, bool):
                return False
            plan.sort = value
    plan.keywords = list(call.keywords)
    return True


def _plan(growth: Growth) -> _Plan | None:
    statement = growth.statement
    if not isinstance(growth.target, ast.Name) or not isinstance(statement, ast.Assign) or growth.in_try:
        return None
    plan = _Plan("parts", growth.target.id)
    call = growth.call
    if growth.kind == "concat":
        assert call is not None
        if len(call.args) != 1 or not isinstance(call.args[0], (ast.List, ast.Tuple)):
            return None
        if not _keywords(call, _CONCAT_KEYWORDS, plan):
            return None
        elements = call.args[0].elts
        if any(isinstance(e, ast.Starred) for e in elements):
            return None
        positions = [i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == plan.name]
        if positions == [0] and len(elements) >= 2:
            plan.pieces = elements[1:]
        elif positions == [1] and len(elements) == 2:
            plan.pieces, plan.prepend = [elements[0]], True
        else:
            return None
        # Safe only where each column provably has one dtype across the pieces: then one
        # concat and the chain of pairwise ones agree (pandas only; see the rule's docs).
        uniform = growth.lib == "pandas" and growth.uniform_pieces
        plan.applicability = Applicability.SAFE if uniform else Applicability.UNSAFE
    elif growth.kind == "append":
        assert call is not None
        if not _keywords(call, _APPEND_KEYWORDS, plan):
            return None
        piece = call.args[0]
        target_kind = growth.target_type.kind if growth.target_type else ""
        piece_kind = growth.piece_type.kind if growth.piece_type else ""
        if target_kind in ("frame", "series") and piece_kind == target_kind:
            plan.pieces = [piece]
        elif target_kind == "frame" and isinstance(piece, ast.Dict) and plan.ignore_index \
                and None not in piece.keys:
            plan.mode = "rows"
            plan.pieces = [piece]
        else:
            return None
    else:
        row = statement.value
        if not (isinstance(row, (ast.List, ast.Tuple)) and row.elts
                and not any(isinstance(e, ast.Starred) for e in row.elts)):
            return None
        if growth.target_type is None or growth.target_type.kind != "frame":
            return None
        plan.mode = "loc"
        plan.pieces = [row]
    # Whatever the loop appends must not read the grown name itself.
    if any(_mentions(piece, plan.name) for piece in plan.pieces):
        return None
    plan.site = _choose_loop(growth, plan.name)
    if plan.site is None or not _same_when_empty(growth, plan, plan.site):
        return None
    if _seen_from_other_scopes(growth.scope, plan.name):
        return None
    return plan


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node))


def _walk_local(nodes: Sequence[ast.AST]):
    """Nodes under `nodes`, not descending into nested functions, lambdas or classes."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED_SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _choose_loop(growth: Growth, name: str) -> LoopSite | None:
    """The outermost enclosing loop whose only use of `name` is the growth statement and
    which always reaches the code after it (no `return`, `yield` or `raise` inside)."""
    for site in growth.loops:
        loop = site.loop
        parts: list[ast.AST] = [*loop.body, *loop.orelse]  # type: ignore[attr-defined]
        parts.append(loop.test if isinstance(loop, ast.While) else loop.target)  # type: ignore[attr-defined]
        if _uses_outside(parts, growth.statement, name):
            continue  # an inner loop may still qualify
        if any(isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Raise)) for node in _walk_local(parts)):
            continue
        return site
    return None


def _uses_outside(parts: list[ast.AST], statement: ast.stmt, name: str) -> int:
    """How often `name` appears in `parts`, leaving out the growth statement's expected uses."""
    count = 0
    stack = list(parts)
    while stack:
        node = stack.pop()
        if node is statement:
            continue
        if isinstance(node, ast.Name) and node.id == name:
            count += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            count += 1
        stack.extend(ast.iter_child_nodes(node))
    return count


def _same_when_empty(growth: Growth, plan: _Plan, site: LoopSite) -> bool:
    """Would a loop that runs zero times leave the same value as the rewrite computes?"""
    if plan.mode == "loc":
        # `.loc[len(df)]` appends only while the index is 0..n-1: a fresh, empty frame.
        init = site.init
        return (site.init_fresh and site.init_kind == "DataFrame" and init is not None
                and [k.arg for k in init.value.keywords] == ["columns"])  # type: ignore[attr-defined]
    if plan.mode == "rows":
        return site.init_fresh and site.init_kind == "DataFrame" or site.runs_once
    if site.runs_once:
        return True
    ty = growth.target_type
    if plan.ignore_index and not site.init_fresh:
        return False  # concat([start], ignore_index=True) resets any other index
    series = (ty is not None and ty.kind == "series") or (site.init_fresh and site.init_kind == "Series")
    columns = site.init_columns
    if plan.sort and not series and not (columns is not None and list(columns) == sorted(columns)):
        return False  # concat([start], sort=True) sorts the start's columns
    if site.init_fresh:
        return True
    return ty is not None and ty.kind in ("frame", "series", "ndframe")  # concat([None]) raises


def _seen_from_other_scopes(scope: ast.AST | None, name: str) -> bool:
    """True when a function, lambda or class in `scope` may read or rebind `name` of `scope`
    (a closure, or a function reading the module-level name) or `scope` declares it global."""
    if scope is None:
        return True
    body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    for node in _walk_local(body):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, _NESTED_SCOPES) and _refers_to_outer(node, name):
            return True
    return False


def _bound_in(node: ast.AST, name: str) -> bool:
    """`name` is a parameter or a local (assigned, not declared global/nonlocal) of `node`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                 *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
        if any(a.arg == name for a in every):
            return True
    if isinstance(node, _COMPREHENSIONS):
        return any(_mentions(generator.target, name) for generator in node.generators)
    body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
    declared = False
    assigned = False
    for sub in _walk_local(body):
        if isinstance(sub, (ast.Global, ast.Nonlocal)) and name in sub.names:
            declared = True
        elif isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, (ast.Store, ast.Del)):
            assigned = True
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub.name == name:
            assigned = True
        elif isinstance(sub, ast.alias) and (sub.asname or sub.name.split(".")[0]) == name:
            assigned = True
    return assigned and not declared


def _refers_to_outer(node: ast.AST, name: str) -> bool:
    """A nested scope reads or writes the enclosing scope's `name`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and _bound_in(node, name):
        return False
    body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
    for sub in _walk_local(body):
        if isinstance(sub, ast.Name) and sub.id == name:
            return True
        if isinstance(sub, (ast.Global, ast.Nonlocal)) and name in sub.names:
            return True
        if isinstance(sub, _NESTED_SCOPES) and _refers_to_outer(sub, name):
            return True
    return False


# -- writing it ----------------------------------------------------------------------------------


def _rewrite(growth: Growth, plan: _Plan, ctx: FixContext) -> Fix | None:
    site = plan.site
    assert site is not None
    loop = site.loop
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return None
    loop_cst = statements[0]
    name = plan.name
    collected = ctx.fresh_name("parts" if plan.mode == "parts" else "rows")
    replacer = _ReplaceGrowth(plan, growth.kind, collected)
    new_loop = loop_cst.visit(replacer)
    if replacer.replaced != 1 or replacer.failed:
        return None

    import_edits: tuple[Edit, ...] = ()
    if growth.kind == "concat":
        callee = ctx.segment(growth.call.func)  # type: ignore[union-attr]
    elif plan.mode == "loc":
        callee = ctx.segment(site.init.value.func)  # type: ignore[union-attr]
    else:
        module, alias = _MODULES.get(growth.lib, _MODULES["pandas"])
        library, import_edits = ctx.ensure_import(module, alias)
        callee = f"{library}.concat"
    keywords = "".join(f", {ctx.segment(k)}" for k in plan.keywords)

    if plan.mode == "parts":
        before = f"{collected} = [{name}]"
        order = "[::-1]" if plan.prepend else ""
        after = f"{name} = {callee}({collected}{order}{keywords})"
    elif plan.mode == "rows":
        before = f"{collected} = []"
        frame = callee[: -len("concat")] + "DataFrame"
        after = f"{name} = {callee}([{name}, {frame}({collected})]{keywords})"
    else:
        before = f"{collected} = []"
        after = f"{name} = {callee}({collected}, columns={name}.columns)"
    try:
        first = cst.parse_statement(before).with_changes(leading_lines=loop_cst.leading_lines)
        last = cst.parse_statement(after)
    except cst.ParserSyntaxError:
        return None
    new_loop = new_loop.with_changes(leading_lines=[])
    edit = ctx.replace_statements(loop, loop, [first, new_loop, last])
    applicability = plan.applicability if plan.mode == "parts" and growth.kind == "concat" else Applicability.UNSAFE
    message = ROW_MESSAGE if plan.mode in ("rows", "loc") else MESSAGE
    return Fix(applicability, message, (*import_edits, edit))


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _comments(node: cst.CSTNode) -> list[cst.Comment]:
    visitor = _Comments()
    node.visit(visitor)
    return visitor.found


class _ReplaceGrowth(cst.CSTTransformer):
    """Swap the (only) growth statement in the loop for `<collected>.append(piece)`."""

    def __init__(self, plan: _Plan, kind: str, collected: str) -> None:
        self.plan = plan
        self.kind = kind
        self.collected = collected
        self.replaced = 0
        self.failed = False
        self._carry: list[cst.Comment] = []

    def _is_growth(self, node: cst.Assign) -> bool:
        if len(node.targets) != 1:
            return False
        target = node.targets[0].target
        if self.kind == "loc":
            return (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute)
                    and isinstance(target.value.value, cst.Name) and target.value.value.value == self.plan.name
                    and target.value.attr.value == "loc")
        return isinstance(target, cst.Name) and target.value == self.plan.name

    def _pieces(self, node: cst.Assign) -> list[cst.BaseExpression] | None:
        if self.kind == "loc":
            return [node.value]
        call = node.value
        if not isinstance(call, cst.Call):
            return None
        first = call.args[0].value
        if self.kind == "append":
            return [first]
        if not isinstance(first, (cst.List, cst.Tuple)):
            return None
        values = [element.value for element in first.elements]
        return [v for v in values if not (isinstance(v, cst.Name) and v.value == self.plan.name)]

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if not self._is_growth(updated):
            return updated
        pieces = self._pieces(updated)
        if pieces is None or len(pieces) != len(self.plan.pieces):
            self.failed = True
            return updated
        self.replaced += 1
        kept = {id(c) for piece in pieces for c in _comments(piece)}
        self._carry.extend(c for c in _comments(updated) if id(c) not in kept)
        collected = cst.Name(self.collected)
        if len(pieces) == 1:
            call = cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("append")),
                            args=[cst.Arg(pieces[0])])
        else:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            elements = [cst.Element(p, comma=comma if i < len(pieces) - 1 else cst.MaybeSentinel.DEFAULT)
                        for i, p in enumerate(pieces)]
            call = cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("extend")),
                            args=[cst.Arg(cst.List(elements))])
        return cst.Expr(call)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        if not self._carry:
            return updated
        carried = [cst.EmptyLine(comment=c) for c in self._carry]
        self._carry = []
        return updated.with_changes(leading_lines=[*updated.leading_lines, *carried])

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite,
                                   updated: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        if self._carry:  # no line of its own to carry comments to
            self.failed = True
        return updated


"""Regenerate gpulint's nx-cugraph readiness table from a checkout of nx-cugraph.

    python -m benchmarks.readiness_tables_nx --nx-cugraph NX_CUGRAPH [--ref v26.04.00]
                                             [--output linter/readiness_data] [--docs docs/readiness.md]

NX_CUGRAPH is a git checkout or a bare git directory of https://github.com/rapidsai/nx-cugraph
(`--ref` picks the commit of a bare one; default its HEAD). `nx_cugraph.json` is written,
headed by its provenance (version, commit, commit date, this command):

- `functions`: every NetworkX function nx-cugraph implements (each function its package
  decorates with `networkx_algorithm`, by the dispatch name NetworkX knows it by), with its
  file and line, its parameters, and the conditions under which NetworkX does not run it on
  the GPU: the tests of its `_can_run` function (false: NetworkX runs its own code), of its
  `_should_run` function (false: NetworkX does not convert a NetworkX graph for it), the
  `if`-tests that lead to `raise NotImplementedError` in its body (NetworkX then runs its own
  code), the `create_using` check `create_using_arg=` turns on, and `fallback=True` (any error
  but NetworkX's own becomes a fallback). Each condition is written back as source, with the
  parameters it tests and, where it compares them with literals, a predicate.
- `networkx`: the import paths of every function NetworkX dispatches to backends (read from the
  NetworkX installed here, recorded in the provenance), with the dispatch name of each:
  `networkx.bipartite.betweenness_centrality` is `bipartite_betweenness_centrality`.

Everything of nx-cugraph is read statically with `ast`; module-level tests of the NetworkX
version (`if _nxver < (3, 4):`) are decided for the NetworkX installed here.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.readiness_tables import (
    Checkout,
    SourceError,
    Subjects,
    _negate,
    _parameters,
    guarded_raises,
    open_checkout,
    predicate,
)
from benchmarks.readiness_tables import provenance as _provenance

PACKAGE = "nx_cugraph"
TABLE = "nx_cugraph.json"
DECORATOR = "networkx_algorithm"
DECORATORS_FILE = f"{PACKAGE}/utils/decorators.py"
COMMAND = (
    "python -m benchmarks.readiness_tables_nx --nx-cugraph NX_CUGRAPH_CHECKOUT --ref v26.04.00 --docs docs/readiness.md"
)
#: The graph classes `create_using=` may name (as gpulint writes a reference to one).
GRAPH_CLASSES = ["networkx.DiGraph", "networkx.Graph", "networkx.MultiDiGraph", "networkx.MultiGraph"]


# -- reading nx-cugraph ----------------------------------------------------------------------------


def _decorator_call(node: ast.expr, decorators: dict[str, ast.Call]) -> ast.Call | None:
    """The `networkx_algorithm(...)` call `node` is, or names (`_louvain_decorator`)."""
    if isinstance(node, ast.Name) and node.id == DECORATOR:
        return ast.Call(node, [], [])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == DECORATOR:
        return node
    if isinstance(node, ast.Name) and node.id in decorators:
        return decorators[node.id]
    return None


def _version_test(test: ast.expr, networkx: tuple[int, ...]) -> bool | None:
    """A module-level `_nxver <op> (3, 4)` decided for `networkx`; None for any other test."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id == "_nxver"
    ):
        return None
    try:
        bound = tuple(ast.literal_eval(test.comparators[0]))
    except (ValueError, TypeError, SyntaxError):
        return None
    compare = {ast.Lt: tuple.__lt__, ast.LtE: tuple.__le__, ast.Gt: tuple.__gt__, ast.GtE: tuple.__ge__}
    op = compare.get(type(test.ops[0]))
    return None if op is None else bool(op(networkx, bound))


def _statements(body: list[ast.stmt], networkx: tuple[int, ...]) -> Iterator[ast.stmt]:
    """A module's statements in order, with version tests decided (both branches of another
    test, in order: a later definition replaces an earlier one)."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            decided = _version_test(stmt.test, networkx)
            if decided is None:
                yield from _statements(stmt.body, networkx)
                yield from _statements(stmt.orelse, networkx)
            else:
                yield from _statements(stmt.body if decided else stmt.orelse, networkx)
        else:
            yield stmt


def _keyword(call: ast.Call, name: str) -> Any:
    for keyword in call.keywords:
        if keyword.arg == name:
            try:
                return ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError):
                return ast.unparse(keyword.value)
    return None


def _applied(value: ast.expr, decorators: dict[str, ast.Call]) -> tuple[ast.Call, str] | None:
    """`name = wrap(_decorator(function))`: the decorator and the function's name."""
    for node in ast.walk(value):
        if (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
            and (found := _decorator_call(node.func, decorators)) is not None
        ):
            return found, node.args[0].id
    return None


def _alternatives(test: ast.expr) -> list[list[ast.expr]]:
    """`test` as alternatives of conjunctions (a disjunctive form), negations pushed inwards."""
    if isinstance(test, ast.BoolOp):
        parts = [_alternatives(v) for v in test.values]
        if isinstance(test.op, ast.Or):
            return [conjunction for part in parts for conjunction in part]
        combined: list[list[ast.expr]] = [[]]
        for part in parts:
            combined = [[*left, *right] for left in combined for right in part]
        return combined
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.BoolOp):
            flipped = ast.Or() if isinstance(inner.op, ast.And) else ast.And()
            return _alternatives(ast.BoolOp(flipped, [ast.UnaryOp(ast.Not(), v) for v in inner.values]))
        if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not):
            return _alternatives(inner.operand)
        return [[_negate(inner)]]
    return [[test]]


def _refusals(function: ast.FunctionDef) -> Iterator[tuple[ast.expr, int]]:
    """The tests under which a `_can_run`/`_should_run` function says no (returns False or a
    reason), each with the line of the `return` that says so. An earlier `if` that says yes
    makes the later ones conditional on its test failing; one that says no does not (either
    way the call is refused)."""
    passed: list[ast.expr] = []  # the negated tests of earlier ifs that said yes

    def joined(parts: list[ast.expr]) -> ast.expr:
        if not parts:
            return ast.Constant(True)
        return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And(), parts)

    def says_yes(value: ast.expr | None) -> bool:
        return isinstance(value, ast.Constant) and value.value is True

    def says_no(value: ast.expr | None) -> bool:
        return (
            value is None
            or isinstance(value, ast.JoinedStr)
            or isinstance(value, ast.Constant)
            and (value.value is False or isinstance(value.value, str))
        )

    def checks_create_using(value: ast.expr | None) -> bool:
        # `return f._check_create_using_can_run(...)`: the check `create_using_arg=` turns on
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "_check_create_using_can_run"
        )

    for stmt in function.body:
        if isinstance(stmt, ast.If) and stmt.body and isinstance(last := stmt.body[-1], ast.Return):
            if says_yes(last.value):
                passed.append(_negate(stmt.test))
                continue
            parts = [*passed, stmt.test]
            if not says_no(last.value) and last.value is not None:
                parts.append(ast.UnaryOp(ast.Not(), last.value))
            yield joined(parts), last.lineno
        elif isinstance(stmt, ast.Return):
            if says_yes(stmt.value) or checks_create_using(stmt.value):
                return
            if says_no(stmt.value):
                yield joined(passed), stmt.lineno
            else:
                assert stmt.value is not None
                yield joined([*passed, ast.UnaryOp(ast.Not(), stmt.value)]), stmt.lineno
            return


def _rebound(function: ast.FunctionDef, guards: list[ast.expr]) -> frozenset[str]:
    """The names a guard tests that the function body binds before that guard: they no longer
    hold the value the call passed."""
    found: set[str] = set()
    for guard in guards:
        used = {n.id for n in ast.walk(guard) if isinstance(n, ast.Name)}
        found |= used & _assigned_before(function, getattr(guard, "lineno", function.end_lineno or 0))
    return frozenset(found)


def _assigned_before(function: ast.FunctionDef, line: int) -> set[str]:
    """Names the function body binds on a line before `line`."""
    found = set()
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = [node.target]
        if getattr(node, "lineno", line) < line:
            for target in targets:
                found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return found


def _conditions(
    test: ast.expr,
    params: list[str],
    kind: str,
    path: str,
    line: int,
    version: Version,
    rebound: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """One condition per alternative of `test`: its parts that compare parameters with
    literals make its predicate; any other part tests the graph or data (`data`)."""
    if isinstance(test, ast.Constant) and test.value is True:
        return [_entry("always", [], None, False, kind, path, line)]
    subjects = Subjects(names={p: "argument" for p in params if p not in rebound and p != "G"})
    found = []
    for alternative in _alternatives(test):
        decidable = [version.decide(part) for part in alternative]
        if False in decidable:
            continue  # impossible with the NetworkX version the table is for
        conjunction = [part for part, known in zip(alternative, decidable, strict=True) if known is None]
        if not conjunction:
            found.append(_entry("always", [], None, False, kind, path, line))
            continue
        decided: list[dict[str, Any]] = []
        data = False
        for part in conjunction:
            leaf = predicate(part, subjects)
            if leaf is None:
                data = True
            else:
                decided.append(leaf)
        text = ast.unparse(conjunction[0] if len(conjunction) == 1 else ast.BoolOp(ast.And(), conjunction))
        tested = sorted(
            p for p in params if any(isinstance(n, ast.Name) and n.id == p for c in conjunction for n in ast.walk(c))
        )
        combined = None if not decided else decided[0] if len(decided) == 1 else {"all": decided}
        found.append(_entry(text, tested, combined, data, kind, path, line))
    return found


@dataclass(frozen=True)
class Version:
    """The NetworkX version the table is for, and a module's names bound to a test of it
    (`_IS_NX32_OR_LESS = _nxver <= (3, 2)`), decided."""

    networkx: tuple[int, ...]
    flags: dict[str, bool] = field(default_factory=dict)

    def decide(self, part: ast.expr) -> bool | None:
        """A test of the NetworkX version, decided; None for any other test."""
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
            inner = self.decide(part.operand)
            return None if inner is None else not inner
        if isinstance(part, ast.Name) and part.id in self.flags:
            return self.flags[part.id]
        return _version_test(part, self.networkx)


def _entry(
    text: str, params: list[str], found: dict[str, Any] | None, data: bool, kind: str, path: str, line: int
) -> dict[str, Any]:
    return {
        "condition": text,
        "params": params,
        "path": path,
        "line": line,
        "predicate": found,
        "data": data,
        "kind": kind,
    }


def _create_using_line(checkout: Checkout) -> int:
    text = checkout.read(DECORATORS_FILE) or ""
    for number, line in enumerate(text.splitlines(), 1):
        if "def _check_create_using_can_run" in line:
            return number
    raise SourceError(f"{DECORATORS_FILE}: no _check_create_using_can_run")


def _create_using(create_using_line: int) -> dict[str, Any]:
    """The check `create_using_arg=` turns on: `create_using` is None, an nx-cugraph graph, or
    one of NetworkX's four graph classes (an instance of a NetworkX graph is refused)."""
    leaves = [
        {"param": "create_using", "source": "argument", "op": "is not", "value": None},
        {"param": "create_using", "source": "argument", "op": "not in", "value": GRAPH_CLASSES},
    ]
    return _entry(
        "create_using is not None and not a graph class of NetworkX or nx-cugraph",
        ["create_using"],
        {"all": leaves},
        True,  # an nx-cugraph graph or class is accepted too: never decided against
        "can_run",
        DECORATORS_FILE,
        create_using_line,
    )


@dataclass
class Module:
    """What one module of nx-cugraph defines: its algorithms (Python name -> dispatch name,
    function, decorator) and its `_can_run`/`_should_run` functions."""

    version: Version
    made: dict[str, tuple[str, ast.FunctionDef, ast.Call]] = field(default_factory=dict)
    checks: list[tuple[str, str, ast.FunctionDef]] = field(default_factory=list)


def read_module(tree: ast.Module, networkx: tuple[int, ...]) -> Module:
    module = Module(Version(networkx))
    decorators: dict[str, ast.Call] = {}
    functions: dict[str, ast.FunctionDef] = {}
    for stmt in _statements(tree.body, networkx):
        if isinstance(stmt, ast.FunctionDef):
            functions[stmt.name] = stmt
            for decorator in stmt.decorator_list:
                if (call := _decorator_call(decorator, decorators)) is not None:
                    module.made[stmt.name] = (_keyword(call, "name") or stmt.name, stmt, call)
                elif (
                    isinstance(decorator, ast.Attribute)
                    and decorator.attr in ("_can_run", "_should_run")
                    and isinstance(decorator.value, ast.Name)
                ):
                    module.checks.append((decorator.value.id, decorator.attr, stmt))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if (decided := _version_test(stmt.value, networkx)) is not None:
                module.version.flags[target] = decided
            elif (call := _decorator_call(stmt.value, {})) is not None and isinstance(stmt.value, ast.Call):
                decorators[target] = call
            elif (applied := _applied(stmt.value, decorators)) is not None and applied[1] in functions:
                call, function_name = applied
                module.made[target] = (_keyword(call, "name") or target, functions[function_name], call)
    return module


def _record(module: Module, python_name: str, relative: str, create_using_line: int) -> tuple[str, dict[str, Any]]:
    """One algorithm's entry: where it is, its parameters, and its conditions (the first of
    those with the same test is kept)."""
    name, function, call = module.made[python_name]
    params = _parameters(function)
    names = [p["name"] for p in params]
    conditions: list[dict[str, Any]] = []
    for target, attr, check in module.checks:
        if target == python_name:
            for test, line in _refusals(check):
                conditions += _conditions(test, names, attr.lstrip("_"), relative, line, module.version)
    if _keyword(call, "create_using_arg") is not None:
        conditions.append(_create_using(create_using_line))
    for raised, guards in guarded_raises(function.body, "NotImplementedError"):
        if not guards:
            conditions.append(_entry("always", [], None, False, "not_implemented", relative, raised.lineno))
            continue
        test = guards[0] if len(guards) == 1 else ast.BoolOp(ast.And(), guards)
        rebound = _rebound(function, guards)
        conditions += _conditions(test, names, "not_implemented", relative, raised.lineno, module.version, rebound)
    if _keyword(call, "fallback") is True:
        line = function.decorator_list[0].lineno if function.decorator_list else function.lineno
        conditions.append(_entry("an error other than NetworkX's own", [], None, True, "errors", relative, line))
    seen: set[tuple[str, bool]] = set()
    unique = []
    for condition in conditions:
        key = (condition["condition"], condition["kind"] == "should_run")
        if key not in seen:
            seen.add(key)
            unique.append(condition)
    docstring = ast.get_docstring(function)
    return name, {
        "path": relative,
        "line": function.lineno,
        "function": function.name,
        "params": params,
        "version_added": _keyword(call, "version_added"),
        "is_incomplete": bool(_keyword(call, "is_incomplete")),
        "is_different": bool(_keyword(call, "is_different")),
        "notes": " ".join(docstring.split()) if docstring else None,
        "conditions": unique,
    }


def algorithms(checkout: Checkout, networkx: tuple[int, ...]) -> dict[str, dict[str, Any]]:
    """Every function nx-cugraph implements, by its dispatch name."""
    create_using_line = _create_using_line(checkout)
    found: dict[str, dict[str, Any]] = {}
    for file in sorted(checkout.path(PACKAGE).rglob("*.py")):
        relative = file.relative_to(checkout.root).as_posix()
        if "/tests/" in relative or "/scripts/" in relative:
            continue
        module = read_module(ast.parse(file.read_text(encoding="utf-8")), networkx)
        for python_name in module.made:
            name, entry = _record(module, python_name, relative, create_using_line)
            found[name] = entry
    return dict(sorted(found.items()))


# -- reading NetworkX ----------------------------------------------------------------------------


def networkx_paths() -> tuple[str, dict[str, str]]:
    """The installed NetworkX's version, and the import path of every function it dispatches
    to backends (through any module it is reachable by as an attribute) with its dispatch
    name. The linter itself never imports NetworkX."""
    import networkx
    from networkx.utils.backends import _registered_algorithms

    dispatched = {id(f): name for name, f in _registered_algorithms.items()}

    def name_of(value: Any) -> str | None:
        for _ in range(8):  # through decorators applied over the dispatcher
            if id(value) in dispatched:
                return dispatched[id(value)]
            value = getattr(value, "__wrapped__", None)
            if value is None:
                return None
        return None

    paths: dict[str, str] = {}
    visited: set[str] = set()
    queue: list[tuple[str, types.ModuleType]] = [("networkx", networkx)]
    while queue:
        prefix, module = queue.pop(0)
        for attribute, value in sorted(vars(module).items()):
            if attribute.startswith("_"):
                continue
            path = f"{prefix}.{attribute}"
            if isinstance(value, types.ModuleType):
                real = value.__name__
                if (
                    real.startswith("networkx.")
                    and ".tests" not in real
                    and path not in visited
                    and path.count(".") < 6
                ):
                    visited.add(path)
                    queue.append((path, value))
            elif isinstance(value, types.FunctionType) and (name := name_of(value)) is not None:
                paths[path] = name
    return networkx.__version__, dict(sorted(paths.items()))


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def nx_cugraph_table(checkout: Checkout, ref: str) -> dict[str, Any]:
    version, paths = networkx_paths()
    table_provenance = {
        **_provenance(checkout, "_nx_cugraph"),
        "ref": ref,
        "command": COMMAND,
        "networkx_from": version,
    }
    return {
        "provenance": table_provenance,
        "functions": algorithms(checkout, _version_tuple(version)),
        "networkx": {"version": version, "paths": paths},
    }


def write_table(location: str, ref: str, output: Path) -> Path:
    checkout = open_checkout(location, "nx-cugraph", [PACKAGE, "_nx_cugraph", "VERSION"], ref)
    table = nx_cugraph_table(checkout, ref)
    output.mkdir(parents=True, exist_ok=True)
    path = output / TABLE
    path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.readiness_tables_nx", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--nx-cugraph", required=True, help="a checkout or bare git directory of rapidsai/nx-cugraph")
    parser.add_argument(
        "--ref", default="HEAD", help="the commit or tag of a bare git directory to read (default HEAD)"
    )
    parser.add_argument("--output", type=Path, default=Path("linter/readiness_data"), help="folder for the table")
    parser.add_argument(
        "--docs", type=Path, default=None, help="also rewrite the provenance block of this page (docs/readiness.md)"
    )
    args = parser.parse_args(argv)
    try:
        path = write_table(args.nx_cugraph, args.ref, args.output)
        if args.docs is not None:
            from benchmarks.readiness_tables import update_docs

            update_docs(args.docs, args.output)
    except (SourceError, OSError) as error:
        print(f"readiness_tables_nx: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate gpulint's GPU-readiness tables from checkouts of cuDF and cuML.

    python -m benchmarks.readiness_tables --cudf CUDF --cuml CUML [--output linter/readiness_data]
                                          [--docs docs/readiness.md]

CUDF and CUML are each a git checkout or a bare git directory (its HEAD is read) of
https://github.com/rapidsai/cudf and https://github.com/rapidsai/cuml. Two JSON tables are
written, each headed by its provenance (version, commit, commit date, this command):

- `cudf_pandas.json`: for each pandas class cudf.pandas proxies, the public members the
  matching cuDF class defines (itself or a base class in the cuDF package), and per method
  the parameters it accepts and the conditions under which it raises `NotImplementedError`
  (cudf.pandas then runs the call with pandas), written back as source with the parameters
  they test; then the module-level functions `cudf` exports.
- `cuml_accel.json`: for each estimator `cuml.accel` accelerates (its `_overrides` package),
  keyed by the CPU class's import path: the cuML class, the methods that class defines, whether
  sparse input stays on the GPU, and every condition under which the accelerator raises
  `UnsupportedOnGPU` (and so runs the CPU estimator): on hyperparameters (the cuML class's
  `_params_from_cpu`), on inputs and method arguments (the proxy's `_gpu_*` methods), each
  with its file and line; and where the compatibility page documents the estimator.

Everything is read statically: Python files with `ast`; Cython (`.pyx`) files by their class
and method blocks, whose method bodies are plain Python and are parsed with `ast` too. A
condition that compares parameters with literals is also written as a predicate the loader
(`gpulint.readiness_tables`) can evaluate on a call's literal keyword arguments.
"""

from __future__ import annotations

import argparse
import copy
import ast
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Where the package sources sit in each repository.
CUDF_PACKAGE, CUML_PACKAGE = "python/cudf/cudf", "python/cuml/cuml"
CUML_DOCS = "docs/source/cuml-accel"
COMMAND = "python -m benchmarks.readiness_tables --cudf CUDF_CHECKOUT --cuml CUML_CHECKOUT --docs docs/readiness.md"

#: pandas class name -> the cuDF class cudf.pandas runs it with (found by name in the package).
CUDF_CLASSES = {
    "DataFrame": "DataFrame",
    "Series": "Series",
    "Index": "Index",
    "RangeIndex": "RangeIndex",
    "DatetimeIndex": "DatetimeIndex",
    "MultiIndex": "MultiIndex",
    "DataFrameGroupBy": "DataFrameGroupBy",
    "SeriesGroupBy": "SeriesGroupBy",
    "StringMethods": "StringMethods",
    "DatetimeProperties": "DatetimeProperties",
    "Rolling": "Rolling",
    "Resampler": "DataFrameResampler",
}

#: cuDF's operation mixins turn the names in these class-level sets into methods.
OPERATION_SETS = ("_VALID_REDUCTIONS", "_VALID_SCANS", "_VALID_BINARY_OPERATIONS")

#: Methods of a cuML class whose `UnsupportedOnGPU` concerns converting fitted state, not a call.
#: The cuML class an array-API proxy (a `_cpu_class_path` and no `_gpu_class`) runs with.
ARRAY_API_WRAPPER = "cuml.accel.estimator_proxy._ArrayAPIWrapper"

CONVERSION_METHODS = {
    "_attrs_from_cpu",
    "_attrs_to_cpu",
    "_params_to_cpu",
    "_sync_attrs_from_cpu",
    "_sync_attrs_to_cpu",
    "from_sklearn",
    "as_sklearn",
}


class SourceError(Exception):
    """A checkout that cannot be read as the tables need it."""


# -- reading a checkout ------------------------------------------------------------------------


@dataclass
class Checkout:
    """The files of one repository at one commit, in a folder on disk."""

    root: Path
    library: str
    commit: str | None
    commit_date: str | None
    keep: Any = None  # the temporary folder a bare repository was exported into

    def path(self, relative: str) -> Path:
        return self.root / relative

    def read(self, relative: str) -> str | None:
        try:
            return self.path(relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def version(self, package: str) -> str | None:
        for candidate in ("VERSION", f"{package}/VERSION"):
            text = self.read(candidate)
            if text and text.strip():
                return text.strip()
        return None


def _git(args: list[str], *, binary: bool = False) -> Any:
    result = subprocess.run(["git", *args], capture_output=True, text=not binary, timeout=600, check=False)
    if result.returncode != 0:
        raise SourceError(f"git {' '.join(args)} failed: {(result.stderr or b'')!s:.300}")
    return result.stdout


def open_checkout(location: str, library: str, prefixes: list[str], ref: str = "HEAD") -> Checkout:
    """A working tree as it is, or a bare git directory's `ref` (default HEAD) exported into a
    temporary folder (only `prefixes`, the folders the tables are read from)."""
    root = Path(location)
    if not root.is_dir():
        raise SourceError(f"{location}: not a folder")
    bare = (root / "HEAD").is_file() and (root / "objects").is_dir()
    git_args = ["--git-dir", str(root)] if bare else ["-C", str(root)]
    commit = date = None
    if bare or (root / ".git").exists():
        commit = _git([*git_args, "rev-parse", f"{ref if bare else 'HEAD'}^{{commit}}"]).strip()
        date = _git([*git_args, "log", "-1", "--format=%cI", commit]).strip()
    if not bare:
        return Checkout(root, library, commit, date)
    revision = commit or ref
    listed = _git([*git_args, "ls-tree", "--name-only", revision, "--", *prefixes]).split()
    archive = _git([*git_args, "archive", "--format=tar", revision, "--", *listed], binary=True)
    folder = tempfile.TemporaryDirectory(prefix=f"readiness-{library}-")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        # the "data" filter (no links out of the folder) where this Python has it
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder.name, filter="data")
        else:
            tar.extractall(folder.name)
    return Checkout(Path(folder.name), library, commit, date, keep=folder)


def provenance(checkout: Checkout, package: str) -> dict[str, Any]:
    return {
        "library": checkout.library,
        "source": f"https://github.com/rapidsai/{checkout.library}",
        "version": checkout.version(package),
        "commit": checkout.commit,
        "commit_date": checkout.commit_date,
        "command": COMMAND,
    }


# -- conditions as source and as predicates ----------------------------------------------------

_TYPE_NAMES = {"int", "float", "str", "bool", "dict", "list", "tuple", "set", "bytes", "type(None)"}
_COMPARISONS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


@dataclass
class Subjects:
    """How a condition names what a call sets: a method's parameters by name (cuDF), or the
    estimator's hyperparameters as `model.name`/`self.name`/`getattr(model, "name", ...)`."""

    names: dict[str, str] = field(default_factory=dict)  # local name -> (source, param)
    owners: frozenset[str] = frozenset()  # variables whose attributes are hyperparameters
    aliases: dict[str, ast.expr] = field(default_factory=dict)  # local = model.attr, assigned once
    constants: dict[str, Any] = field(default_factory=dict)  # module-level literals

    def subject(self, node: ast.expr) -> tuple[str, str] | None:
        """(where the value comes from, its name): ("argument", "axis"), ("hyperparameter", "criterion")."""
        if isinstance(node, ast.NamedExpr):
            return self.subject(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.subject(self.aliases[node.id])
            if node.id in self.names:
                return self.names[node.id], node.id
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.owners:
            return "hyperparameter", node.attr
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in self.owners
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            return "hyperparameter", node.args[1].value
        return None

    def literal(self, node: ast.expr) -> tuple[bool, Any]:
        if isinstance(node, ast.Name) and node.id in self.constants:
            return True, self.constants[node.id]
        try:
            return True, _jsonable(ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False, None

    def mentioned(self, node: ast.AST) -> list[str]:
        found = []
        for sub in ast.walk(node):
            if isinstance(sub, ast.expr) and (named := self.subject(sub)) is not None and named[1] not in found:
                found.append(named[1])
        return found


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return [_jsonable(k) for k in value]  # a mapping is tested by its keys
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(type(value).__name__)


def predicate(node: ast.expr, subjects: Subjects) -> dict[str, Any] | None:
    """`node` as a predicate over literal parameter values, or None where it tests anything else.

    Leaves: {"param", "source", "op", "value"}; ops are the comparisons, "truthy", "callable"
    and "isinstance" (value: type names); {"all": [...]}, {"any": [...]}, {"not": ...} combine.
    """
    if isinstance(node, ast.BoolOp):
        parts = [predicate(v, subjects) for v in node.values]
        if any(p is None for p in parts):
            return None
        return {"all" if isinstance(node.op, ast.And) else "any": parts}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = predicate(node.operand, subjects)
        return None if inner is None else {"not": inner}
    if (named := subjects.subject(node)) is not None:
        return _leaf(named, "truthy", None)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id == "callable" and len(node.args) == 1 and (named := subjects.subject(node.args[0])):
            return _leaf(named, "callable", None)
        if node.func.id == "isinstance" and len(node.args) == 2 and (named := subjects.subject(node.args[0])):
            types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            names = [ast.unparse(t) for t in types]
            if all(name in _TYPE_NAMES for name in names):
                return _leaf(named, "isinstance", names)
        return None
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            parts = [
                ast.Compare(left, [op], [right])
                for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators, strict=False)
            ]
            return predicate(ast.BoolOp(ast.And(), parts), subjects)
        op, left, right = _COMPARISONS.get(type(node.ops[0])), node.left, node.comparators[0]
        if op is None:
            return None
        # `TABLE.get(param) is None`: the value is not a key of a module-level table
        if (
            op in ("is", "is not")
            and isinstance(right, ast.Constant)
            and right.value is None
            and isinstance(inner := (left.value if isinstance(left, ast.NamedExpr) else left), ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr == "get"
            and len(inner.args) == 1
            and (named := subjects.subject(inner.args[0]))
        ):
            known, keys = subjects.literal(inner.func.value)
            if known and isinstance(keys, list):
                return _leaf(named, "not in" if op == "is" else "in", keys)
            return None
        if (named := subjects.subject(left)) is not None:
            known, value = subjects.literal(right)
            return _leaf(named, op, value) if known else None
        if (named := subjects.subject(right)) is not None and op in _FLIPPED:
            known, value = subjects.literal(left)
            return _leaf(named, _FLIPPED[op], value) if known else None
    return None


def _leaf(named: tuple[str, str], op: str, value: Any) -> dict[str, Any]:
    leaf = {"param": named[1], "source": named[0], "op": op}
    if value is not None or op in ("==", "!=", "is", "is not"):
        leaf["value"] = value
    return leaf


def _raises(node: ast.Raise, exception: str) -> bool:
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return (isinstance(raised, ast.Name) and raised.id == exception) or (
        isinstance(raised, ast.Attribute) and raised.attr == exception
    )


def guarded_raises(body: list[ast.stmt], exception: str) -> Iterator[tuple[ast.Raise, list[ast.expr]]]:
    """Every `raise exception(...)` in `body` with the if-tests that lead to it (an `else`
    branch contributes `not test`, an `except E` handler `raised(E)`); nested functions and
    classes are not entered."""

    def walk(statements: list[ast.stmt], guards: list[ast.expr]) -> Iterator[tuple[ast.Raise, list[ast.expr]]]:
        for stmt in statements:
            if isinstance(stmt, ast.Raise) and stmt.exc is not None and _raises(stmt, exception):
                yield stmt, guards
            elif isinstance(stmt, ast.If):
                negated = _negate(stmt.test)
                yield from walk(stmt.body, [*guards, stmt.test])
                yield from walk(stmt.orelse, [*guards, negated])
                # what follows an `if` whose branch always leaves runs only when that branch did not
                if _leaves(stmt.body):
                    guards = [*guards, negated]
                elif stmt.orelse and _leaves(stmt.orelse):
                    guards = [*guards, stmt.test]
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
                yield from walk(stmt.body, guards)
            elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                yield from walk(stmt.body + stmt.orelse + stmt.finalbody, guards)
                for handler in stmt.handlers:
                    # written `raised(ValueError)`: the guarded code raised that error
                    caught = ast.Call(ast.Name("raised"), [handler.type or ast.Name("Exception")], [])
                    yield from walk(handler.body, [*guards, caught])
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    yield from walk(case.body, guards)

    yield from walk(body, [])


_INVERSE = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def _negate(test: ast.expr) -> ast.expr:
    """`not test`, written as the source would: `a != b` for `not a == b`, `x` for `not not x`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _INVERSE:
        return ast.Compare(test.left, [_INVERSE[type(test.ops[0])]()], test.comparators)
    return ast.UnaryOp(ast.Not(), test)


def _leaves(body: list[ast.stmt]) -> bool:
    """The block always returns at its end (a block that raises is itself an error or a fallback:
    what follows it is not made conditional on it)."""
    return bool(body) and isinstance(body[-1], ast.Return)


def condition(guards: list[ast.expr]) -> ast.expr:
    return guards[0] if len(guards) == 1 else ast.BoolOp(ast.And(), guards)


def _single_assignments(function: ast.FunctionDef, subjects: Subjects) -> dict[str, ast.expr]:
    """Local names bound exactly once in `function`, to a hyperparameter (`x = model.x`)."""
    counts: dict[str, int] = {}
    bound: dict[str, ast.expr] = {}
    for node in ast.walk(function):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For)) else [])
        )
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    counts[name.id] = counts.get(name.id, 0) + 1
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and subjects.subject(node.value) is not None
        ):
            bound[node.targets[0].id] = node.value
    return {name: value for name, value in bound.items() if counts.get(name) == 1}


# -- cuDF: classes and functions of a Python package ---------------------------------------------


class PythonPackage:
    """A package's modules parsed with `ast`, with imports followed to definitions."""

    def __init__(self, checkout: Checkout, folder: str, name: str):
        self.checkout, self.folder, self.name = checkout, folder, name
        self._trees: dict[str, ast.Module | None] = {}

    def file_of(self, module: str) -> str | None:
        if module != self.name and not module.startswith(self.name + "."):
            return None
        relative = module[len(self.name) :].lstrip(".").replace(".", "/")
        base = f"{self.folder}/{relative}".rstrip("/")
        for candidate in (f"{base}.py", f"{base}/__init__.py", f"{base}.pyx"):
            if self.checkout.path(candidate).is_file():
                return candidate
        return None

    def tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            path = self.file_of(module)
            text = self.checkout.read(path) if path and path.endswith(".py") else None
            try:
                self._trees[module] = ast.parse(text) if text is not None else None
            except SyntaxError:
                self._trees[module] = None
        return self._trees[module]

    def modules(self) -> Iterator[str]:
        root = self.checkout.path(self.folder)
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join([self.name, *parts])

    def resolve(self, module: str, name: str, depth: int = 0) -> tuple[str, ast.AST] | None:
        """The definition `name` refers to in `module`, following `from ... import` chains."""
        tree = self.tree(module)
        if tree is None or depth > 12:
            return None
        for node in tree.body:
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name == name
                and not _is_overload(node)
            ):
                return module, node
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        source = self._absolute(module, node)
                        if source is not None:
                            found = self.resolve(source, alias.name, depth + 1)
                            if found is None and self.file_of(f"{source}.{alias.name}"):
                                return None  # a submodule, not a definition
                            return found
        return None

    def _absolute(self, module: str, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module
        package = module if self.file_of(module).endswith("__init__.py") else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        return f"{package}.{node.module}" if node.module else package

    def module_named(self, module: str, name: str) -> str | None:
        """The package module that `name` is bound to in `module` by an import, if any."""
        tree = self.tree(module)
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    source = self._absolute(module, node)
                    if (alias.asname or alias.name) == name and source and self.file_of(f"{source}.{alias.name}"):
                        return f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname == name and self.file_of(alias.name):
                        return alias.name
        return None

    def find_class(self, name: str) -> tuple[str, ast.ClassDef] | None:
        found = []
        for module in self.modules():
            tree = self.tree(module)
            for node in tree.body if tree else []:
                if isinstance(node, ast.ClassDef) and node.name == name:
                    found.append((module, node))
        if not found:
            return None
        # several classes of one name: the one under `core` (what the package exports)
        found.sort(key=lambda item: (".core." not in item[0], item[0]))
        return found[0]

    def mro(self, module: str, cls: ast.ClassDef) -> list[tuple[str, ast.ClassDef]]:
        """`cls` and its base classes defined in this package, in Python's method resolution order
        (C3 over the bases this package defines; bases from other packages are left out)."""

        def linear(module: str, cls: ast.ClassDef, seen: frozenset) -> list[tuple[str, ast.ClassDef]]:
            key = (module, cls.name)
            if key in seen:
                return []
            bases = []
            for base in cls.bases:
                name = ast.unparse(base).split("[", 1)[0].rsplit(".", 1)[-1]
                found = self.resolve(module, name)
                if found is not None and isinstance(found[1], ast.ClassDef):
                    bases.append(linear(found[0], found[1], seen | {key}))
            return [(module, cls), *_merge([*bases, [b[0] for b in bases if b]])]

        return linear(module, cls, frozenset())

    def path_of(self, module: str) -> str:
        return self.file_of(module) or module


def _is_overload(node: ast.AST) -> bool:
    """A `typing.overload` signature, not the definition that runs."""
    return any(ast.unparse(d).rsplit(".", 1)[-1] == "overload" for d in getattr(node, "decorator_list", ()))


def _merge(sequences: list[list]) -> list:
    """C3 linearisation's merge (a base that cannot be placed is appended, never dropped)."""
    sequences = [list(s) for s in sequences if s]
    out: list = []
    while sequences:
        for seq in sequences:
            head = seq[0]
            if not any(head in s[1:] for s in sequences):
                break
        else:
            head = sequences[0][0]
        out.append(head)
        sequences = [[x for x in s if x != head] for s in sequences]
        sequences = [s for s in sequences if s]
    return out


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict[str, Any]]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = []
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=False)):
        if index == 0 and arg.arg in ("self", "cls"):
            continue
        kind = "positional_only" if arg in args.posonlyargs else "positional_or_keyword"
        out.append({"name": arg.arg, "kind": kind, "default": None if default is None else ast.unparse(default)})
    if args.vararg:
        out.append({"name": args.vararg.arg, "kind": "var_positional", "default": None})
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        out.append(
            {"name": arg.arg, "kind": "keyword_only", "default": None if default is None else ast.unparse(default)}
        )
    if args.kwarg:
        out.append({"name": args.kwarg.arg, "kind": "var_keyword", "default": None})
    return out


def _decorator_kind(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    names = {ast.unparse(d).split("(", 1)[0].rsplit(".", 1)[-1] for d in function.decorator_list}
    for decorator, kind in (
        ("property", "property"),
        ("cached_property", "property"),
        ("_external_only_api", "method"),
        ("classmethod", "classmethod"),
        ("staticmethod", "staticmethod"),
    ):
        if decorator in names and kind != "method":
            return kind
    if any(name.endswith(("setter", "deleter")) for name in names):
        return "property"
    return "method"


def _body_without_docstring(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = function.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return body


def _udf_names(tree: ast.Module) -> set[str]:
    """Names a cuDF module imports from its UDF (Numba JIT) package."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and ".udf" in f".{node.module}":
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _module_udf_names(package: PythonPackage, module: str) -> set[str]:
    tree = package.tree(module)
    return _udf_names(tree) if tree else set()


def _compiles_udf(function: ast.AST, udf_names: set[str]) -> bool:
    """The method hands a Python function to cuDF's JIT: it uses a name from the UDF package,
    calls `numba`, or calls one of its own helpers for that (`self._apply`, `self._jit_...`)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in udf_names:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "numba":
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and (node.func.attr == "_apply" or node.func.attr.startswith("_jit"))
        ):
            return True
    return False


def function_record(
    package: PythonPackage,
    module: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    owner: str | None,
    depth: int = 0,
) -> dict[str, Any]:
    """A method's or function's entry: its parameters; `not_implemented` (the exception it raises
    before doing anything, which cudf.pandas answers by running pandas) or its `fallbacks`, the
    conditions on which it raises `NotImplementedError`, each with the parameters it tests."""
    params = _parameters(function)
    subjects = Subjects(names={p["name"]: "argument" for p in params})
    body = _body_without_docstring(function)
    first = body[0] if body else None
    refuses = first if isinstance(first, ast.Raise) and first.exc is not None else None
    fallbacks = []
    forwarded: list[dict[str, Any]] = []
    paths: list[dict[str, Any]] = []
    if refuses is None:
        for raise_node, guards in _fallback_raises(body, params):
            test = condition(guards) if guards else None
            found = {
                "condition": None if test is None else ast.unparse(test),
                "params": subjects.mentioned(test) if test is not None else [],
                "path": package.path_of(module),
                "line": raise_node.lineno,
                "predicate": predicate(test, subjects) if test is not None else None,
            }
            if test is not None and not _raises(raise_node, "NotImplementedError"):
                raised = ast.unparse(raise_node.exc.func if isinstance(raise_node.exc, ast.Call) else raise_node.exc)
                found["condition"] = (
                    f"a keyword cuDF's signature does not name raises {raised} (`if {found['condition']}:`)"
                )
                found["described"] = True
            fallbacks.append(found)
    delegate = _delegation(package, module, function, params)
    if delegate is not None:
        target_module, target, mapping = delegate
        callee = function_record(package, target_module, target, None)
        fallbacks += [m for found in callee["fallbacks"] if (m := _mapped(found, mapping)) is not None]
        forwarded = _forwarded(mapping, callee["params"], params)
        if isinstance(target, ast.FunctionDef):
            callee_params = {p["name"] for p in callee["params"]}
            for path in cpu_paths(package, target_module, target, callee_params):
                if (m := _mapped(path, mapping)) is not None and m["predicate"] is not None:
                    paths.append(m)
    elif refuses is None and depth < 2:
        for target_module, target, mapping in _helper_calls(package, module, function, params):
            callee = function_record(package, target_module, target, None, depth + 1)
            via = f"{target_module}.{target.name}"
            fallbacks += [
                {**m, "via": m.get("via", via)}
                for found in callee["fallbacks"]
                if (m := _mapped(found, mapping)) is not None and m["predicate"] is not None
            ]
    raised = None
    if refuses is not None:
        raised = ast.unparse(refuses.exc.func if isinstance(refuses.exc, ast.Call) else refuses.exc)
    record = {
        "kind": _decorator_kind(function) if owner else "function",
        "defined_in": f"{module}.{owner}" if owner else module,
        "path": package.path_of(module),
        "line": function.lineno,
        "params": params,
        "not_implemented": None if refuses is None else {"raises": raised, "line": refuses.lineno},
        "delegates_to": None if delegate is None else f"{delegate[0]}.{delegate[1].name}",
        "fallbacks": fallbacks,
        "forwarded_params": forwarded,
        "compiles_udf": _compiles_udf(function, _module_udf_names(package, module)),
    }
    if paths:
        record["cpu_paths"] = paths
    return record


def _fallback_raises(body: list[ast.stmt], params: list[dict[str, Any]]) -> Iterator[tuple[ast.Raise, list[ast.expr]]]:
    """The raises cudf.pandas answers by running pandas: every `NotImplementedError`, and a
    `ValueError` or `TypeError` whose test is only on the keywords cuDF has no name for
    (`if kwargs: raise ValueError(...)` in `DataFrame.query`): a keyword pandas takes."""
    yield from guarded_raises(body, "NotImplementedError")
    var_keyword = {p["name"] for p in params if p["kind"] == "var_keyword"}
    for exception in ("ValueError", "TypeError"):
        for raise_node, guards in guarded_raises(body, exception):
            tested = {n.id for g in guards for n in ast.walk(g) if isinstance(n, ast.Name)}
            subjects = Subjects(names=dict.fromkeys(var_keyword, "argument"))
            if guards and tested and tested <= var_keyword and predicate(condition(guards), subjects) is not None:
                yield raise_node, guards


def _delegation(
    package: PythonPackage, module: str, function: ast.FunctionDef | ast.AsyncFunctionDef, params: list[dict[str, Any]]
) -> tuple[str, ast.FunctionDef, dict[str, str]] | None:
    """A method whose body only returns a call of a package function (`DataFrame.pivot_table`
    returns `reshape.pivot_table(self, ..., margins=margins)`): that function, and which of its
    parameters receive which of the method's (`{"margins": "margins"}`); imports before the
    `return` (`from cudf.io import csv`) are allowed."""
    body = [s for s in _body_without_docstring(function) if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    target = None
    if isinstance(call.func, ast.Name):
        target = package.resolve(module, call.func.id)
    elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        submodule = package.module_named(module, call.func.value.id)
        if submodule is not None:
            target = package.resolve(submodule, call.func.attr)
    elif isinstance(call.func, ast.Attribute) and (dotted := _dotted(call.func.value)) is not None:
        # `cudf.io.json.to_json(self, ...)`: a module of the package named in full
        if dotted.split(".", 1)[0] == package.name and package.file_of(dotted) is not None:
            target = package.resolve(dotted, call.func.attr)
    if target is None or not isinstance(target[1], (ast.FunctionDef, ast.AsyncFunctionDef)) or target[1] is function:
        return None
    return target[0], target[1], _call_mapping(call, _parameters(target[1]), params)


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` as written, or None where it is not a chain of names."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (inner := _dotted(node.value)) is not None:
        return f"{inner}.{node.attr}"
    return None


def _helper_calls(
    package: PythonPackage, module: str, function: ast.FunctionDef | ast.AsyncFunctionDef, params: list[dict[str, Any]]
) -> Iterator[tuple[str, ast.FunctionDef, dict[str, str]]]:
    """The package functions a function always calls: a call that is the value of one of its
    top-level statements with no `return` before it (`crosstab` ends `table = pivot_table(...,
    margins=margins)`), with the callee's parameters mapped to the caller's. The callee's
    conditions on what the caller passes on, where a call's literal arguments decide them, become
    the caller's (`via`)."""
    for stmt in _body_without_docstring(function):
        value = getattr(stmt, "value", None)
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)) and _returns(stmt):
            return
        if not isinstance(value, ast.Call):
            continue
        target = None
        if isinstance(value.func, ast.Name):
            target = package.resolve(module, value.func.id)
        elif isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name):
            # `csv.to_csv(self, ...)` after `from cudf.io import csv`
            submodule = package.module_named(module, value.func.value.id)
            target = None if submodule is None else package.resolve(submodule, value.func.attr)
        if target is not None and isinstance(target[1], ast.FunctionDef) and target[1] is not function:
            yield target[0], target[1], _call_mapping(value, _parameters(target[1]), params)


def _returns(node: ast.AST) -> bool:
    """`node` holds a `return` of its function (nested functions and classes are not entered)."""
    if isinstance(node, ast.Return):
        return True
    return any(
        _returns(child)
        for child in ast.iter_child_nodes(node)
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    )


#: In a mapping of parameters: the callee's `**kwargs`, which receives what the caller's
#: `**kwargs` holds less the callee's named parameters (no predicate can say that).
FORWARDED = "**"


def _call_mapping(call: ast.Call, callee_params: list[dict[str, Any]], params: list[dict[str, Any]]) -> dict[str, str]:
    """Which of the callee's parameters receive which of the caller's (`margins=margins`), the
    callee's named parameters a forwarded `**kwargs` can set mapped to themselves, and its own
    `**kwargs` to `FORWARDED`."""
    own = {p["name"] for p in params}
    mapping: dict[str, str] = {}
    # `_parameters` leaves out a method's `self`, which a `super()` call does not pass either
    positional = [p["name"] for p in callee_params if p["kind"] in ("positional_only", "positional_or_keyword")]
    # the callee's parameters the call fills by position (up to a `*args`, which may fill more)
    given = next((i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred)), len(call.args))
    filled = set(positional[:given])
    for name, arg in zip(positional, call.args, strict=False):
        if isinstance(arg, ast.Name) and arg.id in own:
            mapping[name] = arg.id
    var_keyword = next((p["name"] for p in params if p["kind"] == "var_keyword"), None)
    for keyword in call.keywords:
        if keyword.arg and isinstance(keyword.value, ast.Name) and keyword.value.id in own:
            mapping[keyword.arg] = keyword.value.id
        elif keyword.arg is None and isinstance(keyword.value, ast.Name) and keyword.value.id == var_keyword:
            for param in callee_params:
                if param["kind"] == "var_keyword":
                    mapping[param["name"]] = FORWARDED
                elif param["kind"] in ("positional_or_keyword", "keyword_only") and param["name"] not in own | filled:
                    mapping.setdefault(param["name"], param["name"])
    return mapping


def _forwarded(
    mapping: dict[str, str], callee_params: list[dict[str, Any]], params: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The callee's named parameters the caller has no name for and passes on through its
    `**kwargs`: a call that leaves one out gets the callee's default, which the loader then
    binds (`forwarded_params`)."""
    own = {p["name"] for p in params}
    return [
        p
        for p in callee_params
        if p["kind"] in ("positional_or_keyword", "keyword_only")
        and p["name"] not in own
        and mapping.get(p["name"]) == p["name"]
    ]


def _mapped(found: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any] | None:
    """A callee's condition in the caller's terms, or None where it tests what the caller fixes."""
    if not found["params"] or not all(name in mapping for name in found["params"]):
        return None
    if any(mapping[name] == FORWARDED for name in found["params"]):
        return {**found, "params": sorted({mapping[n] for n in found["params"]} - {FORWARDED}), "predicate": None}
    return {
        **found,
        "params": [mapping[n] for n in found["params"]],
        "predicate": _renamed(found["predicate"], mapping),
    }


def _renamed(found: dict[str, Any] | None, mapping: dict[str, str]) -> dict[str, Any] | None:
    if found is None:
        return None
    if "param" in found:
        return {**found, "param": mapping.get(found["param"], found["param"])}
    return {
        key: ([_renamed(p, mapping) for p in value] if isinstance(value, list) else _renamed(value, mapping))
        for key, value in found.items()
    }


def _self_calls(function: ast.AST) -> set[str]:
    """The methods `function` calls on `self`."""
    return {
        node.func.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    }


def class_table(package: PythonPackage, module: str, cls: ast.ClassDef) -> dict[str, Any]:
    """The public members of a cuDF class and of its bases in the package, by MRO; within one
    class a `def` wins over a name its operation sets or assignments bind."""
    members: dict[str, Any] = {}
    order = package.mro(module, cls)
    definitions: dict[str, list[tuple[str, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
    for owner_module, owner in order:
        for node in owner.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_overload(node):
                definitions.setdefault(node.name, []).append((owner_module, owner, node))
    for owner_module, owner in order:
        found: dict[str, Any] = {}
        for node in owner.body:
            # a property's setter repeats its name: the first definition describes it
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not node.name.startswith("_")
                and node.name not in found
                and not _is_overload(node)
            ):
                found[node.name] = _method_entry(package, owner_module, owner, node, definitions)
        for node in owner.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for name, entry in _assigned_entries(package, owner_module, owner, node):
                    found.setdefault(name, entry)
        for name, entry in found.items():
            members.setdefault(name, entry)
    return {
        "cudf_class": f"{module}.{cls.name}",
        "path": package.path_of(module),
        "line": cls.lineno,
        "bases": [f"{m}.{c.name}" for m, c in order[1:]],
        "members": dict(sorted(members.items())),
    }


def _method_entry(
    package: PythonPackage,
    module: str,
    owner: ast.ClassDef,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    definitions: dict[str, list[tuple[str, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]],
) -> dict[str, Any]:
    """A method's entry, with what it inherits: it compiles a UDF when it, or a method of the
    class chain it calls on `self` (one level), hands the function to the JIT; a `super()` call
    brings the next definition's conditions on the parameters it passes on."""

    def compiles(name: str) -> bool:
        if name not in definitions:
            return False
        callee_module, _, callee = definitions[name][0]
        return _compiles_udf(callee, _module_udf_names(package, callee_module))

    record = function_record(package, module, node, owner.name)
    record["compiles_udf"] = record["compiles_udf"] or any(compiles(c) for c in _self_calls(node))
    chain = definitions[node.name]
    later = chain[[entry[2] for entry in chain].index(node) + 1 :]
    calls = [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr == node.name
        and isinstance(c.func.value, ast.Call)
        and ast.unparse(c.func.value) == "super()"
    ]
    if later and calls:
        base_module, base_owner, base_node = later[0]
        base = function_record(package, base_module, base_node, base_owner.name)
        mapping = _call_mapping(calls[0], base["params"], record["params"])
        record["fallbacks"] += [m for found in base["fallbacks"] if (m := _mapped(found, mapping))]
        record["forwarded_params"] += _forwarded(mapping, base["params"], record["params"])
        record["compiles_udf"] = (
            record["compiles_udf"] or base["compiles_udf"] or any(compiles(c) for c in _self_calls(base_node))
        )
    return record


def _stub(kind: str, package: PythonPackage, module: str, owner: ast.ClassDef, line: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "defined_in": f"{module}.{owner.name}",
        "path": package.path_of(module),
        "line": line,
        "params": None,
        "not_implemented": None,
        "delegates_to": None,
        "fallbacks": [],
        "compiles_udf": False,
    }


def _assigned_entries(
    package: PythonPackage, module: str, owner: ast.ClassDef, node: ast.Assign | ast.AnnAssign
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The public names a class-level assignment binds: the methods an operation set names
    (`_VALID_REDUCTIONS = {"sum", ...}`), aliases of methods (`items = Frame.__iter__`), and
    other attributes."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if not isinstance(target, ast.Name):
            continue
        if target.id in OPERATION_SETS:
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                continue
            for op in sorted(names):
                if not op.startswith("_"):
                    yield op, _stub("operation", package, module, owner, node.lineno)
        elif not target.id.startswith("_"):
            alias = _alias(package, module, owner, node.value)
            if alias is not None:
                yield target.id, {**alias, "alias_of": ast.unparse(node.value)}
            else:
                yield target.id, _stub("attribute", package, module, owner, node.lineno)


def _alias(package: PythonPackage, module: str, owner: ast.ClassDef, value: ast.expr) -> dict[str, Any] | None:
    """The entry of the method a class attribute names (`items = SingleColumnFrame.__iter__`,
    `isnull = isna`), or None where it names no method of the package."""
    if isinstance(value, ast.Name):
        cls_module, cls, method = module, owner, value.id
    elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        found = package.resolve(module, value.value.id)
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        (cls_module, cls), method = found, value.attr
    else:
        return None
    for klass_module, klass in package.mro(cls_module, cls):
        for node in klass.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == method:
                return function_record(package, klass_module, node, klass.name)
    return None


def cudf_table(checkout: Checkout) -> dict[str, Any]:
    package = PythonPackage(checkout, CUDF_PACKAGE, "cudf")
    if package.tree("cudf") is None:
        raise SourceError(f"{checkout.root}: no {CUDF_PACKAGE}/__init__.py: not a cuDF checkout")
    classes = {}
    for pandas_name, cudf_name in CUDF_CLASSES.items():
        found = package.find_class(cudf_name)
        if found is not None:
            classes[pandas_name] = class_table(package, *found)
    functions = {}
    for name in _exported(package.tree("cudf")):
        found = package.resolve("cudf", name)
        if found is not None and isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[name] = function_record(package, found[0], found[1], None)
            _add_method_delegation(functions[name], found[1], found[0], classes)
    table = {
        "provenance": provenance(checkout, CUDF_PACKAGE),
        "classes": classes,
        "functions": dict(sorted(functions.items())),
    }
    add_helper_conditions(package, table)
    add_cpu_paths(package, table)
    add_pandas_defaults(table)
    table["provenance"]["pandas_requirement"] = _pandas_requirement(checkout)
    return table


# -- cuDF: conditions raised in helpers the public methods reach -----------------------------------

#: The dtype categories the linter gives a Series (`self.dtype`) or a frame's columns
#: (`self.dtypes`): "text", "datetime", "timedelta", "category", "nullable" (a pandas extension
#: dtype), "numeric", "bool".
#: cuDF column classes whose `values` property raises, by the dtype category they hold.
VALUES_COLUMNS = {"StringColumn": "text"}


def _method_node(package: PythonPackage, class_name: str, method: str) -> tuple[str, ast.FunctionDef]:
    found = package.find_class(class_name)
    if found is not None:
        for node in found[1].body:
            if isinstance(node, ast.FunctionDef) and node.name == method:
                return found[0], node
    raise SourceError(f"cuDF: no {class_name}.{method}")


def _member(table: dict[str, Any], owner: str, name: str) -> dict[str, Any] | None:
    cls = table["classes"].get(owner)
    return cls["members"].get(name) if cls else None


def _add_fallback(table: dict[str, Any], members: list[tuple[str, str]], condition: dict[str, Any]) -> None:
    """Append a copy of `condition` to the fallbacks of each of `members` (class, member) the
    table has."""
    for owner, name in members:
        member = _member(table, owner, name)
        if member is not None:
            member["fallbacks"].append(copy.deepcopy(condition))


def _first_raise(function: ast.FunctionDef, exception: str, guard: str | None = None) -> ast.Raise:
    """The first `raise exception` in `function` (with `guard` in the source of its if-tests)."""
    for node, guards in guarded_raises(_body_without_docstring(function), exception):
        if guard is None or any(guard in ast.unparse(g) for g in guards):
            return node
    raise SourceError(f"cuDF: {function.name} raises no {exception}" + (f" under `{guard}`" if guard else ""))


def _helper_condition(
    text: str, params: list[str], path: str, line: int, predicate: dict[str, Any], via: str
) -> dict[str, Any]:
    return {
        "condition": text,
        "params": params,
        "path": path,
        "line": line,
        "predicate": predicate,
        "via": via,
        "described": True,
    }


def add_helper_conditions(package: PythonPackage, table: dict[str, Any]) -> None:
    """Conditions raised in helpers that no parameter mapping reaches, each at the line of the
    raise: a frequency `pandas.Grouper` given to `groupby` (`_Grouping._handle_grouper` calls
    `_handle_frequency_grouper`, which raises NotImplementedError); a month-, quarter- or
    year-anchored `resample` rule (the resampler bins with `cudf.date_range`, which raises
    ValueError for an offset that is not a Tick, Day or Week); `Series.unique` on a dtype whose
    column's `values` raises (pandas-compatible mode returns `res.values`); `DataFrame.agg` on
    string columns (its test on `dtypes`, given a predicate on the frame's column dtypes);
    `DataFrame.transpose` and `DataFrame.T` (the same property) of columns whose dtypes differ.
    Also how a group-by aggregation calls a Python function (`callable_aggregation`)."""
    table["pandas_offsets"] = _pandas_offsets()
    callable_aggregation = _callable_aggregation(package)
    if callable_aggregation is not None:
        table["callable_aggregation"] = callable_aggregation
    if package.find_class("_Grouping") is not None:
        _frequency_grouper(package, table)
    found = package.resolve("cudf", "date_range")
    if found is not None and isinstance(found[1], ast.FunctionDef):
        _anchored_rules(package, table, found[0], found[1])
    if _member(table, "Series", "unique") is not None:
        _unique_values(package, table)
    if _member(table, "DataFrame", "transpose") is not None:
        _mixed_transpose(package, table)
    agg = _member(table, "DataFrame", "agg")
    for condition in agg["fallbacks"] if agg else ():
        if "is_dtype_obj_string" in (condition["condition"] or ""):
            condition["params"] = ["self.dtypes"]
            condition["predicate"] = {
                "param": "self.dtypes",
                "source": "argument",
                "op": "intersects",
                "value": ["text"],
            }


def _callable_aggregation(package: PythonPackage) -> dict[str, Any] | None:
    """How a group-by aggregation given a Python function runs: `make_aggregation` returns
    `op(Aggregation)`, calling the function with cuDF's `Aggregation` class, so only a function
    that calls one of that class's classmethods on its argument (`lambda x: x.quantile(0.9)`)
    works; anything else raises. The line of that call and the classmethods."""
    module = "cudf.core._internals.aggregation"
    tree = package.tree(module)
    if tree is None:
        return None
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    make = functions.get("make_aggregation")
    if make is None or not make.args.args:
        return None
    op = make.args.args[0].arg
    for node in ast.walk(make):
        if (
            isinstance(node, ast.Return)
            and isinstance(call := node.value, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == op
            and len(call.args) == 1
            and isinstance(arg := call.args[0], ast.Name)
            and arg.id in classes
        ):
            methods = sorted(
                n.name
                for n in classes[arg.id].body
                if isinstance(n, ast.FunctionDef)
                and not n.name.startswith("_")
                and any(isinstance(d, ast.Name) and d.id == "classmethod" for d in n.decorator_list)
            )
            return {
                "class": f"{module}.{arg.id}",
                "path": package.path_of(module),
                "line": node.lineno,
                "methods": methods,
            }
    return None


def _frequency_grouper(package: PythonPackage, table: dict[str, Any]) -> None:
    module, handle = _method_node(package, "_Grouping", "_handle_grouper")
    if not any("_handle_frequency_grouper" in ast.unparse(n) for n in ast.walk(handle) if isinstance(n, ast.Call)):
        raise SourceError("cuDF: _Grouping._handle_grouper no longer calls _handle_frequency_grouper")
    _, frequency = _method_node(package, "_Grouping", "_handle_frequency_grouper")
    raised = _first_raise(frequency, "NotImplementedError")
    condition = _helper_condition(
        "cuDF's `_Grouping._handle_grouper` hands a Grouper with a `freq` to `_handle_frequency_grouper`, "
        "which raises NotImplementedError",
        ["by"],
        package.path_of(module),
        raised.lineno,
        {"param": "by", "source": "argument", "op": "frequency_grouper"},
        f"{module}._Grouping._handle_frequency_grouper",
    )
    _add_fallback(table, [("DataFrame", "groupby"), ("Series", "groupby")], condition)


def _anchored_rules(package: PythonPackage, table: dict[str, Any], module: str, date_range: ast.FunctionDef) -> None:
    raised = _first_raise(date_range, "ValueError", "isinstance(offset")
    guard = next(
        ast.unparse(g)
        for n, guards in guarded_raises(_body_without_docstring(date_range), "ValueError")
        if n is raised
        for g in guards
        if "isinstance(offset" in ast.unparse(g)
    )
    kinds = sorted({name.rsplit(".", 1)[-1] for name in re.findall(r"[\w.]+", guard.split(",", 1)[1])})
    condition = _helper_condition(
        f"cuDF bins with `date_range`, which raises ValueError for an offset that is not a "
        f"{', '.join(kinds)} (month, quarter, year: `{guard}`)",
        ["rule"],
        package.path_of(module),
        raised.lineno,
        {"param": "rule", "source": "argument", "op": "frequency_not_in", "value": _fixed_aliases(kinds)},
        f"{module}.date_range",
    )
    _add_fallback(table, [("DataFrame", "resample"), ("Series", "resample")], condition)


def _unique_values(package: PythonPackage, table: dict[str, Any]) -> None:
    unique = table["classes"]["Series"]["members"]["unique"]
    _, series_unique = _method_node(package, "Series", "unique")
    if "return res.values" not in ast.unparse(series_unique):
        raise SourceError("cuDF: Series.unique no longer returns `res.values`")
    for condition in unique["fallbacks"]:
        text = condition["condition"] or ""
        if "'mM'" in text:
            condition["predicate"] = {
                "param": "self.dtype",
                "source": "argument",
                "op": "in",
                "value": ["datetime", "timedelta"],
            }
        elif "is_pandas_nullable_extension_dtype" in text:
            condition["predicate"] = {"param": "self.dtype", "source": "argument", "op": "in", "value": ["nullable"]}
        else:
            continue
        condition["params"] = ["self.dtype"]
    for column, category in VALUES_COLUMNS.items():
        column_module, values = _method_node(package, column, "values")
        raised = next((n for n in ast.walk(values) if isinstance(n, ast.Raise)), None)
        if raised is None:
            raise SourceError(f"cuDF: {column}.values no longer raises")
        unique["fallbacks"].append(
            _helper_condition(
                f"pandas-compatible mode returns `res.values`, and `{column}.values` raises "
                f"{ast.unparse(raised.exc.func if isinstance(raised.exc, ast.Call) else raised.exc)}",
                ["self.dtype"],
                package.path_of(column_module),
                raised.lineno,
                {"param": "self.dtype", "source": "argument", "op": "in", "value": [category]},
                f"{column_module}.{column}.values",
            )
        )


def _mixed_transpose(package: PythonPackage, table: dict[str, Any]) -> None:
    """`transpose` raises ValueError when the frame's columns differ in dtype (libcudf
    transposes one dtype); `T` is `property(transpose)`. The linter gives the test as
    `self.dtypes_differ`: True, False, or unknown where the file does not show the dtypes."""
    module, transpose = _method_node(package, "DataFrame", "transpose")
    raised = _first_raise(transpose, "ValueError", guard="!= source_dtype")
    condition = _helper_condition(
        "the frame's columns differ in dtype (libcudf transposes columns of one dtype)",
        ["self.dtypes_differ"],
        package.path_of(module),
        raised.lineno,
        {"param": "self.dtypes_differ", "source": "argument", "op": "truthy"},
        f"{module}.DataFrame.transpose",
    )
    _add_fallback(table, [("DataFrame", "transpose"), ("DataFrame", "T")], condition)


def _fixed_aliases(kinds: list[str]) -> list[str]:
    """The pandas offset aliases whose offset is one of the classes `kinds` names (Tick, Day,
    Week), read from the pandas installed here (recorded in the provenance)."""
    import pandas as pd
    from pandas._libs.tslibs.offsets import prefix_mapping

    wanted = tuple(getattr(pd.offsets, kind) for kind in kinds if hasattr(pd.offsets, kind))
    return sorted(alias for alias, cls in prefix_mapping.items() if issubclass(cls, wanted))


#: pandas classes by the table's name for them (their defaults are compared with cuDF's).
PANDAS_CLASSES = {
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "Index": "pandas.Index",
    "RangeIndex": "pandas.RangeIndex",
    "DatetimeIndex": "pandas.DatetimeIndex",
    "MultiIndex": "pandas.MultiIndex",
    "DataFrameGroupBy": "pandas.core.groupby.DataFrameGroupBy",
    "SeriesGroupBy": "pandas.core.groupby.SeriesGroupBy",
    "StringMethods": "pandas.core.strings.accessor.StringMethods",
    "DatetimeProperties": "pandas.core.indexes.accessors.DatetimeProperties",
    "Rolling": "pandas.core.window.rolling.Rolling",
    "Resampler": "pandas.core.resample.Resampler",
}


def add_pandas_defaults(table: dict[str, Any]) -> None:
    """Where a cuDF method's literal default differs from the pandas method's (read from the
    pandas installed here, its version in the provenance), the pandas default (`pandas_defaults`):
    cudf.pandas passes a call's arguments as written, so a parameter left out takes cuDF's. Also
    each covered pandas class's public members (`pandas_members`) and, per method, the keywords
    pandas' method takes where it takes no `**kwargs` (`pandas_keywords`): under pandas 3 a call
    of another name, or with another keyword, raises in pandas itself; and the public names of
    the `pandas` module (`pandas_names`): a `pd.<name>` cuDF does not export runs in pandas
    where pandas has it, and raises where it does not (`pd.rolling_mean`)."""
    import importlib
    import inspect

    import pandas as pd

    def differing(entry: dict[str, Any], function: Any) -> dict[str, Any]:
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            return {}
        found = {}
        for param in entry.get("params") or ():
            theirs = signature.parameters.get(param["name"])
            if param["default"] is None or theirs is None or theirs.default is inspect.Parameter.empty:
                continue
            try:
                ours = ast.literal_eval(param["default"])
            except (ValueError, SyntaxError):
                continue
            value = theirs.default
            if isinstance(value, (int, float, str, bool, type(None))) and (
                ours != value or type(ours) is not type(value)
            ):
                found[param["name"]] = value
        return found

    def keywords(function: Any) -> list[str] | None:
        """The keywords pandas' method takes, or None where it takes any (`**kwargs`)."""
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except (TypeError, ValueError):
            return None
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            return None
        return [p.name for p in parameters if p.kind not in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) and p.name != "self"]

    for name, cls in table["classes"].items():
        module, _, attr = PANDAS_CLASSES[name].rpartition(".")
        pandas_class = getattr(importlib.import_module(module), attr, None)
        if pandas_class is None:
            continue
        cls["pandas_members"] = sorted(n for n in dir(pandas_class) if not n.startswith("_"))
        for member, entry in cls["members"].items():
            function = getattr(pandas_class, member, None)
            found = differing(entry, function)
            if found:
                entry["pandas_defaults"] = found
            accepted = keywords(function) if callable(function) else None
            if accepted is not None:
                entry["pandas_keywords"] = accepted
    for name, entry in table["functions"].items():
        function = getattr(pd, name, None)
        found = differing(entry, function) if callable(function) else {}
        if found:
            entry["pandas_defaults"] = found
    table["pandas_names"] = sorted(n for n in dir(pd) if not n.startswith("_"))
    table["provenance"]["pandas_defaults_from"] = pd.__version__


def _pandas_requirement(checkout: Checkout) -> dict[str, Any] | None:
    """The pandas versions cuDF requires (its pyproject.toml), with the line."""
    path = f"{CUDF_PACKAGE.rsplit('/', 1)[0]}/pyproject.toml"
    for number, line in enumerate((checkout.read(path) or "").splitlines(), 1):
        found = re.match(r'\s*"pandas([<>=!~][^"]*)"', line)
        if found:
            return {"spec": found.group(1), "path": path, "line": number}
    return None


def add_cpu_paths(package: PythonPackage, table: dict[str, Any]) -> None:
    """Where a cuDF function hands the work to pandas itself (`read_json` calls `pd.read_json`
    unless its engine is "cudf"; with `engine="auto"` that is `"cudf" if lines else "pandas"`):
    `cpu_paths`, each the test that leads there, with its line and a predicate."""
    for name, entry in table["functions"].items():
        found = package.resolve("cudf", name)
        if found is None or not isinstance(found[1], ast.FunctionDef):
            continue
        paths = cpu_paths(package, found[0], found[1], {p["name"] for p in entry["params"] or ()})
        if paths:
            entry["cpu_paths"] = paths


def cpu_paths(package: PythonPackage, module: str, function: ast.FunctionDef, params: set[str]) -> list[dict[str, Any]]:
    """The paths on which `function` calls pandas' namesake (`pd.read_json(...)`, or
    `.to_json(...)` on a pandas object in the branch `engine == "pandas"`): the engine test
    that leads there, with the line of that call and a predicate."""
    name = function.name
    calls = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "pd"
        and n.func.attr == name
    ]
    chosen = _engine_choice(function, params)
    if chosen is None:
        return []
    engine, test = chosen
    if not calls:
        calls = [
            n
            for branch in ast.walk(function)
            if isinstance(branch, ast.If) and _tests_engine(branch.test, engine, "pandas")
            for stmt in branch.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
        ]
    if not calls:
        return []
    auto = {"param": engine, "source": "argument", "op": "==", "value": "auto"}
    pandas = {"param": engine, "source": "argument", "op": "==", "value": "pandas"}
    if test is None:
        return [
            {
                "condition": f"{engine} resolves to \"pandas\" (`if {engine} == 'auto': {engine} = 'pandas'`)",
                "params": [engine],
                "path": package.path_of(module),
                "line": calls[0].lineno,
                "predicate": {"any": [pandas, auto]},
            }
        ]
    subjects = Subjects(names={p: "argument" for p in params})
    inner = predicate(test, subjects)
    if inner is None:
        return []
    return [
        {
            "condition": f"{engine} resolves to \"pandas\" (`if {engine} == 'auto': {engine} = "
            f"'cudf' if {ast.unparse(test)} else 'pandas'`)",
            "params": [engine, *subjects.mentioned(test)],
            "path": package.path_of(module),
            "line": calls[0].lineno,
            "predicate": {"any": [pandas, {"all": [auto, {"not": inner}]}]},
        }
    ]


def _tests_engine(test: ast.expr, engine: str, value: str) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == engine
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == value
    )


def _engine_choice(function: ast.FunctionDef, params: set[str]) -> tuple[str, ast.expr | None] | None:
    """`if engine == "auto": engine = "cudf" if TEST else "pandas"` in `function`: the
    parameter's name and TEST; `if engine == "auto": engine = "pandas"`: the name and None."""
    for node in ast.walk(function):
        if not (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id in params
            and _tests_engine(node.test, node.test.left.id, "auto")
            and len(node.body) == 1
            and isinstance(node.body[0], ast.Assign)
        ):
            continue
        value = node.body[0].value
        if isinstance(value, ast.Constant) and value.value == "pandas":
            return node.test.left.id, None
        if (
            isinstance(value, ast.IfExp)
            and isinstance(value.body, ast.Constant)
            and value.body.value == "cudf"
            and isinstance(value.orelse, ast.Constant)
            and value.orelse.value == "pandas"
        ):
            return node.test.left.id, value.test
    return None


def _pandas_offsets() -> dict[str, Any]:
    """The offset aliases the pandas installed here accepts (a `resample` rule with another
    alias, such as "M" or "A" that pandas 3 removed, raises in pandas itself)."""
    import pandas as pd
    from pandas._libs.tslibs.offsets import prefix_mapping

    return {"pandas": pd.__version__, "aliases": sorted(prefix_mapping)}


def _add_method_delegation(
    record: dict[str, Any], function: ast.FunctionDef | ast.AsyncFunctionDef, module: str, classes: dict[str, Any]
) -> None:
    """A function that ends returning a method call on its first parameter (`merge(left, right,
    *args, **kwargs)` returns `left.merge(right, *args, **kwargs)`) falls back where that method
    does: the method of the one covered class its module defines that has it lends the record
    its conditions, in the function's terms."""
    body = _body_without_docstring(function)
    params = record["params"]
    if not body or not params or record["delegates_to"] or not isinstance(body[-1], ast.Return):
        return
    call = body[-1].value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == params[0]["name"]
    ):
        return
    method = call.func.attr
    owners = [
        cls
        for cls in classes.values()
        if cls["cudf_class"].rsplit(".", 1)[0] == module
        and method in cls["members"]
        and cls["members"][method].get("params") is not None
    ]
    if len(owners) != 1:
        return
    callee = owners[0]["members"][method]
    mapping = _call_mapping(call, callee["params"], params)
    record["delegates_to"] = f"{owners[0]['cudf_class']}.{method}"
    record["fallbacks"] += [m for found in callee["fallbacks"] if (m := _mapped(found, mapping)) is not None]
    record["forwarded_params"] += _forwarded(mapping, callee["params"], params)
    record["compiles_udf"] = record["compiles_udf"] or callee["compiles_udf"]


def _exported(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return [n for n in ast.literal_eval(node.value) if isinstance(n, str)]
            except ValueError:
                break
    return [
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if not (alias.asname or alias.name).startswith("_")
    ]


# -- cuML: Python and Cython classes read by their blocks ---------------------------------------

_CLASS = re.compile(r"^class\s+(\w+)\s*(?:\((.*?)\))?\s*:", re.DOTALL | re.MULTILINE)
_DEF = re.compile(r"^( +)(?:async\s+)?c?p?def\s+(?:[\w\[\], .*]+\s+)?(\w+)\s*\(", re.MULTILINE)


@dataclass
class Block:
    """One class of a `.py` or `.pyx` file, as text with the line its text starts on."""

    path: str
    module: str
    name: str
    bases: list[str]
    text: str
    line: int
    header: int = 1  # how many lines the `class ...:` header takes

    def methods(self) -> dict[str, tuple[ast.FunctionDef, int]]:
        """Every `def` directly in the class whose body parses as Python: name -> (node, line offset)."""
        found: dict[str, tuple[ast.FunctionDef, int]] = {}
        lines = self.text.splitlines()
        for match in _DEF.finditer(self.text):
            indent = len(match.group(1))
            if indent != _class_indent(lines, self.header):
                continue
            start = self.text.count("\n", 0, match.start())
            end = start + 1
            while end < len(lines) and (
                not lines[end].strip()
                or lines[end].startswith(" " * (indent + 1))
                or lines[end].lstrip().startswith(")")
            ):
                end += 1
            first = start
            while first > 0 and lines[first - 1].strip().startswith("@"):
                first -= 1
            snippet = textwrap.dedent("\n".join(lines[first:end]))
            snippet = re.sub(
                r"^((?:async\s+)?)c?p?def\s+(?:[\w\[\], .*]+\s+)?(\w+)\s*\(",
                r"\1def \2(",
                snippet,
                count=1,
                flags=re.MULTILINE,
            )
            try:
                tree = ast.parse(snippet)
            except SyntaxError:
                continue
            node = tree.body[0] if tree.body else None
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and node.name not in found
                and not _is_overload(node)
            ):
                found[node.name] = (node, self.line + first - 1)
        return found

    def method_names(self) -> set[str]:
        """The names of the `def`s directly in the class, parsed or not (a Cython body is not)."""
        indent = _class_indent(self.text.splitlines(), self.header)
        return {m.group(2) for m in _DEF.finditer(self.text) if len(m.group(1)) == indent}

    def assigned(self, name: str) -> tuple[ast.expr, int] | None:
        """The value of a class-level `name = ...` and its line."""
        lines = self.text.splitlines()
        indent = _class_indent(lines, self.header)
        for index, line in enumerate(lines):
            if re.match(rf"^ {{{indent}}}{name}\s*[:=]", line):
                for end in range(index + 1, min(index + 40, len(lines)) + 1):
                    try:
                        statement = ast.parse(textwrap.dedent("\n".join(lines[index:end]))).body[0]
                    except SyntaxError:
                        continue
                    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                        return statement.value, self.line + index
                    break
        return None


def _class_indent(lines: list[str], header: int = 1) -> int:
    for line in lines[header:]:
        stripped = line.lstrip()
        if stripped and not stripped.startswith("#"):
            return len(line) - len(stripped)
    return 4


class SourceModules:
    """The `.py` and `.pyx` files of a package, read as classes, module constants and imports."""

    def __init__(self, checkout: Checkout, folder: str, name: str):
        self.checkout, self.folder, self.name = checkout, folder, name
        self.python = PythonPackage(checkout, folder, name)
        self._blocks: dict[str, dict[str, Block]] = {}
        self._by_name: dict[str, list[Block]] | None = None

    def blocks(self, module: str) -> dict[str, Block]:
        if module not in self._blocks:
            path = self.python.file_of(module)
            text = self.checkout.read(path) if path else None
            self._blocks[module] = _split_classes(text, path, module) if text else {}
        return self._blocks[module]

    def constants(self, module: str) -> dict[str, Any]:
        """Module-level `NAME = <literal>` of a `.py` or `.pyx` file."""
        path = self.python.file_of(module)
        text = self.checkout.read(path) if path else None
        out: dict[str, Any] = {}
        lines = (text or "").splitlines()
        for index, line in enumerate(lines):
            match = re.match(r"^(\w+)\s*(?::[^=]+)?=(?!=)", line)
            if not match:
                continue
            for end in range(index + 1, min(index + 80, len(lines)) + 1):
                try:
                    statement = ast.parse("\n".join(lines[index:end])).body[0]
                except SyntaxError:
                    continue
                value = getattr(statement, "value", None)
                if isinstance(value, ast.Dict) and None not in value.keys:
                    value = ast.List(list(value.keys))  # a table is tested by its keys
                try:
                    out[match.group(1)] = _jsonable(ast.literal_eval(value))
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    pass
                break
        return out

    def module_of(self, dotted: str) -> tuple[str, str] | None:
        """`cuml.cluster.KMeans` -> (the module that defines KMeans, "KMeans"), through `__init__` imports."""
        module, _, name = dotted.rpartition(".")
        for _ in range(12):
            if name in self.blocks(module):
                return module, name
            tree = self.python.tree(module)
            target = None
            for node in ast.walk(tree) if tree else []:
                if isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        if (alias.asname or alias.name) == name:
                            target = (self.python._absolute(module, node), alias.name)
            if target is None or target[0] is None:
                return None
            module, name = target
        return None

    def find(self, name: str, near: str) -> Block | None:
        """A base class named `name`: in the module `near`, through its imports, or anywhere."""
        if name in self.blocks(near):
            return self.blocks(near)[name]
        found = self.module_of(f"{near}.{name}")
        if found is not None:
            return self.blocks(found[0])[found[1]]
        if self._by_name is None:
            self._by_name = {}
            for path in sorted(self.checkout.path(self.folder).rglob("*.py*")):
                if path.suffix not in (".py", ".pyx"):
                    continue
                parts = list(path.relative_to(self.checkout.path(self.folder)).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                for block in self.blocks(".".join([self.name, *parts])).values():
                    self._by_name.setdefault(block.name, []).append(block)
        candidates = self._by_name.get(name, [])
        return candidates[0] if len(candidates) == 1 else None

    def mro(self, block: Block) -> list[Block]:
        def linear(block: Block, seen: frozenset) -> list[Block]:
            if (block.module, block.name) in seen:
                return []
            bases = [
                linear(b, seen | {(block.module, block.name)})
                for b in (self.find(base, block.module) for base in block.bases)
                if b is not None
            ]
            return [block, *_merge([*bases, [b[0] for b in bases if b]])]

        unique: list[Block] = []
        for item in linear(block, frozenset()):
            if all(item is not u for u in unique):
                unique.append(item)
        return unique


def _split_classes(text: str, path: str, module: str) -> dict[str, Block]:
    blocks = {}
    lines = text.splitlines()
    for match in _CLASS.finditer(text):
        start = text.count("\n", 0, match.start())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#", ")")):
            end += 1
        bases = []
        for base in re.split(r",", match.group(2) or ""):
            base = base.strip()
            if base and "=" not in base:
                bases.append(base.split("[", 1)[0].rsplit(".", 1)[-1])
        header = text.count("\n", match.start(), match.end()) + 1
        blocks.setdefault(
            match.group(1), Block(path, module, match.group(1), bases, "\n".join(lines[start:end]), start + 1, header)
        )
    return blocks


def _shift(node: ast.AST, offset: int) -> int:
    return getattr(node, "lineno", 1) + offset


def _unsupported(
    function: ast.FunctionDef, offset: int, subjects: Subjects, path: str, kind: str, methods: list[str]
) -> list[dict[str, Any]]:
    out = []
    for raise_node, guards in guarded_raises(_body_without_docstring(function), "UnsupportedOnGPU"):
        test = condition(guards) if guards else ast.Constant(True)
        out.append(
            {
                "kind": kind,
                "methods": methods,
                "condition": ast.unparse(test),
                "params": subjects.mentioned(test),
                "predicate": predicate(test, subjects) if guards else None,
                "path": path,
                "line": _shift(raise_node, offset),
            }
        )
    return out


def _hyperparameter_subjects(function: ast.FunctionDef, constants: dict[str, Any]) -> Subjects:
    args = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    owners = [a for a in args if a not in ("cls", "self")][:1]
    subjects = Subjects(owners=frozenset(owners), constants=constants)
    subjects.aliases = _single_assignments(function, subjects)
    return subjects


def _method_subjects(function: ast.FunctionDef, constants: dict[str, Any]) -> Subjects:
    """In a proxy's `_gpu_<method>`: its arguments are the call's; `self.x` is a hyperparameter
    (the proxy exposes the CPU estimator's parameters as attributes)."""
    params = [p["name"] for p in _parameters(function)]
    subjects = Subjects(names={p: "argument" for p in params}, owners=frozenset({"self"}), constants=constants)
    subjects.aliases = _single_assignments(function, subjects)
    return subjects


def _hyperparameter_fallbacks(modules: SourceModules, chain: list[Block], override: Block) -> list[dict[str, Any]]:
    """`UnsupportedOnGPU` raised by `_params_from_cpu` along the GPU class chain, following
    `super()._params_from_cpu` to the next definition, and the proxy's own `_params_from_cpu`
    where the GPU class hands over to it (`_params_from_cpu_override`, the array-API proxies)."""
    out = []
    for block in chain:
        found = block.methods().get("_params_from_cpu")
        if found is None:
            continue
        function, offset = found
        subjects = _hyperparameter_subjects(function, modules.constants(block.module))
        out.extend(_unsupported(function, offset, subjects, block.path, "hyperparameter", []))
        source = ast.unparse(function)
        if "_params_from_cpu_override" in source and "_params_from_cpu" in override.methods():
            out.extend(_hyperparameter_fallbacks(modules, [override], override))
        if "super()._params_from_cpu" not in source:
            break
    return out


def _override_fallbacks(modules: SourceModules, block: Block, chain: list[Block]) -> list[dict[str, Any]]:
    """`UnsupportedOnGPU` raised by the proxy's `_gpu_<method>` overrides, by helpers they call
    (methods of its classes and functions of its module), or by the GPU class's own methods."""
    out = []
    constants = modules.constants(block.module)
    helpers: dict[str, tuple[ast.FunctionDef, int, str]] = {}
    gpu_methods: dict[str, tuple[ast.FunctionDef, int, str]] = {}
    for klass in chain:
        for name, (function, offset) in klass.methods().items():
            target = gpu_methods if name.startswith("_gpu_") else helpers
            target.setdefault(name, (function, offset, klass.path))
    module_text = modules.checkout.read(block.path) or ""
    for function in _module_functions(module_text):
        helpers.setdefault(function.name, (function, 0, block.path))
    for name, (function, offset, path) in gpu_methods.items():
        subjects = _method_subjects(function, constants)
        out.extend(_unsupported(function, offset, subjects, path, "input", [name[len("_gpu_") :]]))
    for name, (function, offset, path) in helpers.items():
        if name == "_params_from_cpu":
            continue
        callers = sorted(m[len("_gpu_") :] for m, (caller, _, _) in gpu_methods.items() if _calls(caller, name))
        if not callers:
            continue  # a helper of another estimator in the module, or of no GPU method
        out.extend(_unsupported(function, offset, _method_subjects(function, constants), path, "input", callers))
    return out


def _module_functions(text: str) -> list[ast.FunctionDef]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _calls(function: ast.FunctionDef, name: str) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == name:
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr == name:
                return True
    return False


def _gpu_class_fallbacks(chain: list[Block], modules: SourceModules) -> list[dict[str, Any]]:
    """`UnsupportedOnGPU` raised by the cuML class's public methods (say, `fit` on some input)."""
    out, seen = [], set()
    for block in chain:
        for name, (function, offset) in block.methods().items():
            if name in seen or name.startswith("_") or name in CONVERSION_METHODS:
                continue
            seen.add(name)
            subjects = _method_subjects(function, modules.constants(block.module))
            out.extend(_unsupported(function, offset, subjects, block.path, "input", [name]))
    return out


def _sparse_on_gpu(chain: list[Block]) -> bool:
    """Whether the GPU class takes sparse input: its tags' `X_types_gpu` (set in the class chain,
    the first that sets it decides) names "sparse"."""
    for block in chain:
        match = re.search(r"X_types_gpu\s*=\s*(\[[^\]]*\])", block.text)
        if match:
            return "sparse" in match.group(1)
    return False


def _documented(checkout: Checkout) -> dict[str, dict[str, Any]]:
    """Estimator name -> where the compatibility page documents it: its line, and for each item
    of its fallback list the line and the names it quotes (``name``)."""
    path = f"{CUML_DOCS}/compatibility.rst"
    text = checkout.read(path) or ""
    out: dict[str, dict[str, Any]] = {}
    current = None
    in_fallbacks = False
    for number, line in enumerate(text.splitlines(), 1):
        heading = re.match(r"^\.\. dropdown::\s*``([\w.]+)``", line)
        if heading:
            current = {"path": path, "line": number, "fallbacks": []}
            out[heading.group(1)] = current
            in_fallbacks = False
            continue
        if current is None:
            continue
        stripped = line.strip()
        if "fall back" in stripped.lower() and stripped.endswith(":"):
            in_fallbacks = True
        elif stripped.endswith(":") and not stripped.startswith("-"):
            in_fallbacks = False
        elif in_fallbacks and stripped.startswith("- "):
            names = [n.strip('"') for n in re.findall(r"``([^`]+)``", stripped)]
            current["fallbacks"].append({"line": number, "names": names})
        elif in_fallbacks and stripped and not line.startswith("     ") and not stripped.startswith("- "):
            in_fallbacks = stripped.startswith("-")
    return out


def cuml_table(checkout: Checkout) -> dict[str, Any]:
    modules = SourceModules(checkout, CUML_PACKAGE, "cuml")
    overrides = checkout.path(f"{CUML_PACKAGE}/accel/_overrides")
    if not overrides.is_dir():
        raise SourceError(f"{checkout.root}: no {CUML_PACKAGE}/accel/_overrides: not a cuML checkout")
    documented = _documented(checkout)
    estimators: dict[str, Any] = {}
    for path in sorted(overrides.rglob("*.py")):
        relative = path.relative_to(overrides).with_suffix("").parts
        if relative[-1] == "__init__":
            continue
        cpu_module = ".".join(relative)
        module = f"cuml.accel._overrides.{cpu_module}"
        tree = modules.python.tree(module)
        if tree is None:
            continue
        for name in _exported(tree):
            block = modules.blocks(module).get(name)
            if block is None:
                continue
            estimators[f"{cpu_module}.{name}"] = _estimator(modules, block, documented.get(name))
    return {"provenance": provenance(checkout, CUML_PACKAGE), "estimators": dict(sorted(estimators.items()))}


def _estimator(modules: SourceModules, block: Block, documented: dict | None) -> dict[str, Any]:
    override_chain = [b for b in modules.mro(block) if b.module == block.module]
    gpu = block.assigned("_gpu_class")
    gpu_block = None
    if gpu is not None:
        found = modules.module_of(ast.unparse(gpu[0]))
        gpu_block = modules.blocks(found[0])[found[1]] if found else None
    forwarded: list[str] = []
    if gpu is None and block.assigned("_cpu_class_path") is not None:
        # an array-API proxy: sklearn's own estimator runs on CuPy arrays through the wrapper
        found = modules.module_of(ARRAY_API_WRAPPER)
        gpu_block = modules.blocks(found[0])[found[1]] if found else None
        forwarded = _forwarded_methods(gpu_block) if gpu_block is not None else []
    chain = modules.mro(gpu_block) if gpu_block is not None else []
    fallbacks = _hyperparameter_fallbacks(modules, chain, block)
    fallbacks += _override_fallbacks(modules, block, override_chain)
    fallbacks += _gpu_class_fallbacks(chain, modules)
    methods = set()
    for klass in chain:
        # public methods; `name_` is a fitted attribute computed by a property
        methods.update(n for n in klass.method_names() if not n.startswith("_") and not n.endswith("_"))
    for klass in override_chain:
        methods.update(n[len("_gpu_") :] for n in klass.method_names() if n.startswith("_gpu_"))
    methods.update(forwarded)
    unavailable = block.assigned("_not_implemented_attributes")
    fixed = _fixed_hyperparameters(chain)
    return {
        "cuml_class": f"{gpu_block.module}.{gpu_block.name}" if gpu_block else None,
        "path": gpu_block.path if gpu_block else None,
        "line": gpu_block.line if gpu_block else None,
        "override": {"path": block.path, "line": block.line},
        "gpu_methods": sorted(methods),
        # the wrapper's forwarded methods: kept where the CPU class has them (`add_cpu_defaults`)
        "forwarded_methods": forwarded,
        "sparse_on_gpu": _sparse_on_gpu(chain),
        "unavailable_attributes": _string_literals(unavailable[0]) if unavailable else [],
        "fallbacks": fallbacks,
        "documented": documented,
        **({"fixed_params": fixed} if fixed else {}),
    }


def _fixed_hyperparameters(chain: list[Block]) -> list[dict[str, Any]]:
    """The hyperparameters the GPU class's `_params_from_cpu` sets to a constant whatever the
    CPU estimator holds (LogisticRegression: `"solver": "qn"`): a call that chooses another value
    runs on the GPU with this one, and its results can differ."""
    for block in chain:
        found = block.methods().get("_params_from_cpu")
        if found is None:
            continue
        function, offset = found
        fixed = []
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and isinstance(key.value, str)
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, (str, int, float, bool))
                    ):
                        fixed.append(
                            {
                                "param": key.value,
                                "value": value.value,
                                "path": block.path,
                                "line": _shift(value, offset),
                            }
                        )
        return fixed
    return []


def _forwarded_methods(wrapper: Block) -> list[str]:
    """The methods the array-API wrapper defines for the scikit-learn class it wraps: the names
    its `__init_subclass__` loops over (`for name in ["fit", ...]: if hasattr(cls._internal_class,
    name): setattr(...)`), which it forwards where the CPU class has them."""
    found = wrapper.methods().get("__init_subclass__")
    if found is None:
        return []
    names: list[str] = []
    for node in ast.walk(found[0]):
        if (
            isinstance(node, ast.For)
            and isinstance(node.iter, (ast.List, ast.Tuple))
            and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
                for n in ast.walk(node)
            )
        ):
            names += [e.value for e in node.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return sorted(set(names))


def _string_literals(node: ast.expr) -> list[str]:
    return sorted({n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)})


# -- writing -----------------------------------------------------------------------------------


def add_cpu_defaults(table: dict[str, Any]) -> dict[str, Any]:
    """The literal defaults of each CPU estimator's constructor, read from the scikit-learn
    (umap, hdbscan) installed here, into the cuML table (`cpu_defaults`), with the versions
    in its provenance: a hyperparameter a call leaves out has that value, which the table's
    conditions then decide. An array-API estimator keeps the wrapper's forwarded methods that
    the CPU class has (the wrapper's own `hasattr` test). The linter itself never imports
    these libraries."""
    import importlib
    import inspect

    versions: dict[str, str] = {}
    for qualname, entry in table["estimators"].items():
        module, _, name = qualname.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module), name)
            parameters = inspect.signature(cls.__init__).parameters.values()
        except Exception:  # noqa: BLE001 - a library not installed here, or without this class
            continue
        top = module.split(".", 1)[0]
        package = "scikit-learn" if top == "sklearn" else top
        versions[package] = getattr(importlib.import_module(top), "__version__", "unknown")
        entry["cpu_defaults"] = {
            p.name: p.default
            for p in parameters
            if p.default is not inspect.Parameter.empty and isinstance(p.default, (int, float, str, bool, type(None)))
        }
        absent = {m for m in entry.get("forwarded_methods", ()) if not hasattr(cls, m)}
        if absent:
            entry["gpu_methods"] = [m for m in entry["gpu_methods"] if m not in absent]
            entry["forwarded_methods"] = [m for m in entry["forwarded_methods"] if m not in absent]
    table["provenance"]["cpu_defaults_from"] = dict(sorted(versions.items()))
    return table


def write_tables(cudf: str, cuml: str, output: Path) -> dict[str, Path]:
    cudf_checkout = open_checkout(cudf, "cudf", [CUDF_PACKAGE, "VERSION", "python/cudf/pyproject.toml"])
    cuml_checkout = open_checkout(cuml, "cuml", [CUML_PACKAGE, CUML_DOCS, "VERSION"])
    tables = {
        "cudf_pandas.json": cudf_table(cudf_checkout),
        "cuml_accel.json": add_cpu_defaults(cuml_table(cuml_checkout)),
    }
    return _write(tables, output)


def update_cpu_defaults(output: Path) -> dict[str, Path]:
    """Refresh only the CPU estimators' defaults of the cuML table in `output`."""
    path = output / "cuml_accel.json"
    return _write({path.name: add_cpu_defaults(json.loads(path.read_text(encoding="utf-8")))}, output)


def _write(tables: dict[str, dict[str, Any]], output: Path) -> dict[str, Path]:
    output.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, table in tables.items():
        (output / name).write_text(json.dumps(table, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        written[name] = output / name
    return written


def update_docs(path: Path, output: Path) -> bool:
    """Rewrite the provenance block of the readiness page from the tables in `output`."""
    from gpulint.docs import _replace_block
    from gpulint.readiness_tables import PROVENANCE_MARKER, provenance_markdown

    text = path.read_text(encoding="utf-8")
    new = _replace_block(text, PROVENANCE_MARKER, provenance_markdown(output))
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.readiness_tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cudf", help="a checkout or bare git directory of rapidsai/cudf")
    parser.add_argument("--cuml", help="a checkout or bare git directory of rapidsai/cuml")
    parser.add_argument(
        "--cpu-defaults-only",
        action="store_true",
        help="only refresh the CPU estimators' defaults of the cuML table in --output "
        "(from the scikit-learn installed here); no checkouts needed",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("linter/readiness_data"),
        help="folder for the two JSON tables (default: linter/readiness_data)",
    )
    parser.add_argument(
        "--docs", type=Path, default=None, help="also rewrite the provenance block of this page (docs/readiness.md)"
    )
    args = parser.parse_args(argv)
    if not args.cpu_defaults_only and not (args.cudf and args.cuml):
        parser.error("--cudf and --cuml are required (unless --cpu-defaults-only)")
    try:
        if args.cpu_defaults_only:
            written = update_cpu_defaults(args.output)
        else:
            written = write_tables(args.cudf, args.cuml, args.output)
        if args.docs is not None:
            update_docs(args.docs, args.output)
    except (SourceError, OSError) as error:
        print(f"readiness_tables: {error}", file=sys.stderr)
        return 2
    for path in written.values():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

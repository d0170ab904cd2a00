"""Type evidence: what the engine knows a name or expression holds.

The evidence is gathered from source only (imports, constructors, readers, annotations,
methods that return frames, data flow through assignments) while the engine walks the
tree in source order. Nothing is guessed from variable names: what is not known is
`None` (unknown), and what is known to be something uninteresting (a list, a literal,
an instance of a class defined in the file) is `OTHER`, so that rules can leave it alone.

This module is the environment (scopes, bindings, branches) and the dispatch to what each
library's module knows: `pandas_api` (pandas, cuDF, Modin, Dask DataFrames), `numpy_api`
(NumPy, CuPy, SciPy), `torch_api`, `dask_api` (lazy collections), `networkx_api` (graphs)
and `estimators` (scikit-learn, cuML). What a value can be is in `values`.
"""

from __future__ import annotations

import ast
from typing import Protocol

from . import accelerate_api, dask_api, display_api, estimators, networkx_api, numpy_api, pandas_api, torch_api
from .project import Exported, joined

# Names other modules import from here; they live in the library modules.
from .numpy_api import (  # noqa: F401
    ARRAY_FACTORIES,
    ARRAY_LIBRARIES,
    ARRAY_TO_ARRAY,
    CUPY_ARRAY_FUNCTIONS,
    CUPY_ARRAY_METHODS,
    GENERATOR_SAMPLERS,
    NUMPY_UFUNCS,
    is_numpy_ufunc,
)
from .pandas_api import (  # noqa: F401
    CHUNKED_READERS,
    FRAME_FACTORIES,
    FRAME_LIBRARIES,
    FRAME_TO_FRAME,
    FRAME_TO_SERIES,
    NDFRAME_FACTORIES,
    SERIES_FACTORIES,
    SERIES_TO_SERIES,
    iterates_rows,
)
from .torch_api import (  # noqa: F401
    MODEL_TO_MODEL,
    TENSOR_TO_TENSOR,
    TORCH_DTYPES,
    TORCH_FACTORIES,
    TORCH_TENSOR_FUNCTIONS,
    device_place,
    device_string_place,
    is_dtype,
    move_target,
)
from .values import (  # noqa: F401
    COLLECTIONS,
    DEVICE,
    HOST,
    LIST,
    OTHER,
    Kind,
    Ty,
    dominant,
    is_device_resident,
    join,
    library_of,
    same,
    sequence_of,
)

#: Top-level modules whose presence makes a file worth analysing.
LIBRARY_TRIGGERS = (
    b"pandas",
    b"cudf",
    b"modin",
    b"dask",
    b"numpy",
    b"cupy",
    b"torch",
    b"sklearn",
    b"cuml",
    b"accelerate",
    b"transformers",
    b"diffusers",
    b"networkx",
    b"cugraph",
    b".backward(",
    b".cuda(",
)
#: The words a file must contain for a family's values to exist in it, each a subset of the
#: above (a rule's `libraries`): device values (torch, CuPy, cuDF, the placers of
#: accelerate, transformers and diffusers, and the calls only device code makes: a trainer
#: class of its own module that backpropagates or moves values with `.cuda()`, never
#: naming torch), estimators, Dask's lazy collections, graphs.
DEVICE_TRIGGERS = (
    b"torch",
    b"cupy",
    b"cudf",
    b"accelerate",
    b"transformers",
    b"diffusers",
    b".backward(",
    b".cuda(",
)
ESTIMATOR_TRIGGERS = (b"sklearn", b"cuml")
LAZY_TRIGGERS = (b"dask",)
GRAPH_TRIGGERS = (b"networkx", b"cugraph")
BUILTIN_OTHER = frozenset(
    [
        "list",
        "dict",
        "set",
        "tuple",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "len",
        "range",
        "enumerate",
        "zip",
        "sorted",
        "reversed",
        "frozenset",
    ]
)
_LITERALS = (
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
    ast.Constant,
)
#: A tuple or list display with more items than this is data (`[1, 1, ...]`), not values to
#: unpack or loop over: its items are not typed one by one, which took time (and a tuple
#: of types) per item each time the display was evaluated.
_MAX_ITEMS = 256


# -- scopes ------------------------------------------------------------------------


class Scope:
    """Bindings of one function, class, lambda or comprehension (or the module)."""

    __slots__ = ("names", "parent", "kind")

    def __init__(self, parent: Scope | None, kind: str) -> None:
        self.names: dict[str, Ty | None] = {}
        self.parent = parent
        self.kind = kind


#: Progress bars wrapped around an iterable (`for batch in tqdm(loader)`): typed as what
#: they wrap, which is what iterating them yields.
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "tqdm.rich.tqdm"})


class Resolver(Protocol):
    """File-wide knowledge `TypeEnv` consults for what the current scope cannot tell."""

    def call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """What a call of one of the file's own functions or methods returns, if known."""

    def attribute(self, env: TypeEnv, node: ast.Attribute) -> Ty | None:
        """An attribute (`self.means`) of an instance of one of the file's classes, if known."""

    def grouped_call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """What a groupby's `apply` of one of the file's functions gives, if known."""

    def defines_method(self, name: str) -> bool:
        """Some class of the file defines a method `name` (`def act(self, state)`)."""

    def returns_host_values(self, name: str) -> bool:
        """Some method `name` of the file's classes returns a value read to the host."""


#: The value of a name not bound (yet) in a scope.
UNBOUND = object()


class TypeEnv:
    """The bindings in force at the engine's current position in the tree."""

    def __init__(self) -> None:
        self.scope = Scope(None, "module")
        #: Names rebound through `global`/`nonlocal` somewhere in the file: never known.
        self.volatile: frozenset[str] = frozenset()
        #: (scope, name, value it replaced) for every binding, in order.
        self.journal: list[tuple[Scope, str, object]] = []
        #: What the whole file knows beyond the current scope (the semantic index): asked
        #: about calls of the file's own functions and attributes of its own instances.
        self.resolver: Resolver | None = None
        #: What the project modules the file imports say of the names it takes from them,
        #: by qualified name as the file spells it (`project.Imports.names`).
        self.project: dict[str, Exported] = {}

    # -- scope handling --------------------------------------------------------
    def push(self, kind: str) -> None:
        self.scope = Scope(self.scope, kind)

    def pop(self) -> None:
        assert self.scope.parent is not None
        self.scope = self.scope.parent

    # -- control flow: branches are walked one after the other from the same start ---
    # Every binding is journaled with the value it replaced, so a branch is undone by
    # replaying the journal backwards: the cost follows the names a branch binds, not
    # the number of names in scope.
    def mark(self) -> int:
        return len(self.journal)

    def changes(self, mark: int) -> dict[str, object]:
        """The current values (or UNBOUND) of the names this scope bound since `mark`."""
        scope = self.scope
        names = scope.names
        return {name: names.get(name, UNBOUND) for owner, name, _ in self.journal[mark:] if owner is scope}

    def rollback(self, mark: int) -> None:
        journal = self.journal
        for owner, name, old in reversed(journal[mark:]):
            if old is UNBOUND:
                owner.names.pop(name, None)
            else:
                owner.names[name] = old  # type: ignore[assignment]
        del journal[mark:]

    def apply(self, values: dict[str, object]) -> None:
        for name, value in values.items():
            if value is not UNBOUND:
                self.bind(name, value)  # type: ignore[arg-type]

    def rejoin(self, outcomes: list[dict[str, object]]) -> None:
        """Bindings where branches that started here meet again: a name a branch changed
        keeps a type only where every branch that binds it agrees (a branch that left it
        unbound cannot reach a use). A branch that did not touch a name contributes the
        name's current value."""
        names = self.scope.names
        for name in dict.fromkeys(name for outcome in outcomes for name in outcome):
            current = names.get(name, UNBOUND)
            result: object = UNBOUND
            for outcome in outcomes:
                value = outcome.get(name, current)
                if value is UNBOUND:
                    continue
                result = value if result is UNBOUND else join(result, value)  # type: ignore[arg-type]
            if result is not UNBOUND and (current is UNBOUND or not same(result, current)):  # type: ignore[arg-type]
                self.bind(name, result)  # type: ignore[arg-type]

    def lookup(self, name: str) -> Ty | None:
        scope: Scope | None = self.scope
        skip_class = False
        while scope is not None:
            if not (skip_class and scope.kind == "class") and name in scope.names:
                return scope.names[name]
            skip_class = True  # class bodies are not visible from nested functions
            scope = scope.parent
        return OTHER if name in BUILTIN_OTHER else None

    def is_builtin(self, name: str) -> bool:
        """`name` is bound in no scope of the file, so it means the builtin."""
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.names:
                return False
            scope = scope.parent
        return name not in self.volatile

    def bind(self, name: str, ty: Ty | None) -> None:
        names = self.scope.names
        self.journal.append((self.scope, name, names.get(name, UNBOUND)))
        names[name] = None if name in self.volatile else ty

    # -- binding statements ----------------------------------------------------
    def bind_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind(alias.asname, Ty(Kind.MODULE, alias.name))
                else:
                    top = alias.name.split(".", 1)[0]
                    self.bind(top, Ty(Kind.MODULE, top))
            return
        spec = "." * node.level + (node.module or "")
        for alias in node.names:
            qualname = joined(spec, alias.name)
            if alias.name == "*":
                self._bind_star(spec)
            elif (
                node.level and qualname not in self.project and any(n.startswith(qualname + ".") for n in self.project)
            ):
                self.bind(alias.asname or alias.name, Ty(Kind.MODULE, qualname))  # `from . import models`
            else:  # relative or not: a name of code elsewhere, as a library's would be
                self.bind(alias.asname or alias.name, self._imported(qualname))

    def _imported(self, qualname: str) -> Ty | None:
        """What a name imported as `qualname` holds: a project module's value, else a
        symbol the library tables may know."""
        exported = self.project.get(qualname)
        if exported is not None and not exported.function:
            return exported.ty
        return Ty(Kind.SYMBOL, qualname)

    def _bind_star(self, spec: str) -> None:
        """`from utils import *`: the project module's public names."""
        prefix = joined(spec, "")
        for qualname in self.project:
            name = qualname[len(prefix) :]
            if qualname.startswith(prefix) and "." not in name:
                self.bind(name, self._imported(qualname))

    def bind_target(self, target: ast.expr, ty: Ty | None) -> None:
        """Bind an assignment target. Unpacking a tuple whose items are known (`w, v =
        np.linalg.eigh(a)`) binds each name to its item; other unpacked parts are unknown."""
        if isinstance(target, ast.Name):
            self.bind(target.id, ty)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = unpacked(ty, target)
            for element, item in zip(target.elts, items, strict=False):
                self.bind_target(element.value if isinstance(element, ast.Starred) else element, item)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None)

    def bind_loop_target(self, target: ast.expr, iterable: ast.expr) -> None:
        """Bind what each iteration of `for target in iterable` binds: `for i, row in
        df.iterrows()` binds `row` to a Series, `for chunk in reader` (a chunked reader) binds
        `chunk` to a frame, `for row in t` a row of a tensor or a CuPy array; `enumerate(...)`
        and `zip(...)` are followed to what they iterate. Other targets are unknown."""
        parts = self._iterated_parts(target, iterable)
        if parts is not None:
            for part_target, part_iterable in parts:
                if part_iterable is None:
                    self.bind_target(part_target, None)
                else:
                    self.bind_loop_target(part_target, part_iterable)
            return
        rows = iterates_rows(iterable, self)
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and rows is not None:
            self.bind_target(target.elts[0], None)
            self.bind_target(target.elts[1], Ty(Kind.SERIES, rows))
            return
        if isinstance(target, (ast.Name, ast.Tuple, ast.List)):
            iterated = self.type_of(iterable)
            if isinstance(iterable, ast.Subscript) and iterated is not None and iterated.kind == Kind.PLACED:
                iterated = None  # a field of a placed batch may be a list of Python values
            element = _element_type(iterated)
            if element is not None:  # `for x, y in loader`: each item unpacks into its own items
                self.bind_target(target, element)
                return
        self.bind_target(target, None)

    def _collected(self, builtin: str, call: ast.Call) -> Ty | None:
        """`list(...)`, `sorted(...)` (a list) and `tuple(...)` (unknown), of the items of a
        batch moved to the device one by one (`tuple(t.to(device) for t in batch)`) a
        sequence of placed values there."""
        moved = self._moved_items(call.args[0]) if len(call.args) == 1 and builtin != "sorted" else None
        if moved is not None:
            return moved
        return LIST if builtin != "tuple" else self._called(OTHER, call)

    def _moved_items(self, node: ast.expr) -> Ty | None:
        """A comprehension that moves each item it iterates to the device (`[t.to(device)
        for t in batch]`, `(t.cuda() for t in batch)`): a sequence of placed values there,
        whatever each item was (a batch's tensors, unpacked next)."""
        if not (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1):
            return None
        element, target = node.elt, node.generators[0].target
        if not (
            isinstance(element, ast.Call)
            and isinstance(element.func, ast.Attribute)
            and element.func.attr in ("to", "cuda")
            and isinstance(element.func.value, ast.Name)
            and isinstance(target, ast.Name)
            and element.func.value.id == target.id
        ):
            return None
        if element.func.attr == "cuda" or torch_api.move_target(element, self) == DEVICE:
            return sequence_of(Ty(Kind.PLACED, "torch", DEVICE))
        return None

    def enumerated(self, iterable: ast.expr) -> ast.expr | None:
        """What `enumerate(xs)` or `enumerate(xs, start=1)` (the builtin) counts, else None."""
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "enumerate"
            and 1 <= len(iterable.args) <= 2
            and not any(isinstance(a, ast.Starred) for a in iterable.args)
            and all(k.arg == "start" for k in iterable.keywords)
            and self.is_builtin("enumerate")
        ):
            return iterable.args[0]
        return None

    def _iterated_parts(self, target: ast.expr, iterable: ast.expr) -> list[tuple[ast.expr, ast.expr | None]] | None:
        """`for i, x in enumerate(xs)` -> [(i, None), (x, xs)]; `for a, b in zip(xs, ys)` ->
        [(a, xs), (b, ys)]: each part of the target and what it iterates (None: not data)."""
        if not (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id in ("enumerate", "zip")
            and self.is_builtin(iterable.func.id)
            and iterable.args
            and not any(isinstance(a, ast.Starred) for a in iterable.args)
            and not any(isinstance(e, ast.Starred) for e in target.elts)
        ):
            return None
        if iterable.func.id == "enumerate":
            if len(target.elts) != 2 or len(iterable.args) > 2 or any(k.arg != "start" for k in iterable.keywords):
                return None
            return [(target.elts[0], None), (target.elts[1], iterable.args[0])]
        if len(target.elts) != len(iterable.args) or any(k.arg != "strict" for k in iterable.keywords):
            return None
        return list(zip(target.elts, iterable.args, strict=False))

    # -- evaluating expressions ------------------------------------------------
    def qualname(self, node: ast.expr) -> str | None:
        """`pd.read_csv` -> "pandas.read_csv" when `pd` is bound to the pandas module."""
        if isinstance(node, ast.Name):
            ty = self.lookup(node.id)
            return ty.lib if ty is not None and ty.kind in ("module", "symbol") else None
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def type_of(self, node: ast.expr) -> Ty | None:
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Call):
            return self._call_type(node)
        if isinstance(node, ast.Attribute):
            return self._attribute_type(node)
        if isinstance(node, ast.Subscript):
            return self._subscript_type(node)
        if isinstance(node, ast.BinOp):
            return _arith(self.type_of(node.left), self.type_of(node.right))
        if isinstance(node, ast.Compare):
            return _arith(self.type_of(node.left), self.type_of(node.comparators[-1]), comparison=True)
        if isinstance(node, ast.UnaryOp):
            return self.type_of(node.operand) if not isinstance(node.op, ast.Not) else OTHER
        if isinstance(node, ast.NamedExpr):
            return self.type_of(node.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return torch_api.constant_type(node.value) or OTHER
        if isinstance(node, ast.IfExp):  # either branch's value: known where both agree
            return join(self.type_of(node.body), self.type_of(node.orelse))
        if (
            isinstance(node, (ast.Tuple, ast.List))
            and len(node.elts) <= _MAX_ITEMS
            and not any(isinstance(e, ast.Starred) for e in node.elts)
        ):
            # `return loss, probs` unpacks into its parts; `for m in [net, head]` binds each
            # item of a container of known values (when they all agree)
            items = tuple(self.type_of(e) for e in node.elts)
            if any(item is not None and item != OTHER for item in items):
                return Ty(Kind.TUPLE, items=items)
            return OTHER if isinstance(node, ast.Tuple) else LIST
        if isinstance(node, ast.ListComp):
            return self._moved_items(node) or LIST
        if isinstance(node, ast.List):
            return LIST
        if isinstance(node, ast.JoinedStr):
            return torch_api.formatted_type(node) or OTHER
        if isinstance(node, _LITERALS):
            return OTHER
        return None

    def data_names(self, node: ast.AST, exclude: frozenset[str] | set[str] = frozenset()) -> frozenset[str]:
        """Names read inside `node` that are known to hold frames, series or arrays, not
        scalars: a column expression would combine them whole instead of once per row."""
        names = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id not in exclude:
                ty = self.lookup(sub.id)
                if ty is not None and ty.kind in COLLECTIONS:
                    names.add(sub.id)
        return frozenset(names)

    def class_type(self, node: ast.ClassDef) -> Ty:
        """A class of the file; a subclass of `torch.nn.Module` (directly or through
        another class of the file) is marked, so that its instances are known modules, and
        so is an estimator of one's own (a subclass of scikit-learn's `BaseEstimator` or its
        mixins)."""
        bases = [
            (self.qualname(base), self.type_of(base) if isinstance(base, ast.Name) else None) for base in node.bases
        ]
        if any(torch_api.is_module_class(qualname, ty) for qualname, ty in bases) or self._holds_layers(node):
            return Ty(Kind.CLASS, "torch")
        if any(qualname in estimators.ESTIMATOR_BASES or ty == Ty(Kind.CLASS, "sklearn") for qualname, ty in bases):
            return Ty(Kind.CLASS, "sklearn")
        if self._derives_a_trainer(node, bases):
            return Ty(Kind.CLASS, accelerate_api.TRAINER)
        return Ty(Kind.CLASS)

    def _derives_a_trainer(self, node: ast.ClassDef, bases: list[tuple[str | None, Ty | None]]) -> bool:
        """A subclass of a transformers or trl `Trainer`: directly, through a trainer class of
        the file, or through a base of the project (not a known library's) where the class
        overrides the trainer's `compute_loss(self, model, inputs, return_outputs, ...)`."""
        if any(
            qualname is not None and accelerate_api.is_trainer(qualname) or ty == Ty(Kind.CLASS, accelerate_api.TRAINER)
            for qualname, ty in bases
        ):
            return True
        roots = [(qualname or "").lstrip(".").split(".")[0] for qualname, _ in bases]
        return (
            bool(roots)
            and all(root and root.encode() not in LIBRARY_TRIGGERS for root in roots)
            and accelerate_api.overrides_compute_loss(node)
        )

    def _holds_layers(self, node: ast.ClassDef) -> bool:
        """A class derived only from classes imported from modules other than the known
        libraries (`class DQN(Model)`, `Model` from the project's `core.model`) that defines
        `forward` and sets `torch.nn` layers on the instance in its `__init__`
        (`self.fc = nn.Linear(...)`): a torch module whose base is elsewhere."""
        roots = [(self.qualname(base) or "").split(".")[0] for base in node.bases]
        if not roots or any(not root or root.encode() in LIBRARY_TRIGGERS for root in roots):
            return False  # no base, one of the file's own, or a known library's
        methods = {m.name: m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
        init = methods.get("__init__")
        if "forward" not in methods or init is None or not init.args.args:
            return False
        instance = init.args.args[0].arg
        return any(
            isinstance(statement, ast.Assign)
            and any(
                isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == instance
                for target in statement.targets
            )
            and isinstance(statement.value, ast.Call)
            and torch_api.is_module_class(self.qualname(statement.value.func), None)
            for statement in ast.walk(init)
        )

    def annotation_type(self, node: ast.expr | None) -> Ty | None:
        """The type an annotation promises: `pd.DataFrame`, `"pd.DataFrame"`, `Optional[...]`, `X | None`."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = node.left, node.right
            if _is_none(right):
                return self.annotation_type(left)
            if _is_none(left):
                return self.annotation_type(right)
            return None
        if isinstance(node, ast.Subscript):
            outer = self.qualname(node.value) or ""
            if outer in ("typing.Optional", "typing_extensions.Optional"):
                return self.annotation_type(node.slice)
            if outer in ("numpy.typing.NDArray",):
                return Ty(Kind.ARRAY, "numpy")
            return None
        name = self.qualname(node)
        if name is None:
            return None
        if name == "numpy.typing.NDArray":  # unsubscripted: an array of any dtype
            return Ty(Kind.ARRAY, "numpy")
        if name == "torch.dtype":
            return torch_api.dtype_symbol("dtype")
        return _constructed_type(name)

    def _call_type(self, node: ast.Call) -> Ty | None:
        func = node.func
        collate = next((k.value for k in node.keywords if k.arg == "collate_fn"), None)
        if isinstance(collate, ast.Name) and self.resolver is not None:
            # a loader (torch's, Ray's `iter_torch_batches`...) yields what its collate_fn,
            # a function of the file, returns for each batch
            batch = self.resolver.call(self, ast.Call(func=collate, args=[], keywords=[]))
            if batch is not None and batch != OTHER:
                return sequence_of(batch)
        name = self.qualname(func)
        if name is not None:
            exported = self.project.get(name)
            if exported is not None and exported.function:
                return exported.returned(node.args, self.type_of)
            if exported is not None:  # `models.Net()`: a class of a project module
                return self._called(exported.ty, node)
            if name in PROGRESS_BARS and node.args and not isinstance(node.args[0], ast.Starred):
                return self.type_of(node.args[0])  # iterating it yields what the wrapped value yields
            return _constructed_type(name, node, self)
        if isinstance(func, ast.Call) and dask_api.is_delayed(self.qualname(func.func)):
            return Ty(Kind.COLLECTION, "dask")  # `dask.delayed(f)(x)`: a lazy value
        if isinstance(func, ast.Call) and self.qualname(func.func) is not None:
            made = self.type_of(func)  # `nn.BCELoss()(p, y)`: a module made and called at once
            if made is not None and made.lib == "torch" and made.kind == "model":
                return torch_api.call_type(made, node, self)
            return None
        if isinstance(func, ast.Name):
            if func.id in ("next", "iter", "int") and len(node.args) == 1 and self.is_builtin(func.id):
                return self._builtin_type(func.id, node)
            callee = self.lookup(func.id)
            if callee is None and self.resolver is not None:
                return self.resolver.call(self, node)
            if callee is OTHER and func.id in ("list", "tuple", "sorted") and self.is_builtin(func.id):
                return self._collected(func.id, node)
            return self._called(callee, node)
        if isinstance(func, ast.Attribute):
            receiver = self.type_of(func.value)
            if receiver is None:
                known = self.resolver.call(self, node) if self.resolver is not None else None
                if known is not None:
                    return known
                return torch_api.moved_type(func.attr, node, self) or pandas_api.converted_type(func.attr, node)
            return self._method_call_type(receiver, func.attr, node)
        return None

    def _method_call_type(self, receiver: Ty, method: str, node: ast.Call) -> Ty | None:
        """`receiver.<method>(...)` on a value of known type."""
        if torch_api.part_of_module_call(receiver, method) and (
            self.resolver is not None and self.resolver.defines_method(method)
        ):
            own = self.resolver.call(self, node)  # `model.act(state)`: the file's own method
            if own is not None or self.resolver.returns_host_values(method):
                return own  # what its body returns (a Python number, a NumPy array...)
        if receiver.kind == "groupby" and method == "apply" and self.resolver is not None:
            grouped = self.resolver.grouped_call(self, node)
            if grouped is not None:
                return grouped
        return _method_type(receiver, method, node, self)

    def _called(self, callee: Ty | None, node: ast.Call) -> Ty | None:
        """What calling a value of type `callee` gives: a module's output, a class's instance."""
        if callee is not None and callee.lib == "torch" and callee.kind in ("model", "placed", "class"):
            return torch_api.call_type(callee, node, self)
        if callee is not None and callee.kind == "class" or callee is OTHER:
            return OTHER
        return None

    def _builtin_type(self, name: str, call: ast.Call) -> Ty | None:
        """`next(it)` is an item of `it` and `iter(x)` yields the items of `x`, where those
        are known; `int(...)` is a Python int (a device index where torch knows it is one)."""
        if name == "int":
            return torch_api.device_index(call, self) or OTHER
        value = call.args[0]
        items = None if isinstance(value, ast.Starred) else self.type_of(value)
        element = _element_type(items)
        if name == "next":
            return element
        return items if element is not None else None

    def _attribute_type(self, node: ast.Attribute) -> Ty | None:
        if node.attr in torch_api.LEGACY_TENSOR_TYPES:  # `torch.cuda.FloatTensor`, named
            legacy = torch_api.legacy_class(self.qualname(node))
            if legacy is not None:
                return legacy
        receiver = self.type_of(node.value)
        if receiver is None:
            known = self.resolver.attribute(self, node) if self.resolver is not None else None
            if known is None and node.attr == "device":
                # where some tensor or module lives: a device that is not known to be the
                # host is, like `torch.device(name)`, not a literal "cpu"
                return Ty(Kind.DEVICE, "torch", DEVICE)
            return known
        if not receiver.lib:
            return None
        if receiver.kind in ("module", "symbol"):  # `config.device`, of a project module
            exported = self.project.get(f"{receiver.lib}.{node.attr}")
            if exported is not None:
                return None if exported.function else exported.ty
        if receiver.kind in ("estimator", "other"):  # fitted arrays, a dataset's fields
            return estimators.attribute_type(receiver, node.attr)
        if receiver.kind == "placer":
            return accelerate_api.attribute_type(receiver, node.attr)
        if receiver.kind == "graph":
            return None  # views of nodes, edges, degrees: not values the rules follow
        if receiver.lib == "torch":
            return torch_api.attribute_type(receiver, node.attr)
        if receiver.kind == "array":
            return numpy_api.attribute_type(receiver, node.attr)
        return pandas_api.attribute_type(receiver, node.attr)

    def _subscript_type(self, node: ast.Subscript) -> Ty | None:
        receiver = self.type_of(node.value)
        if receiver is None:
            return None
        if receiver.lib == "torch":
            return torch_api.subscript_type(receiver)
        if receiver.kind == "array":
            return numpy_api.subscript_type(receiver, node.slice, self)
        if receiver.kind == "collection":
            return receiver
        if receiver.kind == "graph":
            return None  # `G[n]`: a node's adjacency view
        if receiver.kind == "tuple":
            return _item(receiver, node.slice)
        if receiver.kind == "sequence":
            return receiver if isinstance(node.slice, ast.Slice) else receiver.items[0]
        if receiver.kind == "indexer" and isinstance(node.value, ast.Attribute):
            # `frame.loc[...]`: what it selects depends on what the indexer belongs to
            owner = self.type_of(node.value.value)
            return None if owner is None else pandas_api.indexed_type(owner, node.value.attr, node.slice, self)
        return pandas_api.subscript_type(receiver, node.slice, self)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _arith(left: Ty | None, right: Ty | None, comparison: bool = False) -> Ty | None:
    """The result of an operator on two operands: frame beats series beats scalar."""
    if torch_api.is_torch_value(left) or torch_api.is_torch_value(right):
        return torch_api.arith(left, right, comparison)
    return dominant([left, right])


def unpacked(ty: Ty | None, target: ast.Tuple | ast.List) -> tuple[Ty | None, ...]:
    """What each part of an unpacking target gets: the items of a tuple of known items when
    the counts match (and nothing is starred), the items of a value whose items are known
    (a tensor's rows, the parts of a placed batch), else unknown."""
    count = len(target.elts)
    if any(isinstance(e, ast.Starred) for e in target.elts):
        return (None,) * count
    if ty is not None and ty.kind == "tuple":
        return ty.items if len(ty.items) == count else (None,) * count
    return (_element_type(ty),) * count


def _element_type(ty: Ty | None) -> Ty | None:
    """What iterating a value yields when that is known: rows of a tensor or a CuPy array,
    on the same device; placed values from something placed (a batch, a prepared loader);
    the chunks of a chunked reader (frames); the items of a tuple when they all agree."""
    if ty is None:
        return None
    if ty.kind == "reader":
        return Ty(Kind.FRAME, ty.lib)
    if ty.kind == "tuple":
        first = ty.items[0] if ty.items else None
        return first if all(same(item, first) for item in ty.items) else None
    if ty.kind == "sequence":
        return ty.items[0] if ty.builtin != "dict" else None  # a dict yields its keys
    if ty.kind not in ("tensor", "output", "placed", "array"):
        return None
    if ty.lib == "torch":
        return torch_api.element_type(ty)
    return numpy_api.element_type(ty)


def _item(ty: Ty, key: ast.expr) -> Ty | None:
    """`result[0]` of a tuple of known items."""
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub) and isinstance(key.operand, ast.Constant):
        index = key.operand.value
        index = -index if type(index) is int else None
    else:
        index = key.value if isinstance(key, ast.Constant) else None
    if type(index) is not int or not -len(ty.items) <= index < len(ty.items):
        return None
    return ty.items[index]


def _constructed_type(qualname: str, call: ast.Call | None = None, env: TypeEnv | None = None) -> Ty | None:
    """What calling the function (or class) `qualname` returns; with no call, the type an
    annotation naming it promises."""
    known = pandas_api.constructed_type(qualname, call, env) or numpy_api.constructed_type(qualname, call, env)
    if known is not None:
        return known
    if qualname in display_api.SUMMARY_WRITERS:
        return Ty(Kind.LOGGER, display_api.TENSORBOARD)
    if qualname.startswith("torch."):
        return torch_api.constructed_type(qualname[6:], call, env)
    if qualname.startswith("torchtext."):
        return torch_api.torchtext_iterator_type(qualname, call, env)
    if qualname in torch_api.DEVICE_HELPERS and call is not None:
        return torch_api.DEVICE_HELPERS[qualname]
    if qualname.startswith(accelerate_api.PREFIXES):
        return accelerate_api.constructed_type(qualname, call, env)
    returned = estimators.returned_type(qualname, call, env)
    if returned is not None:
        return returned
    if estimators.role(qualname) is not None:
        return Ty(Kind.ESTIMATOR, qualname)
    if dask_api.makes_collection(qualname):
        return Ty(Kind.COLLECTION, "dask")
    return networkx_api.constructed_type(qualname)


def _sequence_method(receiver: Ty, method: str) -> Ty | None:
    """`xs.pop()`, `xs.copy()` of a list of known elements; `d.values()`, `d.items()` of a
    dict of known values (not `d.get(k, default)`: the default may be anything)."""
    element = receiver.items[0]
    if method == "copy":
        return receiver
    if receiver.builtin == "dict":
        if method == "values":
            return sequence_of(element)  # type: ignore[arg-type]
        if method == "items":
            return sequence_of(Ty(Kind.TUPLE, items=(None, element)))
        return None
    return element if method == "pop" else None


def _method_type(receiver: Ty, method: str, call: ast.Call, env: TypeEnv) -> Ty | None:
    """`receiver.<method>(...)`: asks the module of the receiver's library."""
    kind = receiver.kind
    if receiver.lib == "torch":
        return torch_api.method_type(receiver, method, call, env)
    if kind == "sequence":
        return _sequence_method(receiver, method)
    if kind == "placer":
        return accelerate_api.method_type(receiver, method, call, env)
    if kind in ("array", "generator", "other"):  # "other": a frozen SciPy distribution's `rvs`
        return numpy_api.method_type(receiver, method, call)
    if kind == "estimator":
        return receiver if method in estimators.RETURNS_SELF else None
    if kind == "collection":
        return None if method in dask_api.EAGER_METHODS else receiver
    if kind == "graph":
        return networkx_api.method_type(receiver, method)
    return pandas_api.method_type(receiver, method, call)

"""Type evidence: what the engine knows a name or expression holds.

The evidence is gathered from source only (imports, constructors, readers, annotations,
methods that return frames, data flow through assignments) while the engine walks the
tree in source order. Nothing is guessed from variable names: what is not known is
`None` (unknown), and what is known to be something uninteresting (a list, a literal,
an instance of a class defined in the file) is `OTHER`, so that rules can leave it alone.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Protocol

from . import dask_api, estimators

# -- what a value can be -----------------------------------------------------------


@dataclass(frozen=True)
class Ty:
    """A value's kind and the library it comes from.

    kind: "module"/"symbol" (an imported name; `lib` is its qualified name), "frame",
    "series", "ndframe" (frame or series), "groupby", "indexer" (`.loc`, `.iloc` ...),
    "accessor" (`.str`, `.dt`), "reader" (a chunked reader, `read_csv(..., chunksize=n)`:
    not a frame itself, but iterating it yields frames), "array", "class" (a class defined
    in the file), "estimator" (a scikit-learn/cuML estimator; `lib` is its class's qualified
    name, see `estimators.role`), "collection" (a lazy Dask array, bag or delayed value),
    "other".
    lib: for data kinds, the library family ("pandas", "cudf", "modin", "dask", "numpy", "cupy").
    Torch values (lib "torch") are "tensor", "model" (an `nn.Module`), "output" (what a
    module returns: a tensor or a container of them), "placed" (something moved with
    `.to(...)`/`.cuda()` that may be a tensor, a module or a batch) and "device" (a device
    specification); for them `place` says where the value lives: "device" (an accelerator:
    any device that is not a literal "cpu"), "host", or "" (unknown).
    """

    kind: str
    lib: str = ""
    place: str = ""

    @property
    def is_frame(self) -> bool:
        return self.kind == "frame"

    @property
    def is_pandas_like(self) -> bool:
        return self.kind in ("frame", "series", "ndframe")


OTHER = Ty("other")
#: Kinds that hold many values (as opposed to scalars).
_COLLECTIONS = frozenset({"frame", "series", "ndframe", "array", "groupby", "indexer", "accessor", "tensor"})

#: Module qualified names whose DataFrame API is pandas', mapped to the library family.
FRAME_LIBRARIES = {
    "pandas": "pandas",
    "modin.pandas": "modin",
    "cudf": "cudf",
    "dask.dataframe": "dask",
}
ARRAY_LIBRARIES = {"numpy": "numpy", "cupy": "cupy"}
#: Top-level modules whose presence makes a file worth analysing.
LIBRARY_TRIGGERS = (b"pandas", b"cudf", b"modin", b"dask", b"numpy", b"cupy", b"torch", b"sklearn", b"cuml")

FRAME_FACTORIES = frozenset(
    """DataFrame read_csv read_parquet read_json read_excel read_sql read_sql_query read_sql_table
    read_feather read_table read_fwf read_orc read_stata read_sas read_spss read_xml
    merge merge_asof merge_ordered pivot_table pivot get_dummies json_normalize crosstab melt from_pandas
    from_arrow DataFrame.from_records DataFrame.from_dict""".split()
)
SERIES_FACTORIES = frozenset({"Series"})
#: Return a frame or a series: `concat` (depending on its pieces), `read_hdf` (whatever was stored).
NDFRAME_FACTORIES = frozenset({"concat", "read_hdf"})
#: Readers that return an iterator of chunks instead of a frame when given `chunksize=`
#: (or `iterator=True`): `TextFileReader`, `JsonReader`, a generator for `read_sql*`, ...
CHUNKED_READERS = frozenset(
    "read_csv read_table read_fwf read_json read_sql read_sql_query read_sql_table read_hdf read_stata read_sas".split()
)
#: Libraries whose chunked readers behave like pandas' (cuDF and Dask have no `chunksize`).
_CHUNKING_LIBRARIES = frozenset({"pandas", "modin"})

FRAME_TO_FRAME = frozenset(
    """copy head tail dropna fillna ffill bfill drop drop_duplicates rename reset_index set_index
    sort_values sort_index query assign merge join astype filter sample nlargest nsmallest pivot pivot_table
    melt explode replace round abs clip where mask select_dtypes reindex transpose isna isnull notna notnull
    interpolate add_prefix add_suffix infer_objects convert_dtypes rename_axis set_axis droplevel
    applymap map cumsum cumprod diff shift pct_change rank describe corr cov _append
    append persist""".split()
)
FRAME_TO_SERIES = frozenset("sum mean median min max std var count nunique idxmax idxmin prod any all dtypes".split())
SERIES_TO_SERIES = frozenset(
    """copy head tail dropna fillna ffill bfill drop drop_duplicates rename sort_values sort_index astype
    abs round clip where mask replace isna isnull notna notnull isin between map cumsum cumprod cummax cummin
    diff shift pct_change rank interpolate reindex sample nlargest nsmallest explode
    value_counts _append append persist""".split()
)
ARRAY_FACTORIES = frozenset(
    """array asarray ascontiguousarray zeros ones empty full arange linspace logspace zeros_like ones_like
    empty_like full_like concatenate stack vstack hstack column_stack where sqrt exp log abs sin cos
    random.rand random.randn random.random random.normal random.uniform random.randint""".split()
)
#: More NumPy/CuPy functions that return an array when given one (array family rules).
ARRAY_FACTORIES = ARRAY_FACTORIES | frozenset(
    "diff cumsum cumprod sort flip tile repeat fromiter loadtxt genfromtxt atleast_1d atleast_2d unique convolve".split()
)
#: Array methods and attributes that return an array.
ARRAY_TO_ARRAY = frozenset(
    "copy astype reshape ravel flatten transpose squeeze clip round cumsum cumprod T".split()
)
#: Methods of a NumPy `Generator` (`np.random.default_rng()`) that return an array when
#: given `size=` (without it they return one scalar).
GENERATOR_SAMPLERS = frozenset(
    "random integers normal uniform standard_normal exponential poisson binomial choice lognormal gamma beta".split()
)
BUILTIN_OTHER = frozenset(
    "list dict set tuple str int float bool bytes len range enumerate zip sorted reversed frozenset".split()
)
_LITERALS = (
    ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.JoinedStr, ast.Constant,
)


#: NumPy's ufuncs (`isinstance(getattr(numpy, name), numpy.ufunc)`, NumPy 2.4): pandas
#: hands these whole columns instead of calling them per row or per element.
NUMPY_UFUNCS = frozenset(
    """abs absolute acos acosh add arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan atan2
    atanh bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor cbrt ceil conj conjugate copysign cos cosh deg2rad degrees divide divmod
    equal exp exp2 expm1 fabs float_power floor floor_divide fmax fmin fmod frexp gcd greater greater_equal
    heaviside hypot invert isfinite isinf isnan isnat lcm ldexp left_shift less less_equal log log10 log1p
    log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor matmul matvec maximum minimum
    mod modf multiply negative nextafter not_equal positive pow power rad2deg radians reciprocal remainder
    right_shift rint sign signbit sin sinh spacing sqrt square subtract tan tanh true_divide trunc vecdot
    vecmat""".split()
)


def is_numpy_ufunc(qualname: str | None) -> bool:
    """`numpy.sqrt` (however imported) is a ufunc; `numpy.sum` is a plain function."""
    return qualname is not None and qualname.startswith("numpy.") and qualname[6:] in NUMPY_UFUNCS


def library_of(qualname: str, table: dict[str, str]) -> tuple[str, str] | None:
    """Split `pandas.read_csv` into ("pandas", "read_csv") using the longest known module.

    Looks up each dotted prefix of the name, longest first: no sorting, no scan of the table."""
    end = qualname.rfind(".")
    while end > 0:
        module = qualname[:end]
        if module in table:
            return table[module], qualname[end + 1 :]
        end = qualname.rfind(".", 0, end)
    return None


# -- scopes ------------------------------------------------------------------------


class Scope:
    """Bindings of one function, class, lambda or comprehension (or the module)."""

    __slots__ = ("names", "parent", "kind")

    def __init__(self, parent: "Scope | None", kind: str) -> None:
        self.names: dict[str, Ty | None] = {}
        self.parent = parent
        self.kind = kind


def join(a: Ty | None, b: Ty | None) -> Ty | None:
    if a is b or a == b:
        return a
    if a is not None and b is not None and a.lib == b.lib == "torch" and a.kind == b.kind:
        return _join_torch(a, b)
    return None


class Resolver(Protocol):
    """File-wide knowledge `TypeEnv` consults for what the current scope cannot tell."""

    def call(self, env: "TypeEnv", node: ast.Call) -> Ty | None:
        """What a call of one of the file's own functions or methods returns, if known."""

    def attribute(self, env: "TypeEnv", node: ast.Attribute) -> Ty | None:
        """An attribute (`self.means`) of an instance of one of the file's classes, if known."""


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
            if result is not UNBOUND and (current is UNBOUND or result != current):
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
                    self.bind(alias.asname, Ty("module", alias.name))
                else:
                    top = alias.name.split(".", 1)[0]
                    self.bind(top, Ty("module", top))
            return
        if node.level:  # relative imports are the project's own code
            for alias in node.names:
                self.bind(alias.asname or alias.name, None)
            return
        for alias in node.names:
            if alias.name != "*":
                self.bind(alias.asname or alias.name, Ty("symbol", f"{node.module}.{alias.name}"))

    def bind_target(self, target: ast.expr, ty: Ty | None) -> None:
        """Bind an assignment target; parts of unpacked tuples become unknown."""
        if isinstance(target, ast.Name):
            self.bind(target.id, ty)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_target(element.value if isinstance(element, ast.Starred) else element, None)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None)

    def bind_loop_target(self, target: ast.expr, iterable: ast.expr) -> None:
        """`for i, row in df.iterrows()` binds `row` to a Series, `for chunk in reader` (a
        chunked reader) binds `chunk` to a frame; other targets are unknown."""
        chunk = self._chunk_target(target, iterable)
        if chunk is not None:
            name, reader = chunk
            self.bind_target(target, None)
            self.bind(name, Ty("frame", reader.lib))
            return
        if isinstance(target, ast.Name):
            element = _element_type(self.type_of(iterable))
            if element is not None:  # `for row in t` over a tensor or CuPy array: rows on its device
                self.bind(target.id, element)
                return
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[1], ast.Name)
            and iterates_rows(iterable, self) is not None
        ):
            self.bind_target(target.elts[0], None)
            self.bind(target.elts[1].id, Ty("series", iterates_rows(iterable, self) or ""))
            return
        self.bind_target(target, None)

    def _chunk_target(self, target: ast.expr, iterable: ast.expr) -> tuple[str, Ty] | None:
        """`for chunk in reader` or `for i, chunk in enumerate(reader)` over a chunked reader:
        the name bound to each chunk, and the reader."""
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[1], ast.Name)
            and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "enumerate"
            and self.is_builtin("enumerate")
            and len(iterable.args) == 1
            and not isinstance(iterable.args[0], ast.Starred)
        ):
            name, iterable = target.elts[1].id, iterable.args[0]
        elif isinstance(target, ast.Name):
            name = target.id
        else:
            return None
        reader = self.type_of(iterable)
        return (name, reader) if reader is not None and reader.kind == "reader" else None

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
            return _arith(self.type_of(node.left), self.type_of(node.comparators[-1]))
        if isinstance(node, ast.UnaryOp):
            return self.type_of(node.operand) if not isinstance(node.op, ast.Not) else OTHER
        if isinstance(node, ast.NamedExpr):
            return self.type_of(node.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:4] in _DEVICE_PREFIXES:
            place = device_string_place(node.value)
            if place:
                return Ty("device", "torch", place)
        if isinstance(node, ast.IfExp):
            return _device_choice(self.type_of(node.body), self.type_of(node.orelse))
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
                if ty is not None and ty.kind in _COLLECTIONS:
                    names.add(sub.id)
        return frozenset(names)

    def class_type(self, node: ast.ClassDef) -> Ty:
        """A class of the file; a subclass of `torch.nn.Module` (directly or through
        another class of the file) is marked, so that its instances are known modules."""
        for base in node.bases:
            name = self.qualname(base)
            ty = self.type_of(base) if isinstance(base, ast.Name) else None
            if name is not None and name.startswith("torch.nn.") or ty == Ty("class", "torch"):
                return Ty("class", "torch")
        return Ty("class")

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
                return Ty("array", "numpy")
            return None
        name = self.qualname(node)
        if name is None:
            return None
        if name == "numpy.typing.NDArray":  # unsubscripted: an array of any dtype
            return Ty("array", "numpy")
        return _constructed_type(name)

    def _call_type(self, node: ast.Call) -> Ty | None:
        func = node.func
        name = self.qualname(func)
        if name is not None:
            return _constructed_type(name, node, self)
        if isinstance(func, ast.Call) and dask_api.is_delayed(self.qualname(func.func)):
            return Ty("collection", "dask")  # `dask.delayed(f)(x)`: a lazy value
        if isinstance(func, ast.Name):
            callee = self.lookup(func.id)
            if callee is None and self.resolver is not None:
                return self.resolver.call(self, node)
            if callee is not None and callee.lib == "torch" and callee.kind in ("model", "placed", "class"):
                return _torch_call_type(callee, node, self)
            if callee is not None and callee.kind == "class" or callee is OTHER:
                return OTHER
            return None
        if isinstance(func, ast.Attribute):
            receiver = self.type_of(func.value)
            if receiver is None:
                known = self.resolver.call(self, node) if self.resolver is not None else None
                return known if known is not None else _moved_type(func.attr, node, self)
            return _method_type(receiver, func.attr, node, self)
        return None

    def _attribute_type(self, node: ast.Attribute) -> Ty | None:
        receiver = self.type_of(node.value)
        if receiver is None and self.resolver is not None:
            return self.resolver.attribute(self, node)
        if receiver is None or not receiver.lib:
            return None
        attr = node.attr
        if receiver.lib == "torch":
            return _torch_attribute_type(receiver, attr)
        if receiver.lib == "cudf" and attr == "values_host" and receiver.is_pandas_like:
            return Ty("array", "numpy")
        if receiver.kind in ("frame", "series", "ndframe"):
            if attr in ("loc", "iloc", "at", "iat"):
                return Ty("indexer", receiver.lib)
            if attr in ("str", "dt", "cat"):
                return Ty("accessor", receiver.lib)
            if attr == "values":  # a Dask collection's `.values` is a Dask array: not typed
                return None if receiver.lib == "dask" else Ty("array", "cupy" if receiver.lib == "cudf" else "numpy")
            if attr == "T" and receiver.kind == "frame":
                return receiver
        if receiver.kind == "array" and attr == "T":
            return receiver
        return None

    def _subscript_type(self, node: ast.Subscript) -> Ty | None:
        receiver = self.type_of(node.value)
        if receiver is None:
            return None
        key = node.slice
        if receiver.lib == "torch" and receiver.kind in ("tensor", "placed", "output"):
            return receiver  # an element, a slice or a field: on the same device
        if receiver.kind == "array" and receiver.lib == "cupy":
            return receiver  # even one element of a CuPy array is a (0-d) array on the device
        if receiver.kind == "frame":
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return Ty("series", receiver.lib)
            if isinstance(key, ast.List):
                return receiver
            key_ty = self.type_of(key)
            if key_ty is not None and key_ty.kind == "series":
                return receiver  # boolean mask selects rows
            return None
        if receiver.kind in ("groupby", "collection"):
            return receiver
        if receiver.kind == "array":
            # a slice (`a[1:]`, `a[:, 0]` is not one) or a boolean mask of arrays keeps an array
            key_ty = None if isinstance(key, ast.Slice) else self.type_of(key)
            return receiver if isinstance(key, ast.Slice) or key_ty is not None and key_ty.kind == "array" else None
        if receiver.kind == "series":
            key_ty = self.type_of(key)
            if key_ty is not None and key_ty.kind == "series":
                return receiver
        return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _arith(left: Ty | None, right: Ty | None) -> Ty | None:
    """The result of an operator on two operands: frame beats series beats scalar."""
    if _is_torch_value(left) or _is_torch_value(right):
        return _torch_arith(left, right)
    kinds = [t for t in (left, right) if t is not None and t.kind in ("frame", "series", "ndframe", "array")]
    if not kinds:
        return None
    for kind in ("frame", "ndframe", "series", "array"):
        for ty in kinds:
            if ty.kind == kind:
                return ty
    return None


def _constructed_type(qualname: str, call: ast.Call | None = None, env: TypeEnv | None = None) -> Ty | None:
    frame = library_of(qualname, FRAME_LIBRARIES)
    if frame is not None:
        lib, attr = frame
        if call is not None and attr in CHUNKED_READERS:
            chunked = _chunked(call)
            if chunked is None:
                return None
            if chunked:
                frames = attr != "read_json" or _json_type(lib, call) == Ty("frame", lib)
                return Ty("reader", lib) if frames and lib in _CHUNKING_LIBRARIES else None
        if attr == "read_excel" and call is not None:
            return _excel_type(lib, call)
        if attr == "read_json" and call is not None:
            return _json_type(lib, call)
        if attr in FRAME_FACTORIES:
            return Ty("frame", lib)
        if attr in SERIES_FACTORIES:
            return Ty("series", lib)
        if attr == "concat":
            return _concat_type(lib, call, env)
        if attr in NDFRAME_FACTORIES:
            return Ty("ndframe", lib)
        return None
    array = library_of(qualname, ARRAY_LIBRARIES)
    if array is not None:
        lib, attr = array
        if attr == "where" and call is not None and len(call.args) != 3:
            return None  # `np.where(condition)` returns a tuple of index arrays
        if attr == "unique" and call is not None and any(k.arg is None or k.arg.startswith("return_")
                                                         for k in call.keywords):
            return None  # `return_counts=True` and the like return a tuple
        if attr in ("random.default_rng", "random.Generator") and lib == "numpy" and call is not None:
            return Ty("generator", lib)
        if lib == "cupy" and attr == "asnumpy":
            return Ty("array", "numpy")  # the copy to the host
        if attr in ARRAY_FACTORIES or attr == "ndarray" or lib == "cupy" and attr in CUPY_ARRAY_FUNCTIONS:
            return Ty("array", lib)
    if qualname.startswith("torch."):
        return _torch_constructed_type(qualname[6:], call, env)
    if estimators.role(qualname) is not None:
        return Ty("estimator", qualname)
    if dask_api.makes_collection(qualname):
        return Ty("collection", "dask")
    return None


def _keyword(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The argument passed as `name=` (or at `position`), if any."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is not None and len(call.args) > position and not any(
        isinstance(a, ast.Starred) for a in call.args[: position + 1]
    ):
        return call.args[position]
    return None


def _chunked(call: ast.Call) -> bool | None:
    """Whether a reader call asks for chunks: True (`chunksize=1000`, `iterator=True`), False
    (neither, or `chunksize=None`/`iterator=False`), None (decided at run time, or `**options`)."""
    if any(k.arg is None for k in call.keywords):
        return None
    result: bool | None = False
    for name in ("chunksize", "iterator"):
        value = _keyword(call, name)
        if value is None:
            continue
        if isinstance(value, ast.Constant):
            if value.value is not None and value.value is not False:
                return True
        else:
            result = None
    return result


def _excel_type(lib: str, call: ast.Call) -> Ty | None:
    """`read_excel` returns a frame for one sheet (a name or a position, the first by default)
    and a dict of frames for `sheet_name=None` or a list of sheets."""
    if any(k.arg is None for k in call.keywords):
        return None
    sheet = _keyword(call, "sheet_name", 1)
    if sheet is None or isinstance(sheet, ast.Constant) and isinstance(sheet.value, (str, int)):
        return Ty("frame", lib)
    if isinstance(sheet, (ast.Constant, ast.List, ast.Tuple, ast.ListComp)):
        return OTHER  # `None` or a list of sheets: a dict of frames
    return None


def _json_type(lib: str, call: ast.Call) -> Ty | None:
    """`read_json` returns a series for `typ="series"`."""
    if any(k.arg is None for k in call.keywords):
        return None
    typ = _keyword(call, "typ")
    if typ is None:
        return Ty("frame", lib)
    if isinstance(typ, ast.Constant) and typ.value in ("frame", "series"):
        return Ty(typ.value, lib)
    return None


def _concat_type(lib: str, call: ast.Call | None, env: TypeEnv | None) -> Ty:
    """`concat` returns a frame if it is given one, a series if only series; else either."""
    if call is not None and env is not None and call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        kinds = {ty.kind for ty in (env.type_of(e) for e in call.args[0].elts) if ty is not None}
        if "frame" in kinds:
            return Ty("frame", lib)
        if kinds == {"series"} and not any(
            k.arg == "axis" and not (isinstance(k.value, ast.Constant) and k.value.value in (0, "index"))
            for k in call.keywords
        ):
            return Ty("series", lib)
    return Ty("ndframe", lib)


def _method_type(receiver: Ty, method: str, call: ast.Call, env: TypeEnv) -> Ty | None:
    lib = receiver.lib
    kind = receiver.kind
    if lib == "torch":
        return _torch_method_type(receiver, method, call, env)
    if lib == "cupy" and kind == "array" and method in CUPY_ARRAY_METHODS:
        return receiver
    if lib == "cupy" and kind == "array" and method == "get":
        return Ty("array", "numpy")  # the copy to the host
    if lib == "cudf" and kind in ("frame", "series", "ndframe") and method in ("to_numpy", "to_cupy"):
        # `to_numpy()` copies to the host; `to_cupy()` (like `.values`) stays on the device
        return Ty("array", "numpy" if method == "to_numpy" else "cupy")
    if kind in ("frame", "series", "ndframe") and (method == "to_pandas" or method == "compute" and lib == "dask"):
        # into pandas: cuDF's `to_pandas()` copies to the host; Dask's `compute()` gathers
        # its partitions, which are pandas objects under Dask's default backend
        return Ty(kind, "pandas")
    if kind == "reader":
        return Ty("frame", lib) if method == "get_chunk" else None
    if kind == "frame":
        if method in FRAME_TO_FRAME:
            return receiver
        if method in FRAME_TO_SERIES:
            return Ty("series", lib)
        if method == "groupby":
            return Ty("groupby", lib)
        if method == "to_numpy":
            return Ty("array", "cupy" if lib == "cudf" else "numpy")
    elif kind in ("series", "ndframe"):
        if method == "reset_index" and kind == "series":
            drop = any(k.arg == "drop" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
            return receiver if drop else Ty("frame", lib)
        if method in SERIES_TO_SERIES:
            return receiver
        if method == "to_frame":
            return Ty("frame", lib)
        if method == "groupby" and kind == "series":
            return Ty("groupby", lib)
        if method == "to_numpy":
            return Ty("array", "cupy" if lib == "cudf" else "numpy")
    elif kind == "groupby":
        if method in ("agg", "aggregate", "sum", "mean", "median", "min", "max", "count", "size", "std", "var",
                      "first", "last", "nunique", "transform", "cumsum"):
            return Ty("ndframe", lib)
    elif kind == "accessor":
        return Ty("series", lib)
    elif kind == "array":
        return receiver if method in ARRAY_TO_ARRAY else None
    elif kind == "generator":
        sized = _keyword(call, "size") is not None or (method == "random" and bool(call.args))
        return Ty("array", lib) if method in GENERATOR_SAMPLERS and sized else None
    elif kind == "estimator":
        return receiver if method in estimators.RETURNS_SELF else None
    elif kind == "collection":
        return None if method in dask_api.EAGER_METHODS else receiver
    elif kind == "class" or receiver is OTHER:
        return None
    return None


def iterates_rows(iterable: ast.expr, env: TypeEnv) -> str | None:
    """If `iterable` is `X.iterrows()` on something that may be a frame, X's library
    ("" when only the call itself is the evidence); else None."""
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "iterrows"
        and not iterable.args
        and not iterable.keywords
    ):
        return None
    receiver = env.type_of(iterable.func.value)
    if receiver is None:
        return ""
    if receiver.kind in ("frame", "ndframe"):
        return receiver.lib
    return None


# -- torch, CuPy and cuDF: where a value lives ----------------------------------------
# A torch value's `place` is DEVICE when it was created or moved with a device that is not
# a literal "cpu" (`"cuda"`, `torch.device(d)`, `"cuda" if torch.cuda.is_available() else
# "cpu"`), HOST when it is known to be on the CPU, "" when unknown. CuPy arrays and cuDF
# objects always live on the device. Calls that copy to the host (`.cpu()`, `.numpy()`,
# `cupy.asnumpy`, `.to_pandas()`) give host values.

DEVICE = "device"
HOST = "host"
#: `x.to(dtype)`: the value stays where it is.
_KEEP = "keep"
#: Device types a string may name (`"cuda"`, `"cuda:1"`, `"mps"`); "cpu" is the host.
_DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hip"})
#: The first four characters of such strings: a cheap test before parsing one.
_DEVICE_PREFIXES = frozenset({"cpu", "cpu:", "cuda", "mps", "mps:", "xpu", "xpu:", "hip", "hip:"})

#: torch functions that create a tensor: on `device=` if given, else on the host (the
#: `*_like` ones and `as_tensor` on their argument's device).
TORCH_FACTORIES = frozenset(
    """tensor as_tensor from_numpy zeros ones empty full rand randn randint randperm arange linspace
    logspace eye zeros_like ones_like empty_like full_like rand_like randn_like randint_like""".split()
)
#: torch functions that return one tensor on the device of their tensor arguments (not the
#: ones that return tuples, like `max(x, dim)` or `sort`, nor Python values like `equal`).
TORCH_TENSOR_FUNCTIONS = frozenset(
    """cat concat stack hstack vstack matmul mm bmm einsum sum mean prod std var abs exp log sqrt sigmoid
    tanh relu softmax log_softmax where clamp clip argmax argmin any all isnan isinf isfinite eq ne gt lt
    ge le maximum minimum cumsum cumprod flatten reshape squeeze unsqueeze transpose permute outer dot
    square pow round floor ceil sign neg logical_and logical_or logical_not count_nonzero""".split()
)
#: Tensor methods that return a tensor on the same device (tuple-returning forms excluded).
TENSOR_TO_TENSOR = frozenset(
    """sum mean prod std var abs exp log sqrt pow sigmoid tanh relu softmax log_softmax argmax argmin any all
    float double half bfloat16 long int short bool byte detach clone contiguous view view_as reshape
    reshape_as flatten squeeze unsqueeze t transpose permute expand expand_as repeat flip eq ne gt lt ge le
    isnan isinf isfinite norm round floor ceil clamp clip add sub mul div matmul mm bmm masked_fill gather
    index_select type_as cumsum cumprod diff neg sign logical_not logical_and logical_or nonzero
    count_nonzero square""".split()
)
#: Module methods that return the module itself.
MODEL_TO_MODEL = frozenset("eval train float double half bfloat16 requires_grad_ zero_grad".split())
#: Tensor attributes that are tensors on the same device, and ones that are plain values.
_TENSOR_ATTRIBUTES = frozenset("T mT H mH data grad real imag".split())
_PLAIN_ATTRIBUTES = frozenset(
    "shape dtype ndim is_cuda requires_grad layout itemsize nbytes training is_leaf names".split()
)
TORCH_DTYPES = frozenset(
    """float float16 float32 float64 bfloat16 half double int int8 int16 int32 int64 long short uint8 bool
    complex64 complex128 cfloat cdouble""".split()
)
#: CuPy functions (beyond the array factories) and array methods that return a CuPy array
#: (0-d for a reduction, still on the device).
CUPY_ARRAY_FUNCTIONS = frozenset(
    """sum mean max min any all argmax argmin dot matmul count_nonzero isnan isinf isfinite allclose std var
    prod linalg.norm maximum minimum clip round""".split()
)
CUPY_ARRAY_METHODS = frozenset(
    """sum mean max min any all argmax argmin std var prod dot clip round copy astype reshape ravel flatten
    transpose squeeze cumsum cumprod conj nonzero""".split()
) - {"nonzero"}


def device_string_place(text: str) -> str | None:
    """`"cuda:1"` -> DEVICE, `"cpu"` -> HOST, anything else -> None."""
    kind, _, index = text.partition(":")
    if index and not index.isdigit():
        return None
    if kind == "cpu":
        return HOST
    return DEVICE if kind in _DEVICE_TYPES else None


def device_place(node: ast.expr, env: TypeEnv) -> str | None:
    """Where a device specification (`"cuda"`, `torch.device(...)`, a name bound to one) points."""
    ty = env.type_of(node)
    return ty.place if ty is not None and ty.kind == "device" else None


def is_device_resident(ty: Ty | None) -> bool:
    """A value on the device: a torch value placed on one, any CuPy array, any cuDF object."""
    if ty is None:
        return False
    if ty.lib == "torch":
        return ty.place == DEVICE and ty.kind in ("tensor", "placed", "output", "model")
    if ty.lib == "cupy":
        return ty.kind == "array"
    return ty.lib == "cudf" and ty.kind in ("frame", "series", "ndframe")


def is_dtype(node: ast.expr, env: TypeEnv) -> bool:
    """`torch.float16` (however imported) or `x.dtype`."""
    name = env.qualname(node)
    if name is not None:
        return name.startswith("torch.") and name[6:] in TORCH_DTYPES
    return isinstance(node, ast.Attribute) and node.attr == "dtype"


def move_target(call: ast.Call, env: TypeEnv) -> str | None:
    """Where `x.to(...)` puts `x`: DEVICE or HOST, "keep" (only a dtype or `copy=`), or None
    (unknown: a name that may hold a device or a dtype)."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    device = _keyword(call, "device")
    if device is not None:
        return device_place(device, env) or DEVICE  # a device, and not a literal "cpu"
    if not call.args:
        return _KEEP
    first = call.args[0]
    place = device_place(first, env)
    if place:
        return place
    ty = env.type_of(first)
    if _is_torch_value(ty):  # `x.to(other)`: other's device and dtype
        return ty.place or None  # type: ignore[union-attr]
    return _KEEP if is_dtype(first, env) else None


def _is_torch_value(ty: Ty | None) -> bool:
    return ty is not None and ty.lib == "torch" and ty.kind in ("tensor", "placed", "output")


def _combined_place(types: list[Ty | None]) -> str:
    """Torch computes on the device of its tensor operands."""
    places = [ty.place for ty in types if _is_torch_value(ty) or ty is not None and ty.kind == "model"
              and ty.lib == "torch"]
    if DEVICE in places:
        return DEVICE
    return HOST if places and all(place == HOST for place in places) else ""


def _join_torch(a: Ty, b: Ty) -> Ty:
    """Two branches bound torch values of one kind: a device specification is not a literal
    "cpu" unless both are; any other value keeps a place both agree on."""
    if a.kind == "device":
        return Ty("device", "torch", HOST if a.place == b.place == HOST else DEVICE)
    return Ty(a.kind, "torch", a.place if a.place == b.place else "")


def _device_choice(body: Ty | None, orelse: Ty | None) -> Ty | None:
    """`"cuda" if torch.cuda.is_available() else "cpu"` is a device specification."""
    if body is not None and orelse is not None and body.kind == orelse.kind == "device":
        return _join_torch(body, orelse)
    return None


def _torch_arith(left: Ty | None, right: Ty | None) -> Ty:
    """An operator on a tensor gives a tensor on its device."""
    return Ty("tensor", "torch", _combined_place([left, right]))


def _element_type(ty: Ty | None) -> Ty | None:
    """What iterating a value yields when that is known: rows of a tensor or a CuPy array,
    on the same device."""
    if ty is None:
        return None
    if ty.lib == "torch" and ty.kind in ("tensor", "output"):
        return ty
    if ty.lib == "cupy" and ty.kind == "array":
        return ty
    return None


def _argument_types(call: ast.Call, env: TypeEnv) -> list[Ty | None]:
    types = []
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if isinstance(argument, (ast.List, ast.Tuple)):
            types.extend(env.type_of(e) for e in argument.elts if not isinstance(e, ast.Starred))
        else:
            types.append(env.type_of(argument))
    return types


def _torch_constructed_type(attr: str, call: ast.Call | None, env: TypeEnv | None) -> Ty | None:
    """`torch.<attr>(...)` (or the annotation `torch.<attr>` when `call` is None)."""
    if attr == "device":
        if call is None or env is None or not call.args:
            return Ty("device", "torch", DEVICE)
        first = call.args[0]
        return Ty("device", "torch", device_place(first, env) or DEVICE)
    if attr in ("Tensor", "nn.Module", "nn.Parameter") and call is None:
        return Ty("model" if attr == "nn.Module" else "tensor", "torch")
    if attr.startswith("nn.functional."):
        return Ty("tensor", "torch", _combined_place(_argument_types(call, env)) if call and env else "")
    if attr.startswith("nn.") and attr.rsplit(".", 1)[-1][:1].isupper():
        return Ty("model", "torch") if attr != "nn.Parameter" else Ty("tensor", "torch")
    if call is None or env is None:
        return None
    if attr in TORCH_FACTORIES:
        if any(k.arg is None for k in call.keywords):
            return Ty("tensor", "torch")
        device = _keyword(call, "device")
        if device is not None:
            return Ty("tensor", "torch", device_place(device, env) or DEVICE)
        if attr.endswith("_like") or attr == "as_tensor":
            source = env.type_of(call.args[0]) if call.args and not isinstance(call.args[0], ast.Starred) else None
            if _is_torch_value(source):
                return Ty("tensor", "torch", source.place)  # type: ignore[union-attr]
            return Ty("tensor", "torch", HOST if attr == "as_tensor" and source is not None else "")
        return Ty("tensor", "torch", HOST)
    if attr in TORCH_TENSOR_FUNCTIONS or attr in ("max", "min") and len(call.args) == 1 and not call.keywords:
        return Ty("tensor", "torch", _combined_place(_argument_types(call, env)))
    return None


def _torch_call_type(callee: Ty, call: ast.Call, env: TypeEnv) -> Ty:
    """Calling a module (or a class of the file that subclasses `nn.Module`)."""
    if callee.kind == "class":
        return Ty("model", "torch")
    return Ty("output", "torch", DEVICE if callee.place == DEVICE else _combined_place(_argument_types(call, env)))


def _moved_type(method: str, call: ast.Call, env: TypeEnv) -> Ty | None:
    """`x.to(device)` / `x.cuda()` on a value of unknown type: a tensor, a module or a batch
    of them, now on that device."""
    if method == "cuda" and not call.keywords and len(call.args) <= 1:
        return Ty("placed", "torch", DEVICE)
    if method == "to":
        target = move_target(call, env)
        if target in (DEVICE, HOST):
            return Ty("placed", "torch", target)  # type: ignore[arg-type]
    return None


def _torch_method_type(receiver: Ty, method: str, call: ast.Call, env: TypeEnv) -> Ty | None:
    kind, place = receiver.kind, receiver.place
    if kind not in ("tensor", "placed", "output", "model"):
        return None
    if method == "to":
        target = move_target(call, env)
        return Ty(kind, "torch", place if target == _KEEP else target or "")
    if method in ("cuda", "cpu"):
        return Ty(kind, "torch", DEVICE if method == "cuda" else HOST)
    if kind == "model":
        return receiver if method in MODEL_TO_MODEL else None
    if method in ("item", "tolist"):
        return OTHER
    if method == "numpy":
        return Ty("array", "numpy")
    if method in TENSOR_TO_TENSOR or method in ("max", "min") and not call.args and not call.keywords:
        return Ty("tensor", "torch", place)
    return None


def _torch_attribute_type(receiver: Ty, attr: str) -> Ty | None:
    kind, place = receiver.kind, receiver.place
    if kind not in ("tensor", "placed", "output", "model"):
        return None
    if attr == "device" and kind != "model":
        return Ty("device", "torch", place) if place else None
    if attr in _PLAIN_ATTRIBUTES:
        return OTHER
    if attr in _TENSOR_ATTRIBUTES and kind != "model" or kind == "model" and attr in ("weight", "bias"):
        return Ty("tensor", "torch", place)
    # a field of what a module returned (`outputs.loss`, `outputs.logits`) is on its device
    return Ty("output", "torch", place) if kind == "output" else None

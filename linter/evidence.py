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

# -- what a value can be -----------------------------------------------------------


@dataclass(frozen=True)
class Ty:
    """A value's kind and the library it comes from.

    kind: "module"/"symbol" (an imported name; `lib` is its qualified name), "frame",
    "series", "ndframe" (frame or series), "groupby", "indexer" (`.loc`, `.iloc` ...),
    "accessor" (`.str`, `.dt`), "reader" (a chunked reader, `read_csv(..., chunksize=n)`:
    not a frame itself, but iterating it yields frames), "array", "class" (a class defined
    in the file), "other".
    lib: for data kinds, the library family ("pandas", "cudf", "modin", "dask", "numpy", "cupy").
    """

    kind: str
    lib: str = ""

    @property
    def is_frame(self) -> bool:
        return self.kind == "frame"

    @property
    def is_pandas_like(self) -> bool:
        return self.kind in ("frame", "series", "ndframe")


OTHER = Ty("other")
#: Kinds that hold many values (as opposed to scalars).
_COLLECTIONS = frozenset({"frame", "series", "ndframe", "array", "groupby", "indexer", "accessor"})

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
    return a if a is b or a == b else None


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
        return _constructed_type(name)

    def _call_type(self, node: ast.Call) -> Ty | None:
        func = node.func
        name = self.qualname(func)
        if name is not None:
            return _constructed_type(name, node, self)
        if isinstance(func, ast.Name):
            callee = self.lookup(func.id)
            if callee is not None and callee.kind == "class" or callee is OTHER:
                return OTHER
            return None
        if isinstance(func, ast.Attribute):
            receiver = self.type_of(func.value)
            if receiver is None:
                return None
            return _method_type(receiver, func.attr, node, self)
        return None

    def _attribute_type(self, node: ast.Attribute) -> Ty | None:
        receiver = self.type_of(node.value)
        if receiver is None or not receiver.lib:
            return None
        attr = node.attr
        if receiver.kind in ("frame", "series", "ndframe"):
            if attr in ("loc", "iloc", "at", "iat"):
                return Ty("indexer", receiver.lib)
            if attr in ("str", "dt", "cat"):
                return Ty("accessor", receiver.lib)
            if attr == "values":  # a Dask collection's `.values` is a Dask array: not typed
                return None if receiver.lib == "dask" else Ty("array", "cupy" if receiver.lib == "cudf" else "numpy")
            if attr == "T" and receiver.kind == "frame":
                return receiver
        return None

    def _subscript_type(self, node: ast.Subscript) -> Ty | None:
        receiver = self.type_of(node.value)
        if receiver is None:
            return None
        key = node.slice
        if receiver.kind == "frame":
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return Ty("series", receiver.lib)
            if isinstance(key, ast.List):
                return receiver
            key_ty = self.type_of(key)
            if key_ty is not None and key_ty.kind == "series":
                return receiver  # boolean mask selects rows
            return None
        if receiver.kind == "groupby":
            return receiver
        if receiver.kind == "series":
            key_ty = self.type_of(key)
            if key_ty is not None and key_ty.kind == "series":
                return receiver
        return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _arith(left: Ty | None, right: Ty | None) -> Ty | None:
    """The result of an operator on two operands: frame beats series beats scalar."""
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
        if attr in ARRAY_FACTORIES or attr == "ndarray":
            return Ty("array", lib)
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
        if method == "to_numpy":
            return Ty("array", "cupy" if lib == "cudf" else "numpy")
    elif kind == "groupby":
        if method in ("agg", "aggregate", "sum", "mean", "median", "min", "max", "count", "size", "std", "var",
                      "first", "last", "nunique", "transform", "cumsum"):
            return Ty("ndframe", lib)
    elif kind == "accessor":
        return Ty("series", lib)
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

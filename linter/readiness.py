"""The GPU-readiness report: which operations on pandas objects, scikit-learn-family
estimators and NetworkX functions would run on the GPU under cudf.pandas / cuml.accel /
nx-cugraph, which fall back and why.

How a file is read: the engine walks it once with the file's selected lint rules plus a
probe (`_Probe`, a collector that is never registered, so no selection, listing or cache of
`gpulint check` sees it). The probe asks the type evidence (`ctx.type_of`, `ctx.qualname`)
about every call and records the ones it can place as an `Operation` (`ctx.record`): a
record, not a finding, so `# noqa` does not hide it, and notebooks map it to its cell as
they map findings. What is counted (one *operation* per call, never from a variable's name):

- a method call on a value the evidence knows is a pandas DataFrame, Series, GroupBy, `.str`
  or `.dt` accessor, or what `.rolling(...)`/`.resample(...)` of one returns;
- a call of a `pandas` function that cuDF exports, or whose result the evidence knows is a
  pandas object (constructors such as `pd.DataFrame(...)` are not counted);
- the construction of an estimator by its class's import path (scikit-learn, umap, hdbscan),
  and the method calls on a scikit-learn estimator value;
- a call of a NetworkX function that NetworkX dispatches to backends, by its import path
  (`nx.pagerank`, `from networkx.algorithms import pagerank`). Graph classes and their
  methods (`nx.Graph()`, `G.add_edge`) are not counted: nx-cugraph does not run a graph's
  methods, which stay NetworkX's Python code on the host (its graphs convert when an algorithm
  needs them), and NetworkX's functions it never dispatches (drawing, utilities) are not
  counted either.

Operators, indexing (`df[...]`, `df.loc[...]`) and attribute reads are not counted: the
cuDF table lists methods, not operators. The verdicts come from `readiness_tables`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from . import estimators
from . import readiness_tables as tables
from .config import ConfigResolver, Overrides
from .astutil import bare_method_call
from .cache import Cache, decode_diagnostic, encode_diagnostic, observe
from .diagnostic import Diagnostic, Record
from .files import PathError, describe_error, read_bytes
from .jobs import ordered_map
from .notebook import NotebookError, check_notebook, decode, is_notebook
from .pipeline import run
from .project import ImportedFile
from .registry import all_rules
from .rule_base import Kind, Rule, RuleContext
from .runner import Work, plan
from .source import Source, SourceError
from .values import has_unpacking

#: The code the probe's records carry; it matches no rule code pattern, so nothing mistakes
#: a record for a lint finding.
PROBE_CODE = "READINESS"
GPU, FALLBACK, UNDECIDED = "gpu", "fallback", "undecided"
#: cuDF itself hands the call to pandas (`read_json` without `lines=True`); removed in pandas 3,
#: which cudf.pandas requires (the call raises); expected on the CPU (plotting, styling, Excel,
#: pandas' options), counted apart from the GPU share.
CPU_IN_CUDF, BREAKS, BY_DESIGN = "cpu_in_cudf", "breaks_pandas3", "cpu_by_design"
VERDICTS = (GPU, FALLBACK, UNDECIDED, CPU_IN_CUDF, BREAKS, BY_DESIGN)
CUDF, CUML, NX = "cudf", "cuml", "networkx"
LIBRARIES = (CUDF, CUML, NX)

#: DataFrame and Series methods pandas 3 removed (cudf.pandas requires pandas 3: the call
#: raises AttributeError), with what replaces each.
REMOVED_IN_PANDAS3 = {
    "append": "`pd.concat([...])`",
    "iteritems": "`items()`",
    "swapaxes": "`transpose()`",
    "lookup": "`melt`, or `.loc` with the row and column labels",
    "applymap": "`map()`",
    "bool": "`item()`",
    "first": "`.loc` on a date range (`df.loc[:start + offset]`)",
    "last": "`.loc` on a date range",
    "pad": "`ffill()`",
    "backfill": "`bfill()`",
    "view": "`astype()`",
    "mad": "`(x - x.mean()).abs().mean()`",
    "slice_shift": "`shift()`",
    "tshift": "`shift(freq=...)`",
    "get_dtype_counts": "`dtypes.value_counts()`",
    "ix": "`.loc` for labels, `.iloc` for positions",
}
#: Indexers pandas removed (`series.ix[...]`): reading one raises AttributeError under pandas 3.
REMOVED_INDEXERS = frozenset({"ix"})
#: Offset aliases pandas 3 removed, and the ones that replace them.
RENAMED_OFFSETS = {"M": "ME", "A": "YE", "Y": "YE", "Q": "QE", "H": "h", "T": "min", "S": "s", "L": "ms", "U": "us"}
#: What runs on the CPU by design: pandas' options (cuDF has none), plotting, styling and
#: Excel files (pandas' own code; nothing of it is GPU work to miss).
BY_DESIGN_FUNCTIONS = {
    "set_option": "pandas' options: cuDF has none, pandas sets them",
    "get_option": "pandas' options: cuDF has none, pandas reads them",
    "reset_option": "pandas' options: cuDF has none, pandas resets them",
    "describe_option": "pandas' options: cuDF has none",
    "option_context": "pandas' options: cuDF has none, pandas sets them",
    "read_excel": "Excel files are parsed by pandas on the CPU (cuDF has no Excel reader)",
    "ExcelWriter": "Excel files are written by pandas on the CPU",
}
BY_DESIGN_METHODS = {
    "plot": "plotting draws with matplotlib on the CPU",
    "hist": "plotting draws with matplotlib on the CPU",
    "boxplot": "plotting draws with matplotlib on the CPU",
    "to_excel": "Excel files are written by pandas on the CPU",
}
#: Accessors whose methods run on the CPU by design (`df.plot.bar()`, `df.style.format()`).
BY_DESIGN_ACCESSORS = {"plot": "plotting draws with matplotlib on the CPU", "style": "styling renders HTML on the CPU"}
#: A parameter whose cuDF default, different from pandas', changes what a call computes.
_NOTED_DEFAULTS = {"axis": "compiles_udf", "observed": "any"}

#: The lint rules whose findings stand in the GPU's way: Python run once per row, element or
#: group (cudf.pandas cannot run a Python loop on the GPU, and each access copies a value to
#: the host), a frame or array grown piece by piece, and copies between device and host.
BLOCKERS = frozenset(
    {
        "GPU101",
        "GPU102",
        "GPU103",
        "GPU104",
        "GPU105",
        "GPU106",
        "GPU201",
        "GPU301",
        "GPU303",
        "GPU307",
        "GPU308",
        "GPU405",
    }
)

_FRAME_CLASSES = {Kind.FRAME: "DataFrame", Kind.SERIES: "Series", Kind.GROUPBY: "DataFrameGroupBy"}
_ACCESSORS = {"str": "StringMethods", "dt": "DatetimeProperties"}
_WINDOWS = {"rolling": "Rolling", "resample": "Resampler"}
_SNIPPET = 60
#: scikit-learn packages of meta-estimators (pipelines, column transformers, searches): they
#: run the estimators they are given, which are counted where they are built.
_META_PACKAGES = frozenset({"pipeline", "compose", "model_selection"})


@dataclass(frozen=True)
class Reason:
    """Why an operation falls back (or may): the text, and the cuDF/cuML/nx-cugraph source line
    backing it."""

    text: str
    source: str | None = None  # "python/cudf/cudf/core/reshape.py:1700"


@dataclass(frozen=True)
class Operation:
    library: str  # CUDF, CUML or NX
    what: str  # "DataFrame.pivot_table", "pandas.merge", "sklearn.ensemble.RandomForestClassifier(...)"
    code: str  # the call as written (shortened)
    verdict: str  # GPU, FALLBACK or UNDECIDED
    line: int
    col: int
    cell: int | None = None
    estimator: bool = False  # an estimator's construction (counted apart from its method calls)
    in_loop: bool = False  # inside a loop or comprehension of its function: it runs once per iteration
    reasons: tuple[Reason, ...] = ()
    #: Conditions on the data that no static reading decides (nulls, a multi-output target).
    caveats: tuple[Reason, ...] = ()
    #: What runs but differs from pandas or scikit-learn (a default, a generator, a solver), or
    #: costs more than it seems (a function run per group).
    notes: tuple[Reason, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("reasons", "caveats", "notes"):
            data[key] = [asdict(r) for r in getattr(self, key)]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Operation:
        return cls(
            **{
                **data,
                **{key: tuple(Reason(**r) for r in data.get(key, ())) for key in ("reasons", "caveats", "notes")},
            }
        )


@dataclass
class FileReport:
    display: str
    operations: list[Operation] = field(default_factory=list)
    blockers: list[Diagnostic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None


# -- the probe -------------------------------------------------------------------------------


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return tables.NOT_LITERAL


def _arguments(call: ast.Call, ctx: RuleContext | None = None) -> tuple[list[Any], dict[str, Any]]:
    positional = [_value(a, ctx) for a in call.args]
    keywords = {k.arg: _value(k.value, ctx) for k in call.keywords if k.arg is not None}
    return positional, keywords


def _value(node: ast.expr, ctx: RuleContext | None, follow: bool = True) -> Any:
    """An argument as the table's conditions test it: a literal; with `ctx`, also a
    `pandas.Grouper(...)` built in place (`tables.Grouper`), a list, tuple, set or dict written
    with items that are not all literals (`tables.Display`), or what a name's reaching
    assignment holds; NOT_LITERAL otherwise."""
    literal = _literal(node)
    if literal is not tables.NOT_LITERAL or ctx is None:
        return literal
    if isinstance(node, ast.Call) and ctx.qualname(node.func) == "pandas.Grouper":
        if has_unpacking(node):
            return tables.NOT_LITERAL
        freq = next((k.value for k in node.keywords if k.arg == "freq"), None)
        return tables.Grouper(None if freq is None else _literal(freq))
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return tables.NOT_LITERAL
        return tables.Display(type(node).__name__.lower(), tuple(_value(e, ctx, follow) for e in node.elts))
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            return tables.NOT_LITERAL
        return tables.Display("dict", tuple(_literal(k) for k in node.keys if k is not None))
    if follow and isinstance(node, ast.Name):
        value = _assigned(node, ctx)
        if value is not None:
            return _value(value, ctx, follow=False)
    return tables.NOT_LITERAL


def spread_options(call: ast.Call, ctx: RuleContext) -> ast.Call:
    """`call` with each `**options` written out, where `options` is a dict the file writes with
    string keys (`options = {"index": False}`) and reads nowhere else than in such unpackings
    (nothing can add to it or change it); the call itself otherwise."""
    keywords: list[ast.keyword] = []
    for keyword in call.keywords:
        written = _written_options(keyword.value, ctx) if keyword.arg is None else None
        if keyword.arg is None and written is None:
            return call
        keywords.extend(written if written is not None else [keyword])
    if keywords == call.keywords:
        return call
    spread = ast.Call(func=call.func, args=call.args, keywords=keywords)
    return ast.copy_location(spread, call)


def _written_options(node: ast.expr, ctx: RuleContext) -> list[ast.keyword] | None:
    if not isinstance(node, ast.Name):
        return None
    value = _assigned(node, ctx)
    if not isinstance(value, ast.Dict) or not all(
        isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier() for key in value.keys
    ):
        return None
    uses = ctx.semantic.uses(ctx.statement_scope)
    if node.id in uses.free_in:
        return None
    for load in uses.loads.get(node.id, []):
        keyword = ctx.parent(load)
        if not (isinstance(keyword, ast.keyword) and keyword.arg is None and keyword.value is load):
            return None  # read some other way: it may be added to or changed
    return [ast.keyword(arg=key.value, value=item) for key, item in zip(value.keys, value.values, strict=True)]  # type: ignore[union-attr]


def _assigned(node: ast.Name, ctx: RuleContext) -> ast.expr | None:
    """The value of the assignment `name = value` that reaches the current statement."""
    statement = ctx.reaching_assignment(node.id)
    if statement is None or statement.value is None:
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if any(isinstance(t, ast.Name) and t.id == node.id for t in targets):
        return statement.value
    return None


# -- column dtypes the file shows ---------------------------------------------------------------

TEXT, DATETIME, TIMEDELTA, CATEGORY, NULLABLE, NUMERIC, BOOL = (
    "text",
    "datetime",
    "timedelta",
    "category",
    "nullable",
    "numeric",
    "bool",
)
_DTYPE_NAMES = {
    "str": TEXT,
    "string": TEXT,
    "category": CATEGORY,
    "bool": BOOL,
    "boolean": NULLABLE,
    "Int8": NULLABLE,
    "Int16": NULLABLE,
    "Int32": NULLABLE,
    "Int64": NULLABLE,
    "UInt8": NULLABLE,
    "UInt16": NULLABLE,
    "UInt32": NULLABLE,
    "UInt64": NULLABLE,
    "Float32": NULLABLE,
    "Float64": NULLABLE,
}
_DTYPE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("datetime64", DATETIME),
    ("timedelta64", TIMEDELTA),
    ("int", NUMERIC),
    ("uint", NUMERIC),
    ("float", NUMERIC),
    ("complex", NUMERIC),
)
_BUILTIN_DTYPES = {"str": TEXT, "int": NUMERIC, "float": NUMERIC, "bool": BOOL}
#: pandas readers whose `dtype=` sets the columns' dtypes, and their `parse_dates=`.
_READERS = frozenset({"read_csv", "read_table", "read_fwf", "read_json", "read_excel", "read_sql", "read_sql_query"})
#: `.str` methods whose result holds text.
_TEXT_RESULTS = frozenset(
    {"lower", "upper", "strip", "lstrip", "rstrip", "replace", "title", "capitalize", "slice", "cat", "zfill"}
)


def _dtype_category(node: ast.expr, ctx: RuleContext) -> str | None:
    """The dtype category a dtype written in the file names (`str`, `"category"`, `np.int64`)."""
    literal = _literal(node)
    if isinstance(literal, str):
        found = _DTYPE_NAMES.get(literal)
        return found or next((cat for prefix, cat in _DTYPE_PREFIXES if literal.startswith(prefix)), None)
    if isinstance(node, ast.Name) and node.id in _BUILTIN_DTYPES and ctx.env.is_builtin(node.id):
        return _BUILTIN_DTYPES[node.id]
    qualname = ctx.qualname(node) or ""
    name = qualname.rsplit(".", 1)[-1]
    if qualname.startswith("numpy."):
        if name in ("str_", "bytes_"):
            return TEXT
        return next((cat for prefix, cat in _DTYPE_PREFIXES if name.startswith(prefix)), None)
    if qualname in ("pandas.StringDtype",):
        return TEXT
    return None


def _literal_category(values: Any) -> str | None:
    """The dtype category pandas infers for a literal column."""
    if not isinstance(values, (list, tuple)) or not values:
        return None
    kinds = {type(v) for v in values if v is not None}
    if kinds == {str}:
        return TEXT
    if kinds == {bool}:
        return BOOL
    if kinds and kinds <= {int, float}:
        return NUMERIC
    return None


@dataclass
class _Columns:
    """What the file shows of a frame's column dtypes: by name, and for every column (a
    reader's `dtype=str`, `astype(str)`); `complete`: `known` names every column."""

    known: dict[str, str | None] = field(default_factory=dict)
    every: str | None = None
    complete: bool = False

    def of(self, name: Any) -> str | None:
        return self.known.get(name, self.every) if isinstance(name, str) else self.every

    def shown(self) -> set[str]:
        """The categories the file shows some column has."""
        return {c for c in self.known.values() if c is not None} | ({self.every} if self.every else set())

    def categories(self) -> frozenset[str] | None:
        """Every column's category where all are known; the known ones where one is text
        (enough to decide a test for text); None otherwise."""
        found = {c for c in self.known.values() if c is not None}
        if self.every is not None:
            return frozenset({*found, self.every}) if self.every == TEXT or self.complete else None
        if self.complete and None not in self.known.values():
            return frozenset(found)
        return frozenset({TEXT}) if TEXT in found else None


def _frame_columns(node: ast.expr, ctx: RuleContext, follow: bool = True) -> _Columns | None:
    """The column dtypes of the frame `node` evaluates to, from a literal frame, a reader's
    `dtype=`/`parse_dates=`, `astype(...)` or a name's reaching assignment (once, when no
    statement between writes its columns); None where the file does not show them."""
    if isinstance(node, ast.Name) and follow:
        value = _assigned(node, ctx)
        if value is None or _columns_written(node.id, ctx):
            return None
        return _frame_columns(value, ctx, follow=False)
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "astype" and (node.args or node.keywords):
        base = _frame_columns(func.value, ctx, follow)
        spec = node.args[0] if node.args else node.keywords[0].value
        if isinstance(spec, ast.Dict):
            columns = base or _Columns()
            known = dict(columns.known)
            for key, value in zip(spec.keys, spec.values, strict=True):
                name = _literal(key) if key is not None else None
                if not isinstance(name, str):
                    return None
                known[name] = _dtype_category(value, ctx)
            return _Columns(known, columns.every, columns.complete)
        category = _dtype_category(spec, ctx)
        return _Columns(every=category, complete=True) if category is not None else None
    qualname = ctx.qualname(func) or ""
    if qualname == "pandas.DataFrame":
        data = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "data"), None)
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if dtype is not None:
            category = _dtype_category(dtype, ctx)
            return _Columns(every=category, complete=True) if category is not None else None
        if isinstance(data, ast.Name) and not _columns_written(data.id, ctx, calls=True):
            data = _assigned(data, ctx)
        if isinstance(data, ast.Dict) and all(isinstance(_literal(k), str) for k in data.keys if k is not None):
            known = {
                _literal(k): _literal_category(_literal(v)) for k, v in zip(data.keys, data.values, strict=True) if k
            }
            return _Columns(known, complete=None not in data.keys)
        return None
    if qualname.startswith("pandas.") and qualname.rsplit(".", 1)[1] in _READERS:
        columns = _Columns()
        for keyword in node.keywords:
            if keyword.arg == "dtype":
                if isinstance(keyword.value, ast.Dict):
                    for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
                        name = _literal(key) if key is not None else None
                        if isinstance(name, str):
                            columns.known[name] = _dtype_category(value, ctx)
                else:
                    columns.every = _dtype_category(keyword.value, ctx)
            elif keyword.arg == "parse_dates":
                dates = _literal(keyword.value)
                if isinstance(dates, (list, tuple)):
                    columns.known.update({d: DATETIME for d in dates if isinstance(d, str)})
        return columns
    return None


def _columns_written(name: str, ctx: RuleContext, calls: bool = False) -> bool:
    """A statement between `name`'s reaching assignment and the current one writes its
    columns (`name["c"] = ...`, `name.c = ...`) or may (`del name["c"]`; with `calls`, any
    method called on it: `name.update(...)`)."""
    assignment = ctx.reaching_assignment(name)
    for block, index, outer in ctx.statements_before():
        statement = block[index] if outer is None else outer
        if statement is assignment:
            return False
        for sub in ast.walk(statement):
            targets = (
                sub.targets
                if isinstance(sub, (ast.Assign, ast.Delete))
                else [sub.target]
                if isinstance(sub, (ast.AugAssign, ast.AnnAssign))
                else []
            )
            if any(
                isinstance(t, (ast.Subscript, ast.Attribute)) and isinstance(t.value, ast.Name) and t.value.id == name
                for t in targets
            ):
                return True
            if (
                calls
                and isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == name
            ):
                return True
    return False


def _series_category(node: ast.expr, ctx: RuleContext, follow: bool = True) -> str | None:
    """The dtype category of the Series `node` evaluates to where the file shows it."""
    if isinstance(node, ast.Name) and follow:
        value = _assigned(node, ctx)
        return None if value is None else _series_category(value, ctx, follow=False)
    if isinstance(node, ast.Subscript):
        columns = _frame_columns(node.value, ctx, follow)
        return None if columns is None else columns.of(_literal(node.slice))
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr == "astype" and node.args:
            return _dtype_category(node.args[0], ctx)
        if func.attr in _TEXT_RESULTS and isinstance(func.value, ast.Attribute) and func.value.attr == "str":
            return TEXT
    qualname = ctx.qualname(func) or ""
    if qualname == "pandas.to_datetime":
        return DATETIME
    if qualname == "pandas.Series":
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if dtype is not None:
            return _dtype_category(dtype, ctx)
        return _literal_category(_literal(node.args[0])) if node.args else None
    return None


def _receiver_values(support: tables.MethodSupport, receiver: ast.expr, ctx: RuleContext) -> dict[str, Any]:
    """`self.dtype` (a Series' dtype category), `self.dtypes` (a frame's column categories) and
    `self.dtypes_differ` (whether its columns differ in dtype) for the conditions that test
    them, NOT_LITERAL where the file does not show them."""
    params = {p for c in support.fallbacks for p in c.params}
    found: dict[str, Any] = {}
    if "self.dtype" in params:
        found["self.dtype"] = _series_category(receiver, ctx) or tables.NOT_LITERAL
    if "self.dtypes" in params:
        columns = _frame_columns(receiver, ctx)
        categories = None if columns is None else columns.categories()
        found["self.dtypes"] = tables.NOT_LITERAL if categories is None else categories
    if "self.dtypes_differ" in params:
        found["self.dtypes_differ"] = _dtypes_differ(receiver, ctx)
    return found


#: Frame methods whose result holds one numeric dtype in every column (float64), called
#: without arguments that choose other columns.
_UNIFORM_RESULTS = frozenset({"describe", "corr", "cov"})
#: Categories whose columns all share one dtype (str, bool, datetime64[ns]); numeric columns
#: may be int64 beside float64.
_ONE_DTYPE = frozenset({TEXT, BOOL})


#: Where cuDF refuses an object column mixing Python types (`infer_dtype` "mixed-integer"):
#: what a frame of text and numbers holds once transposed.
MIXED_COLUMN = "python/cudf/cudf/core/column/column.py:3509"


def _mixes_text(frame: ast.expr, ctx: RuleContext) -> bool:
    """Whether `frame` is `other.T` or `other.transpose()` of a frame with text and other
    columns: each transposed column holds a row's text and numbers together."""
    if isinstance(frame, ast.Call) and isinstance(frame.func, ast.Attribute) and frame.func.attr == "transpose":
        source = frame.func.value
    elif isinstance(frame, ast.Attribute) and frame.attr == "T":
        source = frame.value
    else:
        return False
    columns = _frame_columns(source, ctx)
    if columns is None:
        return False
    shown = columns.shown()
    return TEXT in shown and len(shown) > 1


def _dtypes_differ(frame: ast.expr, ctx: RuleContext) -> Any:
    """Whether the columns of `frame` differ in dtype: True where two categories show, False
    where one dtype holds every column (`astype(float)`, `describe()`, text only), else
    NOT_LITERAL."""
    if bare_method_call(frame, _UNIFORM_RESULTS):
        return False
    columns = _frame_columns(frame, ctx)
    if columns is None:
        return tables.NOT_LITERAL
    shown = columns.shown()
    if len(shown) > 1:
        return True
    if columns.every is not None and not columns.known:
        return False
    if columns.complete and None not in columns.known.values() and shown <= _ONE_DTYPE:
        return False
    return tables.NOT_LITERAL


def _where(condition: tables.Condition) -> str:
    return f"{condition.path}:{condition.line}"


_TEST_LENGTH = 90


def _shown(value: Any) -> str:
    if isinstance(value, tables.Grouper):
        return "pd.Grouper(freq=...)"
    if isinstance(value, tables.Display):
        return {"list": "[...]", "tuple": "(...)", "set": "{...}", "dict": "{...: ...}"}[value.kind]
    return repr(value)


def _condition_text(condition: tables.Condition, holds: bool | None, values: Mapping[str, Any] | None, who: str) -> str:
    """A condition as a reason: the arguments that decide it, then the test (a helper's
    condition is written as prose; a test from the source is quoted, shortened)."""
    test = condition.text or "a path no test describes"
    if not condition.described:
        test = test if len(test) <= _TEST_LENGTH else test[: _TEST_LENGTH - 3] + "..."
        helper = f"`{condition.via.rsplit('.', 1)[-1]}`" if condition.via else ""
        test = f"{who}{' ' + helper if helper else ''} falls back where `{test}`"
    if condition.predicate is None:
        return f"depends on the data: {test}"
    dtype = next((p for p in condition.params if p.startswith("self.")), None)
    if dtype == "self.dtypes_differ":
        return test if holds else f"undecided (the file does not show the columns' dtypes): falls back if {test}"
    if dtype is not None:
        categories = condition.predicate.value if isinstance(condition.predicate.value, tuple) else ()
        subject = "the Series holds" if dtype == "self.dtype" else "the frame has a column of"
        what = f"{subject} {' or '.join(categories) or 'that dtype'}"
        if holds:
            return f"{what}: {test}"
        return f"undecided (the file does not show the dtype): falls back if {what}: {test}"
    given = [
        f"`{p}={_shown(values[p])}`"
        for p in condition.params
        if values is not None and p in values and not p.startswith("self.") and values[p] is not tables.NOT_LITERAL
    ]
    if holds:
        return f"{', '.join(given)}: {test}" if given else test
    unknown = [f"`{p}`" for p in condition.params if values is None or values.get(p) is tables.NOT_LITERAL]
    return f"undecided ({', '.join(unknown)} not known here): {test}" if unknown else f"undecided: {test}"


def _judge(
    conditions: Sequence[tuple[tables.Condition, bool | None]],
    reasons: list[Reason],
    caveats: list[Reason],
    values: Mapping[str, Any] | None = None,
    who: str = "cuDF",
) -> str:
    """Sort the conditions that hold or may hold into reasons (decided on the call) and
    caveats (tests on data, which no literal decides); the verdict they add up to."""
    verdict = GPU
    for condition, holds in conditions:
        text = _condition_text(condition, holds, values, who)
        if condition.predicate is None:
            caveats.append(Reason(text, _where(condition)))
        elif holds:
            reasons.append(Reason(text, _where(condition)))
            verdict = FALLBACK
        else:
            reasons.append(Reason(text, _where(condition)))
            verdict = verdict if verdict == FALLBACK else UNDECIDED
    return verdict


def _method_verdict(
    support: tables.MethodSupport | None, owner: str, call: ast.Call, ctx: RuleContext, per_group: bool = False
) -> tuple[str, list[Reason], list[Reason]]:
    """The verdict on a pandas call cuDF runs with `support`: its reasons and caveats. With
    `per_group` (GroupBy.apply), a Python function runs on the GPU once per group either way
    (JIT-compiled, or cuDF's per-group engine): no verdict waits on the JIT."""
    reasons: list[Reason] = []
    caveats: list[Reason] = []
    if support is None:
        return FALLBACK, [Reason(f"cuDF does not define `{owner}`")], caveats
    where = f"{support.path}:{support.line}"
    if not support.implemented:
        return FALLBACK, [Reason(f"cuDF refuses it (raises {support.refused_by})", where)], caveats
    call = spread_options(call, ctx)
    positional, keywords = _arguments(call, ctx)
    unknown = [k for k in keywords if not support.accepts(k)]
    if unknown:
        return FALLBACK, [Reason(f"cuDF's signature has no `{k}`", where) for k in unknown], caveats
    conditions: list[tuple[tables.Condition, bool | None]]
    receiver = _receiver_values(support, call.func.value, ctx) if isinstance(call.func, ast.Attribute) else {}
    values = {**_bound(support, positional, keywords), **receiver}
    if has_unpacking(call):
        conditions = [(c, c.holds(receiver) if set(c.params) <= set(receiver) else None) for c in support.fallbacks]
        conditions = [(c, h) for c, h in conditions if h is not False]
    else:
        conditions = [(c, holds) for c in support.fallbacks if (holds := c.holds(values)) is not False]
    verdict = _judge(conditions, reasons, caveats, values)
    for path in support.cpu_paths:
        holds = None if has_unpacking(call) else path.holds(values)
        if holds and verdict == GPU:
            return CPU_IN_CUDF, [Reason(f"cuDF runs pandas itself: {path.text}", _where(path))], caveats
        if holds is None and verdict == GPU:
            reasons.append(Reason(f"undecided: cuDF runs pandas itself where {path.text}", _where(path)))
            verdict = UNDECIDED
    if (
        support.compiles_udf
        and not per_group
        and verdict == GPU
        and (call.args or call.keywords)
        and _function_given(call, ctx)
    ):
        uncompilable = _uncompilable(_given_function(call), ctx)
        if uncompilable is not None:
            return FALLBACK, [Reason(f"cuDF's Numba JIT cannot compile {uncompilable}", UDF_COMPILE_FAILURE)], caveats
        reasons.append(
            Reason("undecided: runs on the GPU only if the Python function compiles with cuDF's Numba JIT", where)
        )
        verdict = UNDECIDED
    return verdict, reasons, caveats


#: Properties counted as operations: those whose cuDF code has a condition to fall back.
_COUNTED_PROPERTIES = frozenset({"T"})


#: Where cuDF gives up on a function its JIT cannot compile (`IndexedFrame._apply`, which
#: `Series.apply`, `Series.map` and `DataFrame.apply` run): it raises ValueError, and
#: cudf.pandas runs pandas instead.
UDF_COMPILE_FAILURE = "python/cudf/cudf/core/indexed_frame.py:3715"
#: Builtins and methods that build Python strings, which CUDA kernels cannot hold.
_STRING_BUILDERS = frozenset({"str", "repr", "format"})
_STRING_METHODS = frozenset({"format", "strftime", "isoformat"})


def _given_function(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in ("func", "arg", "f", "function")), None)


def _uncompilable(function: ast.expr | None, ctx: RuleContext) -> str | None:
    """What in a function given to `apply`/`map` (a lambda, or a `def` of the file named)
    Numba's CUDA target cannot compile: a Python string built or formatted (f-strings,
    `str(x)`, `.format()`, `.strftime()`, `"%d" % x`), a list, dict or set made or a dict's
    items walked, a pandas function called, or a pandas method called on the function's
    argument (a number or a row to the JIT: `lambda col: col.fillna(col.mean())`); None where
    nothing shows it fails (it may still fail: the verdict stays undecided)."""
    found: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | None
    found = ctx.function_named(function.id) if isinstance(function, ast.Name) else None
    if isinstance(function, ast.Lambda):
        found = function
    if found is None:
        return None
    body: list[ast.AST] = [found.body] if isinstance(found, ast.Lambda) else list(found.body)
    arguments = {a.arg for a in (*found.args.posonlyargs, *found.args.args)}
    for node in (found for part in body for found in ast.walk(part)):
        if isinstance(node, ast.JoinedStr):
            return "an f-string (a Python string)"
        if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
            return "a list, dict or set built in the function"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                return "`%` formatting of a Python string"
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in _STRING_BUILDERS and ctx.env.is_builtin(func.id):
            return f"`{func.id}(...)` (a Python string)"
        if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS:
            return f"`.{func.attr}(...)` (a Python string)"
        if isinstance(func, ast.Attribute) and func.attr == "items" and not node.args:
            return "a dict's items walked (a Python dict)"
        if (ctx.qualname(func) or "").startswith("pandas."):
            return f"`{ctx.qualname(func)}` (a pandas function)"
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in arguments
            and func.attr in _PANDAS_ONLY_METHODS
        ):
            return f"`.{func.attr}(...)` on its argument (a pandas method; the JIT passes a number or a row)"
    return None


#: pandas methods a function's argument cannot have under the JIT (not methods of Python's
#: str, which cuDF's string UDFs implement in part).
_PANDAS_ONLY_METHODS = frozenset(
    {
        "fillna",
        "mean",
        "sum",
        "median",
        "std",
        "var",
        "min",
        "max",
        "count",
        "isna",
        "isnull",
        "notna",
        "dropna",
        "apply",
        "map",
        "astype",
        "unique",
        "value_counts",
        "idxmax",
        "idxmin",
        "round",
        "abs",
        "tolist",
        "to_numpy",
    }
)


def _notes(support: tables.MethodSupport | None, name: str, call: ast.Call, per_group: bool) -> list[Reason]:
    """What runs but differs from pandas, or costs more than it reads: a parameter left out
    whose cuDF default differs from pandas' where that changes the result, a seeded sample (cuDF
    draws with its own generator), a function run once per group."""
    if support is None or not support.implemented:
        return []
    where = f"{support.path}:{support.line}"
    notes = []
    keywords = _arguments(call)[1]
    given = set(keywords)
    ordered = [p.name for p in support.parameters or () if p.kind in ("positional_only", "positional_or_keyword")]
    given |= set(ordered[: len(call.args)])
    for param, theirs in support.pandas_defaults.items():
        when = _NOTED_DEFAULTS.get(param)
        if param in given or has_unpacking(call) or when is None or when == "compiles_udf" and not support.compiles_udf:
            continue
        ours = next((p.default for p in support.parameters or () if p.name == param), None)
        notes.append(
            Reason(
                f"`{param}` left out: cuDF's default is `{param}={ours}`, pandas' `{param}={theirs!r}`; "
                f"pass `{param}=` to get pandas' result",
                where,
            )
        )
    if name == "sample" and keywords.get("random_state") is not None:
        notes.append(Reason("cuDF draws with its own generator: the same `random_state` picks other rows", where))
    if per_group:
        notes.append(
            Reason(
                "runs the function once per group (JIT-compiled where it can, else group by group): the cost "
                "grows with the number of groups",
                where,
            )
        )
    return notes


def _bound(support: tables.MethodSupport, positional: list[Any], keywords: dict[str, Any]) -> dict[str, Any]:
    """`support.bind`, with `*args` and `**kwargs` as the call fills them: empty when it
    passes nothing there, the extra positional values otherwise."""
    values = support.bind(positional, keywords)
    for parameter in support.parameters or ():
        if parameter.kind == "var_positional":
            named = sum(1 for p in support.parameters or () if p.kind in ("positional_only", "positional_or_keyword"))
            values.setdefault(parameter.name, tuple(positional[named:]))
        elif parameter.kind == "var_keyword":
            values.setdefault(parameter.name, {})
    return values


def _function_given(call: ast.Call, ctx: RuleContext) -> bool:
    """The call's first argument (`func`, `arg`) may be a Python function to compile: it is
    none where the evidence shows a mapping (`series.map(mapping)` looks values up, with no
    function to compile)."""
    first = _given_function(call)
    return first is not None and not _mapping(first, ctx)


def _mapping(node: ast.expr, ctx: RuleContext, follow: bool = True) -> bool:
    """`node` is a literal, a dict (a display, a comprehension, a call of the builtin `dict`, or,
    with `follow`, a name whose reaching assignment is one of those) or a pandas object."""
    if _literal(node) is not tables.NOT_LITERAL or isinstance(node, (ast.Dict, ast.DictComp)):
        return True
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "dict" and ctx.env.is_builtin("dict")
    ty = ctx.type_of(node)
    if ty is not None and (ty.is_pandas_like or ty.kind == Kind.SEQUENCE and ty.builtin == "dict"):
        return True
    if follow and isinstance(node, ast.Name):
        statement = ctx.reaching_assignment(node.id)
        if statement is not None and any(
            isinstance(t, ast.Name) and t.id == node.id
            for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
        ):
            return statement.value is not None and _mapping(statement.value, ctx, follow=False)
    return False


class _Function:
    """A function the call passes (a lambda): what `callable(...)` in a condition sees."""

    def __call__(self) -> None:  # pragma: no cover - never called
        return None

    def __repr__(self) -> str:
        return "FUNCTION"


_FUNCTION = _Function()
#: NetworkX's graph classes, as a value passed for `create_using` is written in the table.
_GRAPH_CLASSES = frozenset({"Graph", "DiGraph", "MultiGraph", "MultiDiGraph"})


def _graph_value(node: ast.expr, ctx: RuleContext) -> Any:
    """An argument of a NetworkX call as the table's conditions test it: a literal, a lambda
    (a function), a NetworkX graph class (`"networkx.DiGraph"`), or NOT_LITERAL."""
    if isinstance(node, ast.Lambda):
        return _FUNCTION
    if isinstance(node, (ast.Name, ast.Attribute)):
        qualname = ctx.qualname(node) or ""
        if qualname.startswith("networkx.") and qualname.rsplit(".", 1)[1] in _GRAPH_CLASSES:
            return f"networkx.{qualname.rsplit('.', 1)[1]}"
    return _literal(node)


def _graph_verdict(
    support: tables.GraphFunctionSupport | None, name: str, call: ast.Call, ctx: RuleContext
) -> tuple[str, list[Reason], list[Reason]]:
    """What NetworkX does with the call: run nx-cugraph's function (gpu), or its own code
    because nx-cugraph lacks the function or one of its conditions holds (fallback)."""
    keywords = {k.arg: _graph_value(k.value, ctx) for k in call.keywords if k.arg is not None}
    backend = keywords.pop("backend", None)
    if isinstance(backend, str) and backend != "cugraph":
        return FALLBACK, [Reason(f'`backend="{backend}"` runs it with that backend')], []
    verdict, reasons, caveats = _graph_conditions(support, name, call, keywords, ctx)
    if backend is tables.NOT_LITERAL and verdict == GPU:
        return UNDECIDED, [Reason("undecided: `backend=` names a backend that is not a literal")], caveats
    if backend == "cugraph" and verdict == FALLBACK:
        reasons.append(Reason('with `backend="cugraph"` NetworkX raises NotImplementedError instead of running it'))
    return verdict, reasons, caveats


def _graph_conditions(
    support: tables.GraphFunctionSupport | None, name: str, call: ast.Call, keywords: dict[str, Any], ctx: RuleContext
) -> tuple[str, list[Reason], list[Reason]]:
    reasons: list[Reason] = []
    caveats: list[Reason] = []
    if support is None:
        return FALLBACK, [Reason(f"nx-cugraph does not implement `{name}`")], caveats
    where = f"{support.path}:{support.line}"
    positional = [_graph_value(a, ctx) for a in call.args]
    unknown = [k for k in keywords if not support.accepts(k)]
    if unknown:
        return FALLBACK, [Reason(f"nx-cugraph's signature has no `{k}` (TypeError)", where) for k in unknown], caveats
    values = support.bind(positional, keywords)
    unpacked = has_unpacking(call)
    verdict = GPU
    if support.notes and (support.is_incomplete or support.is_different):
        caveats.append(Reason(f"nx-cugraph notes: {support.notes}", where))
    for condition in support.conditions:
        place = _where(condition)
        holds = None if unpacked or condition.predicate is None else condition.holds(values)
        if condition.data or condition.kind == "errors":
            if holds is not False:
                caveats.append(Reason(_graph_text(condition), place))
            continue
        if holds is False:
            continue
        if condition.kind == "should_run":
            reasons.append(
                Reason(
                    f"undecided: {_graph_text(condition)}; it runs on the GPU only on a graph that already "
                    "is nx-cugraph's",
                    place,
                )
            )
            verdict = verdict if verdict == FALLBACK else UNDECIDED
        elif holds is True or condition.predicate is None:
            reasons.append(Reason(_graph_text(condition), place))
            verdict = FALLBACK
        else:
            reasons.append(Reason(f"undecided: {_graph_text(condition)}", place))
            verdict = verdict if verdict == FALLBACK else UNDECIDED
    return verdict, reasons, caveats


def _graph_text(condition: tables.Condition) -> str:
    """A condition of the nx-cugraph table as a reason: what declares it, and its test."""
    test = condition.text or "always"
    if condition.kind == "errors":
        return "nx-cugraph turns an error other than NetworkX's own into a fallback (`fallback=True`)"
    if condition.kind == "should_run":
        return "nx-cugraph declines to convert a NetworkX graph for it" + ("" if test == "always" else f" when {test}")
    if condition.kind == "not_implemented":
        return f"nx-cugraph raises NotImplementedError when {test}"
    return "nx-cugraph declines it (`_can_run`)" + ("" if test == "always" else f" when {test}")


def _estimator_name(qualname: str | None) -> str | None:
    """The table's key for a class's import path (`sklearn.ensemble._forest.X` is
    `sklearn.ensemble.X`), or None when it is no estimator of the sklearn family."""
    if not qualname:
        return None
    if qualname in tables.cuml_estimators():
        return qualname
    key = estimators.key(qualname)
    role = estimators.role(qualname)
    if key is None or role is None or role in (estimators.PIPELINE, estimators.SEARCH):
        return None
    if key.split(".", 1)[0] in _META_PACKAGES:
        return None
    return f"sklearn.{key}"


def _absent_attributes(support: tables.EstimatorSupport, defaults: dict[str, Any]) -> dict[str, Any]:
    """For a condition written `getattr(model, "p", default)` on a hyperparameter `p` the
    installed scikit-learn no longer has: the value the test then sees, `default`."""
    found: dict[str, Any] = {}
    if not defaults:
        return found
    for condition in support.fallbacks:
        try:
            tree = ast.parse(condition.text or "", mode="eval")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and len(node.args) == 3
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value not in defaults
            ):
                value = _literal(node.args[2])
                if value is not tables.NOT_LITERAL:
                    found[node.args[1].value] = value
    return found


class _Probe(Rule):
    """Records each operation the readiness report counts (see the module's docstring)."""

    nodes = (ast.Call, ast.Subscript, ast.Attribute)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Attribute):
            found = self._property(node, ctx)
            if found is not None:
                ctx.record(node, found)
            return
        if isinstance(node, ast.Subscript):
            indexer = self._removed_indexer(node, ctx)
            if indexer is not None:
                ctx.record(node.value, indexer)
            return
        assert isinstance(node, ast.Call)
        func = node.func
        found = None
        if isinstance(func, ast.Attribute):
            found = self._method(node, func, ctx)
        if found is None:
            found = self._construction(node, ctx) or self._function(node, ctx) or self._graph_function(node, ctx)
        if found is not None:
            ctx.record(_spot(node), found)

    def _property(self, node: ast.Attribute, ctx: RuleContext) -> Operation | None:
        """`frame.T`: a property whose cuDF code can fall back (the others are not counted)."""
        if node.attr not in _COUNTED_PROPERTIES or not isinstance(node.ctx, ast.Load):
            return None
        receiver = ctx.type_of(node.value)
        if receiver is None or receiver.lib != "pandas" or _FRAME_CLASSES.get(receiver.kind) != "DataFrame":
            return None
        support = tables.cudf_method("DataFrame", node.attr)
        if support is None:
            return None
        values = _receiver_values(support, node.value, ctx)
        conditions = [(c, holds) for c in support.fallbacks if (holds := c.holds(values)) is not False]
        reasons: list[Reason] = []
        caveats: list[Reason] = []
        verdict = _judge(conditions, reasons, caveats, values)
        return _operation(CUDF, f"DataFrame.{node.attr}", node, verdict, reasons, caveats, ctx)

    def _removed_indexer(self, node: ast.Subscript, ctx: RuleContext) -> Operation | None:
        """`series.ix[...]`: an indexer pandas 3 does not have, on a pandas frame or Series."""
        attribute = node.value
        if not isinstance(attribute, ast.Attribute) or attribute.attr not in REMOVED_INDEXERS:
            return None
        receiver = ctx.type_of(attribute.value)
        if receiver is None or receiver.lib != "pandas":
            return None
        if receiver.kind == Kind.NDFRAME:
            owner = "DataFrame"
        else:
            found = _FRAME_CLASSES.get(receiver.kind)
            if found is None or found not in ("DataFrame", "Series"):
                return None
            owner = found
        name = attribute.attr
        if not _not_in_pandas(owner, name):
            return None
        return _operation(CUDF, f"{owner}.{name}", attribute, BREAKS, [_removed(owner, name, "read")], [], ctx)

    def _method(self, call: ast.Call, func: ast.Attribute, ctx: RuleContext) -> Operation | None:
        receiver = ctx.type_of(func.value)
        name = func.attr
        if receiver is None:
            return self._window(call, func, ctx) or self._by_design_accessor(call, func, ctx)
        if receiver.kind == Kind.ESTIMATOR:
            return self._estimator_method(call, name, receiver.lib, ctx)
        if receiver.lib != "pandas":
            return None
        if receiver.kind == Kind.ACCESSOR:
            accessor = func.value.attr if isinstance(func.value, ast.Attribute) else None
            owner = _ACCESSORS.get(accessor or "")
            if owner is None:
                return None
            label = f"Series.{accessor}.{name}"
        elif receiver.kind == Kind.NDFRAME:
            owner = "DataFrame" if name in tables.cudf_members("DataFrame") else "Series"
            label = f"{owner}.{name}"
        else:
            owner = _FRAME_CLASSES.get(receiver.kind)
            if owner is None:
                return None
            label = f"{owner}.{name}"
        return self._pandas(call, owner, name, label, ctx)

    def _window(self, call: ast.Call, func: ast.Attribute, ctx: RuleContext) -> Operation | None:
        """`frame.rolling(3).mean()`: the evidence has no type for the window; its maker does."""
        maker = func.value
        if not (isinstance(maker, ast.Call) and isinstance(maker.func, ast.Attribute) and maker.func.attr in _WINDOWS):
            return None
        base = ctx.type_of(maker.func.value)
        if base is None or base.lib != "pandas" or not base.is_pandas_like:
            return None
        owner = _WINDOWS[maker.func.attr]
        return self._pandas(call, owner, func.attr, f"{owner}.{func.attr}", ctx)

    def _by_design_accessor(self, call: ast.Call, func: ast.Attribute, ctx: RuleContext) -> Operation | None:
        """`df.plot.bar(...)`, `df.style.format(...).highlight_max()`: the accessor of a pandas
        object at the root of the chain runs on the CPU by design."""
        node: ast.expr = func.value
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        if not (isinstance(node, ast.Attribute) and node.attr in BY_DESIGN_ACCESSORS):
            return None
        base = ctx.type_of(node.value)
        if base is None or base.lib != "pandas" or not base.is_pandas_like:
            return None
        owner = _FRAME_CLASSES.get(base.kind, "DataFrame")
        label = f"{owner}.{node.attr}.{func.attr}"
        return _operation(CUDF, label, call, BY_DESIGN, [Reason(BY_DESIGN_ACCESSORS[node.attr])], [], ctx)

    def _pandas(self, call: ast.Call, owner: str, name: str, label: str, ctx: RuleContext) -> Operation | None:
        if name.startswith("_"):
            return None
        if owner in ("DataFrame", "Series") and name in BY_DESIGN_METHODS:
            return _operation(CUDF, label, call, BY_DESIGN, [Reason(BY_DESIGN_METHODS[name])], [], ctx)
        if _not_in_pandas(owner, name) and not _registered(name, ctx):
            return _operation(CUDF, label, call, BREAKS, [_removed(owner, name)], [], ctx)
        support = tables.cudf_method(owner, name)
        keywords = [k.arg for k in call.keywords if k.arg is not None]
        gone = [
            k for k in keywords if support and support.pandas_keywords is not None and k not in support.pandas_keywords
        ]
        if gone:
            return _operation(CUDF, label, call, BREAKS, [_removed_keyword(label, gone[0])], [], ctx)
        if owner == "DataFrame" and isinstance(call.func, ast.Attribute) and _mixes_text(call.func.value, ctx):
            reason = Reason(
                "the frame is a transposed frame of text and numbers: its object columns mix types, and cuDF "
                "cannot build such a column (MixedTypeError)",
                MIXED_COLUMN,
            )
            return _operation(CUDF, label, call, FALLBACK, [reason], [], ctx)
        per_group = owner in ("DataFrameGroupBy", "SeriesGroupBy") and name == "apply"
        verdict, reasons, caveats = _method_verdict(support, label, call, ctx, per_group)
        if verdict == GPU and owner in ("DataFrameGroupBy", "SeriesGroupBy") and name in _AGGREGATING:
            refused = _refused_aggregation(call)
            if refused is not None:
                verdict, reasons = FALLBACK, [refused]
        if name in ("resample", "groupby") and owner in ("DataFrame", "Series"):
            broken = _removed_offset(call, name, ctx)
            if broken is not None:
                verdict, reasons = BREAKS, [broken]
        notes = _notes(support, name, call, per_group) if verdict != BREAKS else []
        return _operation(CUDF, label, call, verdict, reasons, caveats, ctx, notes=notes)

    def _function(self, call: ast.Call, ctx: RuleContext) -> Operation | None:
        qualname = ctx.qualname(call.func)
        if not qualname or not qualname.startswith("pandas."):
            return None
        if qualname.count(".") == 2:
            return self._class_function(call, qualname, ctx)
        if qualname.count(".") != 1:
            return None
        name = qualname.split(".", 1)[1]
        if name in BY_DESIGN_FUNCTIONS:
            return _operation(CUDF, qualname, call, BY_DESIGN, [Reason(BY_DESIGN_FUNCTIONS[name])], [], ctx)
        support = tables.cudf_function(name)
        known = tables.pandas_names()
        if support is None and known is not None and name not in known:
            return _operation(CUDF, qualname, call, BREAKS, [_removed_function(name)], [], ctx)
        if support is None and (name[:1].isupper() or not _on_pandas_objects(call, name, ctx)):
            return None
        verdict, reasons, caveats = _method_verdict(support, qualname, call, ctx)
        if support is None:
            reasons = [Reason(f"cuDF does not export `{name}`")]
        return _operation(
            CUDF, qualname, call, verdict, reasons, caveats, ctx, notes=_notes(support, name, call, False)
        )

    def _class_function(self, call: ast.Call, qualname: str, ctx: RuleContext) -> Operation | None:
        """`pd.DataFrame.from_dict(...)`: a classmethod or staticmethod of a pandas class, or a
        name the pandas the table names no longer has (`pd.Series.from_array`)."""
        _, owner, name = qualname.split(".")
        if owner not in ("DataFrame", "Series") or name.startswith("_"):
            return None
        if _not_in_pandas(owner, name):
            return _operation(CUDF, f"{owner}.{name}", call, BREAKS, [_removed(owner, name)], [], ctx)
        support = tables.cudf_method(owner, name)
        if support is None or support.kind not in ("classmethod", "staticmethod"):
            return None
        return self._pandas(call, owner, name, f"{owner}.{name}", ctx)

    def _construction(self, call: ast.Call, ctx: RuleContext) -> Operation | None:
        name = _estimator_name(ctx.qualname(call.func))
        if name is None:
            return None
        support = tables.cuml_estimator(name)
        label = f"{name}(...)"
        if support is None:
            return _operation(
                CUML, label, call, FALLBACK, [Reason("cuml.accel does not accelerate it")], [], ctx, estimator=True
            )
        given: dict[str, Any] = {}
        call = spread_options(call, ctx)
        if has_unpacking(call):
            conditions: list[tuple[tables.Condition, bool | None]] = [
                (c, None) for c in support.fallbacks if c.kind == "hyperparameter"
            ]
        else:
            defaults = dict(support.cpu_defaults)
            given = {**_absent_attributes(support, defaults), **defaults, **_arguments(call)[1]}
            conditions = support.hyperparameter_fallbacks(given)
        reasons: list[Reason] = []
        caveats: list[Reason] = []
        verdict = _judge(conditions, reasons, caveats, given if not has_unpacking(call) else None, "cuml.accel")
        keywords = _arguments(call)[1]
        notes = [
            Reason(
                f"cuML fits with `{param}={value!r}` whatever `{param}` says: results can differ from scikit-learn's",
                where,
            )
            for param, (value, where) in support.fixed_params.items()
            if param in keywords and keywords[param] != value
        ]
        return _operation(CUML, label, call, verdict, reasons, caveats, ctx, estimator=True, notes=notes)

    def _estimator_method(self, call: ast.Call, method: str, qualname: str, ctx: RuleContext) -> Operation | None:
        name = _estimator_name(qualname)
        if name is None or method.startswith("_"):
            return None
        label = f"{name.rsplit('.', 1)[1]}.{method}"
        support = tables.cuml_estimator(name)
        if support is None:
            return _operation(
                CUML, label, call, FALLBACK, [Reason("cuml.accel does not accelerate the estimator")], [], ctx
            )
        if not support.runs_on_gpu(method):
            where = f"{support.path}:{support.line}" if support.path else None
            return _operation(
                CUML,
                label,
                call,
                FALLBACK,
                [Reason(f"the GPU estimator `{support.cuml_class}` has no `{method}`", where)],
                [],
                ctx,
            )
        reasons: list[Reason] = []
        caveats: list[Reason] = []
        arguments = _arguments(call)[1]
        verdict = _judge(support.method_fallbacks(method, arguments), reasons, caveats, arguments, "cuml.accel")
        return _operation(CUML, label, call, verdict, reasons, caveats, ctx)

    def _graph_function(self, call: ast.Call, ctx: RuleContext) -> Operation | None:
        qualname = ctx.qualname(call.func)
        if not qualname or not qualname.startswith("networkx."):
            return None
        name = tables.nx_dispatch_name(qualname)
        if name is None:
            return None
        verdict, reasons, caveats = _graph_verdict(tables.nx_function(name), name, call, ctx)
        return _operation(NX, qualname, call, verdict, reasons, caveats, ctx)


_Probe.code, _Probe.name, _Probe.message = PROBE_CODE, "readiness-probe", "operation"  # never registered


def _spot(call: ast.Call | ast.Attribute) -> ast.expr:
    """Where an operation is: the call, or in a chain (`read_csv(...).to_html(...)`, whose calls
    all start at the same column) from the dot before its method's name."""
    if not isinstance(call, ast.Call):
        return call
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Call)
        and func.end_col_offset is not None
        and func.end_lineno is not None
    ):
        return call
    start = func.end_col_offset - len(func.attr.encode("utf-8")) - 1
    return ast.Name(
        "", lineno=func.end_lineno, col_offset=start, end_lineno=call.end_lineno, end_col_offset=call.end_col_offset
    )


def _operation(
    library: str,
    what: str,
    call: ast.Call | ast.Attribute,
    verdict: str,
    reasons: list[Reason],
    caveats: list[Reason],
    ctx: RuleContext,
    estimator: bool = False,
    notes: Sequence[Reason] = (),
) -> Operation:
    spot = _spot(call)
    code = " ".join(ctx.segment(spot).split())
    if spot is not call:
        code = "(...)" + code
    if len(code) > _SNIPPET:
        code = code[: _SNIPPET - 3] + "..."
    return Operation(
        library,
        what,
        code,
        verdict,
        call.lineno,
        call.col_offset,
        None,
        estimator,
        bool(ctx.loops),
        tuple(reasons),
        tuple(caveats),
        tuple(notes),
    )


#: pandas classes whose objects the evidence may not tell apart: a name either lacks is not
#: taken as removed.
_SIBLINGS = {
    "DataFrame": "Series",
    "Series": "DataFrame",
    "DataFrameGroupBy": "SeriesGroupBy",
    "SeriesGroupBy": "DataFrameGroupBy",
    "StringMethods": "StringMethods",
}


def _not_in_pandas(owner: str, name: str) -> bool:
    """The pandas the table names has no such method on the owner or its sibling class."""
    sibling = _SIBLINGS.get(owner)
    if sibling is None:
        return False
    members = [tables.pandas_members(c) for c in (owner, sibling)]
    return all(m is not None and name not in m for m in members)


#: Methods a library adds to pandas' classes when the file imports it (`tqdm.pandas()` adds
#: `progress_apply`, `progress_map`, ...).
_REGISTERING = {"tqdm": "progress_"}


def _registered(name: str, ctx: RuleContext) -> bool:
    """`name` is a method a library the file imports adds to pandas' classes."""
    prefixes = [
        prefix
        for node in ast.walk(ctx.tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for module in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
        if (prefix := _REGISTERING.get(module.split(".", 1)[0]))
    ]
    return any(name.startswith(prefix) for prefix in prefixes)


def _requirement(text: str, raised: str, what: str = "call") -> Reason:
    required = tables.pandas_requirement()
    if required is None:
        return Reason(f"{text}; cudf.pandas requires pandas 3: the {what} raises {raised}")
    return Reason(f"{text}; cudf.pandas requires pandas{required[0]}: the {what} raises {raised}", required[1])


def _removed(owner: str, name: str, what: str = "call") -> Reason:
    """Why a method (or indexer) pandas 3 has not breaks under cudf.pandas."""
    instead = f" (use {REMOVED_IN_PANDAS3[name]})" if name in REMOVED_IN_PANDAS3 else ""
    version = tables.pandas_version() or "3"
    return _requirement(f"pandas {version} has no `{owner}.{name}`{instead}", "AttributeError", what)


#: Group-by methods that run a Python function as an aggregation (`transform` runs `agg`).
_AGGREGATING = frozenset({"agg", "aggregate", "transform"})


def _refused_aggregation(call: ast.Call) -> Reason | None:
    """A lambda given to a group-by `agg`/`transform` that cuDF cannot run: cuDF calls it with
    its `Aggregation` class, so only `lambda x: x.<aggregation>(...)` with arguments that do
    not use `x` works (`lambda x: len(x)` and `lambda x: x.fillna(x.mean())` raise, and pandas runs them)."""
    found = tables.callable_aggregation()
    func = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "func"), None)
    if found is None or not isinstance(func, ast.Lambda):
        return None
    params = func.args.posonlyargs + func.args.args
    body = func.body
    if (
        len(params) == 1
        and isinstance(body, ast.Call)
        and isinstance(body.func, ast.Attribute)
        and isinstance(body.func.value, ast.Name)
        and body.func.value.id == params[0].arg
        and body.func.attr in found.methods
        and not any(
            isinstance(n, ast.Name) and n.id == params[0].arg
            for a in [*body.args, *(k.value for k in body.keywords)]
            for n in ast.walk(a)
        )
    ):
        return None
    shown = ast.unparse(body)
    shown = shown if len(shown) <= _SNIPPET else shown[: _SNIPPET - 3] + "..."
    return Reason(
        f"cuDF calls the function with its `Aggregation` class, so only `lambda x: x.<aggregation>(...)` runs: "
        f"`{shown}` raises and pandas runs it",
        f"{found.path}:{found.line}",
    )


def _on_pandas_objects(call: ast.Call, name: str, ctx: RuleContext) -> bool:
    """A `pandas` function cuDF does not export is counted (it runs in pandas) where it makes or
    takes pandas objects: its result is one, it is a reader (`read_html` returns a list of
    frames), or an argument is one; not on a scalar (`pd.isna(text)`)."""
    result = ctx.type_of(call)
    if name.startswith("read_") or (result is not None and result.is_pandas_like):
        return True
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return any((found := ctx.type_of(a)) is not None and found.is_pandas_like for a in arguments)


def _removed_function(name: str) -> Reason:
    """Why a `pandas` function pandas 3 has not breaks under cudf.pandas."""
    version = tables.pandas_version() or "3"
    return _requirement(f"pandas {version} has no `pandas.{name}`", "AttributeError")


def _removed_keyword(label: str, keyword: str) -> Reason:
    version = tables.pandas_version() or "3"
    return _requirement(f"pandas {version}'s `{label}` takes no `{keyword}=`", "TypeError")


def _removed_offset(call: ast.Call, name: str, ctx: RuleContext) -> Reason | None:
    """A `resample` rule, or the `freq` of a `pandas.Grouper` given to `groupby`, whose offset
    alias the pandas the table names no longer accepts (pandas raises ValueError)."""
    parameter = "rule" if name == "resample" else "by"
    node = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == parameter), None)
    value = _value(node, ctx) if node is not None else None
    if name == "resample":
        return _removed_alias(value)
    items = value.items if isinstance(value, tables.Display) else (value,)
    return next(
        (found for item in items if isinstance(item, tables.Grouper) and (found := _removed_alias(item.freq))), None
    )


def _removed_alias(text: Any) -> Reason | None:
    aliases = tables.pandas_offsets()
    alias = tables.offset_alias(text) if isinstance(text, str) else None
    if alias is None or not aliases or alias in aliases:
        return None
    instead = f' (use "{RENAMED_OFFSETS[alias]}")' if alias in RENAMED_OFFSETS else ""
    required = tables.pandas_requirement()
    return Reason(
        f'pandas 3 has no offset alias "{alias}"{instead}: pandas raises ValueError, with or without cudf.pandas',
        None if required is None else required[1],
    )


# -- running it over files ------------------------------------------------------------------------


def _split(
    display: str, records: Sequence[Record], diagnostics: Sequence[Diagnostic], warnings: list[str], error: str | None
) -> FileReport:
    """A file's report: the operations the probe recorded, at their places, and the lint
    findings that stand in the GPU's way."""
    report = FileReport(display, warnings=list(warnings), error=error)
    for record in records:
        if isinstance(record.payload, Operation):
            report.operations.append(
                replace(record.payload, line=record.start.line, col=record.start.col, cell=record.cell)
            )
    report.blockers = [d.with_fix(None) for d in diagnostics if d.code in BLOCKERS]
    report.operations.sort(key=lambda op: (op.cell or 0, op.line, op.col))
    return report


def analyse_source(text: str, filename: str = "<string>", rules: Sequence[type[Rule]] | None = None) -> FileReport:
    """The readiness of Python source text (`rules`: the lint rules run with the probe;
    default: every registered rule)."""
    chosen = [*(all_rules() if rules is None else rules), _Probe]
    outcome = run(Source.from_text(text), chosen, filename, fixes=False)
    return _split(filename, outcome.records, outcome.diagnostics, outcome.warnings, outcome.error)


@dataclass(frozen=True)
class _Task:
    """One file's readiness (sent to each worker with the file), served from the result
    cache where it has the file's report for this code, these tables and this content."""

    cache: Cache | None = None

    def __call__(self, work: Work) -> FileReport:
        if not isinstance(work, tuple):
            return FileReport(work.display, warnings=work.warnings, error=work.error or "not checked")
        target, config = work
        path = target.path
        display = str(path)
        seen = observe(path) if self.cache is not None else None
        if self.cache is not None:
            try:
                kept = self.cache.lookup_payload(
                    CACHE_KIND, tables.fingerprint(), config, path, display, seen, lambda: read_bytes(path)
                )
            except PathError:
                kept = None  # read again below, and reported there
            report = _from_payload(display, kept) if kept is not None else None
            if report is not None:
                return report
        try:
            data = read_bytes(path)
        except PathError as error:
            return FileReport(display, error=str(error))
        except OSError as error:
            return FileReport(display, error=describe_error(error))
        report, imported = self._analyse(data, path, display, [*config.rules_for(path), _Probe])
        if self.cache is not None and report.error is None:
            self.cache.store_payload(
                CACHE_KIND, tables.fingerprint(), config, path, display, data, _to_payload(report), seen, imported
            )
        return report

    @staticmethod
    def _analyse(
        data: bytes, path: Path, display: str, rules: list[type[Rule]]
    ) -> tuple[FileReport, tuple[ImportedFile, ...]]:
        """The file's report, and the project modules its analysis followed (for the cache)."""
        try:
            if is_notebook(path):
                found = check_notebook(decode(data).text, rules, False, display, False, path)
                report = _split(display, found.records, found.diagnostics, found.warnings, found.error)
                return report, found.imported
            outcome = run(Source.from_bytes(data), rules, display, fixes=False, path=path)
        except (PathError, SourceError, NotebookError) as error:
            return FileReport(display, error=str(error)), ()
        return _split(display, outcome.records, outcome.diagnostics, outcome.warnings, outcome.error), outcome.imported


#: The result cache's name for readiness reports, kept apart from `gpulint check`'s findings.
CACHE_KIND = "readiness"


def _to_payload(report: FileReport) -> dict[str, Any]:
    return {
        "operations": [op.to_json() for op in report.operations],
        "blockers": [encode_diagnostic(d) for d in report.blockers],
        "warnings": list(report.warnings),
    }


def _from_payload(display: str, payload: Any) -> FileReport | None:
    """A kept report, or None for an entry of another shape (a miss, never shown)."""
    try:
        return FileReport(
            display,
            operations=[Operation.from_json(op) for op in payload["operations"]],
            blockers=[decode_diagnostic(d) for d in payload["blockers"]],
            warnings=[str(w) for w in payload["warnings"]],
        )
    except (KeyError, TypeError, ValueError):
        return None


def _failed(work: Work, why: str) -> FileReport:
    display = str(work[0].path) if isinstance(work, tuple) else work.display
    return FileReport(display, error=f"internal error: {why}")


def readiness_paths(
    paths: Sequence[str | Path],
    overrides: Overrides | None = None,
    *,
    config_file: Path | None = None,
    force_exclude: bool = False,
    jobs: int = 1,
    cache: Cache | None = None,
) -> Iterator[FileReport]:
    """The readiness of every file under `paths`, found as `gpulint check` finds them (its
    configuration, exclusions and notebooks), in the same order with any number of `jobs`;
    with `cache`, each file's report is kept and served while the file, the code and the
    tables stay the same."""
    work = plan([str(p) for p in paths], ConfigResolver(overrides or Overrides(), config_file), force_exclude)
    yield from ordered_map(_Task(cache), work, jobs, _failed, warm_up=all_rules)


# -- the summary ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """How many counted operations of one kind run on the GPU, fall back, are undecided, run
    on the CPU inside cuDF, break under pandas 3; `total` counts them all. What runs on the
    CPU by design is counted apart (`cpu_by_design`), outside `total` and the share."""

    total: int = 0
    gpu: int = 0
    fallback: int = 0
    undecided: int = 0
    cpu_in_cudf: int = 0
    breaks_pandas3: int = 0
    cpu_by_design: int = 0

    def add(self, operation: Operation) -> None:
        if operation.verdict != BY_DESIGN:
            self.total += 1
        setattr(self, operation.verdict, getattr(self, operation.verdict) + 1)

    @property
    def share(self) -> float | None:
        """The percentage that runs on the GPU (None with nothing counted)."""
        return None if not self.total else 100.0 * self.gpu / self.total


#: The tallies a report gives: pandas operations (cudf.pandas), estimators built, the method
#: calls on estimators (cuml.accel), and NetworkX function calls (nx-cugraph).
TALLIES = ("pandas", "estimators", "estimator_methods", "networkx")


def tally_key(operation: Operation) -> str:
    if operation.library == CUDF:
        return "pandas"
    if operation.library == NX:
        return "networkx"
    return "estimators" if operation.estimator else "estimator_methods"


def tallies(operations: Sequence[Operation]) -> dict[str, Tally]:
    found = {key: Tally() for key in TALLIES}
    for operation in operations:
        found[tally_key(operation)].add(operation)
    return found


def overall_share(operations: Sequence[Operation]) -> float | None:
    """The percentage of all counted operations that runs on the GPU (`--fail-under`)."""
    total = Tally()
    for operation in operations:
        total.add(operation)
    return total.share

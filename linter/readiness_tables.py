"""What runs on the GPU under cudf.pandas, cuml.accel and nx-cugraph: typed lookups in the
readiness tables.

The tables (`readiness_data/cudf_pandas.json`, `readiness_data/cuml_accel.json`,
`readiness_data/nx_cugraph.json`) are derived from cuDF's, cuML's and nx-cugraph's sources by
`python -m benchmarks.readiness_tables` and `python -m benchmarks.readiness_tables_nx`; each
records the version and commit it was read from (`provenance()`).

- `cudf_method("DataFrame", "pivot_table")`: the cuDF method cudf.pandas would run, or None
  where cuDF does not define it (cudf.pandas then runs pandas) or the class is not covered
  (`cudf_classes()` lists the covered pandas classes).
- `cudf_function("merge")`: a module-level function `cudf` exports, or None.
- `cuml_estimator("sklearn.ensemble.RandomForestClassifier")`: the estimator cuml.accel runs
  on the GPU, or None where it does not accelerate that class.
- `nx_dispatch_name("networkx.bipartite.betweenness_centrality")`: the name NetworkX dispatches
  a function by (`bipartite_betweenness_centrality`), or None where NetworkX never hands it to
  a backend; `nx_function(name)`: nx-cugraph's implementation of it, or None.

A fallback condition is kept as the source text of the test (`Condition.text`), the file and
line it is read from, the parameters it tests and, where the test compares parameters with
literals, a predicate: `Condition.holds(...)` answers True (the call falls back), False (it
does not) or None (undecided: a parameter it tests is not given, or not as a literal; pass
`NOT_LITERAL` for a value that is present but unknown). A cuDF method's parameter left out of
the call takes cuDF's default, as it does when cudf.pandas runs the call; the tables do not
know scikit-learn's defaults, so a hyperparameter left out is undecided, not assumed safe.

Nothing here imports pandas, cuDF, scikit-learn, cuML, NetworkX or nx-cugraph.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

#: The package folder the tables are shipped in, and their file names.
DATA_FOLDER = "readiness_data"
CUDF_TABLE, CUML_TABLE, NX_TABLE = "cudf_pandas.json", "cuml_accel.json", "nx_cugraph.json"
#: The marker of the generated provenance block in docs/readiness.md.
PROVENANCE_MARKER = "readiness-provenance"


class _NotLiteral:
    def __repr__(self) -> str:
        return "NOT_LITERAL"


#: A parameter given in the call whose value is not a literal: every test on it is undecided.
NOT_LITERAL: Any = _NotLiteral()


@dataclass(frozen=True)
class Grouper:
    """A `pandas.Grouper(...)` the call builds in place: its `freq`, None where it sets none
    (NOT_LITERAL where it sets one that is not a literal)."""

    freq: Any = None


@dataclass(frozen=True)
class Display:
    """A list, tuple, set or dict written in the call whose items are not all literals: its
    type and its items' values (a dict's keys)."""

    kind: str  # "list", "tuple", "set" or "dict"
    items: tuple[Any, ...] = ()


_OFFSET = re.compile(r"^\s*[+-]?\d*\s*([A-Za-z]+)")


def offset_alias(rule: str) -> str | None:
    """The offset alias of a frequency string (`"2ME"`: "ME", `"W-MON"`: "W")."""
    found = _OFFSET.match(rule)
    return found.group(1) if found else None


def _special(op: str, given: Any, value: Any) -> bool | None:
    """The tests on what no literal holds (a Grouper, a display) and the tests the readiness
    table adds for helpers: `frequency_grouper`, `frequency_not_in`, `intersects`."""
    if op == "frequency_grouper":
        items = given.items if isinstance(given, Display) else given if isinstance(given, (list, tuple)) else (given,)
        return any(isinstance(item, Grouper) and item.freq is not None for item in items)
    if op == "frequency_not_in":
        if not isinstance(given, str):
            return None
        alias = offset_alias(given)
        return None if alias is None else alias not in value
    if op == "intersects":
        return bool(set(given) & set(value)) if isinstance(given, (set, frozenset)) else None
    if isinstance(given, Display):
        if op == "isinstance":
            return given.kind in value
        if op == "truthy":
            return bool(given.items)
        return None
    if isinstance(given, Grouper):
        return None
    raise KeyError(op)


_TYPES: dict[str, type | tuple[type, ...]] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "set": set,
    "bytes": bytes,
    "type(None)": type(None),
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "is": lambda a, b: _same(a, b),
    "is not": lambda a, b: not _same(a, b),
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _same(given: Any, literal: Any) -> bool:
    """`given is literal` as the source means it: identity for None, True and False (the only
    singletons a table holds), equality for other literals."""
    if literal is None or isinstance(literal, bool) or given is None or isinstance(given, bool):
        return given is literal
    return bool(given == literal)


@dataclass(frozen=True)
class Predicate:
    """A test over parameter values: a leaf (`param`, `source`, `op`, `value`) or a combination
    (`op` "all", "any" or "not" over `parts`)."""

    op: str
    param: str | None = None
    source: str | None = None  # "argument" (of the call) or "hyperparameter" (of the estimator)
    value: Any = None
    parts: tuple[Predicate, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Predicate:
        for combined in ("all", "any"):
            if combined in data:
                return cls(combined, parts=tuple(cls.from_json(p) for p in data[combined]))
        if "not" in data:
            return cls("not", parts=(cls.from_json(data["not"]),))
        value = data.get("value")
        return cls(data["op"], data["param"], data.get("source"), tuple(value) if isinstance(value, list) else value)

    def holds(self, arguments: Mapping[str, Any], hyperparameters: Mapping[str, Any]) -> bool | None:
        """True, False, or None where a value it needs is missing or not a literal."""
        if self.op in ("all", "any"):
            results = [p.holds(arguments, hyperparameters) for p in self.parts]
            decisive = self.op == "any"
            if decisive in results:
                return decisive
            return None if None in results else not decisive
        if self.op == "not":
            inner = self.parts[0].holds(arguments, hyperparameters)
            return None if inner is None else not inner
        values = hyperparameters if self.source == "hyperparameter" else arguments
        assert self.param is not None  # every condition on a value names its parameter
        if self.op == "frequency_grouper" and values.get(self.param) is NOT_LITERAL:
            return False  # a Grouper is built where the call or its name's assignment shows it
        if self.param not in values or values[self.param] is NOT_LITERAL:
            return None
        given = values[self.param]
        try:
            if self.op in ("frequency_grouper", "frequency_not_in", "intersects") or isinstance(
                given, (Display, Grouper)
            ):
                return _special(self.op, given, self.value)
            if self.op == "truthy":
                return bool(given)
            if self.op == "callable":
                return callable(given)
            if self.op == "isinstance":
                return isinstance(given, tuple(_TYPES[name] for name in self.value if name in _TYPES))
            return bool(_COMPARE[self.op](given, self.value))
        except (TypeError, ValueError, KeyError):
            return None


@dataclass(frozen=True)
class Condition:
    """One reason to fall back: the test as written in the source and where it is."""

    text: str | None  # None: raised on a path no if-test describes
    params: tuple[str, ...]
    path: str
    line: int
    predicate: Predicate | None
    #: cuML: "hyperparameter" or "input"; nx-cugraph: "can_run", "should_run", "not_implemented"
    #: or "errors" (what declares it)
    kind: str = "argument"
    methods: tuple[str, ...] = ()  # cuML "input": the methods that check it
    #: nx-cugraph: it also tests the graph or other data (the predicate, if any, only on the
    #: literal part: where that is false the condition cannot hold)
    data: bool = False
    via: str | None = None  # cuDF: the helper that raises it (`cudf.core.reshape.pivot_table`)
    described: bool = False  # `text` is prose that says what raises (not the test as written)

    def holds(
        self, arguments: Mapping[str, Any] | None = None, hyperparameters: Mapping[str, Any] | None = None
    ) -> bool | None:
        """Whether the call falls back here: True, False, or None (undecided; always None
        without a predicate)."""
        if self.predicate is None:
            return None
        return self.predicate.holds(arguments or {}, hyperparameters or {})


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # positional_only, positional_or_keyword, var_positional, keyword_only, var_keyword
    default: str | None  # as written in cuDF's source


@dataclass(frozen=True)
class MethodSupport:
    """A pandas method or function as cuDF implements it."""

    name: str
    kind: str  # method, property, classmethod, staticmethod, operation, attribute, function
    defined_in: str  # the cuDF class or module that defines it
    path: str
    line: int
    parameters: tuple[Parameter, ...] | None  # None: not known (an operation or attribute)
    refused_by: str | None  # the exception it raises before doing anything, if it does
    fallbacks: tuple[Condition, ...]
    compiles_udf: bool  # hands a Python function to cuDF's JIT (Numba)
    #: Parameters of the method it delegates to that it passes on through its `**kwargs`.
    forwarded: tuple[Parameter, ...] = ()
    #: Where cuDF hands the call to pandas itself, on the CPU (`read_json` without `lines=True`).
    cpu_paths: tuple[Condition, ...] = ()
    #: pandas' default of each parameter whose cuDF default differs (a call that leaves it out
    #: gets cuDF's under cudf.pandas).
    pandas_defaults: Mapping[str, Any] = field(default_factory=dict)
    #: The keywords pandas' method takes (None: any, or not recorded).
    pandas_keywords: frozenset[str] | None = None

    @property
    def implemented(self) -> bool:
        """False where cuDF's method refuses every call (cudf.pandas then always runs pandas)."""
        return self.refused_by is None

    def accepts(self, keyword: str) -> bool:
        """cuDF's signature takes this keyword (by name or through `**kwargs`); True when unknown."""
        if self.parameters is None:
            return True
        return _accepts(self.parameters, keyword)

    def bind(self, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A call's values by cuDF's parameter names. cudf.pandas passes the call's arguments as
        written, so a parameter left out takes cuDF's default (where that is a literal), also one
        it only passes on through `**kwargs` to the method it delegates to (unless extra positional
        values, which it passes on too, may fill it); keywords cuDF has no name for go to its
        `**kwargs` as a dict."""
        if self.parameters is None:
            return dict(keywords or {})
        return _bind(self.parameters, positional, keywords, self.forwarded)

    def fallbacks_for(
        self, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None
    ) -> list[tuple[Condition, bool | None]]:
        """The fallback conditions that hold (True) or may hold (None) for this call."""
        values = self.bind(positional, keywords)
        found: list[tuple[Condition, bool | None]] = []
        for condition in self.fallbacks:
            verdict = condition.holds(values)
            if verdict is not False:
                found.append((condition, verdict))
        return found


def _accepts(parameters: Sequence[Parameter], keyword: str) -> bool:
    return any(
        p.name == keyword and p.kind not in ("positional_only", "var_positional") or p.kind == "var_keyword"
        for p in parameters
    )


def _bind(
    parameters: Sequence[Parameter],
    positional: Sequence[Any] = (),
    keywords: Mapping[str, Any] | None = None,
    forwarded: Sequence[Parameter] = (),
) -> dict[str, Any]:
    """A call's values by the parameters' names, a parameter left out taking its literal default."""
    keywords = dict(keywords or {})
    bound: dict[str, Any] = {}
    ordered = [p for p in parameters if p.kind in ("positional_only", "positional_or_keyword")]
    forwarded = forwarded if len(positional) <= len(ordered) else ()
    for parameter in (*forwarded, *parameters):
        if parameter.default is not None:
            try:
                bound[parameter.name] = ast.literal_eval(parameter.default)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    for parameter, value in zip(ordered, positional, strict=False):
        bound[parameter.name] = value
    names = {p.name for p in parameters if p.kind not in ("positional_only", "var_positional", "var_keyword")}
    extra = {k: v for k, v in keywords.items() if k not in names}
    bound.update({k: v for k, v in keywords.items() if k in names})
    var_keyword = next((p.name for p in parameters if p.kind == "var_keyword"), None)
    if var_keyword is not None:
        # also by name: a condition of the method the keywords are forwarded to tests them so
        bound.update({k: v for k, v in extra.items() if k != var_keyword})
        bound[var_keyword] = extra
    return bound


@dataclass(frozen=True)
class GraphFunctionSupport:
    """A NetworkX function nx-cugraph implements, and when NetworkX does not run it on the GPU."""

    name: str  # the name NetworkX dispatches it by
    function: str  # nx-cugraph's Python function
    path: str
    line: int
    parameters: tuple[Parameter, ...]
    conditions: tuple[Condition, ...]
    is_incomplete: bool  # nx-cugraph says it lacks part of NetworkX's function
    is_different: bool  # nx-cugraph says its results may differ (random numbers, normalization)
    notes: str | None  # what nx-cugraph's docstring adds to NetworkX's

    def accepts(self, keyword: str) -> bool:
        """nx-cugraph's signature takes this keyword."""
        return _accepts(self.parameters, keyword)

    def bind(self, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A call's values by nx-cugraph's parameter names (NetworkX passes the call's arguments
        as written, so a parameter left out takes nx-cugraph's default)."""
        return _bind(self.parameters, positional, keywords)


@dataclass(frozen=True)
class EstimatorSupport:
    """An estimator cuml.accel runs on the GPU, and when it does not."""

    cpu_class: str  # the import path, `sklearn.ensemble.RandomForestClassifier`
    cuml_class: str | None
    path: str | None
    line: int | None
    gpu_methods: frozenset[str]  # methods the GPU estimator has; others run on the CPU
    sparse_on_gpu: bool  # sparse X stays on the GPU
    unavailable_attributes: frozenset[str]  # fitted attributes cuml.accel does not compute
    fallbacks: tuple[Condition, ...]
    documented_at: tuple[str, int] | None  # where the compatibility page describes it
    #: The CPU class's literal constructor defaults (read when the table was made, from the
    #: scikit-learn named in the provenance): what a hyperparameter left out is.
    cpu_defaults: Mapping[str, Any] = field(default_factory=dict)
    #: Hyperparameters the GPU estimator sets to a constant whatever the call says:
    #: name -> (value, "path:line").
    fixed_params: Mapping[str, tuple[Any, str]] = field(default_factory=dict)

    def hyperparameter_fallbacks(self, hyperparameters: Mapping[str, Any]) -> list[tuple[Condition, bool | None]]:
        """The hyperparameter conditions that hold (True) or may hold (None) for the constructor's
        literal keyword arguments."""
        return _holding([c for c in self.fallbacks if c.kind == "hyperparameter"], {}, hyperparameters)

    def runs_on_gpu(self, method: str) -> bool:
        return method in self.gpu_methods

    def method_fallbacks(
        self, method: str, arguments: Mapping[str, Any] | None = None, hyperparameters: Mapping[str, Any] | None = None
    ) -> list[tuple[Condition, bool | None]]:
        """The input conditions `method` checks that hold or may hold for its literal arguments."""
        chosen = [c for c in self.fallbacks if c.kind == "input" and method in c.methods]
        return _holding(chosen, arguments or {}, hyperparameters or {})


def _holding(
    conditions: list[Condition], arguments: Mapping[str, Any], hyperparameters: Mapping[str, Any]
) -> list[tuple[Condition, bool | None]]:
    found: list[tuple[Condition, bool | None]] = []
    for condition in conditions:
        verdict = condition.holds(arguments, hyperparameters)
        if verdict is not False:
            found.append((condition, verdict))
    return found


@dataclass(frozen=True)
class Provenance:
    library: str
    source: str
    version: str | None
    commit: str | None
    commit_date: str | None
    command: str


# -- loading -------------------------------------------------------------------------------------


@cache
def fingerprint() -> str:
    """The shipped tables, hashed: what a cached readiness result depends on besides the code."""
    import hashlib

    digest = hashlib.sha256()
    for name in (CUDF_TABLE, CUML_TABLE, NX_TABLE):
        digest.update(resources.files("gpulint").joinpath(DATA_FOLDER).joinpath(name).read_bytes())
    return digest.hexdigest()


@cache
def load_table(name: str, folder: str | None = None) -> dict[str, Any]:
    """A table as JSON: the shipped one, or the one in `folder` (a freshly generated set)."""
    if folder is not None:
        return json.loads((Path(folder) / name).read_text(encoding="utf-8"))
    return json.loads(resources.files("gpulint").joinpath(DATA_FOLDER).joinpath(name).read_text(encoding="utf-8"))


def _folder_of(name: str, folder: str | None) -> str | None:
    """`folder` where it holds the table `name`; None (the shipped one) where it does not: each
    generator writes only its own tables."""
    return folder if folder is not None and (Path(folder) / name).is_file() else None


def _condition(data: Mapping[str, Any], path: str) -> Condition:
    predicate = data.get("predicate")
    return Condition(
        data.get("condition"),
        tuple(data.get("params") or ()),
        data.get("path", path),
        data["line"],
        None if predicate is None else Predicate.from_json(predicate),
        data.get("kind", "argument"),
        tuple(data.get("methods") or ()),
        bool(data.get("data")),
        data.get("via"),
        bool(data.get("described")),
    )


def _method(name: str, data: Mapping[str, Any]) -> MethodSupport:
    params = data.get("params")
    parameters = None if params is None else tuple(Parameter(p["name"], p["kind"], p["default"]) for p in params)
    refused = data.get("not_implemented")
    return MethodSupport(
        name,
        data["kind"],
        data["defined_in"],
        data["path"],
        data["line"],
        parameters,
        None if refused is None else refused["raises"],
        tuple(_condition(c, data["path"]) for c in data.get("fallbacks", ())),
        bool(data.get("compiles_udf")),
        tuple(Parameter(p["name"], p["kind"], p["default"]) for p in data.get("forwarded_params", ())),
        tuple(_condition(c, data["path"]) for c in data.get("cpu_paths", ())),
        dict(data.get("pandas_defaults") or {}),
        None if data.get("pandas_keywords") is None else frozenset(data["pandas_keywords"]),
    )


def cudf_classes(folder: str | None = None) -> frozenset[str]:
    """The pandas classes the cuDF table covers (DataFrame, Series, Index, DataFrameGroupBy, ...)."""
    return frozenset(load_table(CUDF_TABLE, folder)["classes"])


def cudf_method(pandas_class: str, method: str, folder: str | None = None) -> MethodSupport | None:
    """How cuDF implements `pandas_class.method`; None where cuDF does not define it or the class
    is not in `cudf_classes()`."""
    cls = load_table(CUDF_TABLE, folder)["classes"].get(pandas_class)
    data = cls["members"].get(method) if cls else None
    return None if data is None else _method(method, data)


def cudf_members(pandas_class: str, folder: str | None = None) -> frozenset[str]:
    """Every public member the cuDF class for `pandas_class` defines (empty if not covered)."""
    cls = load_table(CUDF_TABLE, folder)["classes"].get(pandas_class)
    return frozenset(cls["members"]) if cls else frozenset()


def cudf_function(name: str, folder: str | None = None) -> MethodSupport | None:
    """A module-level function `cudf` exports under the pandas name (`merge`, `concat`, ...)."""
    data = load_table(CUDF_TABLE, folder)["functions"].get(name)
    return None if data is None else _method(name, data)


def pandas_members(pandas_class: str, folder: str | None = None) -> frozenset[str] | None:
    """The public members of the pandas class the table names (None where not recorded)."""
    cls = load_table(CUDF_TABLE, folder)["classes"].get(pandas_class)
    found = cls.get("pandas_members") if cls else None
    return None if found is None else frozenset(found)


def pandas_version(folder: str | None = None) -> str | None:
    """The pandas the table's pandas facts were read from."""
    found = load_table(CUDF_TABLE, folder)["provenance"].get("pandas_defaults_from")
    return found if isinstance(found, str) else None


@dataclass(frozen=True)
class CallableAggregation:
    """How cuDF's group-by runs an aggregation given as a Python function: it calls the
    function with its `Aggregation` class (`op(Aggregation)`), so only a function that calls one
    of `methods` on its argument works."""

    path: str
    line: int
    methods: frozenset[str]


def callable_aggregation(folder: str | None = None) -> CallableAggregation | None:
    """Where cuDF calls a group-by aggregation's Python function (None where not recorded)."""
    found = load_table(CUDF_TABLE, folder).get("callable_aggregation")
    if not found:
        return None
    return CallableAggregation(found["path"], found["line"], frozenset(found["methods"]))


def pandas_names(folder: str | None = None) -> frozenset[str] | None:
    """The public names of the `pandas` module the table names (None where not recorded)."""
    found = load_table(CUDF_TABLE, folder).get("pandas_names")
    return None if found is None else frozenset(found)


def pandas_offsets(folder: str | None = None) -> frozenset[str]:
    """The offset aliases the pandas the table names accepts (empty where it records none)."""
    return frozenset((load_table(CUDF_TABLE, folder).get("pandas_offsets") or {}).get("aliases", ()))


def pandas_requirement(folder: str | None = None) -> tuple[str, str] | None:
    """The pandas versions cuDF requires and where it says so (`(">=3.0.0,<3.0.4a0",
    "python/cudf/pyproject.toml:33")`), or None where the table does not record it."""
    found = load_table(CUDF_TABLE, folder)["provenance"].get("pandas_requirement")
    return None if not found else (found["spec"], f"{found['path']}:{found['line']}")


def cuml_estimator(cpu_class: str, folder: str | None = None) -> EstimatorSupport | None:
    """The estimator cuml.accel accelerates for the CPU class's import path, or None."""
    data = load_table(CUML_TABLE, folder)["estimators"].get(cpu_class)
    if data is None:
        return None
    documented = data.get("documented")
    return EstimatorSupport(
        cpu_class,
        data.get("cuml_class"),
        data.get("path"),
        data.get("line"),
        frozenset(data.get("gpu_methods", ())),
        bool(data.get("sparse_on_gpu")),
        frozenset(data.get("unavailable_attributes", ())),
        tuple(_condition(c, data.get("path") or "") for c in data.get("fallbacks", ())),
        None if not documented else (documented["path"], documented["line"]),
        dict(data.get("cpu_defaults") or {}),
        {f["param"]: (f["value"], f"{f['path']}:{f['line']}") for f in data.get("fixed_params", ())},
    )


def cuml_estimators(folder: str | None = None) -> frozenset[str]:
    """The import paths of every estimator cuml.accel accelerates."""
    return frozenset(load_table(CUML_TABLE, folder)["estimators"])


def nx_dispatch_name(import_path: str, folder: str | None = None) -> str | None:
    """The name NetworkX dispatches the function at `import_path` by (`networkx.pagerank`,
    `networkx.algorithms.link_analysis.pagerank`: `pagerank`), or None where NetworkX never
    hands it to a backend (classes, drawing, utilities) or the path is unknown."""
    found = load_table(NX_TABLE, folder)["networkx"]["paths"].get(import_path)
    return found if isinstance(found, str) else None


def nx_function(name: str, folder: str | None = None) -> GraphFunctionSupport | None:
    """nx-cugraph's implementation of the NetworkX function dispatched as `name`, or None
    where nx-cugraph does not implement it (NetworkX then runs its own code)."""
    data = load_table(NX_TABLE, folder)["functions"].get(name)
    if data is None:
        return None
    return GraphFunctionSupport(
        name,
        data["function"],
        data["path"],
        data["line"],
        tuple(Parameter(p["name"], p["kind"], p["default"]) for p in data["params"]),
        tuple(_condition(c, data["path"]) for c in data.get("conditions", ())),
        bool(data.get("is_incomplete")),
        bool(data.get("is_different")),
        data.get("notes"),
    )


def nx_functions(folder: str | None = None) -> frozenset[str]:
    """The dispatch names of every NetworkX function nx-cugraph implements."""
    return frozenset(load_table(NX_TABLE, folder)["functions"])


def provenance(folder: str | None = None) -> dict[str, Provenance]:
    """Where each table comes from, by library ("cudf", "cuml", "nx-cugraph")."""
    out = {}
    for name in (CUDF_TABLE, CUML_TABLE, NX_TABLE):
        data = load_table(name, _folder_of(name, folder))["provenance"]
        out[data["library"]] = Provenance(
            data["library"],
            data["source"],
            data.get("version"),
            data.get("commit"),
            data.get("commit_date"),
            data["command"],
        )
    return out


def provenance_markdown(folder: str | Path | None = None) -> str:
    """The generated block of docs/readiness.md: where the tables come from, how to regenerate
    them, and what they hold."""
    where = None if folder is None else str(folder)
    found = provenance(where)
    rows = ["| Table | Library | Version | Commit | Commit date |", "|---|---|---|---|---|"]
    for table, library in ((CUDF_TABLE, "cudf"), (CUML_TABLE, "cuml"), (NX_TABLE, "nx-cugraph")):
        item = found[library]
        commit = f"[`{item.commit[:12]}`]({item.source}/tree/{item.commit})" if item.commit else "unknown"
        rows.append(
            f"| `{table}` | [{library}]({item.source}) | {item.version or 'unknown'} | {commit} "
            f"| {item.commit_date or 'unknown'} |"
        )
    cudf = load_table(CUDF_TABLE, _folder_of(CUDF_TABLE, where))
    cuml = load_table(CUML_TABLE, _folder_of(CUML_TABLE, where))
    classes = [
        "| pandas class | cuDF class | members | refused | with fallback conditions | conditions |",
        "|---|---|---|---|---|---|",
    ]
    for name, cls in cudf["classes"].items():
        members = cls["members"].values()
        classes.append(
            f"| `{name}` | `{cls['cudf_class']}` | {len(cls['members'])} "
            f"| {sum(1 for m in members if m['not_implemented'])} "
            f"| {sum(1 for m in members if m['fallbacks'])} | {sum(len(m['fallbacks']) for m in members)} |"
        )
    functions = cudf["functions"].values()
    estimators = cuml["estimators"].values()
    conditions = [c for e in estimators for c in e["fallbacks"]]
    summary = (
        f"{len(cudf['functions'])} module-level functions ({sum(len(f['fallbacks']) for f in functions)} "
        f"fallback conditions); {len(cuml['estimators'])} estimators accelerated by cuml.accel, with "
        f"{len(conditions)} fallback conditions ({sum(1 for c in conditions if c['kind'] == 'hyperparameter')} "
        f"on hyperparameters, {sum(1 for c in conditions if c['kind'] == 'input')} on inputs and method "
        f"arguments; {sum(1 for c in conditions if c['predicate'])} of them decidable on literal values)."
    )
    defaults_from = cuml["provenance"].get("cpu_defaults_from") or {}
    defaults = (
        "The CPU estimators' constructor defaults (what a hyperparameter left out is) come from "
        + ", ".join(f"{name} {version}" for name, version in defaults_from.items())
        + "; refresh them alone with `python -m benchmarks.readiness_tables --cpu-defaults-only`."
        if defaults_from
        else "The CPU estimators' constructor defaults are not recorded."
    )
    graphs = load_table(NX_TABLE, _folder_of(NX_TABLE, where))
    implemented = graphs["functions"].values()
    graph_conditions = [c for f in implemented for c in f["conditions"]]
    kinds = ", ".join(
        f"{sum(1 for c in graph_conditions if c['kind'] == kind)} {label}"
        for kind, label in (
            ("can_run", "from `_can_run`"),
            ("should_run", "from `_should_run`"),
            ("not_implemented", "raising `NotImplementedError`"),
            ("errors", "from `fallback=True`"),
        )
    )
    dispatched = graphs["networkx"]
    names = set(dispatched["paths"].values())
    graph_summary = (
        f"nx-cugraph implements {len(names & set(graphs['functions']))} of the {len(names)} functions NetworkX "
        f"{dispatched['version']} dispatches (reached by {len(dispatched['paths'])} import paths); "
        f"{sum(1 for f in implemented if f['conditions'])} of its {len(graphs['functions'])} entries (graph "
        f"constructors included) have conditions ({len(graph_conditions)}: {kinds}; "
        f"{sum(1 for c in graph_conditions if c['predicate'] and not c['data'])} decidable on literal values, "
        f"{sum(1 for c in graph_conditions if c['data'])} also testing the graph)."
    )
    return "\n".join(
        [
            *rows,
            "",
            "Regenerate them with",
            "",
            "```sh",
            found["cudf"].command,
            found["nx-cugraph"].command,
            "```",
            "",
            defaults,
            "",
            *classes,
            "",
            summary,
            "",
            graph_summary,
        ]
    )

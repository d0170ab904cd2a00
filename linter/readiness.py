"""The GPU-readiness report: which operations on pandas objects, scikit-learn-family
estimators and NetworkX functions would run on the GPU under cudf.pandas / cuml.accel /
nx-cugraph, which fall back and why.

How a file is read: the engine walks it once with the file's selected lint rules plus a
probe (`_Probe`, a `Rule` that is never registered, so no selection, listing or cache of
`gpulint check` sees it). The probe asks the type evidence (`ctx.type_of`, `ctx.qualname`)
about every call and records the ones it can place as a finding of its own code, the record
encoded in the message: that way notebooks (cells), `--jobs` workers and pickling need
nothing new. What is counted (one *operation* per call, never from a variable's name):

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
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import estimators
from . import readiness_tables as tables
from .config import ConfigResolver, Overrides
from .diagnostic import Diagnostic
from .files import PathError, describe_error, read_bytes
from .jobs import ordered_map
from .notebook import NotebookError, check_notebook, decode, is_notebook
from .pipeline import run
from .registry import all_rules
from .rule_api import Kind, Rule, RuleContext
from .runner import Work, plan
from .source import Source, SourceError
from .values import has_unpacking

#: The code the probe's records carry; it matches no rule code pattern, so nothing mistakes
#: a record for a lint finding.
PROBE_CODE = "READINESS"
GPU, FALLBACK, UNDECIDED = "gpu", "fallback", "undecided"
CUDF, CUML, NX = "cudf", "cuml", "networkx"
LIBRARIES = (CUDF, CUML, NX)

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

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["reasons"] = [asdict(r) for r in self.reasons]
        data["caveats"] = [asdict(r) for r in self.caveats]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Operation:
        return cls(
            **{
                **data,
                "reasons": tuple(Reason(**r) for r in data["reasons"]),
                "caveats": tuple(Reason(**r) for r in data["caveats"]),
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


def _arguments(call: ast.Call) -> tuple[list[Any], dict[str, Any]]:
    positional = [_literal(a) for a in call.args]
    keywords = {k.arg: _literal(k.value) for k in call.keywords if k.arg is not None}
    return positional, keywords


def _where(condition: tables.Condition) -> str:
    return f"{condition.path}:{condition.line}"


def _judge(
    conditions: Sequence[tuple[tables.Condition, bool | None]], reasons: list[Reason], caveats: list[Reason]
) -> str:
    """Sort the conditions that hold or may hold into reasons (decided on the call) and
    caveats (tests on data, which no literal decides); the verdict they add up to."""
    verdict = GPU
    for condition, holds in conditions:
        text = condition.text or "raises on a path no test describes"
        if condition.predicate is None:
            caveats.append(Reason(text, _where(condition)))
        elif holds:
            reasons.append(Reason(text, _where(condition)))
            verdict = FALLBACK
        else:
            reasons.append(Reason(f"undecided: {text}", _where(condition)))
            verdict = verdict if verdict == FALLBACK else UNDECIDED
    return verdict


def _method_verdict(
    support: tables.MethodSupport | None, owner: str, call: ast.Call, ctx: RuleContext
) -> tuple[str, list[Reason], list[Reason]]:
    reasons: list[Reason] = []
    caveats: list[Reason] = []
    if support is None:
        return FALLBACK, [Reason(f"cuDF does not define `{owner}`")], caveats
    where = f"{support.path}:{support.line}"
    if not support.implemented:
        return FALLBACK, [Reason(f"cuDF refuses it (raises {support.refused_by})", where)], caveats
    positional, keywords = _arguments(call)
    unknown = [k for k in keywords if not support.accepts(k)]
    if unknown:
        return FALLBACK, [Reason(f"cuDF's signature has no `{k}`", where) for k in unknown], caveats
    conditions: list[tuple[tables.Condition, bool | None]]
    if has_unpacking(call):
        conditions = [(c, None) for c in support.fallbacks]
    else:
        values = _bound(support, positional, keywords)
        conditions = [(c, holds) for c in support.fallbacks if (holds := c.holds(values)) is not False]
    verdict = _judge(conditions, reasons, caveats)
    if support.compiles_udf and verdict == GPU and (call.args or call.keywords) and _function_given(call, ctx):
        reasons.append(
            Reason("undecided: runs on the GPU only if the Python function compiles with cuDF's Numba JIT", where)
        )
        verdict = UNDECIDED
    return verdict, reasons, caveats


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
    first = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg in ("func", "arg", "f", "function")), None)
    )
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

    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        found = None
        if isinstance(func, ast.Attribute):
            found = self._method(node, func, ctx)
        if found is None:
            found = self._construction(node, ctx) or self._function(node, ctx) or self._graph_function(node, ctx)
        if found is not None:
            ctx.report(_spot(node), json.dumps(found.to_json()))

    def _method(self, call: ast.Call, func: ast.Attribute, ctx: RuleContext) -> Operation | None:
        receiver = ctx.type_of(func.value)
        name = func.attr
        if receiver is None:
            return self._window(call, func, ctx)
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

    def _pandas(self, call: ast.Call, owner: str, name: str, label: str, ctx: RuleContext) -> Operation | None:
        if name.startswith("_"):
            return None
        verdict, reasons, caveats = _method_verdict(tables.cudf_method(owner, name), label, call, ctx)
        return _operation(CUDF, label, call, verdict, reasons, caveats, ctx)

    def _function(self, call: ast.Call, ctx: RuleContext) -> Operation | None:
        qualname = ctx.qualname(call.func)
        if not qualname or not qualname.startswith("pandas.") or qualname.count(".") != 1:
            return None
        name = qualname.split(".", 1)[1]
        support = tables.cudf_function(name)
        if support is None:
            result = ctx.type_of(call)
            if name[:1].isupper() or result is None or not result.is_pandas_like:
                return None
        verdict, reasons, caveats = _method_verdict(support, qualname, call, ctx)
        if support is None:
            reasons = [Reason(f"cuDF does not export `{name}`")]
        return _operation(CUDF, qualname, call, verdict, reasons, caveats, ctx)

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
        verdict = _judge(conditions, reasons, caveats)
        return _operation(CUML, label, call, verdict, reasons, caveats, ctx, estimator=True)

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
        verdict = _judge(support.method_fallbacks(method, _arguments(call)[1]), reasons, caveats)
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


def _spot(call: ast.Call) -> ast.expr:
    """Where an operation is: the call, or in a chain (`read_csv(...).to_html(...)`, whose calls
    all start at the same column) from the dot before its method's name."""
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
    call: ast.Call,
    verdict: str,
    reasons: list[Reason],
    caveats: list[Reason],
    ctx: RuleContext,
    estimator: bool = False,
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
    )


# -- running it over files ------------------------------------------------------------------------


def _split(display: str, diagnostics: Sequence[Diagnostic], warnings: list[str], error: str | None) -> FileReport:
    report = FileReport(display, warnings=list(warnings), error=error)
    for diagnostic in diagnostics:
        if diagnostic.code == PROBE_CODE:
            data = json.loads(diagnostic.message)
            data.update(line=diagnostic.start.line, col=diagnostic.start.col, cell=diagnostic.cell)
            report.operations.append(Operation.from_json(data))
        elif diagnostic.code in BLOCKERS:
            report.blockers.append(diagnostic.with_fix(None))
    report.operations.sort(key=lambda op: (op.cell or 0, op.line, op.col))
    return report


def analyse_source(text: str, filename: str = "<string>", rules: Sequence[type[Rule]] | None = None) -> FileReport:
    """The readiness of Python source text (`rules`: the lint rules run with the probe;
    default: every registered rule)."""
    chosen = [*(all_rules() if rules is None else rules), _Probe]
    outcome = run(Source.from_text(text), chosen, filename, fixes=False)
    return _split(filename, outcome.diagnostics, outcome.warnings, outcome.error)


@dataclass(frozen=True)
class _Task:
    """One file's readiness (sent to each worker with the file)."""

    def __call__(self, work: Work) -> FileReport:
        if not isinstance(work, tuple):
            return FileReport(work.display, warnings=work.warnings, error=work.error or "not checked")
        target, config = work
        path = target.path
        display = str(path)
        rules = [*config.rules_for(path), _Probe]
        try:
            data = read_bytes(path)
            if is_notebook(path):
                found = check_notebook(decode(data).text, rules, False, display, False)
                return _split(display, found.diagnostics, found.warnings, found.error)
            outcome = run(Source.from_bytes(data), rules, display, fixes=False)
        except (PathError, SourceError, NotebookError) as error:
            return FileReport(display, error=str(error))
        except OSError as error:
            return FileReport(display, error=describe_error(error))
        return _split(display, outcome.diagnostics, outcome.warnings, outcome.error)


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
) -> Iterator[FileReport]:
    """The readiness of every file under `paths`, found as `gpulint check` finds them (its
    configuration, exclusions and notebooks), in the same order with any number of `jobs`."""
    work = plan([str(p) for p in paths], ConfigResolver(overrides or Overrides(), config_file), force_exclude)
    yield from ordered_map(_Task(), work, jobs, _failed, warm_up=all_rules)


# -- the summary ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """How many counted operations of one kind run on the GPU, fall back, are undecided."""

    total: int = 0
    gpu: int = 0
    fallback: int = 0
    undecided: int = 0

    def add(self, operation: Operation) -> None:
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

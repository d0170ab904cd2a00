"""GPU403 estimator-without-n-jobs."""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field
from typing import Any

from gpulint.rule_api import (
    ESTIMATOR_TRIGGERS,
    STATEMENT_LOOPS,
    Applicability,
    Example,
    Rule,
    RuleContext,
    Tier,
    walk_local,
)
from gpulint.estimators import (
    N_JOBS_NAMES,
    fits_given_estimators,
    installs_cuml_accel,
    is_splitter,
    parallel_n_jobs,
    toy_dataset,
    user_code_parameters,
)
from gpulint.plans.estimator_without_n_jobs import EstimatorCall

_SETUP = (
    "from sklearn.datasets import make_classification\n"
    "X, y = make_classification(n_samples=N + 40, n_features=6, random_state=0)\n"
)


class EstimatorWithoutNJobs(Rule):
    """
    ## What it does
    Flags scikit-learn estimators and helpers that can spread their work over every core
    (random forests and extra trees, bagging, voting and stacking ensembles, nearest
    neighbours, DBSCAN/OPTICS, the `*CV` linear models, `GridSearchCV`,
    `RandomizedSearchCV`, `cross_val_score`, `cross_validate`, `permutation_importance`,
    ...) constructed or called without `n_jobs`.

    ## Evidence
    The list is data (`gpulint/estimators.py`, from the `n_jobs` parameter in scikit-learn's
    API reference): only classes whose `n_jobs` parallelises their default configuration,
    over trees, sub-estimators, neighbour queries, folds or candidates. `LogisticRegression`
    and `LinearRegression` are not on it: their `n_jobs` does nothing for a binary problem
    with the default solver, or a single target. cuML's estimators run on the GPU and have
    no `n_jobs`.

    Left alone: a call that passes `n_jobs` (any value), one that passes `**options` (which
    may hold it), and:

    - an estimator handed to another call on the list (a search, a `cross_*` helper,
      `learning_curve`, `permutation_importance`, an ensemble such as `VotingClassifier` or
      `BaggingClassifier`), built in its arguments
      (`GridSearchCV(RandomForestClassifier(), ...)`) or through names of the same scope
      (`model = RandomForestClassifier()`, `pipe = make_pipeline(scaler, model)`,
      `GridSearchCV(pipe, ...)`): the outer call is where the parallelism belongs and is
      reported there, once; `n_jobs=-1` at both levels only oversubscribes the cores, as
      scikit-learn's docs warn. An estimator also fitted on its own there
      (`model.fit(X, y)`) is still reported, with an unsafe fix;
    - code under `cuml.accel` (`cuml.accel.install()`, a notebook's `%load_ext cuml.accel`,
      or `get_ipython().run_line_magic("load_ext", "cuml.accel")`): the estimators run on
      the GPU;
    - an estimator whose every fit in its scope (or a helper whose `X`) is on one of
      scikit-learn's toy datasets (`load_iris`, `load_wine`, `load_breast_cancer`,
      `load_digits`, `load_diabetes`) or on generated data (`make_classification`,
      `make_regression`, `make_blobs`, `make_moons`, `make_circles`,
      `make_gaussian_quantiles`) with a literal `n_samples` below 10,000 or the default 100.
      The data is followed from the dataset call through the names that hold it, their
      columns, splits (`train_test_split`), frames built from it and transforms of it.
      gpulint's own benchmark of this rule measures `n_jobs=-1` at {speedup:100} at 100
      rows, {speedup:1000} at 1,000 and {speedup:10000} at 10,000: below that, starting the
      workers costs more than it saves. Data read from files, fetched (`fetch_covtype`),
      generated with a size that is not a literal, or an estimator never fitted in its
      scope, is reported.

    ## Why is this bad?
    `n_jobs` defaults to one core. A random forest fits its trees one after the other, a
    grid search its candidates and folds one after the other, while the other cores of
    the machine sit idle. The work items are independent, so with `n_jobs=-1` the time
    divides by up to the number of cores (the trees, candidates or folds permitting).

    ## Fix safety
    The fix adds `n_jobs=-1` (all cores), to the outermost parallel call only: an
    estimator nested in a search, helper or ensemble is not reported, so no fix puts
    `n_jobs=-1` at both levels. It is safe for the estimators that parallelise
    their own work (forests, bagging, neighbours, clustering, the `*CV` linear models)
    when no code of the caller's is among their arguments: they draw every seed before
    they dispatch, or run in threads, so they compute the same model whatever the number
    of jobs (the tests compare the predictions).

    It is unsafe where the workers may run the caller's own code, which then runs in other
    processes (or, for the neighbours and clustering, concurrently in threads): an
    estimator other than one of scikit-learn's built right there from constants
    (`BaggingClassifier(estimator=model)`, `permutation_importance(model, ...)`), a list
    of estimators, a scorer (`scoring=my_score`), a distance (`metric=my_distance`), an
    importance getter, a search's candidate values. State that code records (fits
    counted, scores logged, a cache it fills) stays in the workers, where the caller
    never sees it, and code that is not thread-safe may misbehave. The parameters checked
    for each estimator are listed in `gpulint/estimators.py`.

    It is unsafe, too, for the searches, the cross-validation helpers and the wrappers
    that fit estimators they are given (voting, stacking, one-vs-rest, multi-output,
    RFECV...): these fit them in worker processes, and an estimator there left with
    `random_state=None` draws from NumPy's global random state, which the workers do not
    share. With a fixed `random_state` the results are the same (the tests compare a
    search's scores); code that relied on `np.random.seed(...)` instead gets other, still
    random, models. Either way the workers cost memory: each holds a copy of its data.
    """

    code = "GPU403"
    libraries = ESTIMATOR_TRIGGERS
    name = "estimator-without-n-jobs"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 5 of 15 sampled findings useful (toy data, tests)"
    message = "parallelisable estimator or helper without `n_jobs` uses one core: pass `n_jobs=-1`"
    nodes = (ast.Call,)
    calls = N_JOBS_NAMES
    fix = Applicability.SAFE

    flagged = (
        Example(
            source="""\
from sklearn.ensemble import RandomForestClassifier


def train(features, labels):
    model = RandomForestClassifier(n_estimators=25, random_state=0)
    return model.fit(features, labels)
""",
            fixed="""\
from sklearn.ensemble import RandomForestClassifier


def train(features, labels):
    model = RandomForestClassifier(n_estimators=25, random_state=0, n_jobs=-1)
    return model.fit(features, labels)
""",
            requires=("sklearn",),
            setup=_SETUP,
            call="train(X, y).predict_proba(X)",
        ),
        Example(
            source="""\
from sklearn.neighbors import KNeighborsClassifier as KNN


def nearest_labels(features, labels):
    # five neighbours vote on each label
    model = KNN(
        n_neighbors=5,
    )
    return model.fit(features, labels).predict(features)
""",
            fixed="""\
from sklearn.neighbors import KNeighborsClassifier as KNN


def nearest_labels(features, labels):
    # five neighbours vote on each label
    model = KNN(
        n_neighbors=5,
        n_jobs=-1,
    )
    return model.fit(features, labels).predict(features)
""",
            requires=("sklearn",),
            setup=_SETUP,
            call="nearest_labels(X, y)",
        ),
        Example(
            source="""\
from sklearn import model_selection
from sklearn.tree import DecisionTreeClassifier


def fold_scores(features, labels):
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    return model_selection.cross_val_score(tree, features, labels, cv=3)
""",
            fixed="""\
from sklearn import model_selection
from sklearn.tree import DecisionTreeClassifier


def fold_scores(features, labels):
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    return model_selection.cross_val_score(tree, features, labels, cv=3, n_jobs=-1)
""",
            requires=("sklearn",),
            setup=_SETUP,
            call="fold_scores(X, y)",
        ),
        Example(
            source="""\
import sklearn.ensemble

forest = sklearn.ensemble.ExtraTreesRegressor()
""",
            fixed="""\
import sklearn.ensemble

forest = sklearn.ensemble.ExtraTreesRegressor(n_jobs=-1)
""",
            requires=("sklearn",),
            setup="from sklearn.datasets import make_regression\n"
            "X, y = make_regression(n_samples=N + 20, n_features=4, random_state=0)\n",
            call="forest.set_params(n_estimators=10, random_state=0).fit(X, y).predict(X)",
        ),
    )
    ok = (
        Example(
            """\
from sklearn.linear_model import LogisticRegression

# n_jobs does nothing for a binary problem with the default solver
model = LogisticRegression(max_iter=500)
""",
            reason="`LogisticRegression`: its `n_jobs` does nothing for a binary problem with the default solver.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestRegressor

model = RandomForestRegressor(n_estimators=200, n_jobs=4)
""",
            reason="`n_jobs` given (any value).",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier


def build(**options):
    return RandomForestClassifier(**options)
""",
            reason="Options passed as `**options`, which may hold `n_jobs`.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV

search = GridSearchCV(RandomForestClassifier(random_state=0), {"max_depth": [3, 5]}, n_jobs=-1)
""",
            reason="An estimator built in the arguments of a search that has `n_jobs`.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV

# the search parallelises its candidates and folds: the forest inside it stays on one core
forest = RandomForestClassifier(random_state=0)
search = GridSearchCV(forest, {"max_depth": [3, 5]}, n_jobs=-1)
""",
            reason="An estimator handed to a search: the search is where the parallelism belongs.",
        ),
        Example(
            """\
from sklearn.datasets import load_iris
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

# 150 rows: starting the workers would cost more than the trees
X, y = load_iris(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = RandomForestClassifier(random_state=0).fit(X_train, y_train)
""",
            reason="Fitted only on a toy dataset (`load_iris`, 150 rows): starting workers costs more than it saves.",
        ),
        Example(
            """\
import cuml.accel

cuml.accel.install()

from sklearn.neighbors import KNeighborsClassifier  # noqa: E402  (runs on the GPU now)

model = KNeighborsClassifier(n_neighbors=5)
""",
            reason="Code under `cuml.accel`: the estimators run on the GPU.",
        ),
        Example(
            """\
from cuml.ensemble import RandomForestClassifier

model = RandomForestClassifier(n_estimators=100)
""",
            reason="A cuML estimator: it runs on the GPU and has no `n_jobs`.",
        ),
        Example(
            """\
import sklearn


class RandomForestClassifier:
    def fit(self, X, y):
        return self


model = RandomForestClassifier()
""",
            reason="A class of the file's own named like scikit-learn's.",
        ),
    )

    def __init__(self) -> None:
        self._accel: bool | None = None
        #: Per scope of the file, its assignments and calls (`_ScopeCalls`).
        self._scopes: dict[ast.AST, _ScopeCalls] = {}

    def _scope_calls(self, ctx: RuleContext) -> _ScopeCalls:
        found = self._scopes.get(ctx.scope)
        if found is None:
            found = self._scopes[ctx.scope] = _ScopeCalls.of(_scope_body(ctx))
        return found

    def _under_cuml_accel(self, ctx: RuleContext) -> bool:
        if self._accel is None:
            self._accel = "cuml" in ctx.source.text and installs_cuml_accel(ctx.tree)
        return self._accel

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return
        qualname = ctx.qualname(node.func)
        if qualname is None or not parallel_n_jobs(qualname):
            return
        if any(keyword.arg in ("n_jobs", None) for keyword in node.keywords):
            return
        if _inside_parallel_call(node, ctx) or self._under_cuml_accel(ctx):
            return
        bound = _bound_name(node, ctx)
        live = _live_lines(bound, ctx) if bound is not None else None
        scope = self._scope_calls(ctx)
        fits = _fits(node, qualname, bound, live, scope, ctx)
        nested = bound is not None and _handed_to_parallel_call(node, bound, live, scope, ctx)
        if nested and not fits:
            return  # reported at the outer call
        if fits and all(x is not None and _toy(x, ctx, set()) for x in fits):
            return
        short = qualname.rsplit(".", 1)[1]
        ctx.report(
            node,
            f"`{short}` without `n_jobs` uses one core: pass `n_jobs=-1`",
            context=_facts(node, qualname, _user_code(node, qualname, ctx), nested),
        )


def _facts(call: ast.Call, qualname: str, user_code: str | None, nested: bool) -> EstimatorCall:
    """Adding `n_jobs=-1` is safe unless the estimator is nested in another parallel call
    (both levels oversubscribe the cores), may run the caller's code in worker processes, or
    fits estimators that draw from NumPy's global random state, which workers do not share."""
    unsafe = nested or user_code is not None or fits_given_estimators(qualname)
    return EstimatorCall(
        applicability=Applicability.UNSAFE if unsafe else Applicability.SAFE,
        call=call,
        nested=nested,
        user_code=user_code,
    )


#: Libraries whose functions and classes keep no state of the caller's.
_LIBRARIES = ("sklearn.", "numpy.", "scipy.")


def _user_code(call: ast.Call, qualname: str, ctx: RuleContext) -> str | None:
    """The first argument through which the call may run the caller's own code in its
    workers (`estimator=`, `scoring=`, `metric=`...), or None when provably none does."""
    parameters = user_code_parameters(qualname)
    if not parameters:
        return None
    starred = any(isinstance(argument, ast.Starred) for argument in call.args)
    for name, position in parameters.items():
        if position is not None and starred:
            return "`*` arguments"
        value = next((k.value for k in call.keywords if k.arg == name), None)
        if value is None and position is not None and position < len(call.args):
            value = call.args[position]
        if value is not None and not _library_value(value, ctx):
            return f"`{name}`"
    return None


def _library_value(node: ast.expr, ctx: RuleContext) -> bool:
    """Constants, containers of them, and what the known libraries build from them
    (`DecisionTreeClassifier(max_depth=3)`, `make_scorer(f1_score)`): no code of the file's."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _library_value(node.operand, ctx)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_library_value(element, ctx) for element in node.elts)
    if isinstance(node, ast.Dict):
        return all(key is not None and _library_value(key, ctx) for key in node.keys) and all(
            _library_value(value, ctx) for value in node.values
        )
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = ctx.qualname(node)
        return name is not None and name.startswith(_LIBRARIES)
    if isinstance(node, ast.Call):
        return (
            _library_value(node.func, ctx)
            and all(_library_value(a, ctx) for a in node.args)
            and all(k.arg is not None and _library_value(k.value, ctx) for k in node.keywords)
        )
    return False


def _inside_parallel_call(node: ast.Call, ctx: RuleContext) -> bool:
    """`node` is built inside the arguments of another call on the list."""
    statement = ctx.statement
    if statement is None:
        return False
    for outer in walk_local([statement]):
        if outer is node or not isinstance(outer, ast.Call) or not isinstance(outer.func, (ast.Name, ast.Attribute)):
            continue
        arguments = [*outer.args, *(keyword.value for keyword in outer.keywords)]
        if not any(sub is node for argument in arguments for sub in ast.walk(argument)):
            continue
        qualname = ctx.qualname(outer.func)
        if qualname is not None and parallel_n_jobs(qualname):
            return True
    return False


def _bound_name(node: ast.Call, ctx: RuleContext) -> str | None:
    """The name the statement binds `node` to, directly or as an element of the value
    (`model = RandomForestClassifier()`, `models = [("rf", RandomForestClassifier())]`)."""
    statement = ctx.statement
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Name):
        return None
    value = statement.value
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _RETURNS_SELF:
        value = value.func.value  # `RandomForestClassifier().set_params(...)`
    return targets[0].id if value is node or _passes(statement.value, {id(node)}, set()) else None


#: Methods of an estimator that return the estimator itself.
_RETURNS_SELF = frozenset({"fit", "set_params", "set_output"})


def _passes(value: ast.expr, nodes: set[int], names: set[str]) -> bool:
    """`value` hands on one of `nodes` or a name in `names` as an argument or element
    (`[("rf", model)]`, `make_pipeline(scaler, model)`), not as a receiver (`model.predict(X)`)."""
    if id(value) in nodes or isinstance(value, ast.Name) and value.id in names:
        return True
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return any(_passes(element, nodes, names) for element in value.elts)
    if isinstance(value, ast.Dict):
        return any(_passes(element, nodes, names) for element in value.values)
    if isinstance(value, ast.Starred):
        return _passes(value.value, nodes, names)
    if isinstance(value, ast.Call):
        return any(_passes(argument, nodes, names) for argument in [*value.args, *(k.value for k in value.keywords)])
    return False


def _scope_body(ctx: RuleContext) -> list[ast.stmt]:
    return ctx.scope.body  # type: ignore[attr-defined]


@dataclass
class _ScopeCalls:
    """The assignments and calls of one scope's own code, gathered once: a file of tests
    builds hundreds of estimators, each of which looks for its fits and its outer calls."""

    assignments: list[ast.Assign] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    fits: list[ast.Call] = field(default_factory=list)

    @classmethod
    def of(cls, body: list[ast.stmt]) -> _ScopeCalls:
        found = cls()
        for sub in walk_local(body):
            if isinstance(sub, ast.Assign):
                found.assignments.append(sub)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Name, ast.Attribute)):
                found.calls.append(sub)
                if isinstance(sub.func, ast.Attribute) and sub.func.attr in _FIT_METHODS:
                    found.fits.append(sub)
        for nodes in (found.assignments, found.calls, found.fits):
            nodes.sort(key=_line)  # in line order, so that `_live` finds a window by bisection
        return found


def _line(node: ast.AST) -> int:
    return node.lineno  # type: ignore[attr-defined]


def _live(nodes: list[Any], live: tuple[int, float] | None) -> list[Any]:
    """The nodes (in line order) on the lines of `live` (all of them for None): a window
    found by bisection, so that a long script's hundreds of estimators each read only theirs."""
    if live is None:
        return nodes
    return nodes[bisect.bisect_right(nodes, live[0], key=_line) : bisect.bisect_right(nodes, live[1], key=_line)]


def _live_lines(name: str, ctx: RuleContext) -> tuple[int, float]:
    """The lines where `name` still holds what the current statement binds: after it, up
    to the next statement of the scope that binds the name again."""
    statement = ctx.statement
    assert statement is not None
    start = statement.end_lineno or statement.lineno
    later = [b.lineno for b in ctx.bindings(name) if isinstance(b, ast.stmt) and b.lineno > start]
    return start, min(later, default=float("inf"))


def _within(node: ast.AST, live: tuple[int, float] | None) -> bool:
    return live is None or live[0] < node.lineno <= live[1]  # type: ignore[attr-defined]


def _handed_to_parallel_call(
    node: ast.Call, name: str, live: tuple[int, float] | None, scope: _ScopeCalls, ctx: RuleContext
) -> bool:
    """The estimator bound to `name` is handed, directly or through names bound to
    containers and pipelines holding it, to a search, a cross-validation helper or an
    ensemble of the same scope: that outer call is where the parallelism belongs."""
    names = {name}
    statements = _live(scope.assignments, live)
    for _ in range(3):  # `rf` -> `steps = [("rf", rf)]` -> `pipe = Pipeline(steps)`
        more = {
            target.id
            for statement in statements
            for target in statement.targets
            if isinstance(target, ast.Name) and target.id not in names and _passes(statement.value, set(), names)
        }
        if not more:
            break
        names |= more
    for outer in _live(scope.calls, live):
        if outer is node:
            continue
        if _passes(outer, set(), names):
            qualname = ctx.qualname(outer.func)
            if qualname is not None and parallel_n_jobs(qualname):
                return True
    return False


#: Methods that fit an estimator on the data they are given first.
_FIT_METHODS = frozenset({"fit", "fit_predict", "fit_transform"})
#: Calls that hand on the rows of their first argument (a frame or array built from it).
_WRAPPING_CALLS = frozenset({"pandas.DataFrame", "pandas.Series", "numpy.array", "numpy.asarray"})


def _fits(
    node: ast.Call,
    qualname: str,
    name: str | None,
    live: tuple[int, float] | None,
    scope: _ScopeCalls,
    ctx: RuleContext,
) -> list[ast.expr | None]:
    """The data the estimator is fitted on in its scope (`fit`, `fit_predict`,
    `fit_transform` on the call itself or on the name bound to it, while it holds it), or
    the helper's own `X` (`cross_val_score(estimator, X, y)`); None where it is not known."""
    if qualname.rsplit(".", 1)[1][:1].islower():
        return [_x_argument(node, 1)]
    data = []
    for sub in scope.fits:
        receiver = sub.func.value  # type: ignore[attr-defined]
        if receiver is node or (
            name is not None and isinstance(receiver, ast.Name) and receiver.id == name and _within(sub, live)
        ):
            data.append(_x_argument(sub, 0))
    return data


def _x_argument(call: ast.Call, position: int) -> ast.expr | None:
    value = next((k.value for k in call.keywords if k.arg == "X"), None)
    if (
        value is None
        and len(call.args) > position
        and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
    ):
        value = call.args[position]
    return value


def _toy(value: ast.expr, ctx: RuleContext, seen: set[str]) -> bool:
    """`value` holds rows of a toy dataset only: the dataset call, what its result is
    split or unpacked into, and columns, conversions and transforms of those (followed
    through the names of the scope; every binding of a name must be toy)."""
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        return _toy(value.value, ctx, seen)
    if isinstance(value, ast.Name):
        # `y = encoder.fit_transform(y)` reads the binding before it: a name is followed
        # again only from another line (a loop may bring it back to one already seen)
        here = f"{value.id}:{value.lineno}"
        if here in seen:
            return False
        seen = seen | {here}
        bindings = _reaching(ctx.bindings(value.id), value, ctx)
        return bool(bindings) and all(_toy_binding(binding, value.id, ctx, seen) for binding in bindings)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    qualname = _imported_qualname(func, ctx)
    if toy_dataset(qualname, value):
        return True
    arguments = [argument for argument in value.args if not isinstance(argument, ast.Starred)]
    if is_splitter(qualname):
        return bool(arguments) and all(_toy(argument, ctx, seen) for argument in arguments)
    if qualname in _WRAPPING_CALLS:
        first = arguments[0] if arguments else next((k.value for k in value.keywords if k.arg == "data"), None)
        return first is not None and _toy(first, ctx, seen)
    if isinstance(func, ast.Attribute):
        if _toy(func.value, ctx, seen):
            return True  # `frame.drop(columns=...)`, `X.reshape(-1, 1)`
        return func.attr in ("fit_transform", "transform") and bool(arguments) and _toy(arguments[0], ctx, seen)
    return False


def _imported_qualname(node: ast.expr, ctx: RuleContext) -> str | None:
    """What `node` names where it runs: the walk stands at the estimator, and a notebook
    imports as it goes (`train_test_split` imported in the cell that splits, after the
    estimator is built), so a name the module binds only by one import before `node` is
    read from that import."""
    found = ctx.qualname(node)
    if found is not None:
        return found
    if isinstance(node, ast.Attribute):
        base = _imported_qualname(node.value, ctx)
        return f"{base}.{node.attr}" if base else None
    if not isinstance(node, ast.Name):
        return None
    bindings = ctx.bindings(node.id, ctx.tree)
    names = {_import_binding(binding, node.id) for binding in bindings}
    if len(names) != 1 or any(binding.lineno > node.lineno for binding in bindings):  # type: ignore[attr-defined]
        return None
    return names.pop()


def _import_binding(statement: ast.AST, name: str) -> str | None:
    """The qualified name an import statement binds `name` to (None for anything else)."""
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.asname == name:
                return alias.name
            if alias.asname is None and alias.name.split(".", 1)[0] == name:
                return name
    if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
        for alias in statement.names:
            if (alias.asname or alias.name) == name:
                return f"{statement.module}.{alias.name}"
    return None


def _reaching(bindings: list[ast.AST], use: ast.Name, ctx: RuleContext) -> list[ast.AST]:
    """The bindings of the scope that may reach `use`: those before it, or only the last
    of them when that one is a statement of the scope's own body (run unconditionally)."""
    if not all(isinstance(b, ast.stmt) for b in bindings):
        return []  # a parameter, an import...
    earlier = [b for b in bindings if b.lineno < use.lineno]  # type: ignore[attr-defined]
    later = [b for b in bindings if b.lineno >= use.lineno]  # type: ignore[attr-defined]
    if later and any(
        loop.lineno <= b.lineno <= (loop.end_lineno or loop.lineno)  # type: ignore[attr-defined]
        for loop in _loops_around(use, ctx)
        for b in later
    ):
        return bindings  # a binding later in a loop reaches the use in the next iteration
    if earlier and any(statement is earlier[-1] for statement in _scope_body(ctx)):
        return earlier[-1:]
    return earlier


def _loops_around(node: ast.AST, ctx: RuleContext) -> list[ast.AST]:
    loops = []
    parent = ctx.parent(node)
    while parent is not None and not isinstance(
        parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
    ):
        if isinstance(parent, STATEMENT_LOOPS):
            loops.append(parent)
        parent = ctx.parent(parent)
    return loops


def _toy_binding(binding: ast.AST, name: str, ctx: RuleContext, seen: set[str]) -> bool:
    if not isinstance(binding, (ast.Assign, ast.AnnAssign)) or binding.value is None:
        return False
    targets = binding.targets if isinstance(binding, ast.Assign) else [binding.target]
    for target in targets:
        if isinstance(target, ast.Name) and target.id == name:
            return _toy(binding.value, ctx, seen)
        if isinstance(target, (ast.Tuple, ast.List)):
            names = [element.id if isinstance(element, ast.Name) else None for element in target.elts]
            if name not in names:
                continue
            value = binding.value
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
                return _toy(value.elts[names.index(name)], ctx, seen)
            return _toy(value, ctx, seen)  # `X, y = load_iris(return_X_y=True)`, `train_test_split(...)`
    return False

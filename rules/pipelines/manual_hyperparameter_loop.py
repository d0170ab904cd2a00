"""GPU404 manual-hyperparameter-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    ESTIMATOR_TRIGGERS,
    Applicability,
    Example,
    keyword_value,
    mentions_any,
    Rule,
    RuleContext,
    Kind,
    Tier,
    Ty,
    value_bound_to,
    walk_local,
)
from gpulint.estimators import (
    LABEL,
    NOT_HYPERPARAMETERS,
    PREDICT_METHODS,
    cross_validation_x,
    fits_fast,
    is_cv_splitter,
    is_metric,
    role,
)

_FOR = (ast.For, ast.AsyncFor)


class ManualHyperparameterLoop(Rule):
    """
    ## What it does
    Flags loops over hyper-parameter values that build a scikit-learn/cuML estimator from
    the loop variable (`SVC(C=c)`, `Model(**params)`, `model.set_params(alpha=a)`), fit it
    and score it (`.score(...)`, a `sklearn.metrics` function, `cross_val_score`,
    `cross_validate`...). Comprehensions count as loops.

    ## Evidence
    A score is `.score(...)`, a cross-validation helper, or a `sklearn.metrics` function that
    scores or tabulates predictions (`accuracy_score`, `mean_squared_error`,
    `confusion_matrix`, `classification_report`); the subpackages scikit-learn removed
    (`sklearn.cross_validation`, `sklearn.grid_search`) count as `model_selection`. A
    cross-validation written out scores too: a loop over the folds of a scikit-learn
    splitter (`KFold(5).split(X)`, or a removed-package splitter iterated directly) that
    predicts in each fold. An estimator of one's own (a class of the file subclassing
    scikit-learn's `BaseEstimator` or its mixins) counts as an estimator.

    Left alone: loops whose variable only sets seeds, `n_jobs` or verbosity (repeated runs,
    not a search), loops whose variable is also the data being fitted (one model per
    dataset), loops that only `assert` on the scores (tests of each setting), and warm-start
    scans of an ensemble's size (`model.set_params(n_estimators=n)` on a forest or boosting
    model built with `warm_start=True`): each fit only adds the new trees to those already
    fitted, where a search would refit every size from scratch. Such a forest parallelises
    its own trees with `n_jobs` (GPU403). Nor loops over an estimator that already spreads
    its fit over the cores (`n_jobs=` given, other than 1), where candidates in parallel
    would only compete for the same cores, or over one that fits in milliseconds (linear
    models other than their `*CV` variants, naive Bayes, discriminant analysis, linear
    SVMs, PLS): a search's worker processes cost more to start than such fits take.

    ## Why is this bad?
    The loop evaluates one candidate after the other on one core. `GridSearchCV` (or
    `RandomizedSearchCV`) with `n_jobs=-1` evaluates the candidates and folds in
    parallel, records every score in `cv_results_`, refits the best, and scales out
    unchanged on a Dask cluster (joblib's Dask backend) or onto cuML estimators. A fixed
    validation split is kept with `cv=PredefinedSplit(...)`.

    ## Fix safety
    Display-only: the rewrite depends on how the loop keeps its scores and picks the best,
    which only the author knows. The suggested search evaluates the same candidates on the
    same split; the tests run the documented example both ways and compare the choice.
    """

    code = "GPU404"
    libraries = ESTIMATOR_TRIGGERS
    name = "manual-hyperparameter-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code (blind set 3): 8 of its 14 findings useful, below the bar (toy data, linear-kernel "
        "SVMs and a 20-row clustering); 14 of 19 after the changes made on that set (tuned)"
    )
    message = "hyper-parameter loop fits and scores one candidate at a time: use `GridSearchCV(..., n_jobs=-1)`"
    nodes = (ast.Call,)
    fix = Applicability.DISPLAY
    #: How a loop keeps its scores and picks the winner is the author's own, so the
    #: search that replaces it is described, not written.
    suggestion = (
        'replace the loop with `GridSearchCV(estimator, {"param": values}, n_jobs=-1).fit(X, y)` '
        "(or `RandomizedSearchCV`); keep a fixed validation set with `cv=PredefinedSplit(...)`; "
        "read the winner from `best_params_` and every score from `cv_results_`"
    )

    flagged = (
        Example(
            source="""\
from sklearn.tree import DecisionTreeClassifier


def best_depth(X_train, y_train, X_val, y_val):
    best_score, best = -1.0, None
    for depth in [2, 3, 5, 8]:
        tree = DecisionTreeClassifier(max_depth=depth, random_state=0)
        tree.fit(X_train, y_train)
        score = tree.score(X_val, y_val)
        if score > best_score:
            best_score, best = score, depth
    return best
""",
            idiom="""\
import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.tree import DecisionTreeClassifier


def best_depth(X_train, y_train, X_val, y_val):
    # the same candidates, scored on the same validation rows, fitted in parallel
    fold = np.r_[np.full(len(X_train), -1), np.zeros(len(X_val))]
    search = GridSearchCV(
        DecisionTreeClassifier(random_state=0), {"max_depth": [2, 3, 5, 8]},
        cv=PredefinedSplit(fold), refit=False, n_jobs=-1,
    )
    search.fit(np.concatenate([X_train, X_val]), np.concatenate([y_train, y_val]))
    return search.best_params_["max_depth"]
""",
            requires=("sklearn",),
            setup=(
                "from sklearn.datasets import make_classification\n"
                "X, y = make_classification(n_samples=N + 80, n_features=6, random_state=0)\n"
                "X_train, y_train, X_val, y_val = X[:50], y[:50], X[50:], y[50:]\n"
            ),
            call="best_depth(X_train, y_train, X_val, y_val)",
        ),
        Example("""\
from sklearn.model_selection import ParameterGrid, cross_validate
from sklearn.svm import SVC

results = []
for params in ParameterGrid({"C": [0.1, 1, 10], "kernel": ["rbf", "linear"]}):
    scores = cross_validate(SVC(**params), X, y, cv=5, n_jobs=2)
    results.append((params, scores["test_score"].mean()))
"""),
        Example("""\
from sklearn.svm import SVR
from sklearn.metrics import mean_squared_error

model = SVR()
errors = {}
for c in (0.1, 1.0, 10.0):
    model.set_params(C=c)
    model.fit(X_train, y_train)
    errors[c] = mean_squared_error(y_val, model.predict(X_val))
"""),
        Example("""\
from sklearn.ensemble import GradientBoostingClassifier

# without warm_start every size is a model refitted from scratch: a search does that in parallel
booster = GradientBoostingClassifier(random_state=0)
errors = {}
for size in range(50, 501, 50):
    booster.set_params(n_estimators=size)
    booster.fit(X_train, y_train)
    errors[size] = 1 - booster.score(X_val, y_val)
"""),
        Example("""\
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsRegressor

means = [cross_val_score(KNeighborsRegressor(n_neighbors=k), X, y, n_jobs=-1).mean() for k in (5, 15)]
"""),
    )
    ok = (
        Example(
            """\
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error

# a linear model fits in milliseconds: worker processes would cost more than the fits
model = Ridge()
errors = {}
for alpha in (0.01, 0.1, 1.0):
    model.set_params(alpha=alpha)
    model.fit(X_train, y_train)
    errors[alpha] = mean_squared_error(y_val, model.predict(X_val))
""",
            reason="A linear model that fits in milliseconds: worker processes would cost more than the fits.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_squared_error

# each forest already grows its trees on every core
scores = {}
for depth in (10, 15, 20):
    forest = RandomForestRegressor(max_depth=depth, n_jobs=-1, random_state=1)
    forest.fit(X_train, y_train)
    scores[depth] = mean_squared_error(y_val, forest.predict(X_val))
""",
            reason="An estimator that already spreads its fit over the cores (`n_jobs=-1`).",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier

forest = RandomForestClassifier(oob_score=True, n_jobs=-1, random_state=0)
errors = {}
for size in range(50, 501, 50):
    forest.set_params(n_estimators=size)
    forest.fit(X_train, y_train)
    errors[size] = 1 - forest.score(X_val, y_val)
""",
            reason="A forest already given `n_jobs=-1`: candidates in parallel would compete for the same cores.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier

# repeated runs with different seeds, not a search
scores = []
for seed in range(5):
    model = RandomForestClassifier(random_state=seed, n_jobs=-1)
    model.fit(X_train, y_train)
    scores.append(model.score(X_test, y_test))
""",
            reason="A loop whose variable only sets the seed: repeated runs, not a search.",
        ),
        Example(
            """\
from sklearn.linear_model import LinearRegression

# one model per region: the loop variable is the data
for region, (X_region, y_region) in datasets.items():
    model = LinearRegression(fit_intercept=region != "all")
    model.fit(X_region, y_region)
    print(region, model.score(X_region, y_region))
""",
            reason="The loop variable is the data being fitted: one model per dataset.",
        ),
        Example(
            """\
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

for model in (LogisticRegression(), DecisionTreeClassifier()):
    model.fit(X_train, y_train)
    print(type(model).__name__, model.score(X_test, y_test))
""",
            reason="A loop over estimators, not over values an estimator is built from.",
        ),
        Example(
            """\
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

search = GridSearchCV(SVC(), {"C": [0.1, 1, 10]}, n_jobs=-1).fit(X, y)
""",
            reason="A search object (`GridSearchCV`) already.",
        ),
        Example(
            """\
from sklearn.metrics import accuracy_score
from sklearn.svm import LinearSVC


def test_every_loss_learns_the_toy_problem():
    for loss in ("hinge", "squared_hinge"):
        model = LinearSVC(loss=loss).fit(X, y)
        assert accuracy_score(y, model.predict(X)) > 0.9
""",
            reason="A test that only `assert`s on each setting's score.",
        ),
        Example(
            """\
from sklearn.ensemble import RandomForestClassifier

# a warm-start scan of the forest's size: each fit adds trees to those already grown
forest = RandomForestClassifier(warm_start=True, oob_score=True, n_jobs=-1, random_state=0)
errors = {}
for size in range(50, 501, 50):
    forest.set_params(n_estimators=size)
    forest.fit(X_train, y_train)
    errors[size] = 1 - forest.score(X_val, y_val)
""",
            reason="A warm-start scan of a forest's size: each fit adds trees to those already grown.",
        ),
        Example(
            """\
from sklearn.cluster import KMeans

# fitted but never scored: an elbow plot of the inertia
inertias = [KMeans(n_clusters=k, n_init=10).fit(X).inertia_ for k in range(2, 10)]
""",
            reason="Fitted but never scored (an elbow plot of the inertia).",
        ),
    )

    def __init__(self) -> None:
        self._reported: set[int] = set()

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not ctx.loops:
            return
        keywords = _configuration(node, ctx)
        if not keywords:
            return
        read = {sub.id for keyword in keywords for sub in ast.walk(keyword.value) if isinstance(sub, ast.Name)}
        for loop in ctx.loops:  # outermost first
            targets = _targets(loop)
            if not targets & read or id(loop) in self._reported:
                continue
            body = loop.body if isinstance(loop, _FOR) else [ctx.statement]
            if isinstance(loop, ast.While) or not _fits_and_scores(body, targets, ctx):
                continue
            self._reported.add(id(loop))
            ctx.report(loop.iter)  # type: ignore[attr-defined]
            return


def _configuration(call: ast.Call, ctx: RuleContext) -> list[ast.keyword]:
    """The hyper-parameter keywords of an estimator's constructor or `set_params` call;
    none for an estimator whose fits a search would not speed up: one that fits in
    milliseconds (`fits_fast`), or one that already spreads its own fit over the cores."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "set_params":
        ty = ctx.type_of(func.value)
        if ty is None or ty.kind != "estimator" or _grows_warm_ensemble(call, ctx):
            return []
        qualname = ty.lib
        constructors = _constructors(func.value, ctx)
    elif isinstance(func, (ast.Name, ast.Attribute)):
        qualname = ctx.qualname(func)
        if qualname is None or role(qualname) in (None, LABEL):
            if ctx.type_of(func) != Ty(Kind.CLASS, "sklearn"):
                return []
            qualname = ""  # an estimator of one's own: how fast it fits is not known
        constructors = [call]
    else:
        return []
    if fits_fast(qualname) or any(_uses_the_cores(c) for c in [call, *constructors]):
        return []
    return [keyword for keyword in call.keywords if keyword.arg not in NOT_HYPERPARAMETERS]


def _constructors(receiver: ast.expr, ctx: RuleContext) -> list[ast.Call]:
    """The calls the receiver's name is bound to in this scope (`model = RF(...)`)."""
    if not isinstance(receiver, ast.Name):
        return []
    values = (value_bound_to(b, receiver.id) if isinstance(b, ast.stmt) else None for b in ctx.bindings(receiver.id))
    return [value for value in values if isinstance(value, ast.Call)]


def _uses_the_cores(call: ast.Call) -> bool:
    """`n_jobs=` given as anything but `1` or `None`: the estimator's own fit already runs
    on several cores (`RandomForestRegressor(n_jobs=-1)`), so candidates in parallel would
    only compete for them."""
    value = keyword_value(call, "n_jobs")
    return value is not None and not (isinstance(value, ast.Constant) and value.value in (1, None))


def _targets(loop: ast.AST) -> set[str]:
    target = getattr(loop, "target", None)
    if target is None:
        return set()
    return {sub.id for sub in ast.walk(target) if isinstance(sub, ast.Name)}


def _fits_and_scores(body: list, targets: set[str], ctx: RuleContext) -> bool:
    """The loop body fits a model and scores it, on data that does not vary with the loop."""
    fits = scores = False
    asserted = {id(sub) for node in walk_local(body) if isinstance(node, ast.Assert) for sub in ast.walk(node)}
    for sub in walk_local(body):
        if not isinstance(sub, ast.Call) or id(sub) in asserted:
            continue  # a score only asserted on is a test's check, not a comparison of candidates
        func = sub.func
        qualname = ctx.qualname(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        position = cross_validation_x(qualname)
        if position is not None:
            if mentions_any(sub.args[position:] + [k.value for k in sub.keywords if k.arg in ("X", "y")], targets):
                return False
            fits = scores = True
        elif isinstance(func, ast.Attribute) and func.attr == "fit":
            if mentions_any(sub.args + [k.value for k in sub.keywords], targets):
                return False
            fits = True
        elif isinstance(func, ast.Attribute) and func.attr == "score" or is_metric(qualname):
            scores = True
    return fits and (
        scores or any(_validates_by_hand(loop, ctx) for loop in walk_local(body) if isinstance(loop, _FOR))
    )


def _validates_by_hand(loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> bool:
    """A cross-validation written out: the loop walks the folds of a scikit-learn splitter
    (`for train, valid in KFold(5).split(X)`, or the splitter object, as the removed
    `cross_validation` package's were iterated) and predicts in each, whatever then scores
    the predictions (`np.mean(y[valid] == pred)`)."""
    folds = loop.iter.func.value if _is_split_call(loop.iter) else loop.iter  # type: ignore[attr-defined]
    splitters = [folds] if isinstance(folds, ast.Call) else _constructors(folds, ctx)
    if not any(is_cv_splitter(ctx.qualname(splitter.func)) for splitter in splitters):
        return False
    return any(
        isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in PREDICT_METHODS
        for sub in walk_local(loop.body)
    )


def _is_split_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"


def _grows_warm_ensemble(call: ast.Call, ctx: RuleContext) -> bool:
    """`model.set_params(n_estimators=n)` on a model with `warm_start=True`: each fit adds
    trees (or boosting stages) to those already fitted, a scan a search cannot do (it would
    refit every size from scratch). Warm start is on when the same call, the constructor
    the receiver's name is bound to, or an earlier `set_params` on that name sets it."""
    varied = {keyword.arg for keyword in call.keywords} - NOT_HYPERPARAMETERS - {"warm_start"}
    if varied != {"n_estimators"}:
        return False
    if _turns_on_warm_start(call):
        return True
    receiver = call.func.value  # type: ignore[attr-defined]
    if not isinstance(receiver, ast.Name):
        return False
    if any(_turns_on_warm_start(value) for value in _constructors(receiver, ctx)):
        return True
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "set_params"
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == receiver.id
        and _turns_on_warm_start(sub)
        for sub in walk_local(ctx.scope.body)
    )  # type: ignore[attr-defined]


def _turns_on_warm_start(call: ast.Call) -> bool:
    value = next((keyword.value for keyword in call.keywords if keyword.arg == "warm_start"), None)
    return isinstance(value, ast.Constant) and value.value is True

"""GPU403 estimator-without-n-jobs."""

from __future__ import annotations

import ast

from gpulint.astutil import walk_local
from gpulint.estimators import parallel_n_jobs, user_code_parameters
from gpulint.rule_api import Example, FixAvailability, Rule, RuleContext

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
    `RandomizedSearchCV`, `cross_val_score`, `cross_validate`, `permutation_importance`, ...)
    constructed or called without `n_jobs`.

    The list is data (`gpulint/estimators.py`, from the `n_jobs` parameter in
    scikit-learn's API reference): only classes whose `n_jobs` parallelises their default
    configuration, over trees, sub-estimators, neighbour queries, folds or candidates.
    `LogisticRegression` and `LinearRegression` are not on it: their `n_jobs` does nothing
    for a binary problem with the default solver, or a single target. cuML's estimators
    run on the GPU and have no `n_jobs`.

    Not flagged: a call that passes `n_jobs` (any value), one that passes `**options`
    (which may hold it), and an estimator built inside the arguments of another call on
    the list (`GridSearchCV(RandomForestClassifier(), ...)`): the outer one is where the
    parallelism belongs, and nesting both only oversubscribes the cores.

    ## Why is this bad?
    `n_jobs` defaults to one core. A random forest fits its trees one after the other, a
    grid search its candidates and folds one after the other, while the other cores of
    the machine sit idle. The work items are independent, so with `n_jobs=-1` the time
    divides by up to the number of cores (the trees, candidates or folds permitting).

    ## Fix safety
    The fix adds `n_jobs=-1` (all cores). It is safe for the estimators that parallelise
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
    name = "estimator-without-n-jobs"
    message = "parallelisable estimator or helper without `n_jobs` uses one core: pass `n_jobs=-1`"
    nodes = (ast.Call,)
    fix = FixAvailability.SAFE

    flagged = (
        Example(
            source='''\
from sklearn.ensemble import RandomForestClassifier


def train(features, labels):
    model = RandomForestClassifier(n_estimators=25, random_state=0)
    return model.fit(features, labels)
''',
            fixed='''\
from sklearn.ensemble import RandomForestClassifier


def train(features, labels):
    model = RandomForestClassifier(n_estimators=25, random_state=0, n_jobs=-1)
    return model.fit(features, labels)
''',
            requires=("sklearn",),
            setup=_SETUP,
            call="train(X, y).predict_proba(X)",
        ),
        Example(
            source='''\
from sklearn.neighbors import KNeighborsClassifier as KNN


def nearest_labels(features, labels):
    # five neighbours vote on each label
    model = KNN(
        n_neighbors=5,
    )
    return model.fit(features, labels).predict(features)
''',
            fixed='''\
from sklearn.neighbors import KNeighborsClassifier as KNN


def nearest_labels(features, labels):
    # five neighbours vote on each label
    model = KNN(
        n_neighbors=5,
        n_jobs=-1,
    )
    return model.fit(features, labels).predict(features)
''',
            requires=("sklearn",),
            setup=_SETUP,
            call="nearest_labels(X, y)",
        ),
        Example(
            source='''\
from sklearn import model_selection
from sklearn.tree import DecisionTreeClassifier


def fold_scores(features, labels):
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    return model_selection.cross_val_score(tree, features, labels, cv=3)
''',
            fixed='''\
from sklearn import model_selection
from sklearn.tree import DecisionTreeClassifier


def fold_scores(features, labels):
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    return model_selection.cross_val_score(tree, features, labels, cv=3, n_jobs=-1)
''',
            requires=("sklearn",),
            setup=_SETUP,
            call="fold_scores(X, y)",
        ),
        Example(
            source='''\
import sklearn.ensemble

forest = sklearn.ensemble.ExtraTreesRegressor()
''',
            fixed='''\
import sklearn.ensemble

forest = sklearn.ensemble.ExtraTreesRegressor(n_jobs=-1)
''',
            requires=("sklearn",),
            setup="from sklearn.datasets import make_regression\n"
                  "X, y = make_regression(n_samples=N + 20, n_features=4, random_state=0)\n",
            call="forest.set_params(n_estimators=10, random_state=0).fit(X, y).predict(X)",
        ),
    )
    ok = (
        Example('''\
from sklearn.linear_model import LogisticRegression

# n_jobs does nothing for a binary problem with the default solver
model = LogisticRegression(max_iter=500)
'''),
        Example('''\
from sklearn.ensemble import RandomForestRegressor

model = RandomForestRegressor(n_estimators=200, n_jobs=4)
'''),
        Example('''\
from sklearn.ensemble import RandomForestClassifier


def build(**options):
    return RandomForestClassifier(**options)
'''),
        Example('''\
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV

search = GridSearchCV(RandomForestClassifier(random_state=0), {"max_depth": [3, 5]}, n_jobs=-1)
'''),
        Example('''\
from cuml.ensemble import RandomForestClassifier

model = RandomForestClassifier(n_estimators=100)
'''),
        Example('''\
import sklearn


class RandomForestClassifier:
    def fit(self, X, y):
        return self


model = RandomForestClassifier()
'''),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return
        qualname = ctx.qualname(node.func)
        if qualname is None or not parallel_n_jobs(qualname):
            return
        if any(keyword.arg in ("n_jobs", None) for keyword in node.keywords):
            return
        if _inside_parallel_call(node, ctx):
            return
        short = qualname.rsplit(".", 1)[1]
        ctx.report(node, f"`{short}` without `n_jobs` uses one core: pass `n_jobs=-1`",
                   context={"call": node, "qualname": qualname, "user_code": _user_code(node, qualname, ctx)})


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
            _library_value(value, ctx) for value in node.values)
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = ctx.qualname(node)
        return name is not None and name.startswith(_LIBRARIES)
    if isinstance(node, ast.Call):
        return (_library_value(node.func, ctx) and all(_library_value(a, ctx) for a in node.args)
                and all(k.arg is not None and _library_value(k.value, ctx) for k in node.keywords))
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

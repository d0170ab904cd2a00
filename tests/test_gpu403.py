"""GPU403 estimator-without-n-jobs: which calls are flagged, where `n_jobs=-1` goes, and
that the fitted models are the same with it."""

from __future__ import annotations

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example


def _codes(source: str) -> list[int]:
    return [d.start.line for d in lint_source(source) if d.code == "GPU403"]


@pytest.mark.parametrize(
    ("call", "fixed"),
    [
        ("RandomForestClassifier()", "RandomForestClassifier(n_jobs=-1)"),
        ("RandomForestClassifier( )", "RandomForestClassifier( n_jobs=-1)"),
        ("RandomForestClassifier(10, max_depth=3)", "RandomForestClassifier(10, max_depth=3, n_jobs=-1)"),
        (
            "RandomForestClassifier(\n    max_depth=3,  # shallow\n)",
            "RandomForestClassifier(\n    max_depth=3,  # shallow\n    n_jobs=-1,\n)",
        ),
        ("RandomForestClassifier(*args)", "RandomForestClassifier(*args, n_jobs=-1)"),
        ("RandomForestClassifier(\n    max_depth=3\n)", "RandomForestClassifier(\n    max_depth=3,\n    n_jobs=-1\n)"),
        (
            "RandomForestClassifier(max_depth=3,\n                       random_state=0)",
            "RandomForestClassifier(max_depth=3,\n                       random_state=0,\n                       n_jobs=-1)",
        ),
    ],
)
def test_n_jobs_is_added_after_the_last_argument(call, fixed):
    source = f"from sklearn.ensemble import RandomForestClassifier\nmodel = {call}\n"
    [diagnostic] = [d for d in lint_source(source) if d.code == "GPU403"]
    assert diagnostic.fix.applicability is Applicability.SAFE
    assert "`RandomForestClassifier`" in diagnostic.message
    assert fix_text(source) == f"from sklearn.ensemble import RandomForestClassifier\nmodel = {fixed}\n"


def test_only_the_outermost_parallel_call_is_flagged():
    source = (
        "from sklearn.ensemble import BaggingRegressor, RandomForestRegressor\n"
        "from sklearn.model_selection import cross_val_score\n"
        "from sklearn.pipeline import make_pipeline\n"
        "scores = cross_val_score(\n"
        "    make_pipeline(BaggingRegressor(RandomForestRegressor())), X, y)\n"
        "forest = RandomForestRegressor()\n"
    )
    assert _codes(source) == [4, 6]


def test_a_local_name_that_shadows_the_import_is_not_flagged():
    source = (
        "from sklearn.ensemble import RandomForestClassifier\n\n"
        "def f(RandomForestClassifier):\n"
        "    return RandomForestClassifier()\n"
    )
    assert _codes(source) == []


@pytest.mark.slow
def test_a_search_finds_the_same_model_with_all_cores():
    """Differential: the same best parameters and scores before and after the fix (the
    search runs its candidates in worker processes afterwards)."""
    pytest.importorskip("sklearn")
    source = (
        "from sklearn.model_selection import GridSearchCV\n"
        "from sklearn.tree import DecisionTreeClassifier\n\n"
        "def tune(X, y):\n"
        "    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {'max_depth': [1, 2, 4]}, cv=3)\n"
        "    search.fit(X, y)\n"
        "    return [search.best_params_['max_depth'], *search.cv_results_['mean_test_score']]\n"
    )
    [diagnostic] = [d for d in lint_source(source) if d.code == "GPU403"]
    assert diagnostic.fix.applicability is Applicability.UNSAFE  # worker processes: see the rule's docs
    assert fix_text(source) == source
    fixed = fix_text(source, unsafe_fixes=True)
    assert "cv=3, n_jobs=-1)" in fixed
    setup = (
        "from sklearn.datasets import make_classification\n"
        "X, y = make_classification(n_samples=N + 30, n_features=5, random_state=2)\n"
    )
    for n in (0, 50):
        before = run_example(setup, source, "tune(X, y)", n=n)
        after = run_example(setup, fixed, "tune(X, y)", n=n)
        assert_same_result(before, after, strict=True)


def test_with_numpys_global_seed_only_the_thread_and_self_seeded_fixes_are_safe():
    """Why the search's fix is unsafe: with `random_state=None` and a global seed, the
    sequential search is reproducible and the parallel one is not the same."""
    pytest.importorskip("sklearn")
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=150, n_features=10, random_state=0)

    def forest(n_jobs):
        np.random.seed(0)
        return RandomForestClassifier(n_estimators=10, max_features=2, n_jobs=n_jobs).fit(X, y).predict_proba(X)

    np.testing.assert_array_equal(forest(None), forest(-1))  # seeds drawn before dispatch: safe

    def folds(n_jobs):
        np.random.seed(0)
        return [cross_val_score(DecisionTreeClassifier(max_features=2), X, y, cv=3, n_jobs=n_jobs) for _ in range(3)]

    sequential = folds(None)
    assert all(np.array_equal(a, b) for a, b in zip(sequential, folds(None), strict=False))  # reproducible
    parallel = folds(-1)
    assert not all(np.array_equal(a, b) for a, b in zip(sequential, parallel, strict=False))


# -- the caller's own code in the workers ---------------------------------------------------

IMPORTS = (
    "from sklearn.cluster import DBSCAN, HDBSCAN\n"
    "from sklearn.ensemble import BaggingClassifier, BaggingRegressor, StackingClassifier, VotingClassifier\n"
    "from sklearn.inspection import permutation_importance\n"
    "from sklearn.linear_model import LogisticRegression, LogisticRegressionCV\n"
    "from sklearn.metrics import f1_score, make_scorer\n"
    "from sklearn.neighbors import KNeighborsClassifier\n"
    "from sklearn.tree import DecisionTreeClassifier\n"
)


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ("BaggingClassifier(estimator=model)", "`estimator`"),
        ("BaggingRegressor(model, n_estimators=4)", "`estimator`"),
        ("BaggingClassifier(base_estimator=model)", "`base_estimator`"),
        ("BaggingClassifier(Counting())", "`estimator`"),
        ("BaggingClassifier(DecisionTreeClassifier(max_depth=depth))", "`estimator`"),
        ("BaggingClassifier(*args)", "`*` arguments"),
        ("LogisticRegressionCV(scoring=score)", "`scoring`"),
        ("LogisticRegressionCV(scoring=make_scorer(my_f1))", "`scoring`"),
        ("KNeighborsClassifier(metric=distance)", "`metric`"),
        ("DBSCAN(0.5, metric=lambda a, b: abs(a - b).sum())", "`metric`"),
        ("HDBSCAN(5, None, 0.0, None, distance)", "`metric`"),
        ("permutation_importance(model, X, y)", "`estimator`"),
    ],
)
def test_a_fix_that_may_run_the_callers_code_in_workers_is_unsafe(call, reason):
    source = IMPORTS + f"result = {call}\n"
    [diagnostic] = [d for d in lint_source(source) if d.code == "GPU403"]
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert reason in diagnostic.fix.message
    assert fix_text(source) == source
    assert "n_jobs=-1)" in fix_text(source, unsafe_fixes=True)


@pytest.mark.parametrize(
    "call",
    [
        "BaggingClassifier()",
        "BaggingClassifier(DecisionTreeClassifier(max_depth=3, class_weight={0: 1, 1: 2}), n_estimators=4)",
        "BaggingClassifier(estimator=LogisticRegression(C=-(-1.0)))",
        "LogisticRegressionCV(scoring='f1')",
        "LogisticRegressionCV(scoring=make_scorer(f1_score, average='macro'))",
        "KNeighborsClassifier(metric='cosine')",
        "KNeighborsClassifier(weights=weigh)",  # applied after the query, in the calling process
        "DBSCAN(0.5, min_samples=distance)",  # not a parameter that takes code
    ],
)
def test_library_code_only_keeps_the_fix_safe(call):
    source = IMPORTS + f"result = {call}\n"
    [diagnostic] = [d for d in lint_source(source) if d.code == "GPU403"]
    assert diagnostic.fix.applicability is Applicability.SAFE


def test_every_class_with_n_jobs_has_its_code_parameters_reviewed():
    """The table of parameters that take code names only real parameters, at their real
    positions (`base_estimator` is the name scikit-learn used before 1.2)."""
    sklearn = pytest.importorskip("sklearn")
    import importlib
    import inspect

    from sklearn.experimental import enable_halving_search_cv  # noqa: F401

    from gpulint import estimators

    assert set(estimators.USER_CODE_PARAMETERS) <= estimators.N_JOBS
    for entry, parameters in estimators.USER_CODE_PARAMETERS.items():
        package, name = entry.split(".")
        signature = inspect.signature(getattr(importlib.import_module(f"{sklearn.__name__}.{package}"), name))
        names = list(signature.parameters)
        for parameter, position in parameters.items():
            if parameter == "base_estimator":
                continue
            assert parameter in names, (entry, parameter)
            kind = signature.parameters[parameter].kind
            if position is None:
                assert kind is inspect.Parameter.KEYWORD_ONLY, (entry, parameter)
            else:
                assert names.index(parameter) == position and kind is not inspect.Parameter.KEYWORD_ONLY


COUNTING = """\
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import BaggingClassifier
from sklearn.linear_model import LogisticRegressionCV
from sklearn.tree import DecisionTreeClassifier

FITS = []
SCORES = []


class Counting(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        FITS.append(len(X))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def score(estimator, X, y):
    SCORES.append(len(X))
    return float(np.mean(estimator.predict(X) == y))


def run(X, y):
    np.random.seed(0)
    trees = BaggingClassifier(DecisionTreeClassifier(max_features=2), n_estimators=4).fit(X, y)
    BaggingClassifier(estimator=Counting(), n_estimators=4, random_state=0).fit(X, y)
    LogisticRegressionCV(Cs=2, cv=3, scoring=score, use_legacy_attributes=False, l1_ratios=(0.0,)).fit(X, y)
    return len(FITS), len(SCORES), trees.predict_proba(X)
"""


def test_the_callers_estimator_and_scorer_keep_their_state_under_plain_fix():
    """Differential: with worker processes the user's estimator is fitted, and the user's
    scorer called, in other processes, so what they record never reaches the caller.
    Plain `--fix` changes only the bagging of scikit-learn's own trees, which computes the
    same model with all cores."""
    pytest.importorskip("sklearn")
    from joblib import effective_n_jobs

    setup = (
        "from sklearn.datasets import make_classification\n"
        "X, y = make_classification(n_samples=N + 30, n_features=5, random_state=0)\n"
    )
    safe = fix_text(COUNTING)
    assert safe.count("n_jobs=-1") == 1 and "n_estimators=4, n_jobs=-1).fit(X, y)\n    Bagging" in safe
    fits, scores, trees = run_example(setup, COUNTING, "run(X, y)")
    assert (fits, scores) == (4, 6)  # four bagged fits, two candidates on three folds
    after_safe = run_example(setup, safe, "run(X, y)")
    assert after_safe[:2] == (4, 6)
    assert_same_result(trees, after_safe[2], strict=True)
    unsafe = fix_text(COUNTING, unsafe_fixes=True)
    assert unsafe.count("n_jobs=-1") == 3
    if effective_n_jobs(-1) > 1:  # why those two are unsafe: the counts stay in the workers
        assert run_example(setup, unsafe, "run(X, y)")[:2] != (fits, scores)


# -- where the parallelism does not pay, or belongs elsewhere ---------------------------------

_FOREST = "from sklearn.ensemble import RandomForestClassifier\n"


@pytest.mark.parametrize(
    "setup",
    [
        "import cuml.accel\ncuml.accel.install()\n",
        "from cuml import accel\naccel.install()\n",
        "get_ipython().run_line_magic('load_ext', 'cuml.accel')\n",
    ],
)
def test_not_under_cuml_accel(setup):
    assert _codes(setup + _FOREST + "model = RandomForestClassifier()\n") == []


@pytest.mark.parametrize(
    "setup",
    [
        "import cuml\n",  # cuML imported, its accelerator not installed
        "import cuml.accel\n",  # imported, never installed
        "get_ipython().run_line_magic('load_ext', 'autoreload')\n",
    ],
)
def test_near_misses_of_cuml_accel(setup):
    assert _codes(setup + _FOREST + "model = RandomForestClassifier()\n") == [len(setup.splitlines()) + 2]


@pytest.mark.parametrize(
    "outer",
    [
        "GridSearchCV(model, {'max_depth': [2, 3]})",
        "cross_val_score(model, X, y)",
        "VotingClassifier([('forest', model), ('tree', DecisionTreeClassifier())])",
        "GridSearchCV(make_pipeline(StandardScaler(), model), {'randomforestclassifier__max_depth': [2, 3]})",
    ],
)
def test_an_estimator_handed_to_a_parallel_call_is_reported_there_only(outer):
    source = (
        _FOREST + "from sklearn.ensemble import VotingClassifier\n"
        "from sklearn.model_selection import GridSearchCV, cross_val_score\n"
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.tree import DecisionTreeClassifier\n"
        f"model = RandomForestClassifier()\nouter = {outer}\n"
    )
    assert _codes(source) == [8]


def test_an_estimator_handed_through_names_is_reported_at_the_outer_call_only():
    source = (
        _FOREST + "from sklearn.model_selection import GridSearchCV\nfrom sklearn.pipeline import Pipeline\n"
        "model = RandomForestClassifier()\nsteps = [('forest', model)]\npipeline = Pipeline(steps)\n"
        "search = GridSearchCV(pipeline, {'forest__max_depth': [2, 3]}, n_jobs=-1)\n"
    )
    assert _codes(source) == []


def test_an_estimator_only_predicting_for_a_parallel_call_is_still_reported():
    source = (
        _FOREST + "from sklearn.model_selection import cross_val_score\n"
        "model = RandomForestClassifier().fit(X, y)\n"
        "scores = cross_val_score(DecisionTreeClassifier(), model.predict(X).reshape(-1, 1), y, n_jobs=-1)\n"
    )
    assert _codes(source) == [3]


@pytest.mark.parametrize(
    "data",
    [
        "from sklearn.datasets import load_iris\niris = load_iris()\nX, y = iris.data, iris['target']\n",
        "from sklearn.datasets import load_digits\nX, y = load_digits(return_X_y=True)\n",
        "from sklearn import datasets\nX, y = datasets.make_classification(n_samples=1_000, random_state=0)\n",
        "from sklearn.datasets import make_moons\nX, y = make_moons(noise=0.2)\n",
        # split, wrapped in a frame, scaled: still the same 150 rows
        "import pandas as pd\nfrom sklearn.datasets import load_iris\nfrom sklearn.model_selection import train_test_split\n"
        "from sklearn.preprocessing import StandardScaler\ndata = load_iris()\n"
        "frame = pd.DataFrame(data.data)\nX, _, y, _ = train_test_split(StandardScaler().fit_transform(frame), data.target)\n",
    ],
)
def test_not_on_toy_data(data):
    source = data + _FOREST + "model = RandomForestClassifier()\nmodel.fit(X, y)\n"
    assert _codes(source) == []
    source = (
        data + _FOREST + "from sklearn.model_selection import cross_val_score\n"
        "scores = cross_val_score(RandomForestClassifier(), X, y)\n"
    )
    assert _codes(source) == []


@pytest.mark.parametrize(
    "data",
    [
        "from sklearn.datasets import make_classification\nX, y = make_classification(n_samples=100_000)\n",
        "from sklearn.datasets import make_classification\nX, y = make_classification(n_samples=rows)\n",
        "import pandas as pd\nframe = pd.read_csv('train.csv')\nX, y = frame.drop(columns='label'), frame.label\n",
        "from sklearn.datasets import fetch_covtype\nX, y = fetch_covtype(return_X_y=True)\n",
        # toy data rebound, before the fit, to data read from a file
        "import numpy as np\nfrom sklearn.datasets import load_iris\nX, y = load_iris(return_X_y=True)\n"
        "X = np.load('features.npy')\n",
    ],
)
def test_still_reported_on_data_of_unknown_or_real_size(data):
    source = data + _FOREST + "model = RandomForestClassifier()\nmodel.fit(X, y)\n"
    assert _codes(source) == [len(data.splitlines()) + 2]


def test_reported_when_one_of_the_fits_is_not_on_toy_data():
    source = (
        "import numpy as np\nfrom sklearn.datasets import load_iris\n"
        + _FOREST
        + "model = RandomForestClassifier()\nmodel.fit(*load_iris(return_X_y=True))\n"
        "model.fit(np.load('X.npy'), np.load('y.npy'))\n"
    )
    assert _codes(source) == [4]


def test_an_estimator_fitted_itself_and_handed_to_a_helper_is_reported_with_an_unsafe_fix():
    source = (
        _FOREST + "from sklearn.model_selection import cross_val_score\n"
        "model = RandomForestClassifier()\nmodel.fit(X, y)\nscores = cross_val_score(model, X, y)\n"
    )
    found = {d.start.line: d for d in lint_source(source) if d.code == "GPU403"}
    assert sorted(found) == [3, 5]
    assert found[3].fix.applicability is Applicability.UNSAFE and "parallel" in found[3].fix.message


def test_a_name_rebound_before_the_outer_call_is_another_estimator():
    source = (
        _FOREST + "from sklearn.model_selection import GridSearchCV\n"
        "model = RandomForestClassifier()\nmodel.fit(X, y)\n"
        "model = RandomForestClassifier()\nsearch = GridSearchCV(model, {'max_depth': [2, 3]}, n_jobs=-1)\n"
    )
    [diagnostic] = [d for d in lint_source(source) if d.code == "GPU403"]
    assert diagnostic.start.line == 3 and diagnostic.fix.applicability is Applicability.SAFE


def test_toy_data_replaced_later_in_a_loop_is_not_toy():
    source = (
        "import numpy as np\nfrom sklearn.datasets import load_iris\n"
        + _FOREST
        + "X, y = load_iris(return_X_y=True)\nmodel = RandomForestClassifier()\n"
        "for path in paths:\n    model.fit(X, y)\n    X = np.load(path)\n"
    )
    assert _codes(source) == [5]


def test_toy_labels_encoded_in_place_stay_toy():
    source = (
        "from sklearn import datasets\nfrom sklearn.model_selection import cross_val_score, train_test_split\n"
        "from sklearn.preprocessing import LabelEncoder\niris = datasets.load_iris()\n"
        "X, y = iris.data[50:, [1, 2]], iris.target[50:]\ny = LabelEncoder().fit_transform(y)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5)\n"
        "for model in models:\n    scores = cross_val_score(estimator=model, X=X_train, y=y_train, cv=10)\n"
    )
    assert _codes(source) == []


def test_toy_data_split_by_the_pre_0_20_module_stays_toy():
    source = (
        "from sklearn.cross_validation import train_test_split\nfrom sklearn.datasets import load_iris\n"
        "from sklearn.neighbors import KNeighborsClassifier\nX, y = load_iris(return_X_y=True)\n"
        "model = KNeighborsClassifier(n_neighbors=1)\nX1, X2, y1, y2 = train_test_split(X, y, train_size=0.5)\n"
        "model.fit(X1, y1)\n"
    )
    assert _codes(source) == []


@pytest.mark.parametrize(
    ("split_import", "expected"),
    [
        # a notebook imports as it goes: the splitter, imported in the cell that splits, is
        # sklearn's, so the split is still the 150 rows of iris
        ("from sklearn.model_selection import train_test_split\n", []),
        ("from sklearn import model_selection as ms\ntrain_test_split = ms.train_test_split\n", [5]),
        # a splitter of the file's own, or one bound twice, says nothing of the rows
        ("from helpers import train_test_split\n", [5]),
        ("from sklearn.model_selection import train_test_split\nfrom helpers import train_test_split\n", [5]),
    ],
)
def test_a_splitter_imported_after_the_estimator_is_read_from_its_import(split_import, expected):
    source = (
        "from sklearn.datasets import load_iris\nfrom sklearn.neighbors import KNeighborsClassifier\n"
        "iris = load_iris()\nX, y = iris.data, iris.target\nknn = KNeighborsClassifier(n_neighbors=1)\n"
        "knn.fit(X, y)\n" + split_import + "X1, X2, y1, y2 = train_test_split(X, y)\nknn.fit(X1, y1)\n"
    )
    assert _codes(source) == expected

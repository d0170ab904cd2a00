"""GPU404 manual-hyperparameter-loop: which loops are searches, and where the finding goes."""

from __future__ import annotations

import pytest

from gpulint import Applicability, lint_source

IMPORTS = (
    "from sklearn.svm import SVC\n"
    "from sklearn.metrics import accuracy_score\n"
    "from sklearn.model_selection import cross_val_score\n"
)


def _findings(source: str):
    return [d for d in lint_source(source) if d.code == "GPU404"]


def test_nested_loops_are_one_search_on_the_outer_loop():
    source = IMPORTS + (
        "for c in [1, 10]:\n"
        "    for gamma in [0.1, 1]:\n"
        "        model = SVC(C=c, gamma=gamma).fit(X, y)\n"
        "        print(accuracy_score(y_val, model.predict(X_val)))\n"
    )
    [finding] = _findings(source)
    assert (finding.start.line, finding.start.col) == (4, 9)
    assert finding.fix.applicability is Applicability.DISPLAY and "GridSearchCV" in finding.fix.message


def test_an_inner_loop_alone_is_the_search_when_the_outer_one_is_not():
    source = IMPORTS + (
        "for name, (X_part, y_part) in parts.items():\n"
        "    for c in [1, 10]:\n"
        "        print(name, cross_val_score(SVC(C=c), X_part, y_part, n_jobs=-1).mean())\n"
    )
    assert [(d.start.line, d.start.col) for d in _findings(source)] == [(5, 13)]


def test_one_finding_for_two_candidates_built_in_the_same_loop():
    source = IMPORTS + (
        "for c in [1, 10]:\n"
        "    a = SVC(C=c).fit(X, y)\n"
        "    b = SVC(C=c, kernel='linear').fit(X, y)\n"
        "    print(a.score(X_val, y_val), b.score(X_val, y_val))\n"
    )
    assert len(_findings(source)) == 1


@pytest.mark.parametrize(
    "body",
    [
        # the estimator is unknown
        "for c in [1, 10]:\n    model = make_model(C=c).fit(X, y)\n    print(model.score(X_val, y_val))\n",
        # only verbosity changes
        "for v in [0, 1]:\n    print(SVC(verbose=v).fit(X, y).score(X, y))\n",
        # the loop builds models to save, without scoring them
        "for c in [1, 10]:\n    save(SVC(C=c).fit(X, y))\n",
        # a while loop is not a list of candidates
        "c = 1\nwhile c < 100:\n    print(SVC(C=c).fit(X, y).score(X, y))\n    c *= 10\n",
    ],
)
def test_not_a_search(body):
    assert _findings(IMPORTS + body) == []


# -- warm-start scans of an ensemble's size -----------------------------------------------------

_SCAN = (
    "from sklearn.ensemble import GradientBoostingRegressor\n"
    "{build}"
    "for n in range(10, 200, 10):\n"
    "    {set_params}\n"
    "    model.fit(X, y)\n"
    "    print(n, model.score(X_val, y_val))\n"
)


@pytest.mark.parametrize(
    "build, set_params",
    [
        ("model = GradientBoostingRegressor(warm_start=True)\n", "model.set_params(n_estimators=n)"),
        (
            "model = GradientBoostingRegressor()\nmodel.set_params(warm_start=True)\n",
            "model.set_params(n_estimators=n)",
        ),
        ("model = GradientBoostingRegressor()\n", "model.set_params(n_estimators=n, warm_start=True)"),
    ],
)
def test_a_warm_start_scan_of_the_ensemble_size_is_no_search(build, set_params):
    assert _findings(_SCAN.format(build=build, set_params=set_params)) == []


@pytest.mark.parametrize(
    "build, set_params",
    [
        # without warm start each size is refitted from scratch
        ("model = GradientBoostingRegressor()\n", "model.set_params(n_estimators=n)"),
        ("model = GradientBoostingRegressor(warm_start=False)\n", "model.set_params(n_estimators=n)"),
        # warm start, but another hyper-parameter is searched too
        ("model = GradientBoostingRegressor(warm_start=True)\n", "model.set_params(n_estimators=n, max_depth=n // 10)"),
        # a model rebuilt at each size starts cold whatever its `warm_start`
        ("", "model = GradientBoostingRegressor(n_estimators=n, warm_start=True)"),
    ],
)
def test_near_misses_of_warm_start_scans_are_searches(build, set_params):
    assert len(_findings(_SCAN.format(build=build, set_params=set_params))) == 1


@pytest.mark.parametrize(
    ("helpers", "scored", "flagged"),
    [
        # scikit-learn's removed `cross_validation` subpackage held today's `cross_val_score`
        ("from sklearn.cross_validation import cross_val_score\n", "cross_val_score(model, X, y)", True),
        ("from sklearn.grid_search import GridSearchCV\n", "model.fit(X, y).score(X_val, y_val)", True),
        # a confusion matrix or report of each candidate's predictions compares them too
        (
            "from sklearn.metrics import confusion_matrix\n",
            "confusion_matrix(y_val, model.fit(X, y).predict(X_val))",
            True,
        ),
        ("from sklearn import metrics\n", "metrics.classification_report(y_val, model.fit(X, y).predict(X_val))", True),
        # near-misses: a function of the same name that is not scikit-learn's, a pairwise distance
        (
            "from mylib.metrics import confusion_matrix\n",
            "confusion_matrix(y_val, model.fit(X, y).predict(X_val))",
            False,
        ),
        (
            "from sklearn.metrics import pairwise_distances\n",
            "pairwise_distances(model.fit(X, y).predict(X_val))",
            False,
        ),
    ],
)
def test_legacy_subpackages_and_prediction_tables_score_a_search(helpers, scored, flagged):
    source = (
        helpers
        + "from sklearn.svm import SVC\n"
        + (f"for c in [1, 10, 100]:\n    model = SVC(C=c)\n    print({scored})\n")
    )
    assert bool(_findings(source)) is flagged


def test_a_pls_regression_fits_in_milliseconds_and_is_no_search():
    source = (
        "from sklearn.cross_decomposition import PLSRegression\n"
        "from sklearn.metrics import mean_squared_error\n"
        "for m in range(1, 10):\n"
        "    pls = PLSRegression(n_components=m).fit(X, y)\n"
        "    print(mean_squared_error(y_val, pls.predict(X_val)))\n"
    )
    assert _findings(source) == []


HAND_CV = """\
import numpy as np
from sklearn.svm import SVC
{imports}

for gamma in [0.01, 0.1, 1.0, 10.0]:
    model = SVC(gamma=gamma)
    accuracies = []
    for train, valid in {folds}:
        model.fit(X[train], y[train])
        accuracies.append(np.mean(model.{method}(X[valid]) == y[valid]))
    print(gamma, np.mean(accuracies))
"""


@pytest.mark.parametrize(
    ("imports", "folds", "method", "flagged"),
    [
        ("from sklearn.model_selection import KFold", "KFold(5).split(X)", "predict", True),
        ("from sklearn.model_selection import StratifiedKFold", "StratifiedKFold(5).split(X, y)", "predict", True),
        # the removed package's splitters were iterated directly, built before the loop
        (
            "from sklearn.cross_validation import StratifiedKFold\ncv = StratifiedKFold(y, n_folds=10)",
            "cv",
            "predict",
            True,
        ),
        # near-misses: folds of no scikit-learn splitter, a loop over the folds that never predicts
        ("from mylib import KFold", "KFold(5).split(X)", "predict", False),
        ("from sklearn.model_selection import KFold", "KFold(5).split(X)", "get_params", False),
    ],
)
def test_a_cross_validation_written_out_scores_the_candidates(imports, folds, method, flagged):
    assert bool(_findings(HAND_CV.format(imports=imports, folds=folds, method=method))) is flagged


OWN_ESTIMATOR = """\
from sklearn.model_selection import cross_val_score
{base_import}


class Ensemble({bases}):
    def __init__(self, weights=None):
        self.weights = weights

    def fit(self, X, y):
        return self

    def predict(self, X):
        return X[:, 0]


for w in range(1, 4):
    print(cross_val_score(Ensemble(weights=[w, 1]), X, y, cv=5).mean())
"""


@pytest.mark.parametrize(
    ("base_import", "bases", "flagged"),
    [
        ("from sklearn.base import BaseEstimator, ClassifierMixin", "BaseEstimator, ClassifierMixin", True),
        ("import sklearn.base", "sklearn.base.BaseEstimator", True),
        # near-misses: a class of one's own that is no scikit-learn estimator, a base of the same name
        ("", "object", False),
        ("from mylib import BaseEstimator", "BaseEstimator", False),
    ],
)
def test_an_estimator_of_ones_own_is_searched_like_the_librarys(base_import, bases, flagged):
    assert bool(_findings(OWN_ESTIMATOR.format(base_import=base_import, bases=bases))) is flagged

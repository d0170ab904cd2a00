"""GPU403 estimator-without-n-jobs: which calls are flagged, where `n_jobs=-1` goes, and
that the fitted models are the same with it."""

from __future__ import annotations

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example


def _codes(source: str) -> list[int]:
    return [d.start.line for d in lint_source(source) if d.code == "GPU403"]


@pytest.mark.parametrize(("call", "fixed"), [
    ("RandomForestClassifier()", "RandomForestClassifier(n_jobs=-1)"),
    ("RandomForestClassifier( )", "RandomForestClassifier( n_jobs=-1)"),
    ("RandomForestClassifier(10, max_depth=3)", "RandomForestClassifier(10, max_depth=3, n_jobs=-1)"),
    ("RandomForestClassifier(\n    max_depth=3,  # shallow\n)",
     "RandomForestClassifier(\n    max_depth=3,  # shallow\n    n_jobs=-1,\n)"),
    ("RandomForestClassifier(*args)", "RandomForestClassifier(*args, n_jobs=-1)"),
])
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
    setup = ("from sklearn.datasets import make_classification\n"
             "X, y = make_classification(n_samples=N + 30, n_features=5, random_state=2)\n")
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
        return [cross_val_score(DecisionTreeClassifier(max_features=2), X, y, cv=3, n_jobs=n_jobs)
                for _ in range(3)]

    sequential = folds(None)
    assert all(np.array_equal(a, b) for a, b in zip(sequential, folds(None)))  # reproducible
    parallel = folds(-1)
    assert not all(np.array_equal(a, b) for a, b in zip(sequential, parallel))

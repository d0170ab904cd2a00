"""Evidence for the pipeline and Dask rules: scikit-learn/cuML estimators by qualified
name (`gpulint.estimators`), Dask collections (`gpulint.dask_api`), and straight-line
data flow (the straight-line queries of `RuleContext`)."""

from __future__ import annotations

import inspect

import pytest

from gpulint import estimators
from gpulint.evidence import Ty

from .test_evidence import probe


@pytest.mark.parametrize(
    ("qualname", "role"),
    [
        ("sklearn.preprocessing.StandardScaler", estimators.TRANSFORMER),
        ("sklearn.feature_extraction.text.TfidfVectorizer", estimators.TRANSFORMER),
        ("sklearn.ensemble._forest.RandomForestClassifier", estimators.PREDICTOR),
        ("sklearn.ensemble.RandomTreesEmbedding", estimators.TRANSFORMER),
        ("sklearn.neighbors.NearestNeighbors", estimators.ESTIMATOR),
        ("sklearn.model_selection.GridSearchCV", estimators.SEARCH),
        ("sklearn.pipeline.make_pipeline", estimators.PIPELINE),
        ("sklearn.preprocessing.LabelEncoder", estimators.LABEL),
        ("cuml.PCA", estimators.TRANSFORMER),
        ("cuml.RandomForestClassifier", estimators.PREDICTOR),
        ("cuml.preprocessing.StandardScaler", estimators.TRANSFORMER),
        # functions and other things are no estimators
        ("sklearn.model_selection.train_test_split", None),
        ("sklearn.model_selection.KFold", None),
        ("sklearn.preprocessing.scale", None),
        ("pandas.DataFrame", None),
    ],
)
def test_roles_by_qualified_name(qualname, role):
    assert estimators.role(qualname) == role


def test_estimators_are_followed_through_aliases_and_fit():
    seen = probe("""
        import sklearn.ensemble
        from sklearn import preprocessing
        from sklearn.linear_model import LogisticRegression as LR

        probe(LR())
        probe(preprocessing.StandardScaler())
        model = sklearn.ensemble.RandomForestRegressor(n_jobs=-1).fit(X, y)
        probe(model)
        probe(model.predict(X))

        def f(m: LR):
            probe(m)
    """)
    assert seen == [
        Ty("estimator", "sklearn.linear_model.LogisticRegression"),
        Ty("estimator", "sklearn.preprocessing.StandardScaler"),
        Ty("estimator", "sklearn.ensemble.RandomForestRegressor"),
        None,
        Ty("estimator", "sklearn.linear_model.LogisticRegression"),
    ]


def test_estimators_of_different_classes_on_two_branches_are_unknown():
    assert probe("""
        from sklearn.linear_model import Ridge, Lasso
        model = Ridge() if flag else Lasso()
        if flag:
            model = Ridge()
        else:
            model = Lasso()
        probe(model)
    """) == [None]


def test_dask_collections():
    seen = probe("""
        import dask
        import dask.array as da
        import dask.bag as db
        from dask import delayed

        x = da.from_array(data, chunks=10)
        probe(x)
        probe(x[0].sum())
        probe(x.compute())
        probe(db.from_sequence([1, 2]).map(str))
        probe(delayed(f)(1))
        probe(dask.delayed(f)(1).compute())
        probe(da.store(x, target))

        def g(a: da.Array):
            probe(a)
    """)
    lazy = Ty("collection", "dask")
    assert seen == [lazy, lazy, None, lazy, lazy, None, None, lazy]


def test_n_jobs_table_names_real_parameters():
    """Every entry of the list accepts `n_jobs` in the installed scikit-learn."""
    pytest.importorskip("sklearn")
    import importlib

    import sklearn.experimental.enable_halving_search_cv  # noqa: F401

    for entry in sorted(estimators.N_JOBS):
        package, name = entry.split(".")
        target = getattr(importlib.import_module(f"sklearn.{package}"), name)
        function = target.__init__ if inspect.isclass(target) else target
        assert "n_jobs" in inspect.signature(function).parameters, entry


def test_n_jobs_table_leaves_out_the_estimators_whose_n_jobs_does_nothing_by_default():
    for name in ("linear_model.LogisticRegression", "linear_model.LinearRegression", "linear_model.SGDClassifier"):
        assert not estimators.parallel_n_jobs(f"sklearn.{name}")
    assert estimators.parallel_n_jobs("sklearn.ensemble.RandomForestClassifier")
    assert not estimators.parallel_n_jobs("cuml.ensemble.RandomForestClassifier")


def test_transformers_said_to_ignore_y_really_do():
    """`fit_transform(X, y)` equals `fit_transform(X)` for the transformers the GPU401
    rewrite trusts to ignore `y`."""
    pytest.importorskip("sklearn")
    import numpy as np
    from sklearn.decomposition import PCA
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import OneHotEncoder, QuantileTransformer, StandardScaler

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = (X[:, 0] > 0).astype(int)
    for cls in (PCA, VarianceThreshold, SimpleImputer, OneHotEncoder, QuantileTransformer, StandardScaler):
        qualname = f"{cls.__module__}.{cls.__name__}"
        assert estimators.ignores_y(qualname), qualname
        kwargs = {"n_quantiles": 10} if cls is QuantileTransformer else {}
        with_y = cls(**kwargs).fit_transform(X, y)
        without = cls(**kwargs).fit_transform(X)
        with_y = with_y.toarray() if hasattr(with_y, "toarray") else with_y
        without = without.toarray() if hasattr(without, "toarray") else without
        np.testing.assert_array_equal(with_y, without)
    assert not estimators.ignores_y("sklearn.preprocessing.TargetEncoder")
    assert not estimators.ignores_y("sklearn.feature_selection.SelectKBest")


@pytest.mark.parametrize(
    ("qualname", "metric"),
    [
        ("sklearn.metrics.accuracy_score", True),
        ("sklearn.metrics.mean_squared_error", True),
        ("sklearn.metrics.log_loss", True),
        ("cuml.metrics.r2_score", True),
        ("sklearn.metrics.pairwise_kernels", False),
        ("sklearn.metrics.confusion_matrix", True),  # a table of the predictions compares candidates too
        ("sklearn.metrics.classification_report", True),
        ("sklearn.metrics.roc_curve", False),  # a curve to draw
        ("sklearn.model_selection.cross_val_score", False),
    ],
)
def test_metrics_are_scores_not_distances(qualname, metric):
    assert estimators.is_metric(qualname) is metric

"""GPU402 fit-before-split: a transformer fitted on the data that is split or
cross-validated afterwards, followed through names, aliases and blocks."""

from __future__ import annotations

import pytest

from gpulint import lint_source


def _findings(source: str) -> list[tuple[int, int]]:
    return [(d.start.line, d.start.col) for d in lint_source(source) if d.code == "GPU402"]


IMPORTS = (
    "from sklearn.model_selection import train_test_split as split, cross_val_predict\n"
    "from sklearn.preprocessing import RobustScaler\n"
    "from sklearn.linear_model import Ridge\n"
)


def test_reported_on_the_fitting_call():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\nparts = split(scaled, y)\n"
    assert _findings(source) == [(4, 9)]
    assert "leak" in [d for d in lint_source(source) if d.code == "GPU402"][0].message


def test_followed_out_of_nested_blocks_within_the_function():
    source = IMPORTS + (
        "def evaluate(X, y):\n"
        "    scaler = RobustScaler()\n"
        "    scaled = scaler.fit_transform(X)\n"
        "    with open('log.txt', 'w') as log:\n"
        "        for fold in range(3):\n"
        "            log.write(str(cross_val_predict(Ridge(), scaled, y, n_jobs=-1)))\n"
    )
    assert _findings(source) == [(6, 13)]


@pytest.mark.parametrize(
    "body",
    [
        # the name is rebound in between: what is split is not the transformer's output
        "scaled = RobustScaler().fit_transform(X)\nscaled = X\nparts = split(scaled, y)\n",
        # fitted on one thing, applied to another
        "scaler = RobustScaler()\nscaler.fit(X_train)\nscaled = scaler.transform(X)\nparts = split(scaled, y)\n",
        # the loop may rebind it before the split runs again
        "scaled = RobustScaler().fit_transform(X)\nfor i in range(2):\n    parts = split(scaled, y)\n"
        "    scaled = parts[0]\n",
        # a parameter: where it came from is unknown
        "def f(scaled, y):\n    return split(scaled, y)\n",
        # split first, then fitted on the training part only
        "X_train, X_test = split(X)\nscaled = RobustScaler().fit_transform(X_train)\n",
    ],
)
def test_not_reported_without_the_flow(body):
    assert _findings(IMPORTS + body) == []


def test_one_finding_for_a_fit_used_by_two_splits():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\na = split(scaled, y)\nb = split(scaled, y)\n"
    assert _findings(source) == [(4, 9)]


# -- leaks that reach the split through conversions, slices and write-backs -----------------

SK = (
    "import numpy as np\n"
    "from sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import MinMaxScaler, StandardScaler\n"
)


def _lines(source: str) -> list[int]:
    return [line for line, _ in _findings(source)]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        # a conversion of the output
        ("Xs = StandardScaler().fit_transform(X).astype(np.float32)\nparts = train_test_split(Xs, y)\n", 4),
        ("Xs = StandardScaler().fit_transform(X)\nX32 = Xs.astype(np.float32)\nparts = train_test_split(X32, y)\n", 4),
        ("Xs = StandardScaler().fit_transform(X)\nparts = train_test_split(Xs.astype('float32'), y)\n", 4),
        # a slice of it
        ("Xs = StandardScaler().fit_transform(X)\nparts = train_test_split(Xs[:, 1:], y)\n", 4),
        ("Xs = StandardScaler().fit_transform(X)\nfeatures = Xs[:, 1:]\nparts = train_test_split(features, y)\n", 4),
        # the fit chained or earlier, the output renamed
        ("scaler = StandardScaler()\nXs = scaler.fit(X).transform(X)\nX = Xs\nparts = train_test_split(X, y)\n", 5),
        ("scaler = StandardScaler()\nscaler.fit(X)\nX = scaler.transform(X)\nparts = train_test_split(X, y)\n", 5),
        # made and fitted in one statement, applied later
        ("scaler = StandardScaler().fit(X)\nXs = scaler.transform(X)\nparts = train_test_split(Xs, y)\n", 4),
        # the split's argument is the fit itself
        ("parts = train_test_split(MinMaxScaler().fit_transform(X), y)\n", 4),
        # written back into the data
        (
            "scaler = MinMaxScaler()\nX[:, 2] = scaler.fit_transform(X[:, [2]]).ravel()\nparts = train_test_split(X, y)\n",
            5,
        ),
        (
            "scaler = StandardScaler()\ndf[cols] = scaler.fit_transform(df[cols])\n"
            "X = df.drop(columns='label').values\nparts = train_test_split(X, df['label'])\n",
            5,
        ),
        (
            "scaler = StandardScaler()\nfor col in cols:\n    df[col] = scaler.fit_transform(df[[col]])\n"
            "parts = train_test_split(df[cols], df['label'])\n",
            6,
        ),
        (
            "scaler = StandardScaler()\nscaler.fit(df[cols])\ndf[cols] = scaler.transform(df[cols])\n"
            "parts = train_test_split(df, y)\n",
            5,
        ),
        ("X[:, 1] = MinMaxScaler().fit(X[:, [1]]).transform(X[:, [1]]).ravel()\nparts = train_test_split(X, y)\n", 4),
    ],
)
def test_leaks_that_reach_the_split(body, line):
    assert _lines(SK + body) == [line]


def test_a_write_back_before_cross_validation():
    source = SK + (
        "from sklearn.linear_model import Ridge\nfrom sklearn.model_selection import cross_val_score\n\n"
        "def evaluate(frame, cols, y):\n"
        "    frame[cols] = StandardScaler().fit_transform(frame[cols])\n"
        "    return cross_val_score(Ridge(), frame[cols].to_numpy(), y, n_jobs=-1)\n"
    )
    assert _lines(source) == [8]


@pytest.mark.parametrize(
    "body",
    [
        # fitted on the training part only
        "X_train, X_test, y_train, y_test = train_test_split(X, y)\nscaler = StandardScaler()\n"
        "X_train[:, 0] = scaler.fit_transform(X_train[:, [0]]).ravel()\n",
        # a scaler fitted on a different array, written into the one that is split
        "scaler = StandardScaler()\nX[:, 2] = scaler.fit_transform(reference[:, [2]]).ravel()\n"
        "parts = train_test_split(X, y)\n",
        # the write-back after the split
        "parts = train_test_split(X, y)\nX[:, 2] = StandardScaler().fit_transform(X[:, [2]]).ravel()\n",
        # the converted copy is replaced before the split
        "Xs = StandardScaler().fit_transform(X)\nX32 = Xs.astype(np.float32)\nX32 = X.astype(np.float32)\n"
        "parts = train_test_split(X32, y)\n",
        # fitted on a slice, a different slice transformed
        "scaler = StandardScaler()\nscaler.fit(X[:100])\nXs = scaler.transform(X)\nparts = train_test_split(Xs, y)\n",
        "scaler = StandardScaler().fit(X[:100])\nXs = scaler.transform(X)\nparts = train_test_split(Xs, y)\n",
        # made and fitted, then bound again before it is applied
        "scaler = StandardScaler().fit(X)\nscaler = StandardScaler()\nXs = scaler.fit_transform(X_other)\n"
        "parts = train_test_split(X, y)\n",
        # written back only on one branch
        "if scale:\n    X[:, 2] = StandardScaler().fit_transform(X[:, [2]]).ravel()\nparts = train_test_split(X, y)\n",
        # a stateless transformer written back
        "from sklearn.preprocessing import FunctionTransformer\n"
        "X[:, 2] = FunctionTransformer(np.log1p).fit_transform(X[:, [2]]).ravel()\nparts = train_test_split(X, y)\n",
    ],
)
def test_near_misses_of_those_leaks(body):
    assert _lines(SK + body) == []


# -- the message names what leaks: the test rows of a split, or the folds ----------------------


def _messages(source: str) -> list[str]:
    return [d.message for d in lint_source(source) if d.code == "GPU402"]


def test_a_cross_validation_is_said_to_leak_its_folds():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\npredicted = cross_val_predict(Ridge(), scaled, y)\n"
    [message] = _messages(source)
    assert "cross-validated" in message and "fold" in message and "test rows" not in message


def test_a_search_fitted_on_the_output_is_said_to_leak_its_folds():
    source = IMPORTS + (
        "from sklearn.model_selection import GridSearchCV\n"
        "scaled = RobustScaler().fit_transform(X)\n"
        "GridSearchCV(Ridge(), {'alpha': [1.0, 2.0]}).fit(scaled, y)\n"
    )
    [message] = _messages(source)
    assert "fold" in message and "test rows" not in message


def test_a_train_test_split_keeps_the_test_rows_wording():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\nparts = split(scaled, y)\n"
    [message] = _messages(source)
    assert "test rows" in message and "fold" not in message


CHAIN_IMPORTS = (
    IMPORTS + "from sklearn.decomposition import PCA\nfrom sklearn.preprocessing import PolynomialFeatures\n"
)


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        # each transformer of a chain fitted on all the data leaks: the scaler and the PCA
        ("Xs = RobustScaler().fit_transform(X)\nXr = PCA(5).fit_transform(Xs)\nparts = split(Xr, y)\n", [6, 7]),
        # nested in one expression
        ("parts = split(PCA(5).fit_transform(RobustScaler().fit_transform(X)), y)\n", [6, 6]),
    ],
    ids=["statements", "nested"],
)
def test_every_transformer_of_a_chain_before_the_split_is_reported(body, lines):
    assert [line for line, _ in _findings(CHAIN_IMPORTS + body)] == lines


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        # the scaler is fitted on the training part only; the PCA on what is split
        ("Xs = RobustScaler().fit(X_train).transform(X)\nXr = PCA(5).fit_transform(Xs)\nparts = split(Xr, y)\n", [7]),
        # a transformer that learns nothing stops the walk: what came before is not followed
        (
            "Xs = RobustScaler().fit_transform(X)\nXp = PolynomialFeatures(2).fit_transform(Xs)\nparts = split(Xp, y)\n",
            [],
        ),
    ],
    ids=["fitted-on-other-data", "stateless-in-between"],
)
def test_a_chain_reports_only_the_transformers_fitted_on_what_is_split(body, lines):
    assert [line for line, _ in _findings(CHAIN_IMPORTS + body)] == lines


def test_a_feature_selector_that_cross_validates_is_a_cross_validation():
    source = IMPORTS + (
        "from sklearn.feature_selection import SequentialFeatureSelector, SelectKBest\n"
        "from sklearn.model_selection import TimeSeriesSplit\n"
        "scaler = RobustScaler()\n"
        "df[cols] = scaler.fit_transform(df[cols])\n"
        "sfs = SequentialFeatureSelector(Ridge(), cv=TimeSeriesSplit(3))\n"
        "sfs.fit(df[cols], df['target'])\n"
    )
    [message] = _messages(source)
    assert "cross-validated" in message
    kbest = source.replace("SequentialFeatureSelector(Ridge(), cv=TimeSeriesSplit(3))", "SelectKBest(k=5)")
    assert _messages(kbest) == []


@pytest.mark.parametrize(
    "body",
    [
        "from sklearn.preprocessing import scale\nXs = scale(X)\nparts = split(Xs, y)\n",
        "from sklearn import preprocessing\nparts = split(preprocessing.minmax_scale(X), y)\n",
    ],
    ids=["scale", "minmax-scale-inline"],
)
def test_a_scaling_function_applied_to_all_the_data_before_the_split_leaks(body):
    [message] = _messages(IMPORTS + body)
    assert "scale" in message and "test rows" in message


@pytest.mark.parametrize(
    "body",
    [
        # each row scaled on its own: nothing learned across rows
        "from sklearn.preprocessing import normalize\nparts = split(normalize(X), y)\n",
        # scaled after the split, the training part on its own
        "from sklearn.preprocessing import scale\nX_train, X_test = split(X)\nXs = scale(X_train)\n",
    ],
    ids=["normalize", "after-the-split"],
)
def test_scaling_functions_that_do_not_leak_are_left_alone(body):
    assert _messages(IMPORTS + body) == []

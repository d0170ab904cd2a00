"""What library calls return, from the return-type tables of `numpy_api`, `estimators` and
`torch_api`: scikit-learn's downloaded datasets and fitted attributes, NumPy's index tuples,
SciPy's random draws, torch's sampling functions. Toy datasets, sample generators and the
parts of `train_test_split` stay unknown: their size is not known.

Each table has cases the evidence (through the probe rule of `test_evidence`) or a rule now
sees, and near-misses that must stay unknown: the same call where the library returns
something else (a list split, a scalar draw, an `int` attribute, a frame dataset).
"""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source
from gpulint.values import Ty

from .test_evidence import probe_one

ARRAY = Ty("array", "numpy")
FRAME = Ty("frame", "pandas")
SERIES = Ty("series", "pandas")
PRELUDE = """\
import numpy as np
import pandas as pd
import scipy.stats
import torch
from scipy import stats
from scipy.stats import norm, gamma
from sklearn import datasets
from sklearn.datasets import load_iris, make_blobs
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.cluster import KMeans
from sklearn.ensemble import RandomForestClassifier
a = np.zeros((10, 3))
df = pd.read_csv("a.csv")
s = df["a"]
items = [1, 2, 3]
"""


def _probe(source: str) -> Ty | None:
    return probe_one(PRELUDE + textwrap.dedent(source))


def _codes(source: str) -> list[tuple[int, str]]:
    return [(d.start.line, d.code) for d in lint_source(textwrap.dedent(source), fixes=False)]


# -- train_test_split: its parts stay unknown (their size is not known) ------------------

SPLITS = [
    "x_train, x_test = train_test_split(a, test_size=0.2)\nprobe(x_test)",
    "x_train, x_test, y_train, y_test = train_test_split(df, s)\nprobe(x_test)",
    "x_train, x_test = train_test_split(items, test_size=0.5)\nprobe(x_train)",  # a list
    "x_train, x_test = train_test_split(unknown)\nprobe(x_train)",
]


@pytest.mark.parametrize("source", SPLITS)
def test_train_test_split_parts_stay_unknown(source):
    assert _probe(source) is None


# -- scikit-learn's datasets -----------------------------------------------------------

DATASETS = [
    "data = datasets.fetch_covtype()\nprobe(data.data)",
    "data = datasets.fetch_covtype()\nprobe(data.target)",
    "probe(datasets.fetch_olivetti_faces().images)",
    "probe(datasets.fetch_california_housing(as_frame=False).data)",
    "X, y = datasets.fetch_covtype(return_X_y=True)\nprobe(y)",
]
DATASET_NEAR_MISSES = [
    "data = load_iris()\nprobe(data.data)",  # a toy dataset: 150 rows
    "X, y = datasets.load_breast_cancer(return_X_y=True)\nprobe(X)",
    "X, y = make_blobs(n_samples=500)\nprobe(X)",  # a generator: its size is an argument
    "data = datasets.fetch_covtype(as_frame=True)\nprobe(data.data)",  # a frame, not an array
    "data = datasets.fetch_covtype(as_frame=flag)\nprobe(data.data)",  # decided at run time
    "X, y = datasets.fetch_covtype(return_X_y=True, as_frame=True)\nprobe(X)",
    "data = datasets.fetch_openml('mnist_784')\nprobe(data.data)",  # a frame by default
    "data = datasets.fetch_20newsgroups()\nprobe(data.data)",  # a list of texts
]


@pytest.mark.parametrize("source", DATASETS)
def test_dataset_arrays(source):
    assert _probe(source) == ARRAY


@pytest.mark.parametrize("source", DATASET_NEAR_MISSES)
def test_datasets_in_other_forms_stay_unknown(source):
    assert _probe(source) is None


# -- fitted attributes -------------------------------------------------------------------

FITTED = [
    "m = LogisticRegression().fit(a, s)\nprobe(m.coef_)",
    "m = LogisticRegression()\nm.fit(a, s)\nprobe(m.intercept_)",
    "probe(KMeans(3).fit(a).labels_)",
    "km = KMeans(3)\nprobe(km.cluster_centers_)",
    "from sklearn.decomposition import PCA\nprobe(PCA(2).fit(a).components_)",
    "from sklearn.svm import SVC\nprobe(SVC().fit(a, s).support_vectors_)",
]
FITTED_NEAR_MISSES = [
    "m = LogisticRegression().fit(a, s)\nprobe(m.n_features_in_)",  # an int
    "m = LinearRegression().fit(a, s)\nprobe(m.intercept_)",  # a NumPy float for one target
    "m = LogisticRegression().fit(a, s)\nprobe(m.classes_)",  # a list of arrays for several outputs
    "probe(RandomForestClassifier().fit(a, s).feature_importances_)",  # one value per feature
    "from cuml.cluster import KMeans as CuKMeans\nprobe(CuKMeans(3).fit(a).labels_)",  # cuML's mirror its input
    "probe(unknown.coef_)",
]


@pytest.mark.parametrize("source", FITTED)
def test_fitted_arrays(source):
    assert _probe(source) == ARRAY


@pytest.mark.parametrize("source", FITTED_NEAR_MISSES)
def test_other_fitted_attributes_stay_unknown(source):
    assert _probe(source) is None


# -- NumPy's index tuples ------------------------------------------------------------------

INDEX_ARRAYS = [
    "probe(np.where(a > 0)[0])",
    "probe(np.where(s > 0)[0])",  # the condition a series: NumPy's arrays all the same
    "rows, cols = np.where(a > 0)\nprobe(cols)",
    "probe(np.nonzero(a)[1])",
    "probe(a.nonzero()[0])",
    "probe(np.where(a > 0, a, 0))",  # three arguments: one array, as before
    "probe(np.flatnonzero(a))",
    "probe(np.argwhere(a))",
]
INDEX_NEAR_MISSES = [
    "probe(a[0, 1])",  # integers alone: one element
    "probe(a[0])",
    "probe(np.where(a > 0))",  # the tuple itself is no array
    "probe(np.where(*args)[0])",
]


@pytest.mark.parametrize("source", INDEX_ARRAYS)
def test_index_arrays(source):
    assert _probe(source) == ARRAY


@pytest.mark.parametrize("source", INDEX_NEAR_MISSES)
def test_index_tuples_and_elements_are_not_arrays(source):
    ty = _probe(source)
    assert ty is None or ty.kind != "array"


# -- SciPy's random draws ------------------------------------------------------------------

DRAWS = [
    "dist = scipy.stats.norm(170, 7)\nprobe(dist.rvs(1000))",
    "dist = norm(loc=0, scale=1)\nprobe(dist.rvs(size=50))",
    "probe(stats.norm.rvs(size=10))",
    "probe(norm.rvs(0, 1, 10))",
    "probe(gamma.rvs(2, size=10))",
    "probe(gamma.rvs(2, 0, 1, 10))",
    "probe(stats.multivariate_normal([0, 0], [[1, 0], [0, 1]]).rvs(100))",
]
DRAW_NEAR_MISSES = [
    "dist = scipy.stats.norm(170, 7)\nprobe(dist.rvs())",  # one value
    "dist = scipy.stats.norm(170, 7)\nprobe(dist.rvs(size=None))",
    "probe(norm.rvs(0, 1))",  # `loc` and `scale`: one value
    "probe(gamma.rvs(2, 0, 1))",  # the shape, `loc` and `scale`: one value
    "dist = scipy.stats.norm(170, 7)\nprobe(dist.mean())",
    "probe(stats.ttest_ind(a, a))",  # a test, not a distribution
]


@pytest.mark.parametrize("source", DRAWS)
def test_random_draws_of_a_size_are_arrays(source):
    assert _probe(source) == ARRAY


@pytest.mark.parametrize("source", DRAW_NEAR_MISSES)
def test_single_draws_and_other_methods_stay_unknown(source):
    assert _probe(source) is None


# -- torch's sampling functions ----------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "probe(torch.multinomial(torch.ones(3, device='cuda'), 1))",
        "probe(torch.histc(torch.ones(3, device='cuda'), bins=4))",
        "probe(torch.ones(3, device='cuda').multinomial(1))",
    ],
)
def test_torch_sampling_functions_return_tensors_where_their_input_is(source):
    assert _probe(source) == Ty("tensor", "torch", "device")


# -- what the rules now see ---------------------------------------------------------------


def test_builtin_over_a_frozen_distributions_draws_is_flagged_and_a_single_draw_is_not():
    source = """
    import numpy as np
    import scipy.stats
    dist = scipy.stats.norm(170, 7)
    sample = dist.rvs(1000)
    below = sum(sample < 160)
    one = dist.rvs()
    pair = sum([one, 1])
    """
    assert _codes(source) == [(6, "GPU204")]


def test_builtin_over_index_arrays_is_flagged_and_over_the_tuple_is_not():
    source = """
    import numpy as np
    import pandas as pd
    df = pd.read_csv("a.csv")
    positions = list(np.where(df["a"] > df["b"])[0])
    per_axis = list(np.where(df["a"] > df["b"]))
    """
    assert _codes(source) == [(5, "GPU204")]


def test_element_loop_over_dataset_targets_and_cluster_labels():
    source = """
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.datasets import fetch_covtype
    data = fetch_covtype()
    y = data.target
    labels = AgglomerativeClustering(2).fit(data.data).labels_
    agree = 0
    for i in range(len(y)):
        if y[i] == labels[i]:
            agree += 1
    """
    assert _codes(source) == [(9, "GPU201")]


def test_feature_importances_are_left_alone():
    source = """
    from sklearn.ensemble import RandomForestClassifier
    import numpy as np
    X = np.random.rand(100, 4)
    rf = RandomForestClassifier().fit(X, X[:, 0] > 0.5)
    ranked = sorted(rf.feature_importances_)
    """
    assert [code for _, code in _codes(source) if code == "GPU204"] == []


def test_item_of_a_multinomial_draw_on_the_device_in_a_loop():
    source = """
    import torch
    device = torch.device("cuda")
    model = torch.nn.Linear(3, 3).to(device)
    x = torch.ones(3, device=device)
    words = []
    for i in range(1000):
        prob = model(x).exp()
        word = torch.multinomial(prob, num_samples=1).item()
        words.append(word)
    """
    assert (9, "GPU307") in _codes(source)

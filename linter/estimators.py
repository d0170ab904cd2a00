"""What gpulint knows about scikit-learn and cuML estimators, kept as data.

Nothing here imports scikit-learn or cuML: an estimator is recognised by the qualified name
of the class it is constructed from (`from sklearn.preprocessing import StandardScaler as
Scaler` makes `Scaler()` a `sklearn.preprocessing.StandardScaler`). The type evidence
records such a value as `Ty("estimator", <qualified name>)`; `role()` says what it does.

A class is known by its library, the public subpackage it lives in and its own name, so
both `sklearn.ensemble.RandomForestClassifier` and the private
`sklearn.ensemble._forest.RandomForestClassifier` are the same class here.

The end of the module says what scikit-learn's larger downloaded datasets hold (arrays)
and which fitted attributes of an estimator are arrays (`coef_`, `labels_`). The bundled
toy datasets (`load_iris`), the sample generators (`make_blobs`, 100 rows by default) and
the parts of `train_test_split` stay unknown: how large they are is not known, and a
toy-sized array is no finding.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from .astutil import walk_local
from .project import FitPredict
from .values import Env, Kind, Ty, argument, has_unpacking

#: Roles an estimator can play.
TRANSFORMER = "transformer"  # fit_transform/transform: a Pipeline step
PREDICTOR = "predictor"  # fit then predict/score: a Pipeline's final step
SEARCH = "search"  # a hyper-parameter search: cross-validates whatever it is fitted on
PIPELINE = "pipeline"  # a Pipeline already
LABEL = "label"  # encodes targets (`LabelEncoder`): never a step applied to the features
ESTIMATOR = "estimator"  # an estimator whose role the rules do not need (`NearestNeighbors`)

LIBRARIES = ("sklearn", "cuml")

#: Public subpackages whose classes are transformers, per library.
_TRANSFORMER_PACKAGES = {
    "sklearn": frozenset(
        [
            "preprocessing",
            "decomposition",
            "feature_extraction",
            "feature_selection",
            "impute",
            "kernel_approximation",
            "random_projection",
            "compose",
            "manifold",
        ]
    ),
    "cuml": frozenset(["preprocessing", "decomposition", "feature_extraction", "manifold", "random_projection"]),
}
#: Public subpackages whose classes are predictors (supervised, clustering, outlier detection).
_PREDICTOR_PACKAGES = {
    "sklearn": frozenset(
        [
            "linear_model",
            "ensemble",
            "tree",
            "neighbors",
            "svm",
            "naive_bayes",
            "neural_network",
            "discriminant_analysis",
            "gaussian_process",
            "kernel_ridge",
            "dummy",
            "isotonic",
            "semi_supervised",
            "multiclass",
            "multioutput",
            "calibration",
            "cluster",
            "mixture",
            "covariance",
            "cross_decomposition",
        ]
    ),
    "cuml": frozenset(
        [
            "linear_model",
            "ensemble",
            "neighbors",
            "svm",
            "naive_bayes",
            "cluster",
            "kernel_ridge",
            "multiclass",
            "solvers",
            "tsa",
        ]
    ),
}
#: Classes whose role differs from their subpackage's (keys are `subpackage.Class`; cuML's
#: top-level classes, `cuml.PCA`, use the class name alone).
_ROLE_EXCEPTIONS = {
    "sklearn": {
        "ensemble.RandomTreesEmbedding": TRANSFORMER,
        "neighbors.KNeighborsTransformer": TRANSFORMER,
        "neighbors.RadiusNeighborsTransformer": TRANSFORMER,
        "neighbors.NeighborhoodComponentsAnalysis": TRANSFORMER,
        "neighbors.NearestNeighbors": ESTIMATOR,
        "neighbors.KernelDensity": ESTIMATOR,
        "neural_network.BernoulliRBM": TRANSFORMER,
        "cluster.FeatureAgglomeration": TRANSFORMER,
        "compose.TransformedTargetRegressor": PREDICTOR,
        "preprocessing.LabelEncoder": LABEL,
        "preprocessing.LabelBinarizer": LABEL,
        "preprocessing.MultiLabelBinarizer": LABEL,
        "model_selection.GridSearchCV": SEARCH,
        "model_selection.RandomizedSearchCV": SEARCH,
        "model_selection.HalvingGridSearchCV": SEARCH,
        "model_selection.HalvingRandomSearchCV": SEARCH,
        "model_selection.TunedThresholdClassifierCV": PREDICTOR,
        "model_selection.FixedThresholdClassifier": PREDICTOR,
        "pipeline.Pipeline": PIPELINE,
        "pipeline.make_pipeline": PIPELINE,
        "pipeline.FeatureUnion": TRANSFORMER,
        "pipeline.make_union": TRANSFORMER,
        "compose.make_column_transformer": TRANSFORMER,
        "base.BaseEstimator": ESTIMATOR,
    },
    "cuml": {
        "PCA": TRANSFORMER,
        "TruncatedSVD": TRANSFORMER,
        "IncrementalPCA": TRANSFORMER,
        "UMAP": TRANSFORMER,
        "TSNE": TRANSFORMER,
        "GaussianRandomProjection": TRANSFORMER,
        "SparseRandomProjection": TRANSFORMER,
        "preprocessing.LabelEncoder": LABEL,
        "preprocessing.LabelBinarizer": LABEL,
        "LabelEncoder": LABEL,
    },
}

#: Estimators and helpers whose `n_jobs` spreads the work over cores in their default
#: configuration. Source: scikit-learn's API reference (1.9), the `n_jobs` parameter of each:
#: parallel over trees (forests), sub-estimators (bagging, voting, stacking, one-vs-rest,
#: multi-output), neighbour queries (neighbours, DBSCAN, OPTICS, HDBSCAN, LOF), seeds
#: (MeanShift), sub-populations (TheilSen), folds (`*CV` estimators, the `cross_*` helpers,
#: learning/validation curves, RFECV), candidates x folds (searches, sequential feature
#: selection) or permuted columns (permutation importance).
#: Left out on purpose: `LogisticRegression`, `LinearRegression`, `SGDClassifier`,
#: `Perceptron`, `PassiveAggressiveClassifier`, `GaussianProcessClassifier` (their `n_jobs`
#: only acts for multi-class one-vs-rest or several targets), `SpectralClustering` and
#: `LabelPropagation`/`LabelSpreading` (only with a nearest-neighbours affinity or kernel),
#: `ColumnTransformer`/`FeatureUnion` (parallel over a handful of transformers, where
#: starting worker processes usually costs more than it saves) and cuML (GPU estimators
#: have no `n_jobs`).
N_JOBS = frozenset(
    [
        "ensemble.RandomForestClassifier",
        "ensemble.RandomForestRegressor",
        "ensemble.ExtraTreesClassifier",
        "ensemble.ExtraTreesRegressor",
        "ensemble.RandomTreesEmbedding",
        "ensemble.IsolationForest",
        "ensemble.BaggingClassifier",
        "ensemble.BaggingRegressor",
        "ensemble.VotingClassifier",
        "ensemble.VotingRegressor",
        "ensemble.StackingClassifier",
        "ensemble.StackingRegressor",
        "neighbors.KNeighborsClassifier",
        "neighbors.KNeighborsRegressor",
        "neighbors.RadiusNeighborsClassifier",
        "neighbors.RadiusNeighborsRegressor",
        "neighbors.NearestNeighbors",
        "neighbors.KNeighborsTransformer",
        "neighbors.RadiusNeighborsTransformer",
        "neighbors.LocalOutlierFactor",
        "cluster.DBSCAN",
        "cluster.OPTICS",
        "cluster.HDBSCAN",
        "cluster.MeanShift",
        "linear_model.LogisticRegressionCV",
        "linear_model.LassoCV",
        "linear_model.ElasticNetCV",
        "linear_model.LarsCV",
        "linear_model.LassoLarsCV",
        "linear_model.MultiTaskLassoCV",
        "linear_model.MultiTaskElasticNetCV",
        "linear_model.OrthogonalMatchingPursuitCV",
        "linear_model.TheilSenRegressor",
        "covariance.GraphicalLassoCV",
        "calibration.CalibratedClassifierCV",
        "multiclass.OneVsRestClassifier",
        "multiclass.OneVsOneClassifier",
        "multiclass.OutputCodeClassifier",
        "multioutput.MultiOutputClassifier",
        "multioutput.MultiOutputRegressor",
        "feature_selection.RFECV",
        "feature_selection.SequentialFeatureSelector",
        "model_selection.GridSearchCV",
        "model_selection.RandomizedSearchCV",
        "model_selection.HalvingGridSearchCV",
        "model_selection.HalvingRandomSearchCV",
        "model_selection.TunedThresholdClassifierCV",
        "model_selection.cross_val_score",
        "model_selection.cross_validate",
        "model_selection.cross_val_predict",
        "model_selection.learning_curve",
        "model_selection.validation_curve",
        "model_selection.permutation_test_score",
        "inspection.permutation_importance",
    ]
)

#: The class and function names of `N_JOBS` (what a call of one of them ends with).
N_JOBS_NAMES = frozenset(name.rsplit(".", 1)[1] for name in N_JOBS)

#: Entries of `N_JOBS` that fit the estimators they are given (or clones of them) in worker
#: processes. An estimator there left with `random_state=None` draws from NumPy's global
#: random state, which the workers do not share: code that made it reproducible with
#: `np.random.seed(...)` gets other (still random) models with `n_jobs=-1`. The forests,
#: bagging and the others draw their seeds before they dispatch, or run in threads.
FITS_GIVEN_ESTIMATORS = frozenset(
    [
        "ensemble.VotingClassifier",
        "ensemble.VotingRegressor",
        "ensemble.StackingClassifier",
        "ensemble.StackingRegressor",
        "calibration.CalibratedClassifierCV",
        "multiclass.OneVsRestClassifier",
        "multiclass.OneVsOneClassifier",
        "multiclass.OutputCodeClassifier",
        "multioutput.MultiOutputClassifier",
        "multioutput.MultiOutputRegressor",
        "feature_selection.RFECV",
        "feature_selection.SequentialFeatureSelector",
        "model_selection.GridSearchCV",
        "model_selection.RandomizedSearchCV",
        "model_selection.HalvingGridSearchCV",
        "model_selection.HalvingRandomSearchCV",
        "model_selection.TunedThresholdClassifierCV",
        "model_selection.cross_val_score",
        "model_selection.cross_validate",
        "model_selection.cross_val_predict",
        "model_selection.learning_curve",
        "model_selection.validation_curve",
        "model_selection.permutation_test_score",
    ]
)

#: Parameters through which an entry of `N_JOBS` may run the caller's own code in its
#: workers, with the position each may be given at (None: keyword only): the estimator it
#: fits or predicts with (`estimator`, `base_estimator` before scikit-learn 1.2), a list of
#: estimators, a scorer, a distance (`metric`), a function reading feature importances, and
#: a search's candidate values (which may be estimators). Code that records state (a count
#: of fits, scorer calls) records it in the workers and the caller never sees it.
#: Reviewed for every entry (scikit-learn 1.9); entries not listed take no code there:
#: forests, `RandomTreesEmbedding`, `IsolationForest`, `MeanShift`, `TheilSenRegressor`,
#: the `*CV` linear models but `LogisticRegressionCV` and `GraphicalLassoCV` (their only
#: object parameter, `cv`, is split in the calling process before anything is dispatched).
#: Left out as they run in the calling process: `weights=` of the neighbours (applied
#: after the parallel query), `refit=` of the searches, `cv=` everywhere.
_ESTIMATOR: dict[str, int | None] = {"estimator": 0, "base_estimator": None}
_SCORED = {**_ESTIMATOR, "scoring": None}
_NEIGHBOURS: dict[str, int | None] = {"metric": None}
USER_CODE_PARAMETERS: dict[str, dict[str, int | None]] = {
    "ensemble.BaggingClassifier": _ESTIMATOR,
    "ensemble.BaggingRegressor": _ESTIMATOR,
    "ensemble.VotingClassifier": {"estimators": 0},
    "ensemble.VotingRegressor": {"estimators": 0},
    "ensemble.StackingClassifier": {"estimators": 0, "final_estimator": 1},
    "ensemble.StackingRegressor": {"estimators": 0, "final_estimator": 1},
    **{
        f"neighbors.{name}": _NEIGHBOURS
        for name in [
            "KNeighborsClassifier",
            "KNeighborsRegressor",
            "RadiusNeighborsClassifier",
            "RadiusNeighborsRegressor",
            "NearestNeighbors",
            "KNeighborsTransformer",
            "RadiusNeighborsTransformer",
            "LocalOutlierFactor",
        ]
    },
    "cluster.DBSCAN": _NEIGHBOURS,
    "cluster.OPTICS": _NEIGHBOURS,
    "cluster.HDBSCAN": {"metric": 4},
    "linear_model.LogisticRegressionCV": {"scoring": None},
    "calibration.CalibratedClassifierCV": _ESTIMATOR,
    "multiclass.OneVsRestClassifier": _ESTIMATOR,
    "multiclass.OneVsOneClassifier": _ESTIMATOR,
    "multiclass.OutputCodeClassifier": _ESTIMATOR,
    "multioutput.MultiOutputClassifier": _ESTIMATOR,
    "multioutput.MultiOutputRegressor": _ESTIMATOR,
    "feature_selection.RFECV": {**_SCORED, "importance_getter": None},
    "feature_selection.SequentialFeatureSelector": _SCORED,
    "model_selection.GridSearchCV": {**_SCORED, "param_grid": 1},
    "model_selection.HalvingGridSearchCV": {**_SCORED, "param_grid": 1},
    "model_selection.RandomizedSearchCV": {**_SCORED, "param_distributions": 1},
    "model_selection.HalvingRandomSearchCV": {**_SCORED, "param_distributions": 1},
    "model_selection.TunedThresholdClassifierCV": _SCORED,
    "model_selection.cross_val_score": _SCORED,
    "model_selection.cross_validate": _SCORED,
    "model_selection.cross_val_predict": _ESTIMATOR,
    "model_selection.learning_curve": _SCORED,
    "model_selection.validation_curve": {**_SCORED, "param_range": None},
    "model_selection.permutation_test_score": _SCORED,
    "inspection.permutation_importance": _SCORED,
}

#: Transformers whose `fit_transform(X, y)` ignores `y` (a Pipeline passes `y` to every step).
_IGNORE_Y_PACKAGES = frozenset(
    ["preprocessing", "decomposition", "impute", "kernel_approximation", "random_projection", "feature_extraction"]
)
_USES_Y = frozenset({"preprocessing.TargetEncoder"})
_IGNORE_Y_EXTRA = frozenset({"feature_selection.VarianceThreshold"})

#: Transformers that learn nothing from the values they are fitted on (only, at most, the
#: number of features): fitting them on all the data before a split leaks nothing.
STATELESS = frozenset(
    [
        "preprocessing.FunctionTransformer",
        "preprocessing.Normalizer",
        "preprocessing.Binarizer",
        "preprocessing.PolynomialFeatures",
        "feature_extraction.HashingVectorizer",
        "feature_extraction.FeatureHasher",
        "kernel_approximation.RBFSampler",
        "kernel_approximation.SkewedChi2Sampler",
        "kernel_approximation.AdditiveChi2Sampler",
        "kernel_approximation.PolynomialCountSketch",
        "random_projection.GaussianRandomProjection",
        "random_projection.SparseRandomProjection",
    ]
)

#: Methods that return the estimator itself.
RETURNS_SELF = frozenset({"fit", "partial_fit", "set_params", "set_output"})
#: Methods that use a fitted estimator on new data.
PREDICT_METHODS = frozenset(
    {"predict", "predict_proba", "predict_log_proba", "decision_function", "score", "score_samples"}
)

#: Functions that split data into training and test parts, and the cross-validation helpers
#: with the position of their `X` argument: a transformer fitted on what they receive has
#: seen every fold.
#: (`cross_validation` is scikit-learn's name for `model_selection` before 0.20.)
SPLITTERS = frozenset({"model_selection.train_test_split", "cross_validation.train_test_split"})
CROSS_VALIDATION = {
    "model_selection.cross_val_score": 1,
    "model_selection.cross_validate": 1,
    "model_selection.cross_val_predict": 1,
    "model_selection.learning_curve": 1,
    "model_selection.validation_curve": 1,
    "model_selection.permutation_test_score": 1,
}
#: scikit-learn's bundled toy datasets (150 to 1,797 rows) and the generators whose
#: `n_samples` (first argument, default 100) sets the rows. Below `TOY_ROWS` rows, gpulint's
#: own benchmark of GPU403 measures `n_jobs=-1` slower than one core (0.5x at 100 rows,
#: 0.8x at 1,000; 1.7x at 10,000): starting the workers costs more than the work saves.
TOY_LOADERS = frozenset(
    [
        "datasets.load_iris",
        "datasets.load_wine",
        "datasets.load_breast_cancer",
        "datasets.load_digits",
        "datasets.load_diabetes",
    ]
)
SAMPLE_GENERATORS = frozenset(
    [
        "datasets.make_classification",
        "datasets.make_regression",
        "datasets.make_blobs",
        "datasets.make_moons",
        "datasets.make_circles",
        "datasets.make_gaussian_quantiles",
    ]
)
TOY_ROWS = 10_000
_DEFAULT_SAMPLES = 100


#: Packages whose functions score predictions (`accuracy_score`, `r2_score`...), and the
#: name endings of those scores (the package also holds distances and kernels).
METRICS_PACKAGES = frozenset({"metrics"})
METRIC_SUFFIXES = ("_score", "_error", "_loss", "_deviance", "_corrcoef")
#: Metrics whose names have none of those endings: tables of a model's predictions (not the
#: curves, which are drawn rather than compared).
METRIC_NAMES = frozenset({"confusion_matrix", "classification_report", "precision_recall_fscore_support"})
#: Subpackages scikit-learn removed, by the one that took their functions and classes
#: (`sklearn.cross_validation.cross_val_score` is `sklearn.model_selection.cross_val_score`).
LEGACY_PACKAGES = {
    "cross_validation": "model_selection",
    "grid_search": "model_selection",
    "learning_curve": "model_selection",
}


@lru_cache(maxsize=4096)  # every rule asks of every call's name: the same few names again and again
def _parts(qualname: str) -> tuple[str, str, str] | None:
    """("sklearn", "ensemble", "RandomForestClassifier") for any module path of the class
    (a subpackage scikit-learn removed named as the one that took it over); cuML's top-level
    classes give ("cuml", "", "PCA")."""
    pieces = qualname.split(".")
    if len(pieces) < 2 or pieces[0] not in LIBRARIES:
        return None
    if len(pieces) == 2:
        return pieces[0], "", pieces[1]
    return pieces[0], LEGACY_PACKAGES.get(pieces[1], pieces[1]) if pieces[0] == "sklearn" else pieces[1], pieces[-1]


def key(qualname: str) -> str | None:
    """`sklearn.ensemble._forest.RandomForestClassifier` -> "ensemble.RandomForestClassifier"
    (scikit-learn only: the tables above are scikit-learn's)."""
    parts = _parts(qualname)
    if parts is None or parts[0] != "sklearn" or not parts[1]:
        return None
    return f"{parts[1]}.{parts[2]}"


def library(qualname: str) -> str:
    return qualname.split(".", 1)[0]


def role(qualname: str) -> str | None:
    """What the class (or factory) named `qualname` builds, or None when it is no estimator."""
    parts = _parts(qualname)
    if parts is None:
        return None
    lib, package, name = parts
    exceptions = _ROLE_EXCEPTIONS[lib]
    found = exceptions.get(f"{package}.{name}" if package else name)
    if found is not None:
        return found
    if not name[:1].isupper() or name.startswith("_"):
        return None  # a function (`train_test_split`, `scale`), not a class
    if not package:  # cuML's top level re-exports its predictors and a few transformers
        return PREDICTOR if lib == "cuml" else None
    if package in _TRANSFORMER_PACKAGES[lib]:
        return TRANSFORMER
    if package in _PREDICTOR_PACKAGES[lib]:
        return PREDICTOR
    return None


#: Estimators whose fit takes milliseconds on data a notebook holds in memory: linear
#: models (but not their `*CV` variants, which cross-validate inside), naive Bayes,
#: discriminant analysis, linear SVMs, dummies, PLS and CCA (`cross_decomposition`).
#: Worker processes for a search over their settings cost more to start than the fits
#: they would run side by side.
_FAST_FIT_PACKAGES = frozenset({"linear_model", "naive_bayes", "discriminant_analysis", "dummy", "cross_decomposition"})
_FAST_FITS = frozenset({"svm.LinearSVC", "svm.LinearSVR"})


def fits_fast(qualname: str) -> bool:
    """The scikit-learn class named `qualname` fits in milliseconds (see `_FAST_FITS`)."""
    found = key(qualname)
    if found is None:
        return False
    package, name = found.split(".", 1)
    return found in _FAST_FITS or package in _FAST_FIT_PACKAGES and not name.endswith("CV")


def parallel_n_jobs(qualname: str) -> bool:
    """The class or helper spreads its work over `n_jobs` cores in its default configuration."""
    return key(qualname) in N_JOBS


def fits_given_estimators(qualname: str) -> bool:
    """With `n_jobs`, the class or helper fits estimators it is given in worker processes."""
    return key(qualname) in FITS_GIVEN_ESTIMATORS


def user_code_parameters(qualname: str) -> dict[str, int | None]:
    """The parameters through which the class or helper may run the caller's code in its
    `n_jobs` workers, with their positions (see `USER_CODE_PARAMETERS`)."""
    return USER_CODE_PARAMETERS.get(key(qualname) or "", {})


def ignores_y(qualname: str) -> bool:
    """The transformer's `fit_transform(X, y)` computes the same as `fit_transform(X)`."""
    name = key(qualname)
    if name is None or name in _USES_Y or role(qualname) != TRANSFORMER:
        return False
    return name in _IGNORE_Y_EXTRA or name.split(".", 1)[0] in _IGNORE_Y_PACKAGES


#: Predictors that are transformers too: their `transform` projects the data onto what the
#: fit learned (LDA's discriminant axes), so code that applies it by hand before another
#: estimator chains it as a `Pipeline` step. Not PLS or CCA: their `fit_transform` returns
#: the projections of `X` and `y`, a pair no next step takes.
TRANSFORMING_PREDICTORS = frozenset({"discriminant_analysis.LinearDiscriminantAnalysis"})


#: Feature selectors that cross-validate their estimator on what they are fitted on (`cv`,
#: five folds by default), as a search does.
CROSS_VALIDATING_SELECTORS = frozenset({"feature_selection.SequentialFeatureSelector", "feature_selection.RFECV"})


#: scikit-learn's functions that fit a scaler on their input and return it transformed
#: (`scale(X)` is `StandardScaler().fit_transform(X)`): statistics of every row they get.
SCALING_FUNCTIONS = frozenset(
    {
        "preprocessing.scale",
        "preprocessing.minmax_scale",
        "preprocessing.robust_scale",
        "preprocessing.maxabs_scale",
        "preprocessing.quantile_transform",
        "preprocessing.power_transform",
    }
)


def cross_validates(qualname: str) -> bool:
    """Fitting an instance of `qualname` cross-validates on the data it is given."""
    return role(qualname) == SEARCH or key(qualname) in CROSS_VALIDATING_SELECTORS


def transforms(qualname: str) -> bool:
    """The estimator class `qualname` can be a pipeline's transformer step."""
    return role(qualname) == TRANSFORMER or key(qualname) in TRANSFORMING_PREDICTORS


def is_stateless(qualname: str) -> bool:
    return key(qualname) in STATELESS


#: scikit-learn's cross-validation splitters: iterating one (or its `split(...)`) hands out
#: the train and validation indices of each fold (the removed `cross_validation` package's
#: are iterated directly).
CV_SPLITTERS = frozenset(
    f"{package}.{name}"
    for package in ("model_selection", "cross_validation")
    for name in (
        "KFold",
        "StratifiedKFold",
        "GroupKFold",
        "StratifiedGroupKFold",
        "RepeatedKFold",
        "RepeatedStratifiedKFold",
        "ShuffleSplit",
        "StratifiedShuffleSplit",
        "GroupShuffleSplit",
        "LeaveOneOut",
        "LeavePOut",
        "LeaveOneGroupOut",
        "LeavePGroupsOut",
        "TimeSeriesSplit",
        "PredefinedSplit",
    )
)
#: The classes a scikit-learn estimator of one's own subclasses (`class Ensemble(BaseEstimator,
#: ClassifierMixin)`): its instances fit and predict like the library's.
ESTIMATOR_BASES = frozenset(
    f"sklearn.base.{name}"
    for name in ("BaseEstimator", "ClassifierMixin", "RegressorMixin", "TransformerMixin", "ClusterMixin")
)


def is_cv_splitter(qualname: str | None) -> bool:
    return qualname is not None and _library_key(qualname) in CV_SPLITTERS


def is_splitter(qualname: str | None) -> bool:
    return qualname is not None and _library_key(qualname) in SPLITTERS


#: The last part of every splitter's and cross-validation helper's name.
SPLIT_NAMES = frozenset(name.rsplit(".", 1)[1] for name in (*SPLITTERS, *CROSS_VALIDATION))


def cross_validation_x(qualname: str | None) -> int | None:
    """The position of `X` in a cross-validation helper's arguments, or None."""
    return CROSS_VALIDATION.get(_library_key(qualname)) if qualname is not None else None


def is_metric(qualname: str | None) -> bool:
    if qualname is None:
        return False
    parts = _parts(qualname)
    return (
        parts is not None
        and parts[1] in METRICS_PACKAGES
        and (parts[2].endswith(METRIC_SUFFIXES) or parts[2] in METRIC_NAMES)
    )


def _library_key(qualname: str) -> str:
    """Like `key`, for functions, and for cuML's copies of scikit-learn's helpers."""
    parts = _parts(qualname)
    return f"{parts[1]}.{parts[2]}" if parts is not None and parts[1] else ""


def toy_dataset(qualname: str | None, call: ast.Call) -> bool:
    """`call` (of `qualname`) loads a scikit-learn toy dataset, or generates fewer than
    `TOY_ROWS` rows: a literal `n_samples` below it, or the default."""
    if qualname is None:
        return False
    name = _library_key(qualname)
    if name in TOY_LOADERS:
        return True
    if name not in SAMPLE_GENERATORS:
        return False
    samples = next((k.value for k in call.keywords if k.arg == "n_samples"), None)
    if samples is None and call.args:
        samples = call.args[0]
    if samples is None:
        return not any(k.arg is None for k in call.keywords) and not any(isinstance(a, ast.Starred) for a in call.args)
    return isinstance(samples, ast.Constant) and type(samples.value) is int and samples.value < TOY_ROWS


def installs_cuml_accel(tree: ast.Module) -> bool:
    """The file turns on `cuml.accel` (scikit-learn's estimators then run on the GPU):
    it imports `cuml.accel` and calls its `install()`, or loads it as an IPython extension
    through `get_ipython().run_line_magic("load_ext", "cuml.accel")`."""
    imported = installed = False
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Import):
            imported |= any(alias.name == "cuml.accel" or alias.name.startswith("cuml.accel.") for alias in sub.names)
        elif isinstance(sub, ast.ImportFrom) and sub.level == 0:
            imported |= (
                sub.module == "cuml.accel" or sub.module == "cuml" and any(alias.name == "accel" for alias in sub.names)
            )
        elif isinstance(sub, ast.Call):
            func = sub.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            installed |= called == "install"
            if called == "run_line_magic" and len(sub.args) == 2 and all(isinstance(a, ast.Constant) for a in sub.args):
                if sub.args[0].value == "load_ext" and sub.args[1].value == "cuml.accel":  # type: ignore[attr-defined]
                    return True
    return imported and installed


#: Keywords that do not change the model being searched for: seeds, parallelism, logging.
#: Constructor keywords that change how an estimator runs or reports, not what it learns.
NOT_HYPERPARAMETERS = frozenset({"random_state", "n_jobs", "verbose", "copy", "copy_X"})


# -- what scikit-learn's functions and fitted estimators return ---------------------------

#: Downloaded dataset loaders (thousands of rows and more) whose bunch holds NumPy arrays
#: in its default form (`as_frame=False`): `.data`, `.target` and, for the image sets,
#: `.images`; with `return_X_y=True` they return `(data, target)`. Not the text, sparse or
#: `as_frame="auto"` ones (`fetch_20newsgroups`, `fetch_rcv1`, `fetch_openml`).
ARRAY_DATASETS = frozenset(
    [
        "datasets.fetch_california_housing",
        "datasets.fetch_covtype",
        "datasets.fetch_kddcup99",
        "datasets.fetch_olivetti_faces",
        "datasets.fetch_lfw_people",
    ]
)
#: The fields of such a bunch that are arrays.
BUNCH_ARRAYS = frozenset({"data", "target", "images"})
#: What such a loader returns: a `Bunch` (a dict whose fields are also attributes).
BUNCH = Ty(Kind.OTHER, "sklearn.utils.Bunch")
#: Fitted attributes that are NumPy arrays on every scikit-learn estimator that has them
#: (not `n_features_in_`, an int, nor `classes_`, a list of arrays for several outputs).
#: Left out: the arrays of one value per feature or component (`feature_importances_`,
#: `explained_variance_ratio_`), a handful of values that a builtin or a loop goes through
#: in microseconds.
FITTED_ARRAYS = frozenset({"coef_", "labels_", "cluster_centers_", "components_", "support_vectors_"})
#: Estimators whose `intercept_` is an array (one value per class or output); a linear
#: regressor's fitted on one target is a NumPy float (`LinearRegression`, `Ridge`, `Lasso`).
ARRAY_INTERCEPTS = frozenset(
    {
        "linear_model.LogisticRegression",
        "linear_model.LogisticRegressionCV",
        "linear_model.SGDClassifier",
        "linear_model.SGDRegressor",
        "linear_model.Perceptron",
        "linear_model.PassiveAggressiveClassifier",
        "linear_model.RidgeClassifier",
        "linear_model.RidgeClassifierCV",
        "svm.LinearSVC",
        "svm.LinearSVR",
        "svm.SVC",
        "svm.NuSVC",
        "svm.SVR",
        "svm.NuSVR",
        "svm.OneClassSVM",
        "discriminant_analysis.LinearDiscriminantAnalysis",
    }
)


def returned_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What calling scikit-learn's function `qualname` returns, where known: a downloaded
    dataset's bunch, or its `(X, y)`."""
    if call is None or env is None or not qualname.startswith("sklearn.") or has_unpacking(call):
        return None
    name = _library_key(qualname)
    if name in ("pipeline.Pipeline", "pipeline.make_pipeline"):
        return _pipeline_type(qualname, call, env)
    if name in ARRAY_DATASETS:
        if _constant(call, "as_frame", False) is not False:
            return None
        split = _constant(call, "return_X_y", False)
        if split is None:
            return None
        return _arrays(2) if split else BUNCH
    return None


def _pipeline_type(qualname: str, call: ast.Call, env: Env) -> Ty | None:
    """A pipeline whose last step is a transformer (`Pipeline([("vect", CountVectorizer()),
    ("tfidf", TfidfTransformer())])`, `make_pipeline(SimpleImputer(), StandardScaler())`) is
    a transformer too: that step's type rides along as its item. Other pipelines: None (the
    plain estimator type)."""
    if qualname.endswith("make_pipeline"):
        last = call.args[-1] if call.args else None
    else:
        steps = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "steps"), None)
        pair = steps.elts[-1] if isinstance(steps, (ast.List, ast.Tuple)) and steps.elts else None
        last = pair.elts[-1] if isinstance(pair, ast.Tuple) and len(pair.elts) == 2 else None
    step = env.type_of(last) if last is not None and not isinstance(last, ast.Starred) else None
    if step is None or step.kind != "estimator" or not transforms_as_step(step):
        return None
    return Ty(Kind.ESTIMATOR, qualname, items=(step,))


def transforms_as_step(ty: Ty) -> bool:
    """The estimator `ty` can be a pipeline's transformer step: a transformer's class, or a
    pipeline of them (`_pipeline_type`)."""
    if transforms(ty.lib):
        return True
    last = ty.items[0] if role(ty.lib) == PIPELINE and ty.items else None
    return last is not None and transforms_as_step(last)


def attribute_type(receiver: Ty, attr: str) -> Ty | None:
    """A field of a dataset bunch, or a fitted attribute of a scikit-learn estimator, that
    is a NumPy array."""
    if receiver == BUNCH:
        return Ty(Kind.ARRAY, "numpy") if attr in BUNCH_ARRAYS else None
    if receiver.kind != "estimator" or not receiver.lib.startswith("sklearn."):
        return None
    if attr in FITTED_ARRAYS or attr == "intercept_" and key(receiver.lib) in ARRAY_INTERCEPTS:
        return Ty(Kind.ARRAY, "numpy")
    return None


def _arrays(count: int) -> Ty:
    return Ty(Kind.TUPLE, "numpy", items=(Ty(Kind.ARRAY, "numpy"),) * count)


def _constant(call: ast.Call, name: str, default: bool) -> bool | None:
    """A keyword-only flag's value: `default` when not passed, None when not a constant."""
    value = argument(call, name)
    if value is None:
        return default
    return bool(value.value) if isinstance(value, ast.Constant) else None


def fitted_and_predicted(
    function: ast.FunctionDef | ast.AsyncFunctionDef, made_inside: bool = False
) -> FitPredict | None:
    """Whether `function` fits an estimator it is handed on one of its parameters and
    predicts with it on another (`clf.fit(X_train, y)`, then `clf.predict(X_test)`), none of
    the three bound again in its body: which parameters (a project helper whose callers
    chain transformers into it by hand). With `made_inside`, the estimator may also be one
    the body makes, by a statement of its own bound once (`model = RandomForestRegressor()`
    in a notebook's `score_dataset(X_train, X_valid, y_train, y_valid)`)."""
    arguments = function.args
    parameters = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
    stores: dict[str, int] = {}
    for node in walk_local(function.body):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    usable = set(parameters) - set(stores)
    made: dict[str, ast.Call] = {}
    if made_inside:
        for statement in function.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Call)
                and stores.get(statement.targets[0].id) == 1
                and statement.targets[0].id not in parameters
            ):
                made[statement.targets[0].id] = statement.value
        usable |= set(made)
    # fitted by a statement of the body itself (not under an `if` or in a loop), predicted after
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    fits: dict[str, tuple[str, int]] = {}
    for statement in function.body:
        call = statement.value if isinstance(statement, (ast.Expr, ast.Assign, ast.Return)) else None
        parts = _parameter_call(call, usable)
        if parts is not None and parts[1] == "fit":
            fits.setdefault(parts[0], (parts[2], statement.lineno))
        chained = _chained_fit_predict(call, usable)  # `clf.fit(X_train, y).predict_proba(X_test)`
        if chained is not None and chained[0] not in fits and not {chained[1], chained[2]} & set(made):
            return FitPredict(*chained, positional, made.get(chained[0]))
    predicts: dict[str, tuple[str, int]] = {}
    for node in walk_local(function.body):
        parts = _parameter_call(node, usable)
        if parts is not None and parts[1] in PREDICT_METHODS and parts[0] in fits:
            predicts.setdefault(parts[0], (parts[2], node.lineno))  # type: ignore[attr-defined]
    for estimator, (fitted, fitted_at) in fits.items():
        predicted, predicted_at = predicts.get(estimator, (fitted, 0))
        if predicted != fitted and predicted_at > fitted_at and not {fitted, predicted} & set(made):
            return FitPredict(estimator, fitted, predicted, positional, made.get(estimator))
    return None


def _chained_fit_predict(call: ast.expr | None, parameters: set[str]) -> tuple[str, str, str] | None:
    """`p.fit(q, ...).predict(r)` (or another predicting method) with `p`, `q` and `r` among
    `parameters`, `q` and `r` different: (p, q, r)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.args):
        return None
    if call.func.attr not in PREDICT_METHODS or not isinstance(call.args[0], ast.Name):
        return None
    fit = _parameter_call(call.func.value, parameters)
    predicted = call.args[0].id
    if fit is None or fit[1] != "fit" or predicted not in parameters or predicted == fit[2]:
        return None
    return fit[0], fit[2], predicted


def _parameter_call(node: ast.AST | None, parameters: set[str]) -> tuple[str, str, str] | None:
    """`p.method(q, ...)` with `p` and `q` among `parameters`: (p, method, q)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return None
    owner, data = node.func.value, node.args[0]
    if isinstance(owner, ast.Name) and isinstance(data, ast.Name) and {owner.id, data.id} <= parameters:
        return owner.id, node.func.attr, data.id
    return None

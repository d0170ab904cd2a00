"""GPU401 manual-pipeline: one finding per hand-made chain, the `make_pipeline` rewrite for
the straight-line shape (same `predict_proba`), and a suggestion for everything else."""

from __future__ import annotations

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example

HEADER = (
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "from sklearn.feature_selection import SelectKBest\n\n\n"
    "def f(X_train, y_train, X_test):\n"
    "    scaler = StandardScaler()\n"
    "    model = LogisticRegression()\n"
)
STRAIGHT = (
    "    Xs = scaler.fit_transform(X_train)\n"
    "    Xt = scaler.transform(X_test)\n"
    "    model.fit(Xs, y_train)\n"
    "    return model.predict_proba(Xt)\n"
)
SETUP = (
    "from sklearn.datasets import make_classification\n"
    "X, y = make_classification(n_samples=N + 60, n_features=8, random_state=1)\n"
    "X_train, X_test, y_train = X[:45], X[45:], y[:45]\n"
)


def _only(source: str):
    found = [d for d in lint_source(source) if d.code == "GPU401"]
    assert len(found) == 1, found
    return found[0]


def _same_predictions(source: str, fixed: str) -> None:
    pytest.importorskip("sklearn")
    for n in (0, 5, 100):
        before = run_example(SETUP, source, "f(X_train, y_train, X_test)", n=n)
        after = run_example(SETUP, fixed, "f(X_train, y_train, X_test)", n=n)
        assert_same_result(before, after, strict=False)


def test_the_straight_line_shape_becomes_one_pipeline():
    source = HEADER + STRAIGHT
    diagnostic = _only(source)
    assert diagnostic.start.line == 9 and diagnostic.fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    pipeline = make_pipeline(scaler, model)\n    pipeline.fit(X_train, y_train)\n" in fixed
    assert "return pipeline.predict_proba(X_test)" in fixed and "fit_transform" not in fixed
    assert "from sklearn.pipeline import make_pipeline\n" in fixed
    assert fix_text(source, unsafe_fixes=False) == source
    _same_predictions(source, fixed)


def test_a_supervised_transformer_given_the_same_y_is_rewritten():
    body = STRAIGHT.replace("StandardScaler", "SelectKBest").replace(
        "scaler.fit_transform(X_train)", "scaler.fit_transform(X_train, y_train)"
    )
    source = HEADER.replace("scaler = StandardScaler()", "scaler = SelectKBest(k=3)") + body
    fixed = fix_text(source, unsafe_fixes=True)
    assert "pipeline = make_pipeline(scaler, model)" in fixed
    _same_predictions(source, fixed)


def test_existing_import_and_taken_name_are_respected():
    source = (
        "from sklearn.pipeline import make_pipeline as chain\n"
        + HEADER.replace(
            "def f(X_train, y_train, X_test):\n", "def f(X_train, y_train, X_test):\n    pipeline = None\n"
        )
        + STRAIGHT
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert "pipeline_2 = chain(scaler, model)" in fixed
    assert fixed.count("import make_pipeline") == 1


MODULE_LEVEL = (
    "from sklearn.datasets import make_classification\n"
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "X, y = make_classification(n_samples=80, n_features=5, random_state=0)\n"
    "X_train, X_test, y_train = X[:60], X[60:], y[:60]\n"
    "scaler = StandardScaler()\n"
    "model = LogisticRegression()\n"
    "Xs = scaler.fit_transform(X_train)\n"
    "Xt = scaler.transform(X_test)\n"
    "model.fit(Xs, y_train)\n"
    "predictions = model.predict_proba(Xt)\n"
)


@pytest.mark.parametrize(
    "later",
    [
        "from sklearn.pipeline import make_pipeline\n",
        "from sklearn.pipeline import make_pipeline\npipeline = make_pipeline(StandardScaler())\n",
    ],
)
def test_a_chain_above_the_files_own_import_gets_an_import_that_runs_first(later):
    """`make_pipeline` imported further down is not bound yet where the chain runs."""
    pytest.importorskip("sklearn")
    source = MODULE_LEVEL + later
    fixed = fix_text(source, unsafe_fixes=True)
    assert "make_pipeline(scaler, model)" in fixed
    lines = fixed.splitlines()
    assert lines.index("from sklearn.pipeline import make_pipeline") < lines.index(
        next(line for line in lines if "make_pipeline(scaler, model)" in line)
    )
    namespace: dict = {}
    exec(compile(fixed, "fixed.py", "exec"), namespace)  # not a NameError
    assert namespace["predictions"].shape == (20, 2)
    assert fix_text(fixed, unsafe_fixes=True) == fixed


def test_a_chain_below_the_import_reuses_it():
    source = MODULE_LEVEL.replace("scaler = ", "from sklearn.pipeline import make_pipeline\nscaler = ")
    fixed = fix_text(source, unsafe_fixes=True)
    assert fixed.count("import make_pipeline") == 1 and "make_pipeline(scaler, model)" in fixed


def test_a_name_used_for_something_else_gets_no_rewrite():
    source = MODULE_LEVEL + "def make_pipeline(*steps):\n    return steps\n"
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "body",
    [
        # the supervised transformer gets no y by hand, but a Pipeline would pass it one
        STRAIGHT.replace("scaler", "selector"),
        # fitted, then applied: not the one-call shape
        "    scaler.fit(X_train)\n    Xs = scaler.transform(X_train)\n    Xt = scaler.transform(X_test)\n"
        "    model.fit(Xs, y_train)\n    return model.predict_proba(Xt)\n",
        # made and fitted in one statement
        "    fitted = StandardScaler().fit(X_train)\n    Xs = fitted.transform(X_train)\n"
        "    model.fit(Xs, y_train)\n    return model.predict_proba(fitted.transform(X_test))\n",
        # the transformed data passed inline
        "    scaler.fit(X_train)\n    model.fit(scaler.transform(X_train), y_train)\n"
        "    return model.predict_proba(scaler.transform(X_test))\n",
        # fitted again on the test data: a pipeline would apply the training fit instead
        STRAIGHT.replace("scaler.transform(X_test)", "scaler.fit_transform(X_test)"),
        # the transformed training data is used again
        STRAIGHT.replace("    return", "    print(Xs.shape)\n    return"),
        # the transformer is used between its fit and the estimator's
        STRAIGHT.replace("    model.fit", "    print(scaler.mean_)\n    model.fit"),
        # X_train may change before the pipeline would read it
        STRAIGHT.replace("    model.fit", "    X_train[0, 0] = 1.0\n    model.fit"),
        # a comment on a line the rewrite would delete
        STRAIGHT.replace("scaler.transform(X_test)", "scaler.transform(X_test)  # the held-out rows"),
        # the estimator's fit takes a keyword a Pipeline would route differently
        STRAIGHT.replace("model.fit(Xs, y_train)", "model.fit(Xs, y_train, sample_weight=None)"),
        # two transformers chained
        "    Xs = scaler.fit_transform(X_train)\n    Xk = kbest.fit_transform(Xs, y_train)\n"
        "    Xt = kbest.transform(scaler.transform(X_test))\n    model.fit(Xk, y_train)\n"
        "    return model.predict_proba(Xt)\n",
    ],
    ids=[
        "supervised-without-y",
        "fit-then-transform",
        "made-and-fitted",
        "inline-transforms",
        "refitted-on-test",
        "reused-output",
        "transformer-used",
        "data-changed",
        "comment",
        "fit-keyword",
        "two-transformers",
    ],
)
def test_other_shapes_get_a_suggestion(body):
    selectors = "    selector = SelectKBest(k=2)\n    kbest = SelectKBest(k=2)\n"
    header = HEADER.replace("    model = ", selectors + "    model = ")
    source = header + body
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY and diagnostic.fix.edits == ()
    assert "make_pipeline" in diagnostic.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


def test_the_chain_is_reported_once_on_its_first_fit():
    source = (
        "from sklearn.impute import SimpleImputer\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.svm import SVC\n\n"
        "imputer = SimpleImputer()\nscaler = StandardScaler()\n"
        "a = imputer.fit_transform(X)\n"
        "b = scaler.fit_transform(a)\n"
        "test = scaler.transform(imputer.transform(X_new))\n"
        "first = SVC().fit(b, y)\nsecond = SVC(C=10).fit(b, y)\n"
        "print(first.predict(test), second.predict(test))\n"
    )
    diagnostic = _only(source)
    assert diagnostic.start.line == 7
    assert "`imputer`, `scaler` are fitted" in diagnostic.message


def test_cuml_steps_are_found_but_only_suggested():
    source = (
        "from cuml.preprocessing import StandardScaler\nfrom cuml.linear_model import LogisticRegression\n\n"
        "scaler = StandardScaler()\nmodel = LogisticRegression()\n"
        "Xs = scaler.fit_transform(X_train)\nXt = scaler.transform(X_test)\n"
        "model.fit(Xs, y_train)\nout = model.predict(Xt)\n"
    )
    assert _only(source).fix.applicability is Applicability.DISPLAY


def test_unknown_objects_are_not_chains():
    source = (
        "import sklearn\n\n"
        "Xs = scaler.fit_transform(X_train)\nXt = scaler.transform(X_test)\n"
        "model.fit(Xs, y_train)\nout = model.predict(Xt)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU401"] == []


def test_a_test_set_transformed_with_fit_transform_is_named_in_the_message():
    source = HEADER + STRAIGHT.replace("scaler.transform(X_test)", "scaler.fit_transform(X_test)")
    assert "fitted again on the test data (`scaler.fit_transform`)" in _only(source).message


@pytest.mark.parametrize(
    "body",
    [
        # fitted on other data than it transforms: not the training data of this chain
        "    fitted = StandardScaler().fit(X_test)\n    Xs = fitted.transform(X_train)\n"
        "    model.fit(Xs, y_train)\n    return model.predict_proba(fitted.transform(X_test))\n",
        # transformed in another function: the loop's data is not followed there
        "    for weight in (1, 10):\n        model.fit(prepare(X_train), y_train)\n"
        "        print(model.predict_proba(prepare(X_test)))\n",
        # the estimator is used on untransformed test data
        "    model.fit(scaler.fit(X_train).transform(X_train), y_train)\n    return model.predict_proba(X_test)\n",
        # one model per candidate in a loop: a search by hand, GPU404's
        "    Xs = scaler.fit_transform(X_train)\n    Xt = scaler.transform(X_test)\n"
        "    for weight in (1, 10, 100):\n"
        "        model = LogisticRegression(class_weight={0: 1, 1: weight})\n"
        "        model.fit(Xs, y_train)\n"
        "        print(model.predict_proba(Xt))\n",
        # a transformer that learns nothing from its data, applied with fit_transform to a grid
        "    poly = PolynomialFeatures(2)\n    Xq = poly.fit_transform(X_train)\n    model.fit(Xq, y_train)\n"
        "    return model.predict_proba(poly.fit_transform(X_test))\n",
    ],
    ids=["fitted-on-other-data", "helper", "raw-test-data", "candidates-in-a-loop", "stateless-refit"],
)
def test_near_misses_of_the_wider_shapes(body):
    source = "from sklearn.preprocessing import PolynomialFeatures\n" + HEADER + body
    assert [d for d in lint_source(source) if d.code == "GPU401"] == []


def test_an_estimator_used_through_the_name_its_fit_returned_closes_the_chain():
    # `fit` returns the estimator itself: `fitted.predict` is the same model's
    body = STRAIGHT.replace("    model.fit(Xs", "    fitted = model.fit(Xs").replace(
        "model.predict_proba", "fitted.predict_proba"
    )
    diagnostic = _only(HEADER + body)
    assert diagnostic.start.line == 9 and diagnostic.fix.applicability is Applicability.DISPLAY
    # a name bound to another estimator's fit is no such name, nor one bound again before
    other = body.replace("fitted = model.fit(Xs", "fitted = LogisticRegression().fit(X_train")
    assert [d for d in lint_source(HEADER + other) if d.code == "GPU401"] == []
    rebound = body.replace(
        "    return fitted", "    fitted = LogisticRegression().fit(X_train, y_train)\n    return fitted"
    )
    assert [d for d in lint_source(HEADER + rebound) if d.code == "GPU401"] == []
    # bound again at the start of a compound statement: another estimator predicts in it
    loop = body.replace(
        "    return fitted.predict_proba(Xt)", "    for fitted in others:\n        print(fitted.predict_proba(Xt))"
    )
    assert [d for d in lint_source(HEADER + loop) if d.code == "GPU401"] == []
    # used, then bound again in the same statement: the use counts
    used_first = body.replace(
        "    return fitted.predict_proba(Xt)", "    fitted = fitted.predict_proba(Xt)\n    return fitted"
    )
    assert _only(HEADER + used_first).start.line == 9


PCA_HEAD = "from sklearn.decomposition import PCA\nfrom sklearn.linear_model import LinearRegression\n\n"


def test_the_first_components_taken_on_both_sides_are_still_the_chain_shown_not_rewritten():
    source = PCA_HEAD + (
        "pca = PCA()\n"
        "X_reduced = pca.fit_transform(X_train)\n"
        "X_reduced_test = pca.transform(X_test)[:, :7]\n"
        "regr = LinearRegression()\n"
        "regr.fit(X_reduced[:, :7], y_train)\n"
        "pred = regr.predict(X_reduced_test)\n"
    )
    [finding] = [d for d in lint_source(source) if d.code == "GPU401"]
    assert finding.start.line == 5 and finding.fix is not None
    assert finding.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_a_row_of_the_transformed_data_is_not_a_slice_of_components():
    source = PCA_HEAD + (
        "pca = PCA()\n"
        "X_reduced = pca.fit_transform(X_train)\n"
        "X_reduced_test = pca.transform(X_test)\n"
        "regr = LinearRegression()\n"
        "regr.fit(X_reduced[mask], y_train)\n"  # rows picked by a mask: other data
        "pred = regr.predict(X_reduced_test)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU401"] == []


SCORE_HELPER = (
    "def get_scores(model, Xtest, ytest):\n    y_pred = model.predict(Xtest)\n    return (y_pred == ytest).mean()\n\n\n"
)


@pytest.mark.parametrize(
    "body",
    [
        # both splits transformed in one statement, element by element
        "    scaler = StandardScaler().fit(X_train)\n"
        "    Xs, Xt = scaler.transform(X_train), scaler.transform(X_test)\n"
        "    model.fit(Xs, y_train)\n    return model.predict(Xt)\n",
        # the test split predicted in a function of the file, with the estimator handed to it
        "    Xs = scaler.fit_transform(X_train)\n    Xt = scaler.transform(X_test)\n"
        "    model.fit(Xs, y_train)\n    return get_scores(model, Xt, y_test)\n",
        # and by keyword
        "    Xs = scaler.fit_transform(X_train)\n    Xt = scaler.transform(X_test)\n"
        "    model.fit(Xs, y_train)\n    return get_scores(ytest=y_test, Xtest=Xt, model=model)\n",
        # a discriminant analysis applied as a transformer before another estimator
        "    lda = LinearDiscriminantAnalysis(n_components=2)\n    lda.fit(X_train, y_train)\n"
        "    Xs = lda.transform(X_train)\n    model.fit(Xs, y_train)\n"
        "    return model.predict(lda.transform(X_test))\n",
    ],
    ids=["paired-assignment", "predicted-in-a-helper", "helper-by-keyword", "lda-as-transformer"],
)
def test_chains_written_across_statements_and_helpers_are_shown(body):
    header = "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis\n" + SCORE_HELPER + HEADER
    source = header.replace("def f(X_train, y_train, X_test)", "def f(X_train, y_train, X_test, y_test)") + body
    diagnostic = _only(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "helper",
    [
        # the helper predicts on the data it was given with another model of its own
        "def get_scores(model, Xtest, ytest):\n    other = make_model()\n    return other.predict(Xtest)\n\n\n",
        # the helper rebinds the parameter before predicting
        "def get_scores(model, Xtest, ytest):\n    Xtest = load_holdout()\n    return model.predict(Xtest)\n\n\n",
        # the helper predicts on the training split it was not given as test data
        "def get_scores(model, Xtest, ytest):\n    return model.predict(ytest)\n\n\n",
    ],
    ids=["another-model", "rebound-parameter", "other-argument"],
)
def test_helpers_that_do_not_predict_on_the_transformed_test_data_are_not_followed(helper):
    body = (
        "    Xs = scaler.fit_transform(X_train)\n    Xt = scaler.transform(X_test)\n"
        "    model.fit(Xs, y_train)\n    return get_scores(model, Xt, y_test)\n"
    )
    source = helper + HEADER.replace("def f(X_train, y_train, X_test)", "def f(X_train, y_train, X_test, y_test)")
    assert [d for d in lint_source(source + body) if d.code == "GPU401"] == []


def test_a_paired_assignment_of_other_data_is_not_the_chain():
    source = HEADER + (
        "    scaler.fit(X_train)\n"
        "    Xs, Xt = scaler.transform(X_train), X_test\n"  # the test split is not transformed
        "    model.fit(Xs, y_train)\n    return model.predict(Xt)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU401"] == []


def test_a_discriminant_analysis_used_as_the_classifier_is_no_transformer_step():
    source = (
        "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis\n\n"
        "lda = LinearDiscriminantAnalysis()\nlda.fit(X_train, y_train)\n"
        "pred = lda.predict(X_test)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU401"] == []


SEARCH_HEAD = (
    "from sklearn.model_selection import GridSearchCV\nfrom sklearn.preprocessing import OneHotEncoder\n"
    "from sklearn.tree import DecisionTreeClassifier\n\n"
    "enc = OneHotEncoder()\nX_train_enc = enc.fit_transform(X_train)\nX_test_enc = enc.transform(X_test)\n"
    "search = GridSearchCV(DecisionTreeClassifier(), {'max_depth': [3, 10]})\n"
)


@pytest.mark.parametrize(
    "tail",
    [
        # the search's refitted best estimator predicts on the transformed test data
        "search.fit(X_train_enc, y_train)\nbest = search.best_estimator_\nprob = best.predict_proba(X_test_enc)\n",
        "search.fit(X_train_enc, y_train)\nprob = search.best_estimator_.predict_proba(X_test_enc)\n",
        # a sparse output made dense on both sides
        "search.fit(X_train_enc.toarray(), y_train)\nprob = search.predict_proba(X_test_enc.toarray())\n",
    ],
    ids=["best-estimator-named", "best-estimator-inline", "made-dense"],
)
def test_a_searchs_best_estimator_and_dense_outputs_are_followed(tail):
    diagnostic = _only(SEARCH_HEAD + tail)
    assert diagnostic.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "tail",
    [
        # another search's best estimator
        "search.fit(X_train_enc, y_train)\nbest = other.best_estimator_\nprob = best.predict_proba(X_test_enc)\n",
        # the best estimator used on untransformed data
        "search.fit(X_train_enc, y_train)\nprob = search.best_estimator_.predict_proba(X_test)\n",
    ],
    ids=["other-search", "raw-test-data"],
)
def test_best_estimators_that_do_not_close_the_chain_are_left_alone(tail):
    assert [d for d in lint_source(SEARCH_HEAD + tail) if d.code == "GPU401"] == []


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        # `fit` returns the estimator: scored on the transformed test data in the same statement
        (
            "    Xs = scaler.fit_transform(X_train)\n    Xt = scaler.transform(X_test)\n"
            "    return LogisticRegression().fit(Xs, y_train).score(Xt, y_train)\n",
            True,
        ),
        (
            "    Xs = scaler.fit_transform(X_train)\n"
            "    return LogisticRegression().fit(Xs, y_train).predict(scaler.transform(X_test))\n",
            True,
        ),
        # near-misses: scored on the training data, or on test data that skipped the transformer
        (
            "    Xs = scaler.fit_transform(X_train)\n    return LogisticRegression().fit(Xs, y_train).score(Xs, y_train)\n",
            False,
        ),
        (
            "    Xs = scaler.fit_transform(X_train)\n"
            "    return LogisticRegression().fit(Xs, y_train).score(X_test, y_train)\n",
            False,
        ),
    ],
)
def test_an_estimator_used_straight_after_its_fit(body, flagged):
    source = HEADER + body
    found = [d for d in lint_source(source) if d.code == "GPU401"]
    assert len(found) == (1 if flagged else 0)
    if flagged:
        assert found[0].fix is None or found[0].fix.applicability is Applicability.DISPLAY
        assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    ("made", "flagged"),
    [
        ("Pipeline([('scale', StandardScaler()), ('select', SelectKBest(k=2))])", True),
        ("make_pipeline(StandardScaler(), SelectKBest(k=2))", True),
        ("Pipeline(steps=[('scale', StandardScaler())])", True),
        # near-misses: a pipeline that ends in an estimator is the pipeline already, not a step
        ("make_pipeline(StandardScaler(), LogisticRegression())", False),
        ("Pipeline([('scale', StandardScaler()), ('model', LogisticRegression())])", False),
    ],
)
def test_a_pipeline_of_transformers_is_a_step_chained_by_hand(made, flagged):
    source = (
        "from sklearn.pipeline import Pipeline, make_pipeline\n"
        + HEADER
        + f"    prep = {made}\n"
        + "    Xs = prep.fit_transform(X_train, y_train)\n"
        + "    Xt = prep.transform(X_test)\n"
        + "    model.fit(Xs, y_train)\n"
        + "    return model.predict(Xt)\n"
    )
    found = [d for d in lint_source(source) if d.code == "GPU401"]
    assert len(found) == (1 if flagged else 0)


FILE_HELPER = """\
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.ensemble import RandomForestClassifier


def build_roc_auc(model, X_train, X_test, y_train, y_test):
{body}


reviews = pd.read_csv("reviews.csv")
train, test = reviews[:35000], reviews[35000:]
vect = CountVectorizer()
train_counts = vect.fit_transform(train.text)
test_counts = vect.transform(test.text)
forest = RandomForestClassifier(n_estimators=200)
score = build_roc_auc(forest, train_counts, test_counts, train.label, test.label)
"""


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("    return model.fit(X_train, y_train).predict_proba(X_test)", True),  # fitted and used in one chain
        ("    model.fit(X_train, y_train)\n    return model.score(X_test, y_test)", True),
        # near-misses: predicts on what it fitted, or predicts with the estimator as handed in
        ("    return model.fit(X_train, y_train).predict(X_train)", False),
        ("    return model.predict(X_test)", False),
        ("    if y_test is None:\n        model.fit(X_train, y_train)\n    return model.predict(X_test)", False),
    ],
)
def test_a_chain_fitted_and_used_in_a_function_of_the_file(body, flagged):
    source = FILE_HELPER.format(body=body)
    fitted_at = source.splitlines().index("train_counts = vect.fit_transform(train.text)") + 1
    found = [d for d in lint_source(source) if d.code == "GPU401"]
    assert [(d.start.line, "build_roc_auc" in d.message) for d in found] == ([(fitted_at, True)] if flagged else [])
    if flagged:
        assert found[0].fix is not None and found[0].fix.edits == ()


SCORE_DATASET = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.metrics import mean_absolute_error

data = pd.read_csv("melb_data.csv")
X_train, X_valid, y_train, y_valid = data[:9000], data[9000:], data.Price[:9000], data.Price[9000:]


def score_dataset(X_train, X_valid, y_train, y_valid):
{body}
    return mean_absolute_error(y_valid, preds)


imputer = SimpleImputer()
{outputs}
print(score_dataset(imputed_X_train, imputed_X_valid, y_train, y_valid))
"""
PLAIN_OUTPUTS = "imputed_X_train = imputer.fit_transform(X_train)\nimputed_X_valid = imputer.transform(X_valid)"
FRAMED_OUTPUTS = (
    "imputed_X_train = pd.DataFrame(imputer.fit_transform(X_train))\n"
    "imputed_X_valid = pd.DataFrame(imputer.transform(X_valid))\n"
    "imputed_X_train.columns = X_train.columns\nimputed_X_valid.columns = X_valid.columns"
)
MADE_INSIDE = "    model = RandomForestRegressor(n_estimators=10)\n    model.fit(X_train, y_train)\n    preds = model.predict(X_valid)"


@pytest.mark.parametrize(
    ("body", "outputs", "flagged"),
    [
        # the helper makes its estimator, fits it on one split and predicts on the other
        (MADE_INSIDE, PLAIN_OUTPUTS, True),
        # the outputs put in frames, their columns named again: still the imputer's
        (MADE_INSIDE, FRAMED_OUTPUTS, True),
        # near-misses: the estimator bound twice, or predicting on what it fitted
        (MADE_INSIDE + "\n    model = RandomForestRegressor()", PLAIN_OUTPUTS, False),
        (MADE_INSIDE.replace("predict(X_valid)", "predict(X_train)"), PLAIN_OUTPUTS, False),
        # an output changed by other code than a frame is not followed
        (
            MADE_INSIDE,
            PLAIN_OUTPUTS.replace("= imputer.fit_transform(X_train)", "= np.log(imputer.fit_transform(X_train))"),
            False,
        ),
    ],
    ids=["made-inside", "framed", "bound-twice", "same-split", "other-wrapper"],
)
def test_a_helper_that_makes_its_own_estimator_closes_the_chain(body, outputs, flagged):
    source = SCORE_DATASET.format(body=body, outputs=outputs)
    fitted_at = next(i for i, line in enumerate(source.splitlines(), 1) if "imputer.fit_transform" in line)
    found = [d for d in lint_source(source) if d.code == "GPU401"]
    assert [(d.start.line, "score_dataset" in d.message) for d in found] == ([(fitted_at, True)] if flagged else [])
    if flagged:
        assert found[0].fix is not None and found[0].fix.edits == ()


@pytest.mark.parametrize("between", ["", "    print(X_train.shape, len(scaler.mean_))\n    X_train\n"])
def test_a_chain_fitted_twice_on_the_same_data_is_reported_where_it_starts(between):
    # `scaler.fit(X_train)`, then "equivalently" `fit_transform` on the same data; reads between
    source = HEADER + "    scaler.fit(X_train)\n    Xs = scaler.transform(X_train)\n" + between + STRAIGHT
    diagnostic = _only(source)
    assert (diagnostic.start.line, diagnostic.start.col) == (9, 4)


@pytest.mark.parametrize(
    "earlier",
    [
        "    scaler.fit(X_test)\n",  # other data
        "    scaler.fit(X_train)\n    X_train = X_train[:10]\n",  # the data bound again
        "    scaler.fit(X_train)\n    scaler = StandardScaler()\n",  # another transformer
        "    scaler.fit(X_train)\n    X_train[:] = 0\n",  # the data changed in place
        "    scaler.fit(X_train)\n    from prep import X_train\n",  # bound again by an import
        "    scaler.fit(X_train)\n    X_train.values[:] = 0\n",  # changed through an attribute
        "    scaler.fit(X_train)\n    np.random.shuffle(X_train.values)\n",
        "    scaler.fit(X_train)\n    scaler.mean_[:] = 0\n",
        "    scaler.fit(X_train)\n    scaler.set_params(with_mean=False)\n",  # other settings
        # another chain's fit, transform and estimator
        "    scaler.fit(X_train)\n    Xo = scaler.transform(X_test)\n",
    ],
)
def test_an_earlier_fit_that_is_not_repeated_is_not_the_start(earlier):
    source = HEADER + earlier + STRAIGHT
    diagnostic = _only(source)
    assert diagnostic.start.line == 9 + earlier.count("\n")


def test_an_output_bound_to_another_name_before_the_fit_is_the_same_chain_shown_not_rewritten():
    # `X = dtm`: the estimator is fitted on the transformer's output under another name
    body = STRAIGHT.replace("    model.fit(Xs, y_train)\n", "    X = Xs\n    model.fit(X, y_train)\n")
    diagnostic = _only(HEADER + body)
    assert diagnostic.start.line == 9 and diagnostic.fix.applicability is Applicability.DISPLAY
    # a name bound to something else is no such name
    other = body.replace("    X = Xs\n", "    X = X_train\n")
    assert [d for d in lint_source(HEADER + other) if d.code == "GPU401"] == []

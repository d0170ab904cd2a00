"""GPU402 fit-before-split."""

from __future__ import annotations

import ast

from gpulint.dataflow import assigned_value, binding_before, binds
from gpulint.engine import RuleContext
from gpulint.estimators import PIPELINE, SEARCH, TRANSFORMER, cross_validation_x, is_splitter, is_stateless, role
from gpulint.registry import Example, Rule


class FitBeforeSplit(Rule):
    """
    ## What it does
    Flags a transformer (scaler, encoder, imputer, PCA, vectorizer, feature selector...)
    fitted on the full data whose output is then split with `train_test_split` or
    cross-validated (`cross_val_score`, `cross_validate`, `cross_val_predict`,
    `learning_curve`, `validation_curve`, `permutation_test_score`, or a search's `fit`).
    The finding is on the `fit_transform` (or `fit`) call.

    Transformers that learn nothing from the values (`FunctionTransformer`, `Normalizer`,
    `PolynomialFeatures`, `HashingVectorizer`, random projections...) are not flagged.

    ## Why is this bad?
    The transformer's statistics (means, vocabularies, principal components, selected
    features) are computed with the test rows included, so the held-out score is
    optimistic: the test data leaked into training. And because the step runs once, up
    front, it cannot be refitted per fold, tuned by a search, or run in parallel with the
    folds. Put it in a `Pipeline` with the estimator and hand the pipeline the raw data.

    ## Example
    ```python
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X_scaled = StandardScaler().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)
    ```

    ## Use instead
    ```python
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X_train, X_test, y_train, y_test = train_test_split(X, y)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
    ```

    ## Fix safety
    There is no fix: moving the fit changes the model (that is the point), and where the
    steps go depends on the estimator that follows.
    """

    code = "GPU402"
    name = "fit-before-split"
    message = "transformer fitted on all the data before it is split: the test rows leak into it"
    nodes = (ast.Call,)

    flagged = (
        Example('''\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

scaler = StandardScaler()
X_scaled = scaler.fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.2)
'''),
        Example('''\
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score


def evaluate(features, labels):
    pca = PCA(n_components=10)
    pca.fit(features)
    reduced = pca.transform(features)
    return cross_val_score(LogisticRegression(), reduced, labels, cv=5, n_jobs=-1)
'''),
        Example('''\
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

documents = TfidfVectorizer().fit_transform(texts)
search = GridSearchCV(LinearSVC(), {"C": [0.1, 1, 10]}, n_jobs=-1)
search.fit(documents, labels)
'''),
    )
    ok = (
        Example('''\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
scaler = StandardScaler()
X_train_scaled = scaler.fit_transform(X_train)
X_test_scaled = scaler.transform(X_test)
'''),
        Example('''\
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

scores = cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=5, n_jobs=-1)
'''),
        Example('''\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import PolynomialFeatures

# a fixed expansion: nothing is learned from the values
expanded = PolynomialFeatures(degree=2).fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(expanded, y)
'''),
        Example('''\
from sklearn.model_selection import train_test_split


def split(encoder, X, y):
    encoded = encoder.fit_transform(X)
    return train_test_split(encoded, y)
'''),
    )

    def __init__(self) -> None:
        self._reported: set[int] = set()

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        for data in _split_data(node, ctx):
            if not isinstance(data, ast.Name):
                continue
            fitted = _fitted_on_everything(data.id, ctx)
            if fitted is not None and id(fitted[0]) not in self._reported:
                self._reported.add(id(fitted[0]))
                ctx.report(fitted[0], f"`{fitted[1]}` is fitted on all the data before it is split: its statistics "
                                      "leak the test rows; fit it on the training split, in a `Pipeline`")


def _split_data(call: ast.Call, ctx: RuleContext) -> list[ast.expr]:
    """The data arguments a split or a cross-validation receives."""
    func = call.func
    if isinstance(func, (ast.Name, ast.Attribute)):
        qualname = ctx.qualname(func)
        if is_splitter(qualname):
            return [a for a in call.args if not isinstance(a, ast.Starred)]
        position = cross_validation_x(qualname)
        if position is not None:
            return _argument(call, position, "X")
    if isinstance(func, ast.Attribute) and func.attr == "fit":
        receiver = ctx.type_of(func.value)
        if receiver is not None and receiver.kind == "estimator" and role(receiver.lib) == SEARCH:
            return _argument(call, 0, "X")
    return []


def _argument(call: ast.Call, position: int, keyword: str) -> list[ast.expr]:
    for item in call.keywords:
        if item.arg == keyword:
            return [item.value]
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return [call.args[position]]
    return []


def _fitted_on_everything(name: str, ctx: RuleContext) -> tuple[ast.Call, str] | None:
    """When `name` was last bound to the output of a transformer fitted on the data it
    transformed: the fitting call and a short name for the transformer."""
    found = binding_before(ctx, name)
    if found is None:
        return None
    block, index = found
    value = assigned_value(block[index], name)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    method, receiver = value.func.attr, value.func.value
    if method == "fit_transform":
        return _learning(receiver, ctx, value)
    if method != "transform" or not value.args:
        return None
    source = ast.dump(value.args[0])
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "fit":
        # `t.fit(X).transform(X)`
        if receiver.args and ast.dump(receiver.args[0]) == source:
            return _learning(receiver.func.value, ctx, receiver)
        return None
    if not isinstance(receiver, ast.Name):
        return None
    for earlier in range(index - 1, -1, -1):  # `t.fit(X)` earlier in the same block
        statement = block[earlier]
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "fit"
                and isinstance(call.func.value, ast.Name) and call.func.value.id == receiver.id):
            return _learning(receiver, ctx, call) if call.args and ast.dump(call.args[0]) == source else None
        data = value.args[0]
        if binds(statement, receiver.id) or (isinstance(data, ast.Name) and binds(statement, data.id)):
            return None
    return None


def _learning(transformer: ast.expr, ctx: RuleContext, call: ast.Call) -> tuple[ast.Call, str] | None:
    """The fitting call and the transformer's short name, when it learns from the values."""
    ty = ctx.type_of(transformer)
    if ty is None or ty.kind != "estimator" or role(ty.lib) not in (TRANSFORMER, PIPELINE) or is_stateless(ty.lib):
        return None
    short = transformer.id if isinstance(transformer, ast.Name) else ty.lib.rsplit(".", 1)[1]
    return call, short

"""GPU402 fit-before-split."""

from __future__ import annotations

import ast

from gpulint.estimators import (
    PIPELINE,
    SCALING_FUNCTIONS,
    SPLIT_NAMES,
    TRANSFORMER,
    cross_validates,
    cross_validation_x,
    is_splitter,
    is_stateless,
    key,
    role,
)
from gpulint.rule_api import ESTIMATOR_TRIGGERS, Example, Rule, RuleContext, Tier, assigned_value


class FitBeforeSplit(Rule):
    """
    ## What it does
    Flags a transformer (scaler, encoder, imputer, PCA, vectorizer, feature selector...)
    fitted on the full data whose output is then split with `train_test_split` or
    cross-validated (`cross_val_score`, `cross_validate`, `cross_val_predict`,
    `learning_curve`, `validation_curve`, `permutation_test_score`, or a search's `fit`).
    The finding is on the `fit_transform` (or `fit`) call.

    ## Evidence
    The transformer's output is followed to the split through names, conversions and slices
    (`Xs.astype(np.float32)`, `Xs[:, 1:]`, `.values`, `.drop(columns=...)`), through
    `t.fit(X).transform(X)` or `t.fit(X)` (also `t = StandardScaler().fit(X)`) followed by
    `t.transform(X)`, and through a
    write-back into the data that is split: `X[:, k] = scaler.fit_transform(X[:, [k]])` or
    `df[cols] = scaler.fit_transform(df[cols])` (also in a loop over the columns). Every
    transformer of a chain fitted on all the data is reported (a scaler whose output a PCA is
    fitted on, before the PCA's output is split). A feature selector that cross-validates
    its estimator (`SequentialFeatureSelector`, `RFECV`) counts as a cross-validation of
    what it is fitted on. scikit-learn's scaling functions (`scale(X)`, `minmax_scale`,
    `robust_scale`, `maxabs_scale`, `quantile_transform`, `power_transform`) fit a scaler on
    what they are given, as `StandardScaler().fit_transform(X)` does.

    Transformers that learn nothing from the values (`FunctionTransformer`, `Normalizer`,
    `PolynomialFeatures`, `HashingVectorizer`, random projections...) are not flagged.

    ## Why is this bad?
    The transformer's statistics (means, vocabularies, principal components, selected
    features) are computed with the test rows included, so the held-out score is
    optimistic: the test data leaked into training. Under cross-validation the same
    happens in every fold: each fold's held-out rows were seen when the step was fitted,
    and the message says so. And because the step runs once, up
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
    libraries = ESTIMATOR_TRIGGERS
    name = "fit-before-split"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 24 of 36 sampled findings useful (67%, below the bar): encoders that learn a few "
        "categories, whose leak cannot change a score; the blind sets' labels: 31 of 31"
    )
    message = "transformer fitted on all the data before it is split: the test rows leak into it"
    nodes = (ast.Call,)
    calls = SPLIT_NAMES | {"fit"}

    flagged = (
        Example("""\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

scaler = StandardScaler()
X_scaled = scaler.fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.2)
"""),
        Example("""\
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score


def evaluate(features, labels):
    pca = PCA(n_components=10)
    pca.fit(features)
    reduced = pca.transform(features)
    return cross_val_score(LogisticRegression(), reduced, labels, cv=5, n_jobs=-1)
"""),
        Example("""\
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.svm import LinearSVC

documents = TfidfVectorizer().fit_transform(texts)
search = GridSearchCV(LinearSVC(), {"C": [0.1, 1, 10]}, n_jobs=-1)
search.fit(documents, labels)
"""),
        Example("""\
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler


def prepare(X, y):
    scaler = MinMaxScaler()
    X[:, 3] = scaler.fit_transform(X[:, [3]]).ravel()
    features = X[:, 1:].astype(np.float32)
    return train_test_split(features, y, test_size=0.25)
"""),
        Example("""\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

numeric = ["age", "income"]
frame[numeric] = StandardScaler().fit_transform(frame[numeric])
X_train, X_test, y_train, y_test = train_test_split(frame.drop(columns="label"), frame["label"])
"""),
    )
    ok = (
        Example(
            """\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler


def prepare(X, y, reference):
    X_train, X_test, y_train, y_test = train_test_split(X, y)
    scaler = MinMaxScaler()
    X_train[:, 3] = scaler.fit_transform(X_train[:, [3]]).ravel()  # the training part only
    X[:, 0] = scaler.fit_transform(reference[:, [0]]).ravel()  # fitted on another array
    return X_train, X_test, y_train, y_test
""",
            reason="A transformer fitted on the training part only, or on another array than the one split.",
        ),
        Example(
            """\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
scaler = StandardScaler()
X_train_scaled = scaler.fit_transform(X_train)
X_test_scaled = scaler.transform(X_test)
""",
            reason="Split first, then fitted on the training part.",
        ),
        Example(
            """\
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

scores = cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=5, n_jobs=-1)
""",
            reason="A pipeline cross-validated as a whole: the scaler is fitted within each fold.",
        ),
        Example(
            """\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import PolynomialFeatures

# a fixed expansion: nothing is learned from the values
expanded = PolynomialFeatures(degree=2).fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(expanded, y)
""",
            reason="A transformer that learns nothing from the values (`PolynomialFeatures`).",
        ),
        Example(
            """\
from sklearn.model_selection import train_test_split


def split(encoder, X, y):
    encoded = encoder.fit_transform(X)
    return train_test_split(encoded, y)
""",
            reason="A parameter with no evidence of a transformer.",
        ),
    )

    def __init__(self) -> None:
        self._reported: set[int] = set()

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        split, data = _split_data(node, ctx)
        for argument in data:
            for fitting, transformer in _fitted_on_everything(argument, ctx):
                if id(fitting) in self._reported:
                    continue
                self._reported.add(id(fitting))
                if split:
                    ctx.report(
                        fitting,
                        f"`{transformer}` is fitted on all the data before it is split: its "
                        "statistics leak the test rows; fit it on the training split, in a "
                        "`Pipeline`",
                    )
                else:
                    ctx.report(
                        fitting,
                        f"`{transformer}` is fitted on all the data before it is cross-validated: "
                        "its statistics leak each fold's held-out rows; put it in a `Pipeline` "
                        "with the estimator",
                    )


def _split_data(call: ast.Call, ctx: RuleContext) -> tuple[bool, list[ast.expr]]:
    """The data arguments a split or a cross-validation receives, and whether it is a
    train/test split (True) or a cross-validation (False)."""
    func = call.func
    if isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and func.attr in SPLIT_NAMES:
        qualname = ctx.qualname(func)
        if is_splitter(qualname):
            return True, [a for a in call.args if not isinstance(a, ast.Starred)]
        position = cross_validation_x(qualname)
        if position is not None:
            return False, _argument(call, position, "X")
    if isinstance(func, ast.Attribute) and func.attr == "fit":
        receiver = ctx.type_of(func.value)
        if receiver is not None and receiver.kind == "estimator" and cross_validates(receiver.lib):
            return False, _argument(call, 0, "X")
    return True, []


def _argument(call: ast.Call, position: int, keyword: str) -> list[ast.expr]:
    for item in call.keywords:
        if item.arg == keyword:
            return [item.value]
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return [call.args[position]]
    return []


#: Methods that hand on the same rows and values (converted, or some columns dropped).
_PASSING_METHODS = frozenset(
    {"astype", "copy", "to_numpy", "drop", "reshape", "ravel", "flatten", "squeeze", "toarray", "todense"}
)
_PASSING_CALLS = frozenset({"numpy.asarray", "numpy.array", "numpy.ascontiguousarray"})


def _passed_on(node: ast.expr, ctx: RuleContext) -> ast.expr:
    """The expression whose values `node` hands on: `X` in `X.astype(f)`, `X[:, 1:]`,
    `X.values`, `X.to_numpy()`, `X.drop(columns=c)`, `np.asarray(X)`. A transformer's output
    converted or sliced still carries what the transformer learned from all the rows."""
    while True:
        if isinstance(node, ast.Subscript) or isinstance(node, ast.Attribute) and node.attr == "values":
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PASSING_METHODS:
            node = node.func.value
        elif (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and not isinstance(node.args[0], ast.Starred)
            and ctx.qualname(node.func) in _PASSING_CALLS
        ):
            node = node.args[0]
        else:
            return node


def _fitted_on_everything(data: ast.expr, ctx: RuleContext) -> list[tuple[ast.Call, str]]:
    """When `data` (what is split) comes from transformers fitted on the data they
    transformed: each fitting call and a short name for its transformer, the last fitted
    first (`Xr = pca.fit_transform(scaler.fit_transform(X))` leaks through both).

    Followed back through the statements before the current one in the enclosing blocks of
    the function: assignments of converted or sliced values (`X = Xs.astype(f)`, `X = df[cols]`)
    lead to what they were made from, and a transformer's output written back into the data
    (`X[:, k] = scaler.fit_transform(X[:, [k]])`, `df[cols] = scaler.fit_transform(df[cols])`)
    is a leak of the data itself. The walk stops wherever control flow could bind the name
    some other way."""
    found: list[tuple[ast.Call, str]] = []
    source: ast.expr | None = _passed_on(data, ctx)
    position = ctx.position()
    if isinstance(source, ast.Call) and position is not None:  # `split(scaler.fit_transform(X), y)`
        source = _fittings_through(source, position[0], position[1], ctx, found)
    if not isinstance(source, ast.Name):
        return found
    tracked = source.id
    for block, index, outer in ctx.statements_before():
        if outer is not None:
            if ctx.binds(outer, tracked):
                return found  # a loop or a branch around the split may bind it too
            continue
        statement = block[index]
        written = _written_back(statement, tracked, block, index, ctx)
        if written is not None:
            found.append(written)
            continue
        if not ctx.binds(statement, tracked):
            continue
        value = assigned_value(statement, tracked)
        if value is None or ctx.binds(value, tracked):
            return found
        origin = _fittings_through(_passed_on(value, ctx), block, index, ctx, found)
        if not isinstance(origin, ast.Name):
            return found
        tracked = origin.id
    return found


def _fittings_through(
    value: ast.expr | None, block: list[ast.stmt], index: int, ctx: RuleContext, found: list[tuple[ast.Call, str]]
) -> ast.expr | None:
    """Follow `value` (at `block[index]`) back through the outputs of transformers fitted on
    what they transform, nested in one another (`pca.fit_transform(scale(X))`), adding each
    fitting to `found`: the data the innermost was fitted on, or None where a call on the
    way is no such fitting."""
    while isinstance(value, ast.Call):
        fitted = _fitting(value, block, index, ctx)
        if fitted is None:
            return None
        found.append(fitted)
        value = _fitted_input(fitted[0], value, ctx)
    return value


def _fitted_input(fitting: ast.Call, output: ast.Call, ctx: RuleContext) -> ast.expr | None:
    """What the transformer was fitted on and transformed (`X` in `t.fit_transform(X)`),
    itself perhaps the output of a transformer fitted earlier."""
    for call in (output, fitting):
        if call.args and not isinstance(call.args[0], ast.Starred):
            return _passed_on(call.args[0], ctx)
    return None


def _written_back(
    statement: ast.stmt, name: str, block: list[ast.stmt], index: int, ctx: RuleContext
) -> tuple[ast.Call, str] | None:
    """`name[...] = t.fit_transform(name[...])`, as a statement of its own or in the body of
    a loop or a `with` (`for c in cols: df[c] = scaler.fit_transform(df[[c]])`): the
    transformer learned from `name`'s rows and its output is now part of `name`."""
    if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        for inner in range(len(statement.body) - 1, -1, -1):
            found = _written_back(statement.body[inner], name, statement.body, inner, ctx)
            if found is not None:
                return found
        return None
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Subscript)
    ):
        return None
    target = _passed_on(statement.targets[0], ctx)
    if not (isinstance(target, ast.Name) and target.id == name):
        return None
    origin = _passed_on(statement.value, ctx)
    found = _fitting(origin, block, index, ctx) if isinstance(origin, ast.Call) else None
    if found is None or not found[0].args:
        return None
    fitted_on = _passed_on(found[0].args[0], ctx)
    return found if isinstance(fitted_on, ast.Name) and fitted_on.id == name else None


def _fitting(value: ast.Call, block: list[ast.stmt], index: int, ctx: RuleContext) -> tuple[ast.Call, str] | None:
    """`value` (at `block[index]`) is the output of a transformer fitted on the data it
    transforms: `t.fit_transform(X)`, `t.fit(X).transform(X)`, or `t.transform(X)` after
    `t.fit(X)` or `t = T().fit(X)` earlier in the same block. The fitting call and the transformer's name."""
    name = ctx.qualname(value.func) or ""
    if key(name) in SCALING_FUNCTIONS and value.args:
        return value, name.rsplit(".", 1)[1]  # `scale(X)`: fitted on X
    if not isinstance(value.func, ast.Attribute):
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
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "fit"
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == receiver.id
        ):
            return _learning(receiver, ctx, call) if call.args and ast.dump(call.args[0]) == source else None
        made = _made_fitted(statement, receiver.id)  # `t = MinMaxScaler().fit(X)`
        if made is not None:
            return _learning(made.func.value, ctx, made) if ast.dump(made.args[0]) == source else None  # type: ignore[attr-defined]
        data = value.args[0]
        if ctx.binds(statement, receiver.id) or (isinstance(data, ast.Name) and ctx.binds(statement, data.id)):
            return None
    return None


def _made_fitted(statement: ast.stmt, name: str) -> ast.Call | None:
    """The `.fit(X)` call of `name = Transformer(...).fit(X)`: made and fitted in one
    statement."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if not (isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call)):
        return None
    fits = isinstance(value.func, ast.Attribute) and value.func.attr == "fit" and isinstance(value.func.value, ast.Call)
    return value if fits and value.args else None


def _learning(transformer: ast.expr, ctx: RuleContext, call: ast.Call) -> tuple[ast.Call, str] | None:
    """The fitting call and the transformer's short name, when it learns from the values."""
    ty = ctx.type_of(transformer)
    if ty is None or ty.kind != "estimator" or role(ty.lib) not in (TRANSFORMER, PIPELINE) or is_stateless(ty.lib):
        return None
    short = transformer.id if isinstance(transformer, ast.Name) else ty.lib.rsplit(".", 1)[1]
    return call, short

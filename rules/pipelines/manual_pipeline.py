"""GPU401 manual-pipeline."""

from __future__ import annotations

import ast
from typing import TypeGuard
from dataclasses import replace

from gpulint.rule_api import (
    ESTIMATOR_TRIGGERS,
    assigned_value,
    bare_method_call,
    Applicability,
    Example,
    Rule,
    RuleContext,
    same_reference,
    Tier,
    walk_local,
)
from gpulint.estimators import (
    FitPredict,
    PREDICT_METHODS,
    PREDICTOR,
    SEARCH,
    fitted_and_predicted,
    is_stateless,
    library,
    role,
    transforms_as_step,
)
from gpulint.plans.manual_pipeline import Chain, Step


def straight_line(chain: Chain) -> bool:
    """One scikit-learn transformer fitted and applied in one call (`Xt = t.fit_transform(X)`),
    then the estimator fitted, and the test data transformed into a name before the estimator
    uses it: the shape `make_pipeline` can take over (the fixer checks the statements)."""
    if len(chain.steps) != 1 or chain.test_input is None or chain.test_input_index is None or chain.refit:
        return False
    step = chain.steps[0]
    first, transform, fit, test = step.index, chain.test_input_index, chain.fit_index, chain.test_index
    if not step.combined or not (first < transform < test and first < fit < test):
        return False
    fitted_on = chain.fit_call.args[0] if chain.fit_call.args else None
    if not (isinstance(fitted_on, ast.Name) and fitted_on.id == step.output):
        return False  # fitted on the output under another name (`X = Xt`)
    receiver = chain.test_call.func.value if isinstance(chain.test_call.func, ast.Attribute) else None
    if not (isinstance(receiver, ast.Name) and receiver.id == chain.estimator):
        return False  # predicted in a helper, or by a search's best estimator
    if assigned_value(chain.block[first], step.output) is None:
        return False  # `Xt, Xt_test = t.fit_transform(X), t.transform(X_test)`
    if assigned_value(chain.block[transform], chain.test_input) is None:
        return False
    return library(step.qualname) == "sklearn" and library(chain.estimator_qualname) == "sklearn"


class ManualPipeline(Rule):
    """
    ## What it does
    Flags transformers (scalers, encoders, imputers, PCA, vectorizers, from scikit-learn or
    cuML) that are fitted on the training data with `fit_transform` and applied to the test
    data with `transform` by hand, their outputs feeding an estimator's `fit` and its
    `predict`/`predict_proba`/`score`. One finding per hand-chained sequence, on the line
    where its first transformer is fitted.

    ## Evidence
    The transformer may be fitted with `fit_transform`, with `fit` before `transform`, or
    made and fitted in one statement (`t = StandardScaler().fit(X_train)`), and its output
    passed by name (also bound to another first: `X = Xt`) or inline
    (`est.fit(t.transform(X_train), y)`), also sliced
    (`est.fit(Xt[:, :7], y)`, the first components of a PCA: the rewrite is then only
    shown). A test set given to the
    transformer's `fit_transform` instead of `transform` (fitted again on the test data) is
    reported too, and the message says so: a pipeline applies the training fit there.
    A transformer that learns nothing from its data (`PolynomialFeatures`) may be fitted on
    anything. A pipeline of transformers (`Pipeline([("vect", CountVectorizer()), ("tfidf",
    TfidfTransformer())])`) is a transformer step too. Both splits may be transformed in one statement (`Xs, Xt = t.transform(X_train),
    t.transform(X_test)`), the test data may be predicted in a function of the file that
    receives the estimator and the data (`get_scores(model, Xt, y_test)` where the function
    calls `model.predict` on its data parameter) or straight after the estimator's fit
    (`LogisticRegression().fit(Xt, y).score(Xt_test, y_test)`), or the estimator may be fitted and used in
    a helper handed the estimator and both splits' outputs, of a project module
    (`utils.train_predict(clf, Xt, y_train, Xt_test)`, where the helper fits its estimator
    parameter on one and predicts on the other: `docs/evidence.md`) or of the file (also
    fitting and predicting in one chain: `model.fit(X_train, y).predict_proba(X_test)`, or
    with an estimator it makes itself, bound once: `def score_dataset(X_train, X_valid,
    y_train, y_valid): model = RandomForestRegressor(); model.fit(X_train, y_train); ...`),
    the outputs may be put in frames on both sides (`pd.DataFrame(imputer.transform(X_valid))`,
    their columns named again by hand), and a predictor that also transforms
    (`LinearDiscriminantAnalysis`) counts as a transformer where its `transform` is
    applied. A search's refitted `best_estimator_` may predict on the test data (also through
    a name bound to it), as may the name an estimator's `fit` returned (`fitted =
    model.fit(Xt, y)`), and a sparse output may be made dense on both sides (`Xt.toarray()`).
    These shapes get a display-only rewrite. Only straight-line code in one block is followed (as in a script, one function
    or a notebook's cells): an estimator fitted in a loop over candidates is GPU404's. Only
    names known to hold scikit-learn/cuML estimators count: a pipeline already built with
    `Pipeline`/`make_pipeline` is not flagged, nor is data transformed in a helper function.

    ## Why is this bad?
    The steps belong in one `Pipeline`. Then `cross_val_score` or `GridSearchCV` refit the
    transformers on each training fold (no test statistics leak into them), a search
    can tune the transformers' parameters too and runs the candidates in parallel
    (`n_jobs`), the fitted model is one object to save and serve, and the whole chain moves
    to the GPU as one unit by swapping in cuML's transformers and estimators. Chained by
    hand, every new use repeats the chain, and each copy is a chance to fit a transformer
    on the wrong data.

    ## Fix safety
    The fix is unsafe. It applies to the straight-line shape: one scikit-learn transformer
    `t` with `Xt = t.fit_transform(X_train)` and `Xt_test = t.transform(X_test)`, the
    estimator fitted with `est.fit(Xt, y)` and used once with `est.predict(Xt_test)` (or
    `predict_proba`, `score`, ...), the intermediate names used nowhere else. It builds
    `pipeline = make_pipeline(t, est)` where `est` was fitted, fits it on `X_train` and
    calls it on `X_test`: the same objects are fitted on the same data in the same order,
    so the predictions are the same (the tests compare `predict_proba`). A `Pipeline`
    passes `y` to the transformer's `fit_transform` too, so the rewrite is only offered
    where the code passes that same `y`, or for transformers that ignore it (scalers,
    encoders, imputers, decompositions, vectorizers). What changes: the transformed
    arrays are no longer kept in names of their own, and `X_train`/`X_test` are read when
    the pipeline is fitted and used rather than where the transformer was. Other shapes
    (several transformers, `fit` then `transform`, inline transforms, a test set fitted
    again, cuML) get a display-only suggestion: for a test set
    fitted again, a pipeline changes the predictions (it applies the training statistics).
    """

    code = "GPU401"
    libraries = ESTIMATOR_TRIGGERS
    name = "manual-pipeline"
    tier = Tier.DEFAULT
    tier_reason = (
        "Never-used code: 208 of 234 sampled findings useful (89%), 71 of 80 in the sixth sample, 10 of 20 "
        "in the seventh and eighth, whose noise is one transformed split shared on purpose by several models"
    )
    message = "transformer fitted and applied by hand before an estimator: chain the steps in a `Pipeline`"
    nodes = (ast.Call,)
    calls = None  # `est.fit(...)`, and a project helper's call (`utils.train_predict(...)`)
    fix = Applicability.UNSAFE
    suggestion = (
        "put the transformers and the estimator in one `make_pipeline(...)`, fit it on the raw training data "
        "and call it on the raw test data: each fold of a cross-validation or search then refits every step"
    )

    flagged = (
        Example(
            source="""\
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler


def churn_probability(X_train, y_train, X_test):
    scaler = StandardScaler()
    X_train_scaled = scaler.fit_transform(X_train)
    X_test_scaled = scaler.transform(X_test)
    model = LogisticRegression(max_iter=1000)
    model.fit(X_train_scaled, y_train)  # learn on the scaled features
    return model.predict_proba(X_test_scaled)
""",
            fixed="""\
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.pipeline import make_pipeline


def churn_probability(X_train, y_train, X_test):
    scaler = StandardScaler()
    model = LogisticRegression(max_iter=1000)
    pipeline = make_pipeline(scaler, model)
    pipeline.fit(X_train, y_train)  # learn on the scaled features
    return pipeline.predict_proba(X_test)
""",
            requires=("sklearn",),
            setup=(
                "from sklearn.datasets import make_classification\n"
                "X, y = make_classification(n_samples=N + 60, n_features=5, random_state=0)\n"
                "X_train, X_test, y_train = X[:40], X[40:], y[:40]\n"
            ),
            call="churn_probability(X_train, y_train, X_test)",
        ),
        Example(
            source="""\
from sklearn.decomposition import PCA
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split


def fit_price_model(features, prices):
    X_train, X_test, y_train, y_test = train_test_split(features, prices, random_state=0)
    pca = PCA(n_components=3)
    reduced_train = pca.fit_transform(X_train)
    reduced_test = pca.transform(X_test)
    model = GradientBoostingRegressor(n_estimators=20, random_state=0)
    model.fit(reduced_train, y_train)
    r2 = model.score(reduced_test, y_test)
    return model, r2
""",
            fixed="""\
from sklearn.decomposition import PCA
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline


def fit_price_model(features, prices):
    X_train, X_test, y_train, y_test = train_test_split(features, prices, random_state=0)
    pca = PCA(n_components=3)
    model = GradientBoostingRegressor(n_estimators=20, random_state=0)
    pipeline = make_pipeline(pca, model)
    pipeline.fit(X_train, y_train)
    r2 = pipeline.score(X_test, y_test)
    return model, r2
""",
            requires=("sklearn",),
            setup=(
                "from sklearn.datasets import make_regression\n"
                "features, prices = make_regression(n_samples=N + 40, n_features=6, random_state=0)\n"
            ),
            call="fit_price_model(features, prices)[1]",
        ),
        Example(
            source="""\
from sklearn.impute import SimpleImputer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

imputer = SimpleImputer()
scaler = StandardScaler()
train_filled = imputer.fit_transform(train_features)
train_scaled = scaler.fit_transform(train_filled)
test_scaled = scaler.transform(imputer.transform(test_features))
classifier = SVC().fit(train_scaled, train_labels)
predicted = classifier.predict(test_scaled)
"""
        ),
    )
    ok = (
        Example(
            """\
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

model = make_pipeline(StandardScaler(), LogisticRegression())
model.fit(X_train, y_train)
predicted = model.predict(X_test)
""",
            reason="A pipeline already built with `make_pipeline`.",
        ),
        Example(
            """\
from sklearn.preprocessing import StandardScaler

# scaled for a plot: no estimator is fitted on the result
scaler = StandardScaler()
train_scaled = scaler.fit_transform(X_train)
test_scaled = scaler.transform(X_test)
plot(train_scaled, test_scaled)
""",
            reason="Transformed data that no estimator is fitted on (scaled for a plot).",
        ),
        Example(
            """\
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

scaler = StandardScaler()
train_scaled = scaler.fit_transform(X_train)
model = LogisticRegression().fit(train_scaled, y_train)
train_accuracy = model.score(train_scaled, y_train)
""",
            reason="The fitted transformer is never applied to other data with `transform`.",
        ),
        Example(
            """\
import sklearn


def fit(model, transformer, X, y, X_new):
    Xt = transformer.fit_transform(X)
    model.fit(Xt, y)
    return model.predict(transformer.transform(X_new))
""",
            reason="Parameters with no evidence of scikit-learn or cuML estimators.",
        ),
    )

    def __init__(self) -> None:
        self._reported: set[int] = set()

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "fit"):
            self._check_helper(node, ctx)
            return
        data = _underlying(node.args[0]) if node.args else None
        if not isinstance(data, (ast.Name, ast.Call)):
            return
        receiver = ctx.type_of(func.value)
        if receiver is None or receiver.kind != "estimator" or role(receiver.lib) not in (PREDICTOR, SEARCH):
            return
        chained = _predicted_after_fit(node, ctx)  # `Estimator().fit(Xt, y).score(Xt_test, y_test)`
        estimator = (
            _estimator_name(func.value, ctx.statement) if isinstance(func.value, ast.Name) or chained is None else None
        )
        if estimator is None and chained is None:
            return
        found = self._unreported_steps(data, ctx)
        if found is None:
            return
        block, fit_index, steps = found
        given = _test_data(block, fit_index, chained[1], steps[-1], ctx) if chained is not None else None
        if given is not None:
            test: tuple[int, ast.Call, str | None, int | None, bool] | None = (fit_index, chained[0], *given)  # type: ignore[index]
        else:
            chained = None  # scored on other data there: a later use may still close the chain
            test = _test_use(block, steps, estimator, ctx) if estimator is not None else None
        if test is None:
            return
        estimator = estimator or receiver.lib.rsplit(".", 1)[-1]
        *use, refit = test
        chain = self._chain(ctx, block, steps, fit_index, node, estimator, receiver.lib, use, refit)  # type: ignore[arg-type]
        if chained is None and straight_line(chain) and not _reshaped(chain):
            chain = replace(chain, applicability=Applicability.UNSAFE)
        message = ""
        if refit:
            message = f", and fitted again on the test data (`{steps[-1].transformer}.fit_transform`)"
        _report(ctx, chain, message)

    def _unreported_steps(self, data: ast.expr, ctx: RuleContext) -> tuple[list[ast.stmt], int, list[Step]] | None:
        """The current statement's block, its index there, and the transformers fitted by hand
        on `data` before it, unless none are or their chain was reported already."""
        here = ctx.position()
        if here is None:
            return None
        block, index = here
        steps = _fitted_steps(block, index, data, ctx)
        if not steps or id(steps[0].call) in self._reported:
            return None
        return block, index, steps

    def _check_helper(self, call: ast.Call, ctx: RuleContext) -> None:
        """A helper that fits the estimator it is handed on one argument and predicts with
        it on another, of a project module (`utils.train_predict(clf, X_train_t, y_train,
        X_test_t)`) or of the file (`build_roc_auc(model, X_train, X_test, ...)` calling
        `model.fit(X_train, y).predict_proba(X_test)`), handed the outputs of transformers
        fitted on the training data and applied to the test data by hand: the same chain,
        fitted and used in the helper. The rewrite is shown, not written."""
        fits = _helper_fits(call, ctx)
        handed = fits.arguments(call) if fits is not None else None
        if handed is None:
            return
        model, fitted, predicted = handed
        receiver = ctx.type_of(model)  # the estimator handed, or the constructor the helper calls
        data = _underlying(fitted)
        if (
            receiver is None
            or receiver.kind != "estimator"
            or role(receiver.lib) not in (PREDICTOR, SEARCH)
            or not isinstance(model, ast.Name)
            and fits.made is None  # type: ignore[union-attr]
            or not isinstance(data, (ast.Name, ast.Call))
        ):
            return
        estimator = model.id if isinstance(model, ast.Name) else fits.estimator  # type: ignore[union-attr]
        found = self._unreported_steps(data, ctx)
        if found is None:
            return
        block, index, steps = found
        given = _test_data(block, index, predicted, steps[-1], ctx)
        if given is None:
            return
        holder, bound, refit = given
        chain = self._chain(
            ctx, block, steps, index, call, estimator, receiver.lib, (index, call, holder, bound), refit
        )
        _report(ctx, chain, f", fitted and used in `{ast.unparse(call.func)}`")

    def _chain(
        self,
        ctx: RuleContext,
        block: list[ast.stmt],
        steps: list[Step],
        fit_index: int,
        fit: ast.Call,
        estimator: str,
        qualname: str,
        use: tuple[int, ast.Call, str | None, int | None],
        refit: bool,
    ) -> Chain:
        """The chain found (its rewrite shown, not written, unless the caller decides
        otherwise); its first step is then reported, once."""
        self._reported.add(id(steps[0].call))
        return Chain(
            block,
            steps,
            fit_index,
            fit,
            estimator,
            qualname,
            *use,
            scope=ctx.scope,
            block_scope=ctx.statement_scope,
            refit=refit,
            applicability=Applicability.DISPLAY,
        )


def _helper_fits(call: ast.Call, ctx: RuleContext) -> FitPredict | None:
    """Which parameters of the function `call` calls fit an estimator parameter and predict
    with it: a project module's (`gpulint.project`), or one the file defines."""
    if ctx.env.project:
        exported = ctx.project_function(call)
        if exported is not None:
            return exported.fits
    if not isinstance(call.func, ast.Name):
        return None
    function = ctx.function_named(call.func.id)
    if function is None:
        return None
    return ctx.semantic.remember("fitted and predicted", function, lambda: fitted_and_predicted(function, True))


def _report(ctx: RuleContext, chain: Chain, detail: str) -> None:
    """`t` (`t`, `u`) is (are) fitted and applied by hand before the estimator, and why."""
    names = ", ".join(f"`{step.transformer}`" for step in chain.steps)
    verb = "is" if len(chain.steps) == 1 else "are"
    message = f"{names} {verb} fitted and applied by hand before `{chain.estimator}`{detail}"
    where = _first_fit(chain, ctx)
    ctx.report(where, message + ": chain the steps in a `Pipeline` (`make_pipeline`)", context=chain)


def _first_fit(chain: Chain, ctx: RuleContext) -> ast.Call:
    """Where the chain starts: its first step's fit, or an earlier fit of the same transformer
    on the same data that this one only repeats (`vect.fit(X)`, `Xt = vect.transform(X)`,
    then `Xt = vect.fit_transform(X)` "equivalently"). Between the two, a statement may
    apply the transformer to that data or only read them (`_only_reads`): any other use
    (the data changed in place or bound again, the transformer's settings, another chain's
    `transform`) ends the search."""
    step = chain.steps[0]
    first = step.call
    names = {step.transformer} | {n.id for n in ast.walk(step.source) if isinstance(n, ast.Name)}
    for statement in reversed(chain.block[: step.index]):
        fit = _fit_by(statement, step.transformer)
        if fit is not None and (fitted := _first_argument(fit)) is not None and same_reference(fitted, step.source):
            first = fit
        elif not _applies(statement, step) and (
            any(ctx.binds(statement, name) for name in names) or not _only_reads(statement, names)
        ):
            break
    return first


def _applies(statement: ast.stmt, step: Step) -> bool:
    """`Xt = t.transform(X)` for the step's transformer and data."""
    value = statement.value if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
    return (
        isinstance(value, ast.Call)
        and _receiver_of(value, ("transform",)) == step.transformer
        and (applied := _first_argument(value)) is not None
        and same_reference(applied, step.source)
    )


def _receiver_of(value: ast.expr | None, methods: tuple[str, ...]) -> str | None:
    """`name` of `name.method(...)` for one of `methods`."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in methods
        and isinstance(value.func.value, ast.Name)
    ):
        return value.func.value.id
    return None


def _only_reads(statement: ast.stmt, names: set[str]) -> bool:
    """`statement` uses `names` only to read them: the name or a chain of attributes and
    items read from it (`X.shape[0]`, `vect.vocabulary_`) shown, printed, given to `len`,
    formatted or compared. Anything else (a method called, a store through it, the value
    given to another function) may change the data or the transformer."""
    parents = {id(child): node for node in ast.walk(statement) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(statement):
        if not (isinstance(node, ast.Name) and node.id in names):
            continue
        read: ast.expr = node
        parent = parents.get(id(read))
        while (
            isinstance(parent, (ast.Attribute, ast.Subscript))
            and parent.value is read
            and isinstance(parent.ctx, ast.Load)
        ):
            read, parent = parent, parents.get(id(parent))
        if not isinstance(read.ctx, ast.Load):  # type: ignore[attr-defined]
            return False
        if isinstance(parent, (ast.Expr, ast.FormattedValue, ast.Compare)):
            continue
        if (
            isinstance(parent, ast.Call)
            and parent.func is not read
            and isinstance(parent.func, ast.Name)
            and parent.func.id in ("len", "print")
        ):
            continue
        return False
    return True


def _fit_by(statement: ast.stmt, transformer: str) -> ast.Call | None:
    """The statement's `transformer.fit(...)` or `.fit_transform(...)`, as a statement, bound
    to one name, or followed by `.transform(...)`."""
    value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "transform":
        value = value.func.value  # `t.fit(X).transform(X)`
    if isinstance(value, ast.Call) and _receiver_of(value, ("fit", "fit_transform")) == transformer:
        return value
    return None


def _predicted_after_fit(fit: ast.Call, ctx: RuleContext) -> tuple[ast.Call, ast.expr] | None:
    """The call using the estimator straight after its `fit` (`est.fit(Xt, y).score(Xt_test,
    y_test)`: `fit` returns the estimator) and the data it is given; None otherwise."""
    method = ctx.parent(fit)
    use = ctx.parent(method) if isinstance(method, ast.Attribute) else None
    if (
        isinstance(method, ast.Attribute)
        and method.attr in PREDICT_METHODS
        and isinstance(use, ast.Call)
        and use.func is method
        and use.args
        and not isinstance(use.args[0], ast.Starred)
    ):
        return use, use.args[0]
    return None


def _test_data(
    block: list[ast.stmt], index: int, given: ast.expr, last: Step, ctx: RuleContext
) -> tuple[str | None, int | None, bool] | None:
    """Whether the data a use of the estimator at statement `index` is given went through
    the last transformer's `transform` (or `fit_transform`): inline, or through a name bound
    to it before (the name and its statement's index, or None for inline), and whether the
    transformer was fitted again there."""
    data = _underlying(given)
    if _is_transform_by(data, last):
        return None, None, _refits(data)
    if isinstance(data, ast.Name):
        found = ctx.last_assignment(block, index, data.id, paired=True)
        value = _underlying(_unframed(found[1], ctx)) if found is not None else None
        if found is not None and value is not None and _is_transform_by(value, last):
            return data.id, found[0], _refits(value)
    return None


def _unframed(value: ast.expr, ctx: RuleContext) -> ast.expr:
    """`t.fit_transform(X)` of `pd.DataFrame(t.fit_transform(X))`: the transformer's output
    put in a frame (its column names then set by hand) is still its output. The rewrite is
    then not written (the fixer sees the frame)."""
    if (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Call)
        and ctx.qualname(value.func) == "pandas.DataFrame"
    ):
        return value.args[0]
    return value


def _fitted_steps(block: list[ast.stmt], index: int, data: ast.expr, ctx: RuleContext) -> list[Step]:
    """The transformers fitted by hand on the training data before the statement at
    `index` that fits on `data`: a name bound to their output, or an inline
    `t.transform(X_train)` of a transformer fitted on `X_train` earlier."""
    if isinstance(data, ast.Name):
        return _steps(block, index, data.id, ctx)
    inline = _step(block, index, data, "", ctx)
    return [inline] if inline is not None and not inline.combined else []


def _estimator_name(receiver: ast.expr, statement: ast.stmt | None) -> str | None:
    """`model` in `model.fit(...)`, or in `model = Estimator().fit(...)`."""
    if isinstance(receiver, ast.Name):
        return receiver.id
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(receiver, ast.Call)
    ):
        return statement.targets[0].id
    return None


def _transformer(node: ast.expr, ctx: RuleContext) -> str | None:
    """The class of the transformer `node` names, if it is one."""
    if not isinstance(node, ast.Name):
        return None
    ty = ctx.type_of(node)
    return ty.lib if ty is not None and ty.kind == "estimator" and transforms_as_step(ty) else None


def _first_argument(call: ast.Call) -> ast.expr | None:
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("X", "raw_documents"):
            return keyword.value
    return None


def _steps(block: list[ast.stmt], before: int, name: str, ctx: RuleContext) -> list[Step]:
    """The transformers whose outputs lead, one into the next, to `name`: first fitted first."""
    steps: list[Step] = []
    while True:
        found = ctx.last_assignment(block, before, name, paired=True)
        if found is None:
            break
        index, value = found
        if isinstance(value, ast.Name):
            name, before = value.id, index  # `X = dtm`: the same output under another name
            continue
        step = _step(block, index, _unframed(value, ctx), name, ctx)
        if step is None:
            break
        steps.append(step)
        if not isinstance(step.source, ast.Name):
            break
        name, before = step.source.id, step.index
    return steps[::-1]


def _step(block: list[ast.stmt], index: int, value: ast.expr, output: str, ctx: RuleContext) -> Step | None:
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    method, receiver = value.func.attr, value.func.value
    source = _first_argument(value)
    if source is None:
        return None
    if method == "fit_transform":
        qualname = _transformer(receiver, ctx)
        if qualname is None:
            return None
        return Step(index, value, receiver.id, qualname, source, output, True)  # type: ignore[attr-defined]
    if method != "transform":
        return None
    # `t.fit(X).transform(X)` in one expression
    if _fits_on(receiver, source):
        qualname = _transformer(receiver.func.value, ctx)  # type: ignore[attr-defined]
        if qualname is None:
            return None
        name = receiver.func.value.id  # type: ignore[attr-defined]
        return Step(index, receiver, name, qualname, source, output, False)
    # `t.fit(X)` on a line of its own, earlier
    qualname = _transformer(receiver, ctx)
    if qualname is None:
        return None
    transformer = receiver.id  # type: ignore[attr-defined]
    for earlier in range(index - 1, -1, -1):
        statement = block[earlier]
        if ctx.binds(statement, transformer):
            # `t = T(...).fit(X)`: made and fitted in one statement
            fit = statement.value if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
            if _fits_on(fit, source):
                return Step(earlier, fit, transformer, qualname, source, output, False)
            return None
        if (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute)
            and statement.value.func.attr == "fit"
            and isinstance(statement.value.func.value, ast.Name)
            and statement.value.func.value.id == transformer
        ):
            if _fits_on(statement.value, source):
                return Step(earlier, statement.value, transformer, qualname, source, output, False)
            return None
    return None


def _fits_on(call: ast.expr | None, data: ast.expr) -> TypeGuard[ast.Call]:
    """`call` is `<t>.fit(data)`: fitted on the same data (`same_reference`)."""
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "fit"
        and (fitted := _first_argument(call)) is not None
        and same_reference(fitted, data)
    )


def _test_use(
    block: list[ast.stmt], steps: list[Step], estimator: str, ctx: RuleContext
) -> tuple[int, ast.Call, str | None, int | None, bool] | None:
    """A later use of the estimator on data that went through the last transformer's
    `transform` (or `fit_transform`, fitting it again on the test data): (statement index,
    the call, the name holding the transformed data or None when the call is inline, the
    statement binding that name, whether the transformer was fitted again)."""
    last = steps[-1]
    holders = {estimator}  # and names bound to a search's `best_estimator_`
    for index in range(steps[0].index + 1, len(block)):
        best = _best_of(block[index], holders)
        if best is not None:
            holders.add(best)
            continue
        # a name that held the fitted estimator and is bound again holds something else: after
        # a simple statement, which may still use it first (`fitted = fitted.predict(Xt)`);
        # in a compound one from the start (`for fitted in others:`)
        rebound = {name for name in holders - {estimator} if ctx.binds(block[index], name)}
        if not isinstance(block[index], _SIMPLE_STATEMENTS):
            holders -= rebound
        for sub in walk_local([block[index]]):
            if not isinstance(sub, ast.Call):
                continue
            given = next(
                (found for holder in holders if (found := _predicted_on(sub, holder)) is not None),
                None,
            ) or _predicted_in_helper(sub, estimator, ctx)
            if given is None:
                continue
            data = _underlying(given)
            if _is_transform_by(data, last):
                return index, sub, None, None, _refits(data)
            if isinstance(data, ast.Name):
                found = ctx.last_assignment(block, index, data.id, paired=True)
                if found is not None and _is_transform_by(_underlying(found[1]), last):
                    return index, sub, data.id, found[0], _refits(_underlying(found[1]))
        holders -= rebound
    return None


#: Statements whose expressions all run before the names they bind are bound.
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def _best_of(statement: ast.stmt, holders: set[str]) -> str | None:
    """`best = search.best_estimator_` for a search among `holders`, or `fitted =
    model.fit(Xt, y)` (`fit` returns the estimator itself): the name now holding the fitted
    estimator, which predicts on the same transformed data."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name) and (_is_best_estimator(value, holders) or _is_fit_of(value, holders)):
        return target.id
    return None


def _is_fit_of(node: ast.expr, holders: set[str]) -> bool:
    return _receiver_of(node, ("fit",)) in holders


def _is_best_estimator(node: ast.expr, holders: set[str]) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "best_estimator_"
        and isinstance(node.value, ast.Name)
        and node.value.id in holders
    )


def _predicted_on(call: ast.Call, estimator: str) -> ast.expr | None:
    """The data of `estimator.predict(data)` (or `score`, `predict_proba`, ...), also of
    `estimator.best_estimator_.predict(data)` for a search (the rewrite is then shown only)."""
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in PREDICT_METHODS
        and (
            isinstance(func.value, ast.Name)
            and func.value.id == estimator
            or _is_best_estimator(func.value, {estimator})
        )
        and call.args
        and not isinstance(call.args[0], ast.Starred)
    ):
        return call.args[0]
    return None


def _predicted_in_helper(call: ast.Call, estimator: str, ctx: RuleContext) -> ast.expr | None:
    """The data handed with the estimator to a function of the file that predicts with one
    parameter on the other: `get_scores(model, X_test_std, y_test)` where the file has
    `def get_scores(model, Xtest, ytest): ... model.predict(Xtest)`."""
    if not isinstance(call.func, ast.Name) or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    function = ctx.function_named(call.func.id)
    if function is None:
        return None
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    given = dict(zip(parameters, call.args, strict=False))
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    model = next((p for p, value in given.items() if isinstance(value, ast.Name) and value.id == estimator), None)
    if model is None or _rebound(function, model, ctx):
        return None
    for sub in walk_local(function.body):
        data = _predicted_on(sub, model) if isinstance(sub, ast.Call) else None
        if isinstance(data, ast.Name) and data.id in given and not _rebound(function, data.id, ctx):
            return given[data.id]
    return None


def _rebound(function: ast.FunctionDef | ast.AsyncFunctionDef, parameter: str, ctx: RuleContext) -> bool:
    """The function's body binds its parameter again: what it holds there is not the argument."""
    return any(not isinstance(node, ast.arg) for node in ctx.semantic.bindings(function, parameter))


def _reshaped(chain: Chain) -> bool:
    """The estimator gets slices or conversions of the transformed data (`Xt[:, :7]`,
    `Xt.toarray()`): the rewrite is shown only, since the pipeline would need a step of its
    own for them."""
    given = [chain.fit_call.args[0], chain.test_call.args[0]]
    if chain.test_input_index is not None:
        statement = chain.block[chain.test_input_index]
        given.append(statement.value if isinstance(statement, ast.Assign) else statement)  # type: ignore[arg-type]
    return any(_underlying(value) is not value for value in given if isinstance(value, ast.expr))


#: Methods that hand on the same rows in another form: a sparse output made dense.
_CONVERSIONS = frozenset({"toarray", "todense"})


def _underlying(value: ast.expr) -> ast.expr:
    """`Xt[:, :7]` or `Xt.toarray()` -> `Xt`: the first components of a transformer's
    output (PCA's), or its sparse output made dense, taken for the estimator on both sides,
    still flow from the transformer."""
    while True:
        if isinstance(value, ast.Subscript) and _slices_only(value.slice):
            value = value.value
        elif bare_method_call(value, _CONVERSIONS):
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return value


def _slices_only(key: ast.expr) -> bool:
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    return bool(parts) and all(isinstance(part, ast.Slice) for part in parts)


def _refits(value: ast.expr) -> bool:
    """`t.fit_transform(test data)` (fitted again), where `_is_transform_by` allowed it."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "fit_transform"


def _is_transform_by(value: ast.expr, step: Step) -> bool:
    """`value` is `t.transform(other data)` for the step's transformer `t`, or
    `t.fit_transform(other data)` for one that learns statistics from its data (a scaler
    fitted again on the test set; `PolynomialFeatures` learns nothing that differs)."""
    refit = not is_stateless(step.qualname)
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and (value.func.attr == "transform" or refit and value.func.attr == "fit_transform")
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == step.transformer
    ):
        return False
    data = _first_argument(value)
    return (
        data is not None
        and not same_reference(data, step.source)
        and not (isinstance(data, ast.Name) and data.id == step.output)
    )

"""GPU405 predict-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    ESTIMATOR_TRIGGERS,
    Applicability,
    Example,
    mentions_any,
    Rule,
    RuleContext,
    same_reference,
    Tier,
)
from gpulint.estimators import PREDICT_METHODS, is_splitter

#: Methods that run a fitted estimator on rows of data.
PER_ROW_METHODS = (PREDICT_METHODS - {"score"}) | {"transform", "inverse_transform"}
#: Kinds of value whose iteration walks rows of data that already exist.
_DATA_KINDS = frozenset({"frame", "series", "ndframe", "array"})
#: Functions that make a one-row 2-D input from one row: `np.array([row])`, `pd.DataFrame([row])`.
_ONE_ROW_WRAPPERS = frozenset(
    {"numpy.array", "numpy.asarray", "pandas.DataFrame", "cudf.DataFrame", "cupy.array", "cupy.asarray"}
)
_FOR = (ast.For, ast.AsyncFor)


class PredictInLoop(Rule):
    """
    ## What it does
    Flags `predict`, `predict_proba`, `decision_function`, `transform` (and the like) of a
    scikit-learn/cuML estimator called inside a loop on one row at a time (`[row]`,
    `row.reshape(1, -1)`, `X[i:i + 1]`, `X.iloc[[i]]`, `np.array([row])`), where the loop
    walks rows that already exist: a frame or an array, `range(len(X))`, `iterrows()`,
    or a split from `train_test_split`.

    Not flagged: batches (`for batch in np.array_split(X, 10)`), a stream whose rows
    arrive one by one (its iterable is not known data), and models of unknown kind.

    ## Why is this bad?
    Each call validates its input, converts it to an array, and dispatches the model on
    a single row: the fixed cost, tens of microseconds to milliseconds, is paid per row,
    and the vectorised (and, with cuML, GPU) code inside the model never gets more than
    one row to work on. In the example below, 10,000 rows through a fitted
    `LogisticRegression` take {before:10000} one by one and {after:10000} in one call (the
    measured speedups below).

    ## Fix safety
    Display-only: stacking the rows and using the results is the author's to write. A
    batched call raises on zero rows where the loop did nothing; the documented idiom
    checks for that.
    """

    code = "GPU405"
    libraries = ESTIMATOR_TRIGGERS
    name = "predict-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 6 of 14 sampled findings useful (below the bar): one-row predicts in short loops, "
        "and a one-column selection taken for a row"
    )
    message = "estimator called on one row at a time in a loop: call it once on all the rows"
    nodes = (ast.Call,)
    calls = PER_ROW_METHODS
    fix = Applicability.DISPLAY
    #: What the loop does with each prediction varies too much to rewrite it; the
    #: suggestion says how to batch it.
    suggestion = (
        "call the estimator once on all the rows before the loop (`predictions = model.predict(X)`; "
        "stack the rows first if they are built in the loop) and read `predictions[i]` inside it"
    )

    flagged = (
        Example(
            source="""\
import numpy as np
from sklearn.linear_model import LogisticRegression


def label_rows(model: LogisticRegression, rows: np.ndarray) -> list:
    labels = []
    for row in rows:
        labels.append(model.predict([row])[0])
    return labels
""",
            idiom="""\
import numpy as np
from sklearn.linear_model import LogisticRegression


def label_rows(model: LogisticRegression, rows: np.ndarray) -> list:
    # one call for all the rows (a batched call needs at least one row)
    return list(model.predict(rows)) if len(rows) else []
""",
            requires=("sklearn",),
            setup=(
                "from sklearn.linear_model import LogisticRegression\n"
                "train = rng.normal(size=(30, 3))\n"
                "model = LogisticRegression().fit(train, (train[:, 0] > 0).astype(int))\n"
                "rows = rng.normal(size=(N, 3))\n"
            ),
            call="label_rows(model, rows)",
        ),
        Example("""\
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

X_train, X_test, y_train, y_test = train_test_split(X, y)
classifier = GaussianNB().fit(X_train, y_train)
risky = []
for i in range(len(X_test)):
    if classifier.predict_proba(X_test[i:i + 1])[0, 1] > 0.9:
        risky.append(i)
"""),
        Example("""\
import numpy as np
from sklearn.preprocessing import StandardScaler

readings = np.loadtxt("readings.csv", delimiter=",")
scaler = StandardScaler().fit(readings)
scaled = [scaler.transform(reading.reshape(1, -1)) for reading in readings]
"""),
    )
    ok = (
        Example(
            """\
import pandas as pd
from sklearn.preprocessing import StandardScaler

features = pd.read_csv("features.csv")
scaled = {}
for column in features:
    scaler = StandardScaler().fit(features[[column]])
    scaled[column] = scaler.transform(features[[column]])
""",
            reason="`features[[column]]` is one column of the frame, every row of it: not a one-row input.",
        ),
        Example(
            """\
import numpy as np
from sklearn.linear_model import LogisticRegression

model = LogisticRegression().fit(X, y)
# batches bound the memory each call needs
for batch in np.array_split(X_new, 10):
    save(model.predict(batch))
""",
            reason="Batches (`np.array_split`), not one row at a time.",
        ),
        Example(
            """\
from sklearn.linear_model import LogisticRegression

model = LogisticRegression().fit(X, y)
# a stream: the rows do not exist before the loop
for message in consumer:
    publish(model.predict([parse(message)]))
""",
            reason="A stream whose rows arrive one by one: its iterable is not known data.",
        ),
        Example(
            """\
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

for model in (LogisticRegression(), DecisionTreeClassifier()):
    model.fit(X_train, y_train)
    print(model.predict(X_test))
""",
            reason="Whole test sets predicted, one model per iteration.",
        ),
        Example(
            """\
import numpy as np
import sklearn

rows = np.zeros((10, 3))
for row in rows:
    network.predict([row])
""",
            reason="A model of unknown kind (`network`).",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (ctx.loops and isinstance(func, ast.Attribute) and func.attr in PER_ROW_METHODS):
            return
        data = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) else None
        row = _one_row(data, ctx) if data is not None else None
        if row is None:
            return
        receiver = ctx.type_of(func.value)
        if receiver is None or receiver.kind != "estimator":
            return
        loop = ctx.loops[-1]
        if isinstance(loop, ast.While):
            return  # no iterable to tell whether the rows exist before the loop
        if not mentions_any(row, _varying(loop)) or not _walks_data(loop.iter, ctx):  # type: ignore[attr-defined]
            return
        ctx.report(node, f"`{func.attr}` called on one row per iteration: call it once on all the rows")


def _one_row(node: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """The row (or row position) of a one-row 2-D input, or None."""
    if isinstance(node, ast.List) and len(node.elts) == 1 and not isinstance(node.elts[0], ast.Starred):
        return node.elts[0]
    if isinstance(node, ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "reshape"
            and len(node.args) == 2
            and _is_int(node.args[0], 1)
            and _is_int(node.args[1], -1)
        ):
            return func.value
        qualname = ctx.qualname(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qualname in _ONE_ROW_WRAPPERS and node.args:
            return _one_row(node.args[0], ctx) if isinstance(node.args[0], ast.List) else None
        if qualname == "numpy.atleast_2d" and len(node.args) == 1:
            return node.args[0]
        return None
    if isinstance(node, ast.Attribute) and node.attr == "T":  # `row.to_frame().T`
        inner = node.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "to_frame":
            return inner.func.value
        return None
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.List) and len(key.elts) == 1 and not isinstance(key.elts[0], ast.Starred):
            if _selects_columns(node.value, ctx):
                return None  # `frame[[column]]`: a DataFrame's list key picks columns
            return key.elts[0]  # `X[[i]]`, `X.iloc[[i]]`
        if (
            isinstance(key, ast.Slice)
            and key.lower is not None
            and key.step is None
            and isinstance(key.upper, ast.BinOp)
            and isinstance(key.upper.op, ast.Add)
            and same_reference(key.upper.left, key.lower)
            and _is_int(key.upper.right, 1)
        ):
            return key.lower  # `X[i:i + 1]`
    return None


def _selects_columns(indexed: ast.expr, ctx: RuleContext) -> bool:
    """`indexed[[k]]` picks columns: `indexed` is a known DataFrame itself (not its `.loc`
    or `.iloc`, whose list keys pick rows)."""
    ty = ctx.type_of(indexed)
    return ty is not None and ty.kind == "frame"


def _is_int(node: ast.expr, value: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_int(node.operand, -value)
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _varying(loop: ast.AST) -> set[str]:
    """Names that change with each iteration: the targets, and what the body assigns."""
    names = {sub.id for sub in ast.walk(loop.target) if isinstance(sub, ast.Name)}  # type: ignore[attr-defined]
    if isinstance(loop, _FOR):
        names |= {
            sub.id
            for statement in loop.body
            for sub in ast.walk(statement)
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store)
        }
    return names


def _walks_data(iterable: ast.expr, ctx: RuleContext) -> bool:
    """The loop walks rows of data that exist before it runs."""
    ty = ctx.type_of(iterable)
    if ty is not None and ty.kind in _DATA_KINDS:
        return True
    if isinstance(iterable, ast.Name):
        return _from_split(iterable.id, ctx)
    if isinstance(iterable, ast.Attribute) and iterable.attr == "values":
        return _walks_data(iterable.value, ctx)
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    if isinstance(func, ast.Attribute) and func.attr in ("iterrows", "itertuples"):
        return True
    if isinstance(func, ast.Attribute) and func.attr == "to_numpy":
        return _walks_data(func.value, ctx)
    if not isinstance(func, ast.Name) or not ctx.env.is_builtin(func.id) or not iterable.args:
        return False
    first = iterable.args[0]
    if func.id in ("enumerate", "zip"):
        return _walks_data(first, ctx)
    if func.id == "range" and len(iterable.args) == 1:
        return _row_count(first)
    return False


def _row_count(node: ast.expr) -> bool:
    """`len(X)`, `len(X.index)`, `X.shape[0]`: the number of rows of something."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        return True
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and _is_int(node.slice, 0)
    )


def _from_split(name: str, ctx: RuleContext) -> bool:
    """`name` was last bound by unpacking `train_test_split(...)`."""
    statement = ctx.reaching_assignment(name)
    value = statement.value if statement is not None else None
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, (ast.Name, ast.Attribute))
        and is_splitter(ctx.qualname(value.func))
    )

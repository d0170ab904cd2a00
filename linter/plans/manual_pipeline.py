"""What GPU401 manual-pipeline hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass
class Step:
    """One transformer fitted on the training data and applied to it by hand."""

    index: int  # of the statement that fits it, in the chain's block
    call: ast.Call  # `t.fit_transform(X)`, or the `t.fit(X)` before `t.transform(X)`
    transformer: str
    qualname: str  # the transformer's class
    source: ast.expr  # the data it is fitted on
    output: str  # the name bound to its output
    combined: bool  # `output = t.fit_transform(X)` in one call


@dataclass(frozen=True)
class Chain(Facts):
    """Transformers chained by hand into an estimator: what the rule found, and what the
    fixer needs to write the straight-line rewrite (unsafe where `straight_line` holds,
    display-only elsewhere)."""

    applicability: Applicability = field(kw_only=True)
    block: list[ast.stmt]
    steps: list[Step]  # the first fitted first
    fit_index: int  # the statement fitting the estimator
    fit_call: ast.Call
    estimator: str
    estimator_qualname: str
    test_index: int  # a statement using the fitted estimator on transformed test data
    test_call: ast.Call  # `est.predict(B)` / `est.score(B, y)` ...
    test_input: str | None  # B, bound by `B = t.transform(X_test)`; None when inline
    test_input_index: int | None
    scope: ast.AST  # the enclosing function, or the module
    block_scope: ast.AST  # the scope whose code `block` is (a class body too)
    #: The test data goes through the transformer's `fit_transform` (fitted again on it)
    #: rather than its `transform`: a pipeline would apply the training fit instead.
    refit: bool = False

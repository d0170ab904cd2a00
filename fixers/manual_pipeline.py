"""Fixer for GPU401 manual-pipeline: one transformer and one estimator become `make_pipeline`.

The straight-line shape (statements of one block, in this order, `Xt_test` also allowed
after the estimator's `fit`):

    Xt = t.fit_transform(X_train)                 (deleted)
    Xt_test = t.transform(X_test)                 (deleted)
    est.fit(Xt, y)                            ->  pipeline = make_pipeline(t, est)
                                                  pipeline.fit(X_train, y)
    out = est.predict(Xt_test)                ->  out = pipeline.predict(X_test)

Anything else gets the display-only suggestion.
"""

from __future__ import annotations

import ast
from collections import Counter

from gpulint.astutil import is_reference, mentions, same_reference
from gpulint.diagnostic import Applicability, Diagnostic, Edit, Position
from gpulint.estimators import ignores_y
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.manual_pipeline import Chain

MESSAGE = "chain the transformer and the estimator with `make_pipeline`"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    chain: Chain = diagnostic.context  # type: ignore[assignment]
    if chain.applicability is Applicability.DISPLAY:
        return Decline("the rule found the chain not written in one straight line of code")
    return _straight_line(chain, ctx)


def _positional(call: ast.Call, most: int) -> list[ast.expr] | None:
    """The call's arguments when it has only 1..`most` positional ones."""
    if call.keywords or not 1 <= len(call.args) <= most or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return list(call.args)


def _single_assignment(statement: ast.stmt, name: str) -> ast.Call | None:
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == name
        and isinstance(statement.value, ast.Call)
    ):
        return statement.value
    return None


def _count(scope: ast.AST, name: str, ctx: FixContext) -> int:
    """How many times `name` occurs in `scope`: every name of a scope counted in one walk,
    once per file, however many chains it holds."""
    counts = ctx.semantic.remember(
        "name counts", scope, lambda: Counter(node.id for node in ast.walk(scope) if isinstance(node, ast.Name))
    )
    return counts[name]  # type: ignore[index]


def _root(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _straight_line(chain: Chain, ctx: FixContext) -> Plan | Decline:
    """The rewrite of a chain the rule found `straight_line`."""
    step = chain.steps[0]
    block = chain.block
    assert chain.test_input is not None and chain.test_input_index is not None
    first, transform, fit, test = step.index, chain.test_input_index, chain.fit_index, chain.test_index
    # Xt = t.fit_transform(X_train[, y])
    fit_transform = _single_assignment(block[first], step.output)
    fit_transform_args = _positional(step.call, 2) if fit_transform is step.call else None
    # est.fit(Xt[, y]) as a statement of its own
    fit_statement = block[fit]
    fit_args = _positional(chain.fit_call, 2)
    if (
        fit_transform_args is None
        or fit_args is None
        or not isinstance(fit_statement, ast.Expr)
        or fit_statement.value is not chain.fit_call
    ):
        return Decline(
            "the fits take keywords or other arguments than the data and the target, or the fit is no statement"
        )
    train = fit_transform_args[0]
    if len(fit_transform_args) == 2:
        if len(fit_args) != 2 or not same_reference(fit_transform_args[1], fit_args[1]):
            return Decline("the transformer and the estimator are fitted on different targets")
    elif not ignores_y(step.qualname):
        return Decline("the transformer may use the target, which a pipeline would hand it")
    # Xt_test = t.transform(X_test); ... est.predict(Xt_test)
    transform_call = _single_assignment(block[transform], chain.test_input)
    transform_args = _positional(transform_call, 1) if transform_call is not None else None
    if transform_args is None or chain.test_call.args[0].id != chain.test_input:  # type: ignore[attr-defined]
        return Decline("the test data is not transformed by one plain `transform` call")
    test_data = transform_args[0]
    if not (is_reference(train) and is_reference(test_data)):
        return Decline("the training or test data is an expression, not a name or attribute")
    if _count(chain.scope, step.output, ctx) != 2 or _count(chain.scope, chain.test_input, ctx) != 2:
        return Decline("the transformed data is used besides the fit and the prediction")
    transformer, estimator = step.transformer, chain.estimator
    scope, semantic = chain.block_scope, ctx.semantic
    # Nothing in between may touch the transformer or the data it reads later than it did.
    for index in range(first + 1, test):
        statement = block[index]
        if index in (transform, fit):
            continue
        if semantic.binds(scope, transformer, statement) or (
            index > fit and semantic.binds(scope, estimator, statement)
        ):
            return Decline("code between the steps rebinds the transformer or the estimator")
        if index < fit and (mentions(statement, transformer) or mentions(statement, _root(train))):
            return Decline("code between the steps uses the transformer or the training data")
        if index > transform and mentions(statement, _root(test_data)):
            return Decline("code between the steps uses the test data")
    for statement in (block[first], block[transform]):
        if not ctx.owns_lines(statement, statement) or _has_comment(ctx, statement):
            return Decline("a statement the rewrite deletes shares its lines or holds a comment")
    indent = ctx.indent_of(fit_statement)
    if indent is None:
        return Decline("the fit shares its first line with other code")
    imported = ctx.ensure_from_import("sklearn.pipeline", "make_pipeline")
    if imported is None:
        return Decline("the file uses the name `make_pipeline` for something else")
    make_pipeline, import_edits = imported
    pipeline = ctx.fresh_name("pipeline")
    newline = ctx.source.newline
    edits = [
        *import_edits,
        _delete_lines(ctx, block[first]),
        _delete_lines(ctx, block[transform]),
        Edit(
            Position(fit_statement.lineno, 0),
            Position(fit_statement.lineno, 0),
            f"{indent}{pipeline} = {make_pipeline}({transformer}, {estimator}){newline}",
        ),
        ctx.replace_node(chain.fit_call.func.value, pipeline),  # type: ignore[attr-defined]
        ctx.replace_node(chain.fit_call.args[0], ctx.segment(train)),
        ctx.replace_node(chain.test_call.func.value, pipeline),  # type: ignore[attr-defined]
        ctx.replace_node(chain.test_call.args[0], ctx.segment(test_data)),
    ]
    return ready(chain.applicability, MESSAGE, tuple(edits))


def _has_comment(ctx: FixContext, statement: ast.stmt) -> bool:
    last = statement.end_lineno or statement.lineno
    return any("#" in ctx.source.line(line) for line in range(statement.lineno, last + 1))


def _delete_lines(ctx: FixContext, statement: ast.stmt) -> Edit:
    end = statement.end_lineno  # type: ignore[assignment]
    stop = Position(end + 1, 0) if end < len(ctx.source.line_starts) else Position(end, len(ctx.source.line(end)))
    return Edit(Position(statement.lineno, 0), stop, "")

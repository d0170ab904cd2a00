"""Every rule's own examples become tests: flagged ones are flagged once and fixed as
documented (parsing, idempotent, comments kept, same result when executed); near-misses
stay silent."""

from __future__ import annotations

import ast
import io
import tokenize

import pandas as pd
import pytest

from gpulint import Applicability, all_rules, fix_text, lint_source

from .execution import assert_same_result, run_example

FLAGGED = [(rule, index, ex) for rule in all_rules() for index, ex in enumerate(rule.flagged)]
OK = [(rule, index, ex) for rule in all_rules() for index, ex in enumerate(rule.ok)]


def _require(example) -> None:
    for module in example.requires:
        pytest.importorskip(module)


def _id(case: tuple) -> str:
    rule, index, _ = case
    return f"{rule.code}-{index}"


def _comments(source: str) -> list[str]:
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("case", FLAGGED, ids=_id)
def test_flagged_example_is_reported_once(case):
    rule, _, example = case
    codes = [d.code for d in lint_source(example.source)]
    assert codes.count(rule.code) == 1, codes


@pytest.mark.parametrize("case", OK, ids=_id)
def test_near_miss_is_silent(case):
    rule, _, example = case
    assert [d for d in lint_source(example.source) if d.code == rule.code] == []


@pytest.mark.parametrize("case", [c for c in FLAGGED if c[0].code != "GPU001"], ids=_id)
def test_fix_matches_documented_rewrite(case):
    rule, _, example = case
    fixed = fix_text(example.source, unsafe_fixes=True)
    expected = example.fixed if example.fixed is not None else example.source
    assert fixed == expected
    ast.parse(fixed)
    assert fix_text(fixed, unsafe_fixes=True) == fixed, "fixing twice must equal fixing once"
    assert sorted(_comments(example.source)) == sorted(_comments(fixed)), "comments must survive"
    assert rule.code not in [d.code for d in lint_source(fixed)] or example.fixed is None


@pytest.mark.parametrize("case", [c for c in FLAGGED if c[2].fixed is not None], ids=_id)
def test_fixed_example_computes_the_same_result(case):
    rule, _, example = case
    assert example.runnable, f"{rule.code}: a fixable example needs `setup` and `call` to be executed"
    [diagnostic] = [d for d in lint_source(example.source) if d.code == rule.code]
    strict = diagnostic.fix.applicability is Applicability.SAFE
    _require(example)
    for n in (0, 1, 7, 200):
        before = run_example(example.setup, example.source, example.call, n=n)
        after = run_example(example.setup, example.fixed, example.call, n=n)
        if example.intended is not None:
            intended = run_example(example.setup, "", example.intended, n=n)
            assert_same_result(intended, after, strict=strict)
            if n == 200:
                with pytest.raises(AssertionError):
                    assert_same_result(intended, before, strict=False)
            continue
        if n == 0 and example.new_columns_when_empty:
            assert set(after.columns) > set(before.columns)
            after = after[list(before.columns)]
        if n == 0 and example.frame_when_empty:
            assert isinstance(before, pd.DataFrame) and before.empty, type(before)
            assert isinstance(after, pd.Series) and after.empty, type(after)
            pd.testing.assert_index_equal(after.index, before.index)
            continue
        assert_same_result(before, after, strict=strict)


@pytest.mark.parametrize("case", [c for c in FLAGGED if c[2].idiom is not None], ids=_id)
def test_documented_idiom_computes_the_same_result(case):
    rule, _, example = case
    assert example.fixed is None, f"{rule.code}: an example is either fixed or has an idiom, not both"
    assert example.runnable, f"{rule.code}: an idiom needs `setup` and `call` to be executed"
    assert rule.code not in [d.code for d in lint_source(example.idiom)], "the idiom must not be flagged"
    _require(example)
    for n in (0, 1, 7, 200):
        before = run_example(example.setup, example.source, example.call, n=n)
        after = run_example(example.setup, example.idiom, example.call, n=n)
        assert_same_result(before, after, strict=False)


@pytest.mark.parametrize("case", [c for c in FLAGGED if c[2].fixed is not None], ids=_id)
def test_safe_fix_needs_no_unsafe_flag(case):
    rule, _, example = case
    [diagnostic] = [d for d in lint_source(example.source) if d.code == rule.code]
    without_unsafe = fix_text(example.source, unsafe_fixes=False)
    if diagnostic.fix.applicability is Applicability.SAFE:
        assert without_unsafe == example.fixed
    else:
        assert without_unsafe == example.source
